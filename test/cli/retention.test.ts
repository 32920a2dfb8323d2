// A home that lives for months: orcr gc and retention.ended remove ended runs
// with their events and directories, never an active run; the journal reuses
// what they free; a client resuming from before the oldest event is told.

import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { lineReader, until, useHomes } from '../support/harness.js';
import { useLiveHomes } from '../support/in-process.js';

/** Homes whose supervisor runs in this process (most tests). */
const home = useLiveHomes();
/** Homes whose supervisor is a process of its own, started by the spawned CLI: to kill it, or to see the CLI refuse a config. */
const spawned = useHomes();

describe('retention', () => {
  it('gc removes ended runs older than DUR with their events and directories, counts them in a dry run, and never touches a run that is not ended', async () => {
    const h = await home();
    for (const n of ['a', 'b', 'c']) await h.run(['-n', n, '--', 'true']);
    expect(await h.waitCode('a', 'b', 'c')).toBe(0);
    const live = await h.run(['-n', 'live', '--', 'sleep', '300']);
    const ended = (await h.ps({ all: true })).filter((r) => r.status === 'ended');
    expect(ended).toHaveLength(3);
    for (const r of ended) expect(fs.existsSync(h.runDir(r.uuid))).toBe(true);

    // Nothing is that old yet.
    expect(await h.json<{ runs: number }>(['gc', '--older-than', '1h'])).toMatchObject({ runs: 0 });
    const dry = await h.json<{ runs: number; dry_run: boolean }>(['gc', '--older-than', '0s', '--dry-run']);
    expect(dry).toMatchObject({ runs: 3, dry_run: true });
    expect(await h.ps({ all: true })).toHaveLength(4);

    const text = await h.cli(['gc', '--older-than', '0s']);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/removed 3 ended runs older than 0ms/);
    expect((await h.ps({ all: true })).map((r) => r.name)).toEqual(['live']);
    for (const r of ended) {
      expect(fs.existsSync(h.runDir(r.uuid))).toBe(false);
      expect((await h.cli(['show', r.uuid])).code).toBe(6);
    }
    expect(fs.existsSync(h.runDir(live.uuid))).toBe(true);
    const events = await h.events();
    expect(events.filter((e) => ended.some((r) => r.uuid === e.run))).toEqual([]);
    // What remains of the log has no gap.
    const seqs = events.map((e) => e.seq);
    expect(seqs).toEqual(Array.from({ length: seqs.length }, (_, i) => seqs[0]! + i));
  });

  it('a gc asked while another collection runs collects what it was asked for, not what the other one did', async () => {
    const h = await home();
    await h.run(['-n', 'old', '--', 'true']);
    expect(await h.waitCode('old')).toBe(0);
    // Sent together on one connection: the second arrives while the first (the like of the hourly
    // pass that retention.ended starts on its own) is still collecting.
    const [wide, now] = await Promise.all([h.call<{ runs: number }>('gc', { older_than_ms: 3_600_000 }), h.call<{ runs: number }>('gc', { older_than_ms: 0 })]);
    expect(wide.runs).toBe(0);
    expect(now.runs).toBe(1);
    expect(await h.ps({ all: true })).toEqual([]);
  });

  it('a client resuming from before the oldest kept event is told so', async () => {
    const h = await home();
    await h.run(['-n', 'old', '--', 'true']);
    expect(await h.waitCode('old')).toBe(0);
    expect((await h.json<{ runs: number }>(['gc', '--older-than', '0s'])).runs).toBe(1);
    const follow = h.spawn(['events', '--follow', '--since', '0']);
    const err: string[] = [];
    follow.stderr!.on('data', (d: Buffer) => err.push(d.toString()));
    const out = lineReader(follow);
    try {
      await until(async () => err.join('').includes('removed by retention'), 'the notice');
      await out.waitFor((l) => l.some((x) => x.includes('gc')), 'the gc event');
    } finally {
      follow.kill();
    }
  });

  it('retention.ended applies by itself', async () => {
    const h = await home({ retention: { ended: '1s' } });
    await h.run(['-n', 'short', '--', 'true']);
    expect(await h.waitCode('short')).toBe(0);
    // A new supervisor applies retention soon after it starts (and every hour).
    expect((await h.cli(['server', 'stop'])).code).toBe(0);
    await h.cli(['stats']);
    await until(async () => (await h.events()).some((e) => e.type === 'gc'), 'a retention pass', 30_000, 200);
    expect(await h.ps({ all: true })).toEqual([]);
  });

  it('creating and collecting runs in a loop keeps orcr.db within a fixed bound', async () => {
    const h = spawned({ concurrency: { max: 25 } });
    const sizes: number[] = [];
    for (let cycle = 0; cycle < 3; cycle++) {
      const lines = Array.from({ length: 300 }, (_, i) => JSON.stringify({ name: `c${cycle}-${i}`, command: ['true'] })).join('\n');
      expect(h.cli(['run', '--from', '-'], { input: lines }).code).toBe(0);
      expect(h.cli(['wait', '--all']).code).toBe(0);
      expect(h.json<{ runs: number }>(['gc', '--older-than', '0s']).runs).toBe(300);
      sizes.push(fs.statSync(path.join(h.dir, 'orcr.db')).size);
    }
    // The second and third cycles reuse what the first freed.
    expect(sizes[2]!).toBeLessThanOrEqual(sizes[0]! * 1.25);
  });
});

