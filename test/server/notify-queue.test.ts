// A sink's outbox on its own: a destination that is down for long loses its
// oldest notifications, not the supervisor's memory; a refused connection is
// logged with its reason.

import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ATTEMPTS, MAX_QUEUED, SinkQueue } from '../../src/server/notify-queue.js';
import { commandSink, webhookSink } from '../../src/server/notify-sinks.js';
import { until } from '../support/harness.js';

let dirs: string[] = [];
afterEach(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  dirs = [];
});
const tmp = (): string => {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'orcr-nq-'));
  dirs.push(d);
  return d;
};

describe('a sink queue', () => {
  it(`holds at most ${MAX_QUEUED} notifications: a sink that is behind drops the oldest, says so, and sends the rest in order`, async () => {
    const d = tmp();
    const gate = path.join(d, 'gate');
    const out = path.join(d, 'out');
    const logs: string[] = [];
    const q = new SinkQueue(commandSink(['sh', '-c', 'while [ ! -f "$0" ]; do sleep 0.02; done; cat >> "$1"; echo >> "$1"', gate, out]), (m) => logs.push(m));
    const extra = 4;
    // The first goes out at once (and waits at the gate); the queue behind it fills up and overflows.
    for (let n = 0; n <= MAX_QUEUED + extra; n++) q.push({ json: JSON.stringify({ n }), text: `n ${n}` });
    expect(logs.filter((l) => l.includes('is behind'))).toHaveLength(extra);
    fs.writeFileSync(gate, '');
    const sent = () =>
      fs.existsSync(out)
        ? fs
            .readFileSync(out, 'utf8')
            .trim()
            .split('\n')
            .map((l) => (JSON.parse(l) as { n: number }).n)
        : [];
    await until(
      () => sent().length === MAX_QUEUED + 1,
      () => `${MAX_QUEUED + 1} delivered, got ${sent().length}`,
    );
    expect(sent()).toEqual([0, ...Array.from({ length: MAX_QUEUED }, (_, i) => i + 1 + extra)]);
  });

  it(`a refused connection is tried ${ATTEMPTS} times and logged with its reason`, async () => {
    // A port that was just free: nothing listens on it.
    const port = await new Promise<number>((resolve) => {
      const s = net.createServer().listen(0, '127.0.0.1', () => {
        const p = (s.address() as net.AddressInfo).port;
        s.close(() => resolve(p));
      });
    });
    const logs: string[] = [];
    new SinkQueue(webhookSink(`http://127.0.0.1:${port}/secret-path`), (m) => logs.push(m)).push({ json: '{}', text: '' });
    await until(
      () => logs.some((l) => l.includes('gave up')),
      () => `the give-up, got ${JSON.stringify(logs)}`,
    );
    expect(logs).toHaveLength(ATTEMPTS);
    expect(logs.at(-1)).toMatch(new RegExp(`^notify: webhook 127\\.0\\.0\\.1:${port}: gave up after ${ATTEMPTS} attempts \\(fetch failed: .*ECONNREFUSED`));
    expect(logs.join('\n')).not.toContain('secret-path');
  });
});
