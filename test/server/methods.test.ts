// The method table and the server agree: every method has a handler and no
// handler serves a method the table lacks; the writes are the table's; and a
// supervisor whose journal cannot be written refuses every write (and only
// writes) with the words users know, before looking at the parameters.
// The supervisor runs in this process, on a temporary home, behind its real socket.

import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { METHOD_NAMES, METHODS, WRITES } from '../../src/protocol/methods.js';
import { HANDLERS } from '../../src/server/handlers/index.js';
import { startServer, type ServerHandle } from '../../src/server/server.js';

/** The writes as server.ts listed them by hand before the table: the table must not lose or gain one. */
const WRITES_BEFORE = [
  'approval.answer',
  'cluster.forget',
  'run.enqueue',
  'run.kill',
  'run.send',
  'provider.resume',
  'gc',
  'run.rerun',
  'queue.pause',
  'run.takeover',
  'worktree.finish',
  'worktree.prune',
  'loop.create',
  'loop.pause',
  'loop.remove',
  'loop.start',
  'loop.stop',
];

describe('the method table', () => {
  it('has a handler for every method and no handler beside it', () => {
    expect(Object.keys(HANDLERS).sort()).toEqual([...METHOD_NAMES].sort());
    for (const m of METHOD_NAMES) expect(typeof HANDLERS[m], m).toBe('function');
  });

  it('derives the writes refused while degraded, and they are the ones there were', () => {
    expect([...WRITES].sort()).toEqual([...WRITES_BEFORE].sort());
    for (const m of METHOD_NAMES) expect(WRITES.has(m), m).toBe(METHODS[m].writes);
  });
});

type Reply = { id: number | null; result?: unknown; error?: { code: string; message: string } };

/** A raw connection: one request at a time, its reply. */
async function connect(socketPath: string): Promise<{ call(method: string, params?: unknown): Promise<Reply>; close(): void }> {
  const socket = net.createConnection(socketPath);
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  let buf = '';
  const waiting: ((r: Reply) => void)[] = [];
  socket.setEncoding('utf8');
  socket.on('data', (d: string) => {
    buf += d;
    for (let nl = buf.indexOf('\n'); nl >= 0; nl = buf.indexOf('\n')) {
      const line = buf.slice(0, nl);
      buf = buf.slice(nl + 1);
      const msg = JSON.parse(line) as Reply & { type?: string };
      if (msg.type === undefined) waiting.shift()?.(msg);
    }
  });
  let id = 0;
  return {
    call: (method, params = {}) =>
      new Promise<Reply>((resolve) => {
        waiting.push(resolve);
        socket.write(JSON.stringify({ id: ++id, method, params }) + '\n');
      }),
    close: () => socket.destroy(),
  };
}

describe('parameters as the table declares them', () => {
  let handle: ServerHandle | null = null;
  let dir = '';
  afterEach(async () => {
    await handle?.close();
    handle = null;
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('a status that is no run status is refused, naming the statuses', async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'orcr-m-'));
    fs.chmodSync(dir, 0o700);
    handle = await startServer(dir, () => undefined);
    const c = await connect(path.join(dir, 'orcr.sock'));
    try {
      await c.call('hello', { version: 1 });
      const refused = { error: { code: 'usage', message: 'status: must be one of queued, starting, working, idle, blocked, ended' } };
      expect(await c.call('run.list', { status: 'bogus' })).toMatchObject(refused);
      expect(await c.call('run.select', { status: 'done' })).toMatchObject(refused);
      expect(await c.call('run.list', { status: 'ended' })).toMatchObject({ result: { runs: [] } });
    } finally {
      c.close();
    }
  });
});

describe('a supervisor that cannot write its journal', () => {
  let handle: ServerHandle | null = null;
  let dir = '';
  afterEach(async () => {
    vi.useRealTimers();
    await handle?.close();
    handle = null;
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('refuses every write, whatever its parameters, and still answers reads', async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'orcr-m-'));
    fs.chmodSync(dir, 0o700);
    handle = await startServer(dir, () => undefined);
    // The probe that finds the journal writable again is an interval: held still, the supervisor stays degraded.
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    handle.supervisor.degrade('disk I/O error (test)');
    const c = await connect(path.join(dir, 'orcr.sock'));
    try {
      expect((await c.call('hello', { version: 1 })).result).toMatchObject({ version: 1 });
      for (const m of WRITES) {
        expect(await c.call(m, { nonsense: true }), m).toMatchObject({
          error: { code: 'unavailable', message: 'the journal cannot be written (disk I/O error (test)); orcr starts and changes nothing until it can' },
        });
      }
      // Reads go on: parameters are still checked, with zod's words.
      expect((await c.call('server.status')).result).toMatchObject({ degraded: 'disk I/O error (test)' });
      expect(await c.call('run.get', {})).toMatchObject({ error: { code: 'usage', message: expect.stringMatching(/^ref: /) } });
      expect(await c.call('no.such')).toMatchObject({ error: { code: 'usage', message: 'unknown method "no.such"' } });
    } finally {
      c.close();
    }
  });

  it('closes once, however often it is asked', async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'orcr-m-'));
    fs.chmodSync(dir, 0o700);
    handle = await startServer(dir, () => undefined);
    await Promise.all([handle.close(), handle.close()]);
    await handle.close();
    expect(fs.existsSync(path.join(dir, 'orcr.sock'))).toBe(false);
  });
});
