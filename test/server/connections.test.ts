// A connection's cost bounded (issue 26): a client that never reads its
// replies stops being read and, past a limit, is dropped; the number of
// connections is bounded and the one past it is told why; a request half sent
// (or no hello) is timed out, a quiet connection is not. A real supervisor in
// this process, real sockets.

import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { PROTOCOL_VERSION } from '../../src/protocol/wire.js';
import { startServer, type ServerHandle, type ServerOptions } from '../../src/server/server.js';
import { killRunGroups, until } from '../support/harness.js';
import { remote } from '../support/in-process.js';

const closers: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c();
});

async function serve(limits: ServerOptions['limits'], config?: unknown): Promise<{ dir: string; handle: ServerHandle; sock: string }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'orcr-t-'));
  fs.chmodSync(dir, 0o700);
  if (config !== undefined) fs.writeFileSync(path.join(dir, 'config.json'), JSON.stringify(config));
  const handle = await startServer(dir, () => undefined, { limits });
  closers.push(async () => {
    await handle.close();
    killRunGroups(dir);
    fs.rmSync(dir, { recursive: true, force: true });
  });
  return { dir, handle, sock: path.join(dir, 'orcr.sock') };
}

/** A raw connection: what it was sent, whether it is closed. */
function raw(sock: string): { s: net.Socket; got: () => string; closed: () => boolean } {
  const s = net.connect(sock);
  let got = '';
  let closed = false;
  s.on('data', (c) => (got += c.toString()));
  s.on('error', () => undefined);
  s.on('close', () => (closed = true));
  closers.push(() => void s.destroy());
  return { s, got: () => got, closed: () => closed };
}

const hello = (id = 0): string => JSON.stringify({ id, method: 'hello', params: { version: PROTOCOL_VERSION } }) + '\n';

describe('a client that never reads', () => {
  it('is not read while its replies wait, and the others are answered meanwhile', async () => {
    const { dir, handle, sock } = await serve({ pauseQueuedBytes: 256 * 1024 });
    const r = remote(dir);
    closers.push(() => r.disconnect());
    // Replies of some size: a listing of 40 runs (~50 KB); 600 of them would be 28 MB queued.
    await r.call('queue.pause', { paused: true });
    await r.call('run.enqueue', { specs: Array.from({ length: 40 }, (_, i) => ({ name: `q-${i}`, command: ['true'], cwd: dir })) });
    const c = net.connect(sock);
    c.on('error', () => undefined);
    closers.push(() => void c.destroy());
    await new Promise((res) => c.once('connect', res));
    c.pause(); // never reads
    const requests = hello() + Array.from({ length: 600 }, (_, i) => JSON.stringify({ id: i + 1, method: 'run.list', params: {} })).join('\n') + '\n';
    c.write(requests);
    await until(
      () => handle.connections().notReading >= 1,
      () => `the supervisor to stop reading it: ${JSON.stringify(handle.connections())}`,
    );
    // What waits for it is bounded near the pause mark (a few listings over it at most), not 600 listings.
    expect(handle.connections().queuedBytes).toBeLessThan(4 * 1024 * 1024);
    const t0 = Date.now();
    await r.call('stats');
    expect(Date.now() - t0).toBeLessThan(2000);
    expect(handle.connections().queuedBytes).toBeLessThan(4 * 1024 * 1024);
    // Reading again, it gets every reply, in order.
    let got = '';
    c.on('data', (d) => (got += d.toString()));
    c.resume();
    await until(() => got.split('\n').length > 601, 'every reply');
    const ids = got
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l).id as number);
    expect(ids).toEqual(Array.from({ length: 601 }, (_, i) => i));
  });

  it('is dropped once more is queued for it than the limit (events pushed to a subscriber included)', async () => {
    const { dir, handle, sock } = await serve({ maxQueuedBytes: 64 * 1024 });
    const sub = raw(sock);
    sub.s.write(hello() + JSON.stringify({ id: 1, method: 'subscribe', params: {} }) + '\n');
    await until(
      () => sub.got().includes('"id":1'),
      () => `subscribed: ${sub.got()}`,
    );
    sub.s.pause();
    const r = remote(dir);
    closers.push(() => r.disconnect());
    await r.call('queue.pause', { paused: true });
    for (let i = 0; i < 20 && handle.connections().count > 1; i++) {
      await r.call('run.enqueue', { specs: Array.from({ length: 100 }, (_, j) => ({ name: `e-${i}-${j}`, command: ['true'], cwd: dir })) });
    }
    // Only the caller's connection is left (a paused socket on this side does not see its close).
    await until(
      () => handle.connections().count === 1,
      () => `the subscriber dropped: ${JSON.stringify(handle.connections())}`,
    );
  });
});

describe('a client that pipelines waits and leaves', () => {
  it('is let go with its waits at once, not when the runs it waited for end', async () => {
    const { dir, handle, sock } = await serve(undefined);
    const r = remote(dir);
    closers.push(() => r.disconnect());
    await r.call('run.enqueue', { specs: [{ name: 'long', command: ['sleep', '300'], cwd: dir }] });
    const waits = (n: number) =>
      Array.from({ length: n }, (_, i) => JSON.stringify({ id: i + 1, method: 'run.wait', params: { refs: ['long'] } })).join('\n') + '\n';
    // Each has as many waits in flight as a connection may (8), more waiting behind them, when it sends the rest and goes.
    const leavers = Array.from({ length: 5 }, () => {
      const c = raw(sock);
      c.s.write(hello() + waits(10));
      return c;
    });
    await until(async () => (await r.call<{ waits: number }>('server.status')).waits === 40, 'their first waits to begin');
    for (const c of leavers) c.s.end(waits(190));
    // The supervisor closes its side once it has read that.
    await until(() => leavers.every((c) => c.closed()), "the supervisor to close the leavers' connections");
    let st: { clients: number; waits: number } | null = null;
    await until(
      async () => {
        st = await r.call<{ clients: number; waits: number }>('server.status');
        return st.clients === 1 && st.waits === 0;
      },
      () => `the leavers let go: ${JSON.stringify(st)} ${JSON.stringify(handle.connections())}`,
    );
  });
});

describe('the number of connections', () => {
  it('is bounded: the one past the limit is told why and closed', async () => {
    const { handle, sock } = await serve({ maxConnections: 4 });
    const held = Array.from({ length: 4 }, () => raw(sock));
    await until(() => handle.connections().count === 4, 'four connections');
    const fifth = raw(sock);
    await until(() => fifth.closed(), 'the fifth closed');
    expect(fifth.got()).toMatch(/"code":"unavailable".*connections, its most/);
    expect(held.some((h) => h.closed())).toBe(false);
  });
});

describe('a request half sent', () => {
  it('is timed out, as is a connection that never says hello; a quiet greeted one is not', async () => {
    const { handle, sock } = await serve({ halfRequestMs: 300 });
    const quiet = raw(sock);
    quiet.s.write(hello());
    await until(() => quiet.got().includes('"id":0'), 'hello answered');
    const half = raw(sock);
    half.s.write(hello() + '{"id":1,"meth');
    const mute = raw(sock);
    await until(() => handle.connections().count === 3, 'three connections');
    await until(() => half.closed() && mute.closed(), 'the half-sent and the mute ones closed');
    expect(quiet.closed()).toBe(false);
    expect(handle.connections().count).toBe(1);
  });
});