describe('state that survives a restart', () => {
  it('the loop detector keeps its window when a supervisor re-adopts the agent', async () => {
    const h = await home({ loop: { action: 'terminate', max_repetitions: 3 } });
    const gate = path.join(h.dir, 'gate');
    const turn = `echo '{"type":"turn_start"}'; echo '{"type":"tool","name":"Bash","input":{"command":"ls"}}'; echo '{"type":"turn_end"}'`;
    const agent = path.join(h.dir, 'repeat.sh');
    fs.writeFileSync(agent, `#!/bin/sh\n${turn}\n${turn}\nwhile [ ! -f ${gate} ]; do sleep 0.05; done\n${turn}\nsleep 300\n`, { mode: 0o755 });
    await h.run(['-n', 'loopy', '--protocol', 'jsonl', '--', agent]);
    await until(async () => (await h.show('loopy')).turns === 2, 'two identical turns');
    expect((await h.show('loopy')).loop.repetitions).toBe(2);
    // A new supervisor re-adopts the agent; its third identical turn is the third in the window, not the first.
    expect((await h.cli(['server', 'stop'])).code).toBe(0);
    // Gone for good before the next call starts the next one (the CLI answers as soon as the stop is decided).
    await until(() => !h.running, 'the supervisor to stop');
    expect((await h.show('loopy')).status).toBe('working');
    fs.writeFileSync(gate, '');
    const w = await h.cli(['wait', 'loopy', '--timeout', '30s']);
    expect(w.stdout.trim(), w.stderr).toBe('loopy loop');
  });
});

describe('secrets', () => {
  it("-e values and prompts never reach ps, show, events, the event stream or the journal's events; show --env prints the values on request", async () => {
    const h = await home();
    const stream = h.spawn(['events', '--follow', '--json']);
    const seen = lineReader(stream);
    try {
      await until(async () => (await h.json<{ clients: number }>(['server', 'status'])).clients >= 2, 'the stream to connect');
      await h.run(['-n', 'sec', '-e', 'TOKEN=SECRET-VALUE-42', '-p', 'PROMPT-MARKER-77', '--', 'cat']);
      expect(await h.wait('sec')).toBe('sec completed');
      await seen.waitFor((l) => l.some((x) => x.includes('"ended"')), 'the end on the stream');
      for (const out of [
        (await h.cli(['ps', '--all'])).stdout,
        (await h.cli(['ps', '--all', '--json'])).stdout,
        (await h.cli(['show', 'sec'])).stdout,
        (await h.cli(['show', 'sec', '--json'])).stdout,
        (await h.cli(['events'])).stdout,
        (await h.cli(['events', '--json'])).stdout,
        seen.lines.join('\n'),
      ]) {
        expect(out).not.toContain('SECRET-VALUE-42');
        expect(out).not.toContain('PROMPT-MARKER-77');
      }
      expect((await h.cli(['show', 'sec'])).stdout).toMatch(/env\s+TOKEN \(values: show --env\)/);
      expect((await h.json<{ env: Record<string, string> }>(['show', 'sec', '--env'])).env).toEqual({ TOKEN: 'SECRET-VALUE-42' });
      // The journal's event rows too (the run's own record keeps them, owner-only).
      const Database = (await import('better-sqlite3')).default;
      const db = new Database(path.join(h.dir, 'orcr.db'), { readonly: true });
      const data = (db.prepare('SELECT data FROM events').all() as { data: string }[]).map((r) => r.data).join('\n');
      db.close();
      expect(data).not.toContain('SECRET-VALUE-42');
      expect(data).not.toContain('PROMPT-MARKER-77');
      expect(fs.statSync(path.join(h.dir, 'orcr.db')).mode & 0o077).toBe(0);
    } finally {
      stream.kill();
    }
  });
});
