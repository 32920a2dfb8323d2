// A connection dropped during `orcr run` (issue 26): the client names its
// runs before sending and, on a drop, sends the same request again on a new
// connection; the supervisor answers with the runs made under those names,
// or queues them now — once, whether the first try was committed or not.
// A real supervisor in this process; between it and the SDK a socket relay
// that loses one connection at the chosen moment, as a crash would.

import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { connect } from '../../src/sdk/index.js';
import { LiveHome } from '../support/in-process.js';

const closers: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c();
});

/**
 * A home whose socket relays to `target`'s. The first connection that sends
 * run.enqueue is cut: `after` the supervisor's answer (committed, the answer
 * lost) or `before` the request reaches it (nothing queued).
 */
async function relay(target: string, when: 'after' | 'before'): Promise<{ dir: string; cuts: () => number }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'orcr-relay-'));
  fs.chmodSync(dir, 0o700);
  let cut = 0;
  const server = net.createServer((client) => {
    const upstream = net.connect(path.join(target, 'orcr.sock'));
    let armed = false;
    client.on('error', () => undefined);
    upstream.on('error', () => undefined);
    client.on('data', (d) => {
      if (cut === 0 && d.toString().includes('"run.enqueue"')) {
        cut++;
        if (when === 'before') {
          client.destroy();
          upstream.destroy();
          return;
        }
        armed = true;
      }
      upstream.write(d);
    });
    upstream.on('data', (d) => {
      if (armed && /"runs":\[/.test(d.toString())) {
        client.destroy();
        upstream.destroy();
        return;
      }
      client.write(d);
    });
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((r) => server.listen(path.join(dir, 'orcr.sock'), r));
  closers.push(async () => {
    await new Promise<void>((r) => server.close(() => r()));
    fs.rmSync(dir, { recursive: true, force: true });
  });
  return { dir, cuts: () => cut };
}

describe('a connection lost while runs are queued', () => {
  for (const when of ['after', 'before'] as const) {
    it(`queues them once when the connection drops ${when === 'after' ? 'after the commit (the answer lost)' : 'before the request arrived'}`, async () => {
      const h = await LiveHome.start();
      closers.push(() => h.cleanup());
      const r = await relay(h.dir, when);
      const orcr = await connect({ home: r.dir, autoStart: false });
      closers.push(() => orcr.close());
      const one = await orcr.run({ name: `one-${when}`, command: ['true'], cwd: h.dir });
      expect(r.cuts()).toBe(1);
      // A batch (`run --from`) the same: the first cut has been spent, so this goes through whole.
      const batch = await orcr.runMany([
        { name: `b1-${when}`, command: ['true'], cwd: h.dir },
        { name: `b2-${when}`, command: ['true'], cwd: h.dir },
      ]);
      const all = await h.ps({ all: true });
      expect(all.map((x) => x.name).sort()).toEqual([`b1-${when}`, `b2-${when}`, `one-${when}`]);
      expect(all.find((x) => x.name === `one-${when}`)!.uuid).toBe(one.uuid);
      expect(batch.map((b) => b.name)).toEqual([`b1-${when}`, `b2-${when}`]);
    });
  }

  it('a batch cut after its commit is answered with the runs it made, not queued again', async () => {
    const h = await LiveHome.start();
    closers.push(() => h.cleanup());
    const r = await relay(h.dir, 'after');
    const orcr = await connect({ home: r.dir, autoStart: false });
    closers.push(() => orcr.close());
    const specs = Array.from({ length: 5 }, (_, i) => ({ name: `batch-${i}`, command: ['true'], cwd: h.dir }));
    const made = await orcr.runMany(specs);
    expect(r.cuts()).toBe(1);
    const all = await h.ps({ all: true });
    expect(all.length).toBe(5);
    expect(made.map((m) => m.uuid).sort()).toEqual(all.map((a) => a.uuid).sort());
  });

  it('the server takes uuids once: a repeat answers with the same runs', async () => {
    const h = await LiveHome.start();
    closers.push(() => h.cleanup());
    const uuids = ['6f1c1b7e-8a7d-4c2e-9a57-1b2c3d4e5f60', '7a2d2c8f-9b8e-4d3f-8b68-2c3d4e5f6071'];
    const specs = uuids.map((_, i) => ({ name: `u-${i}`, command: ['true'], cwd: h.dir }));
    const first = await h.call<{ runs: { uuid: string }[] }>('run.enqueue', { specs, uuids });
    const again = await h.call<{ runs: { uuid: string }[] }>('run.enqueue', { specs, uuids });
    expect(first.runs.map((x) => x.uuid)).toEqual(uuids);
    expect(again.runs.map((x) => x.uuid)).toEqual(uuids);
    expect((await h.ps({ all: true })).length).toBe(2);
    await expect(h.call('run.enqueue', { specs, uuids: [uuids[0]] })).rejects.toMatchObject({ code: 'usage' });
  });
});
