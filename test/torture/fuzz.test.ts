// Bad input only ever gets a clear error: the config loader, the CLI's
// argument parser, and the socket protocol (the adapters have their own fuzz
// tests in test/agents/fuzz.test.ts).

import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from '../../src/config/load.js';
import { parseFanOut, parseRunArgs } from '../../src/cli/run-args.js';
import { UsageError } from '../../src/cli/usage-error.js';
import { Client } from '../../src/client/client.js';
import { homePaths } from '../../src/config/home.js';
import { TestHome, until } from '../support/harness.js';
import type { PublicRun } from '../../src/protocol/views.js';

const VALID = {
  concurrency: { max: 4, providers: { a: 2 }, workloads: { w: { reserved: 1, priority: 2, max: 3, max_wait: '1m' } } },
  timings: { kill_grace: '1s' },
  providers: { a: { command: ['x', '{prompt}'], protocol: 'jsonl', price: { input_per_mtok: 1, output_per_mtok: 2 } } },
  budgets: { run: { max_tokens: 10 }, fleet: { window: '24h' } },
  loop: { action: 'warn' },
};

/** Replace one random leaf or key of a JSON value. */
function mutate(value: unknown, pick: number, replacement: unknown): unknown {
  let n = 0;
  const walk = (v: unknown): unknown => {
    if (n++ === pick) return replacement;
    if (Array.isArray(v)) return v.map(walk);
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]));
    return v;
  };
  return walk(value);
}

