// `orcr logs`: a run's output, as text or as normalized entries (--json).
// The run directory belongs to the user, so the client reads it directly
// (src/client/run-output.ts), read-only; the run's state comes from the server.
// An agent's output may hold escape sequences (a clipboard write, a title
// change): text mode shows them stripped, --json keeps them, escaped.
// Pretty mode (the default on a terminal) shows the transcript: the inputs,
// what the agent said, its tool calls and their results folded to a line,
// turn ends with usage and cost (src/agents/transcript.ts); raw mode (the
// default when piped) the lines as written.

import path from 'node:path';
import { createAdapter, createDetectingAdapter } from '../agents/index.js';
import type { Adapter, Signal } from '../agents/signals.js';
import type { Protocol } from '../core/types.js';
import { isProtocol } from '../agents/registry.js';
import type { Client } from '../client/client.js';
import { OutputFollower, readAll, readInputs, readLines } from '../client/run-output.js';
import { createTranscript, type Entry } from '../agents/transcript.js';
import { entryRows, type RowStyle } from '../text/transcript-lines.js';
import { useColor } from './format.js';
import { RemoteError } from '../protocol/errors.js';
import { safeText } from '../text/terminal-text.js';
import { jsonText } from '../text/json-text.js';

/** One output line for a terminal: its text, nothing a terminal would obey. */
const shown = (line: string): string => safeText(line.replace(/\r$/, '')).replace(/\n/g, ' ');

function adapterFor(protocol: string | null): Adapter {
  return protocol && isProtocol(protocol) ? createAdapter(protocol) : createDetectingAdapter();
}

/** Normalized entries for --json: everything but raw output lines, which come as {kind:"output"}. */
export function logEntries(lines: string[], protocol: string | null): Signal[] {
  const adapter = adapterFor(protocol);
  const out: Signal[] = [];
  for (const l of lines) out.push(...adapter.line(l));
  out.push(...(adapter.end?.() ?? []));
  return out;
}

/** How `orcr logs` prints: normalized entries, the transcript, or the lines as written. */
export type LogsMode = 'json' | 'pretty' | 'raw';

/** The protocol a transcript reads with (null: detected from the output). */
const protocolOf = (p: string | null): Protocol | null => (p && isProtocol(p) ? p : null);

// Colours of the transcript's rows (dim for what is context, not content).
const ROW_COLORS: Partial<Record<RowStyle, string>> = {
  prompt: '\x1b[1;36m',
  input: '\x1b[36m',
  tool: '\x1b[33m',
  result: '\x1b[2m',
  'result.failed': '\x1b[31m',
  turn: '\x1b[2m',
  'turn.failed': '\x1b[31m',
  error: '\x1b[31m',
  hold: '\x1b[35m',
  approval: '\x1b[35m',
  decision: '\x1b[32m',
  'decision.denied': '\x1b[31m',
  raw: '\x1b[2m',
};

/** Writes transcript entries as rows of the terminal's width, coloured when colour is on. */
function transcriptWriter(write: (text: string) => void): (entries: Entry[]) => void {
  const color = useColor();
  const width = process.stdout.isTTY && process.stdout.columns ? process.stdout.columns : 100;
  return (entries) => {
    const rows = entries.flatMap((e) => entryRows(e, width));
    if (rows.length === 0) return;
    write(rows.map((r) => (color && ROW_COLORS[r.style] ? `${ROW_COLORS[r.style]}${r.text}\x1b[0m` : r.text)).join('\n') + '\n');
  };
}

/** Print a run's output (or its tail) through `write` (stdout). */
export function printLogs(file: string, protocol: string | null, tail: number | null, mode: LogsMode, write: (text: string) => void): void {
  printLines(readLines(file), path.dirname(file), protocol, tail, mode, write);
}

/** Lines of a run's output printed in `mode`; `dir`: its folder here (the inputs sent, for the transcript), null for another machine's run. */
export function printLines(
  read: string[],
  dir: string | null,
  protocol: string | null,
  tail: number | null,
  mode: LogsMode,
  write: (text: string) => void,
): void {
  let lines = read;
  if (mode === 'pretty') {
    const t = createTranscript(protocolOf(protocol), { inputs: dir === null ? [] : readInputs(dir) });
    let e = lines.flatMap((l) => t.line(l));
    e.push(...t.end());
    if (tail !== null) e = e.slice(Math.max(0, e.length - tail));
    transcriptWriter(write)(e);
    return;
  }
  if (mode === 'json') {
    let e = logEntries(lines, protocol);
    if (tail !== null) e = e.slice(Math.max(0, e.length - tail));
    write(jsonText(e, 2) + '\n');
    return;
  }
  if (tail !== null) lines = lines.slice(Math.max(0, lines.length - tail));
  if (lines.length) write(lines.map(shown).join('\n') + '\n');
}

