// `orcr logs`: a run's output, as text or as normalized entries (--json).
// The run directory belongs to the user, so the client reads it directly
// (src/client/run-output.ts), read-only; the run's state comes from the server.
// An agent's output may hold escape sequences (a clipboard write, a title
// change): text mode shows them stripped, --json keeps them, escaped.

import { createAdapter, createDetectingAdapter } from '../agents/index.js';
import type { Adapter, Signal } from '../agents/signals.js';
import { PROTOCOLS, type Protocol } from '../core/types.js';
import type { Client } from '../client/client.js';
import { OutputFollower, readAll, readLines } from '../client/run-output.js';
import { RemoteError } from '../server/protocol.js';
import { safeText } from '../text/terminal-text.js';
import { jsonText } from '../text/json-text.js';

/** One output line for a terminal: its text, nothing a terminal would obey. */
const shown = (line: string): string => safeText(line.replace(/\r$/, '')).replace(/\n/g, ' ');

function adapterFor(protocol: string | null): Adapter {
  return protocol && (PROTOCOLS as readonly string[]).includes(protocol)
    ? createAdapter(protocol as Protocol)
    : createDetectingAdapter();
}

/** Normalized entries for --json: everything but raw output lines, which come as {kind:"output"}. */
function entries(lines: string[], protocol: string | null): Signal[] {
  const adapter = adapterFor(protocol);
  const out: Signal[] = [];
  for (const l of lines) out.push(...adapter.line(l));
  out.push(...(adapter.end?.() ?? []));
  return out;
}

export function printLogs(file: string, protocol: string | null, tail: number | null, json: boolean): void {
  let lines = readLines(file);
  if (json) {
    let e = entries(lines, protocol);
    if (tail !== null) e = e.slice(Math.max(0, e.length - tail));
    process.stdout.write(jsonText(e, 2) + '\n');
    return;
  }
  if (tail !== null) lines = lines.slice(Math.max(0, lines.length - tail));
  if (lines.length) process.stdout.write(lines.map(shown).join('\n') + '\n');
}

/**
 * Print what is there (or its tail), then stream new lines until the run
 * ends. A supervisor that restarts is followed to the next one (never
 * started from here); one stopped on purpose ends the follow (code `stopped`).
 */
export async function followLogs(
  client: Client,
  file: string,
  protocol: string | null,
  tail: number | null,
  json: boolean,
  uuid: string,
  reconnect: () => Promise<Client>,
): Promise<number> {
  const adapter = adapterFor(protocol);
  const { lines: existing, wholeEnd } = readAll(file);
  const start = tail === null ? 0 : Math.max(0, existing.length - tail);
  const emit = (line: string): void => {
    if (json) for (const s of adapter.line(line)) process.stdout.write(jsonText(s) + '\n');
    else process.stdout.write(shown(line) + '\n');
  };
  // Feed skipped lines to the adapter too, so turn and usage state stay right.
  existing.forEach((l, i) => (i >= start ? emit(l) : adapter.line(l)));
  const follower = new OutputFollower(file, wholeEnd, (lines) => lines.forEach(emit), 250);
  let current = client;
  const drain = (): void => {
    follower.read();
    const last = follower.flushPartial();
    if (last !== null) emit(last);
    follower.close();
    current.close();
  };
  // The follower's timers do not hold the process open; this does, until the run ends.
  const keepAlive = setInterval(() => undefined, 1 << 30);
  try {
    return await new Promise<number>((resolve, reject) => {
      const finish = (): void => {
        drain();
        resolve(0);
      };
      const attach = async (cl: Client): Promise<void> => {
        current = cl;
        cl.onEvent((m) => {
          if (m.event.run === uuid && m.event.type === 'ended') finish();
        });
        cl.onClose((stopped) => {
          if (stopped) {
            drain();
            reject(new RemoteError('stopped', 'the supervisor was stopped (orcr server stop); the run goes on, no more output is followed'));
            return;
          }
          reconnect().then(attach, (e: unknown) => {
            drain();
            reject(e);
          });
        });
        await cl.call('subscribe', {});
        const now = await cl.call<{ status: string }>('run.resolve', { ref: uuid });
        if (now.status === 'ended') finish();
      };
      follower.start();
      attach(client).catch(reject);
    });
  } finally {
    clearInterval(keepAlive);
  }
}
