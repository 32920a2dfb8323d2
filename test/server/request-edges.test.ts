// Requests a program may send that no orcr client does, each answered with
// what is wrong: a protocol version sent as a string, uuids that do not match
// the specs, a uuid sent again with another spec, the events of a loop that
// never was.

import net from 'node:net';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { until } from '../support/harness.js';
import { useLiveHomes } from '../support/in-process.js';

const home = useLiveHomes();

/** The first reply on a raw connection to `dir`'s socket to this one line. */
async function firstReply(dir: string, line: string): Promise<{ result?: unknown; error?: { code: string; message: string } }> {
  const socket = net.createConnection(path.join(dir, 'orcr.sock'));
  let got = '';
  socket.setEncoding('utf8');
  socket.on('data', (d: string) => (got += d));
  socket.write(line + '\n');
  try {
    await until(() => got.includes('\n'), 'a reply', 10_000, 10);
  } finally {
    socket.destroy();
  }
  return JSON.parse(got.split('\n')[0]!);
}

describe('requests no orcr client sends', () => {
  it('hello with the version as the string "1" is told it must be the number', async () => {
    const h = await home({});
    await h.call('server.status');
    const r = await firstReply(h.dir, JSON.stringify({ id: 1, method: 'hello', params: { version: '1' } }));
    expect(r.error?.code).toBe('version');
    expect(r.error?.message).toBe('protocol version "1" is not spoken here (server speaks 1, a number); send it as a number: 1');
    const other = await firstReply(h.dir, JSON.stringify({ id: 1, method: 'hello', params: { version: 7 } }));
    expect(other.error?.message).toBe('protocol version 7 is not spoken here (server speaks 1, a number)');
  });

  it('uuids: a count that does not match the specs, and one uuid given twice, are each said as they are', async () => {
    const h = await home({});
    const u = '6f1c1b7e-8a7d-4c2e-9a57-1b2c3d4e5f60';
    const specs = [0, 1].map((i) => ({ name: `u-${i}`, command: ['true'], cwd: h.dir }));
    await expect(h.call('run.enqueue', { specs, uuids: [u] })).rejects.toMatchObject({ code: 'usage', message: 'uuids: one per spec: 2 specs, 1 uuid' });
    await expect(h.call('run.enqueue', { specs, uuids: [u, u] })).rejects.toMatchObject({
      code: 'usage',
      message: `uuids: ${u} is given twice; one distinct uuid per spec`,
    });
    expect(await h.ps({ all: true })).toEqual([]);
  });

  it('a uuid sent again with another spec is a conflict, not the old run as a success; the same spec again is a repeat', async () => {
    const h = await home({});
    const u = '7a2d2c8f-9b8e-4d3f-8b68-2c3d4e5f6071';
    const spec = { name: 'first', command: ['true'], cwd: h.dir };
    const made = await h.call<{ runs: { uuid: string; name: string }[] }>('run.enqueue', { specs: [spec], uuids: [u] });
    expect(made.runs.map((r) => r.name)).toEqual(['first']);
    expect((await h.call<{ runs: { uuid: string }[] }>('run.enqueue', { specs: [spec], uuids: [u] })).runs.map((r) => r.uuid)).toEqual([u]);
    await expect(h.call('run.enqueue', { specs: [{ ...spec, name: 'second', command: ['false'] }], uuids: [u] })).rejects.toMatchObject({
      code: 'conflict',
      message: `the uuid ${u} names the run "first", made from another spec; nothing was queued`,
    });
    expect((await h.ps({ all: true })).map((r) => r.name)).toEqual(['first']);
  });

  it('loop.events of a loop that never was is not found; a removed loop keeps its history', async () => {
    const h = await home({});
    await expect(h.call('loop.events', { name: 'nope' })).rejects.toMatchObject({ code: 'not_found', message: 'no loop "nope"' });
    const cli = await h.cli(['loop', 'logs', 'nope']);
    expect(cli.code).toBe(6);
    await h.call('loop.create', { name: 'tick', cron: '0 0 1 1 *', tz: 'UTC', command: ['true'], cwd: h.dir });
    await h.call('loop.remove', { name: 'tick' });
    const history = await h.call<{ events: { type: string }[] }>('loop.events', { name: 'tick' });
    expect(history.events.map((e) => e.type)).toContain('loop_created');
  });
});