/** How a followed run's lines are written in `mode`: through the adapter (--json), the transcript (pretty), or as written. */
function followedLines(file: string, protocol: string | null, mode: LogsMode, out: (text: string) => void) {
  const adapter = adapterFor(protocol);
  const inputsOf = (): ReturnType<typeof readInputs> => readInputs(path.dirname(file));
  const transcript = createTranscript(protocolOf(protocol), { inputs: mode === 'pretty' ? inputsOf() : [] });
  const write = mode === 'pretty' ? transcriptWriter(out) : null;
  const emit = (line: string): void => {
    if (mode === 'json') for (const s of adapter.line(line)) out(jsonText(s) + '\n');
    else if (write) write(transcript.line(line));
    else out(shown(line) + '\n');
  };
  return {
    emit,
    /** What the run had written before the follow began, or its tail. */
    existing: (existing: string[], tail: number | null): void => {
      if (write) {
        // --tail counts transcript entries here, as without --follow.
        const entries: Entry[] = existing.flatMap((l) => transcript.line(l));
        write(tail === null ? entries : entries.slice(Math.max(0, entries.length - tail)));
      } else {
        // Feed skipped lines to the adapter too, so turn and usage state stay right.
        const start = tail === null ? 0 : Math.max(0, existing.length - tail);
        existing.forEach((l, i) => (i >= start ? emit(l) : adapter.line(l)));
      }
    },
    /** New lines: a send while following has its text recorded before the output it causes. */
    more: (lines: string[]): void => {
      if (write) transcript.setInputs(inputsOf());
      lines.forEach(emit);
    },
    /** The run is over: the transcript's last entries. */
    end: (): void => {
      if (write) {
        transcript.setInputs(inputsOf());
        write(transcript.end());
      }
    },
  };
}

/**
 * Settles once the run has ended (0), following the supervisor through its
 * restarts; rejects when it is stopped on purpose or cannot be reached again.
 * `drain` runs once, with the client in use, before it settles.
 */
function untilEnded(client: Client, uuid: string, reconnect: () => Promise<Client>, drain: (current: Client) => void): Promise<number> {
  let current = client;
  return new Promise<number>((resolve, reject) => {
    // Once: the close that finishing causes is not a supervisor gone away to reconnect to.
    let done = false;
    const finish = (): void => {
      if (done) return;
      done = true;
      drain(current);
      resolve(0);
    };
    const attach = async (cl: Client): Promise<void> => {
      current = cl;
      cl.onEvent((m) => {
        if (m.event.run === uuid && m.event.type === 'ended') finish();
      });
      cl.onClose((stopped) => {
        if (done) return;
        if (stopped) {
          done = true;
          drain(current);
          reject(new RemoteError('stopped', 'the supervisor was stopped (orcr server stop); the run goes on, no more output is followed'));
          return;
        }
        reconnect().then(attach, (e: unknown) => {
          done = true;
          drain(current);
          reject(e);
        });
      });
      await cl.call('subscribe', {});
      const now = await cl.call('run.resolve', { ref: uuid });
      if (now.status === 'ended') finish();
    };
    attach(client).catch(reject);
  });
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
  mode: LogsMode,
  uuid: string,
  reconnect: () => Promise<Client>,
  out: (text: string) => void,
): Promise<number> {
  const log = followedLines(file, protocol, mode, out);
  const { lines: existing, wholeEnd } = readAll(file);
  log.existing(existing, tail);
  const follower = new OutputFollower(file, wholeEnd, log.more, 250);
  const drain = (current: Client): void => {
    follower.read();
    const last = follower.flushPartial();
    if (last !== null) log.emit(last);
    log.end();
    follower.close();
    current.close();
  };
  // The follower's timers do not hold the process open; this does, until the run ends.
  const keepAlive = setInterval(() => undefined, 1 << 30);
  try {
    follower.start();
    return await untilEnded(client, uuid, reconnect, drain);
  } finally {
    clearInterval(keepAlive);
  }
}