describe('fuzz: config loader', () => {
  it('any JSON value is either a config or a ConfigError that names a key', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        try {
          parseConfig(v);
        } catch (e) {
          expect(e).toBeInstanceOf(ConfigError);
          expect((e as Error).message).toMatch(/^config\.json: \S+/);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('a valid config with one value swapped for junk is accepted or refused with the key path', () => {
    fc.assert(
      fc.property(fc.nat(40), fc.oneof(fc.jsonValue(), fc.constantFrom(-1, 1.5, '', 'nope', null, [], {}, 1e308, '1x')), (pick, junk) => {
        try {
          parseConfig(mutate(VALID, pick, junk));
        } catch (e) {
          expect(e).toBeInstanceOf(ConfigError);
        }
      }),
      { numRuns: 2000 },
    );
  });
});

describe('fuzz: CLI arguments', () => {
  const FLAGS = [
    '-a',
    '-n',
    '-w',
    '-p',
    '--protocol',
    '--max-turns',
    '--max-tokens',
    '--max-cost',
    '--timeout',
    '--loop',
    '--interactive',
    '--idle-after',
    '--cwd',
    '-e',
    '--json',
    '--',
    '--from',
    '--bogus',
    '-x',
  ];
  it('run arguments parse to a spec or a usage error, never anything else', () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.constantFrom(...FLAGS), fc.string(), fc.constantFrom('1', '-1', '1.5', '30s', 'abc', 'jsonl', 'warn', '/', 'K=V')), {
          maxLength: 12,
        }),
        (args) => {
          try {
            // `-p -` reads stdin: give it one, so the fuzzer never blocks on the worker's own.
            const spec = args.includes('--from') ? null : parseRunArgs(args, '/', { stdin: () => 'a prompt from stdin' });
            if (spec) expect(spec.cwd).toBeTypeOf('string');
          } catch (e) {
            expect(e).toBeInstanceOf(UsageError);
          }
        },
      ),
      { numRuns: 3000 },
    );
  });

  it('fan-out lines parse to specs or a usage error naming the line', async () => {
    const fs = await import('node:fs');
    const os = await import('node:os');
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'orcr-fz-'));
    const file = path.join(dir, 'specs');
    try {
      fc.assert(
        fc.property(
          fc.array(
            fc.oneof(
              fc.jsonValue().map((v) => JSON.stringify(v)),
              fc.string(),
            ),
            { minLength: 1, maxLength: 5 },
          ),
          (lines) => {
            fs.writeFileSync(file, lines.join('\n'));
            try {
              parseFanOut(['--from', file], '/', { stdin: () => '' });
            } catch (e) {
              expect(e).toBeInstanceOf(UsageError);
              expect((e as Error).message).toMatch(/specs(:\d+)?: |no run specs/);
            }
          },
        ),
        { numRuns: 1000 },
      );
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('fuzz: socket protocol', () => {
  let h: TestHome;
  let pid: number;
  beforeAll(() => {
    // One slot: a run holds it (until its gate file appears) and another waits for it.
    h = new TestHome({ concurrency: { max: 1 } });
    h.cli(['ps']);
    pid = h.serverPid()!;
  });
  afterAll(() => h.cleanup());

  function raw(): Promise<net.Socket> {
    return new Promise((resolve, reject) => {
      const s = net.createConnection(path.join(h.dir, 'orcr.sock'), () => resolve(s));
      s.on('error', reject);
    });
  }

  /** The reply lines the supervisor owes for a payload: one per non-blank line. */
  function owed(payload: Buffer | string): number {
    const lines = (typeof payload === 'string' ? payload : payload.toString('utf8')).split('\n').slice(0, -1);
    return lines.filter((l) => l.trim() !== '').length;
  }

  /** Send a payload on a fresh connection; the reply lines, once all that are owed (or the close) have come. */
  async function exchange(payload: Buffer | string, replies = owed(payload)): Promise<string[]> {
    const s = await raw();
    let got = '';
    let closed = false;
    s.setEncoding('utf8');
    s.on('data', (d: string) => (got += d));
    s.on('error', () => undefined);
    s.on('close', () => (closed = true));
    s.write(payload);
    try {
      await until(
        () => closed || got.split('\n').length > replies,
        () => `${replies} replies to ${JSON.stringify(String(payload).slice(0, 80))}; got ${JSON.stringify(got)}`,
        5_000,
        5,
      );
    } finally {
      s.destroy();
    }
    return got.split('\n').slice(0, -1);
  }

  it('random bytes, huge frames, wrong shapes and unknown versions get errors, and nothing else is disturbed', async () => {
    const gate = path.join(h.dir, 'gate');
    const holder = h.json<PublicRun>(['run', '-n', 'holder', '--', 'sh', '-c', `while [ ! -f ${gate} ]; do sleep 0.05; done`]);
    const waiter = h.json<PublicRun>(['run', '-n', 'waiter', '--', 'true']);
    await until(() => h.json<PublicRun>(['show', 'holder']).status === 'working', 'the holder to work');
    const watcher = await Client.connect(homePaths(h.dir), { autoStart: false });
    // After every bad input: the supervisor answers another client, still with
    // the one run in the one slot and the other waiting (no run made, started or lost).
    const undisturbed = async (what: string): Promise<void> => {
      const stats = await watcher.call('stats');
      expect({ active: stats.active, queued: stats.queued }, what).toEqual({ active: 1, queued: 1 });
    };

    const unknownVersion = await exchange(JSON.stringify({ id: 1, method: 'hello', params: { version: 99 } }) + '\n');
    expect(JSON.parse(unknownVersion[0]!).error.code).toBe('version');
    await undisturbed('unknown version');
    const noHello = await exchange(JSON.stringify({ id: 2, method: 'run.list' }) + '\n');
    expect(JSON.parse(noHello[0]!).error.message).toMatch(/hello/);
    await undisturbed('no hello');
    const notJson = await exchange('{{{ not json\n');
    expect(JSON.parse(notJson[0]!).error.code).toBe('usage');
    await undisturbed('not JSON');
    // A frame past the limit gets its error, and the connection is closed.
    const huge = await exchange(Buffer.alloc(9 * 1024 * 1024, 0x61), 1);
    expect(huge.join('\n')).toMatch(/frame larger than/);
    await undisturbed('a huge frame');

    const hello = JSON.stringify({ id: 0, method: 'hello', params: { version: 1 } }) + '\n';
    const shapes = [
      [],
      42,
      null,
      { id: 'x', method: 7 },
      { id: 3, method: 'run.enqueue', params: { specs: 'nope' } },
      { id: 4, method: 'run.enqueue', params: { specs: [{ cwd: 5 }] } },
      { id: 5, method: 'run.enqueue', params: { specs: [{ cwd: '/', command: [] }] } },
      { id: 6, method: 'run.kill', params: { refs: [{}] } },
      { id: 7, method: 'run.wait', params: { refs: 'all', timeout_ms: -1 } },
      { id: 8, method: 'no.such.method' },
      { id: 9, method: 'subscribe', params: { since: 'x' } },
      { id: 10, method: 'events', params: { since: -5 } },
    ];
    for (const shape of shapes) {
      const replies = (await exchange(hello + JSON.stringify(shape) + '\n')).map((l) => JSON.parse(l));
      expect(replies[1]?.error, JSON.stringify(shape)).toBeDefined();
      await undisturbed(JSON.stringify(shape));
    }

    await fc.assert(
      // size 'max': up to 512 bytes really (fast-check's default size stops arrays at about 10).
      fc.asyncProperty(fc.uint8Array({ maxLength: 512, size: 'max' }), async (bytes) => {
        const payload = Buffer.concat([Buffer.from(bytes), Buffer.from('\n')]);
        const replies = await exchange(payload);
        // Every line is answered, and with an error (no hello was said).
        expect(replies).toHaveLength(owed(payload));
        for (const r of replies) expect(JSON.parse(r).error).toBeDefined();
        await undisturbed(`bytes ${Buffer.from(bytes).toString('hex')}`);
      }),
      // No shrinking: a missed reply costs a whole wait per try; the bytes are in the message.
      { numRuns: 60, endOnFailure: true },
    );

    // The same supervisor carried on, and both runs settle as they would have.
    expect(h.serverPid()).toBe(pid);
    watcher.close();
    fs.writeFileSync(gate, '');
    const w = h.cli(['wait', holder.uuid, waiter.uuid, '--timeout', '30s']);
    expect(w.stdout.trim().split('\n')).toEqual(['holder completed', 'waiter completed']);
    expect(
      h
        .json<PublicRun[]>(['ps', '--all'])
        .map((r) => r.name)
        .sort(),
    ).toEqual(['holder', 'waiter']);
  });
});
