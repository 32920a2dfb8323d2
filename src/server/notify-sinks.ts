// The ways a notification leaves the supervisor, one attempt each, bounded in
// time: a webhook (JSON), an ntfy topic (a short text), a program (JSON on its
// stdin), notify-send. Each resolves once delivered and rejects with why not;
// retries and queueing are notify-queue.ts's.

import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/** How long one attempt may take before it counts as failed. */
const ATTEMPT_TIMEOUT_MS = 5_000;

export interface Message {
  /** The webhook payload (also a command's stdin). */
  json: string;
  /** One line for people (ntfy, the desktop). */
  text: string;
}

export interface Sink {
  /** Same key, same destination: a config reload keeps its queue. */
  key: string;
  /** For server.log: where, without the secret part of a URL (its path and query). */
  label: string;
  send(msg: Message): Promise<void>;
}

async function post(url: string, body: string, headers: Record<string, string>): Promise<void> {
  const res = await fetch(url, { method: 'POST', body, headers, signal: AbortSignal.timeout(ATTEMPT_TIMEOUT_MS), redirect: 'error' });
  // The body is not read: dropping it frees the connection.
  await res.body?.cancel().catch(() => undefined);
  if (!res.ok) throw new Error(`HTTP ${res.status}`);
}

export function webhookSink(url: string): Sink {
  return {
    key: `webhook ${url}`,
    label: `webhook ${new URL(url).host}`,
    send: (m) => post(url, m.json, { 'content-type': 'application/json', 'user-agent': 'orcr' }),
  };
}

export function ntfySink(url: string): Sink {
  return {
    key: `ntfy ${url}`,
    label: `ntfy ${new URL(url).host}`,
    send: (m) => post(url, m.text, { 'content-type': 'text/plain; charset=utf-8', title: 'orcr', tags: 'robot', 'user-agent': 'orcr' }),
  };
}

/** A program given the JSON on stdin; a non-zero exit, or no exit within the timeout, is a failure. */
export function commandSink(argv: readonly string[]): Sink {
  return {
    key: `command ${JSON.stringify(argv)}`,
    label: `command ${path.basename(argv[0]!)}`,
    send: (m) =>
      new Promise<void>((resolve, reject) => {
        const child = spawn(argv[0]!, argv.slice(1), { stdio: ['pipe', 'ignore', 'pipe'] });
        let stderr = '';
        const timer = setTimeout(() => child.kill('SIGKILL'), ATTEMPT_TIMEOUT_MS);
        child.stderr.setEncoding('utf8');
        child.stderr.on('data', (c: string) => {
          stderr = (stderr + c).slice(-500);
        });
        child.on('error', (e) => {
          clearTimeout(timer);
          reject(e);
        });
        child.on('close', (code, signal) => {
          clearTimeout(timer);
          if (code === 0) resolve();
          else
            reject(
              new Error(
                `${signal ? `killed by ${signal} (no exit within ${ATTEMPT_TIMEOUT_MS / 1000}s)` : `exit ${code}`}${stderr.trim() ? `: ${stderr.trim().split('\n').pop()}` : ''}`,
              ),
            );
        });
        // A program that exits without reading its stdin is its own business; its exit code says how it went.
        child.stdin.on('error', () => undefined);
        child.stdin.end(m.json);
      }),
  };
}

/** notify-send's path on this PATH, or null: the supervisor has no terminal to write OSC 9 to. */
export function findNotifySend(env: NodeJS.ProcessEnv = process.env): string | null {
  for (const dir of (env.PATH ?? '').split(path.delimiter)) {
    if (dir === '') continue;
    const file = path.join(dir, 'notify-send');
    try {
      fs.accessSync(file, fs.constants.X_OK);
      return file;
    } catch {
      /* not here */
    }
  }
  return null;
}

export function desktopSink(notifySend: string): Sink {
  return {
    key: `desktop ${notifySend}`,
    label: 'notify-send',
    send: (m) =>
      new Promise<void>((resolve, reject) => {
        execFile(notifySend, ['--app-name=orcr', 'orcr', m.text], { timeout: ATTEMPT_TIMEOUT_MS, killSignal: 'SIGKILL' }, (err) =>
          err ? reject(err) : resolve(),
        );
      }),
  };
}
