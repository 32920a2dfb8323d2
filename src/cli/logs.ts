// `orcr logs`: a run's output, as text or as normalized entries (--json).
// The run directory belongs to the user, so the client reads it directly.
// An agent's output may hold escape sequences (a clipboard write, a title
// change): text mode shows them stripped, --json keeps them, escaped.

import fs from 'node:fs';
import { createAdapter, createDetectingAdapter } from '../agents/index.js';
import type { Adapter, Signal } from '../agents/signals.js';
import { PROTOCOLS, type Protocol } from '../core/types.js';
import { Tailer } from '../runtime/tailer.js';
import type { Client } from '../client/client.js';
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

function readLines(file: string): string[] {
  let text = '';
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return [];
  }
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
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
  const existing = readLines(file);
  const start = tail === null ? 0 : Math.max(0, existing.length - tail);
  const emit = (line: string): void => {
    if (json) for (const s of adapter.line(line)) process.stdout.write(jsonText(s) + '\n');
    else process.stdout.write(shown(line) + '\n');
  };
  // Feed skipped lines to the adapter too, so turn and usage state stay right.
  existing.forEach((l, i) => (i >= start ? emit(l) : adapter.line(l)));
  let size = 0;
  try {
    const text = fs.readFileSync(file);
    size = text.lastIndexOf(10) + 1;
  } catch {
    size = 0;
  }
  const tailer = new Tailer(file, size, (lines) => lines.forEach((l) => emit(l.text)), 250);
  let current = client;
  const drain = (): void => {
    tailer.read();
    const last = tailer.flushPartial();
    if (last) emit(last.text);
    tailer.close();
    current.close();
  };
  // The tailer's timers do not hold the process open; this does, until the run ends.
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
      tailer.start();
      attach(client).catch(reject);
    });
  } finally {
    clearInterval(keepAlive);
  }
}
