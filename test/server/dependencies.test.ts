// Runs that wait for runs (`run --after`), through the real supervisor in this
// process behind its real socket, with real processes: a diamond in order
// (the last run reading both diffs its inputs made), a failure canceling down
// the line, --after-any, a graph refused whole, a dependent waiting across a
// supervisor SIGKILL, and a waiting dependent that holds no slot.

import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI, NODE, tempDir, until } from '../support/harness.js';
import { initRepo } from '../support/git.js';
import { useLiveHomes, useServedHomes } from '../support/in-process.js';
import { connect } from '../../src/sdk/index.js';

const home = useLiveHomes();
const served = useServedHomes();

/** A repository on branch main with one commit. */
function repo(): string {
  return initRepo(tempDir('orcr-dep-repo-'), { 'base.txt': 'base\n' });
}

/** A shell line that appends the run's name to LOG. */
const note = (log: string): string => `echo "$ORCR_RUN_NAME" >> ${log}`;

const lines = (file: string): string[] => (fs.existsSync(file) ? fs.readFileSync(file, 'utf8').trim().split('\n').filter(Boolean) : []);

describe('runs that wait for runs', () => {
  it('a diamond (a → b, c → d) runs in order; d gets ORCR_AFTER and reads both diffs; b and c wait holding no slot', async () => {
    const t = tempDir('orcr-dep-');
    const r = repo();
    const log = path.join(t, 'order.log');
    const gate = path.join(t, 'go');
    const h = await home({ concurrency: { max: 2 } });
    const runs = await h.runFrom([
      // d first: a line may name lines after it.
      {
        name: 'd',
        after: ['b', 'c'],
        cwd: t,
        command: ['sh', '-c', `${note(log)}; echo "$ORCR_AFTER" > ${t}/after; for u in $ORCR_AFTER; do ${NODE} ${CLI} diff "$u" >> ${t}/diffs; done`],
      },
      { name: 'a', cwd: t, command: ['sh', '-c', `while [ ! -f ${gate} ]; do sleep 0.02; done; ${note(log)}`] },
      { name: 'b', after: ['a'], cwd: r, worktree: true, command: ['sh', '-c', `${note(log)}; echo from-b > b.txt`] },
      { name: 'c', after: ['a'], cwd: r, worktree: true, command: ['sh', '-c', `${note(log)}; echo from-c > c.txt`] },
    ]);
    const uuid = Object.fromEntries(runs.map((x) => [x.name, x.uuid]));
    expect(runs.find((x) => x.name === 'd')!.after).toEqual([uuid.b, uuid.c]);
    // While a works, b, c and d wait: none holds a slot or stands in the limiter's line.
    const b = await until(async () => {
      const x = await h.show('b');
      return x.waiting?.reason === 'after' ? x : null;
    }, 'b to wait for a');
    expect(b.status).toBe('queued');
    const ps = (await h.cli(['ps'])).stdout;
    expect(ps).toMatch(/^b\s.*after a \(working\)/m);
    // The AFTER column names each run's inputs.
    expect(ps).toMatch(/^NAME .* AFTER/m);
    expect(ps).toMatch(/^d\s.*\sb,c\s/m);
    expect((await h.cli(['show', 'd'])).stdout).toMatch(new RegExp(`^after +${uuid.b}, ${uuid.c} \\(each completed\\)`, 'm'));
    expect((await h.show('a')).dependents.sort()).toEqual([uuid.b, uuid.c].sort());
    const stats = await h.stats<{ caps: { cap: string; active: number; queued: number }[] }>();
    expect(stats.caps.find((c) => c.cap === 'global')).toMatchObject({ active: 1, queued: 0 });
    fs.writeFileSync(gate, '');
    expect((await h.settle(['a', 'b', 'c', 'd'], 60_000)).map((x) => x.token)).toEqual(['completed', 'completed', 'completed', 'completed']);
    const order = lines(log);
    expect(order[0]).toBe('a');
    expect(order.slice(1, 3).sort()).toEqual(['b', 'c']);
    expect(order[3]).toBe('d');
    expect(fs.readFileSync(path.join(t, 'after'), 'utf8').trim()).toBe(`${uuid.b} ${uuid.c}`);
    const diffs = fs.readFileSync(path.join(t, 'diffs'), 'utf8');
    expect(diffs).toContain('+from-b');
    expect(diffs).toContain('+from-c');
  });

  it('a failure in b cancels d (and what waits on d) but not c; --after-any runs after the failure', async () => {
    const t = tempDir('orcr-dep-');
    const h = await home({ concurrency: { max: 4 } });
    await h.runFrom([
      { name: 'a', cwd: t, command: ['true'] },
      { name: 'b', after: ['a'], cwd: t, command: ['sh', '-c', 'exit 3'] },
      { name: 'c', after: ['a'], cwd: t, command: ['true'] },
      { name: 'd', after: ['b', 'c'], cwd: t, command: ['true'] },
      { name: 'e', after: ['d'], cwd: t, command: ['true'] },
      { name: 'report', after: ['b'], after_any: true, cwd: t, command: ['true'] },
    ]);
    const settled = await h.settle(['a', 'b', 'c', 'd', 'e', 'report'], 60_000);
    expect(settled.map((x) => `${x.name} ${x.token}`)).toEqual(['a completed', 'b errored', 'c completed', 'd canceled', 'e canceled', 'report completed']);
    expect((await h.show('d')).exit_detail).toBe('dependency b ended errored');
    expect((await h.show('e')).exit_detail).toBe('dependency d ended canceled');
    expect((await h.show('d')).started_at).toBeNull();
  });

  it('--after a run that already ended: completed starts at once, failed cancels at once', async () => {
    const t = tempDir('orcr-dep-');
    const h = await home({});
    await h.run(['-n', 'ok', '--cwd', t, '--', 'true']);
    await h.run(['-n', 'bad', '--cwd', t, '--', 'false']);
    expect(await h.wait('ok', 'bad')).toBe('ok completed\nbad errored');
    await h.run(['-n', 'next', '--after', 'ok', '--cwd', t, '--', 'true']);
    const gone = await h.run(['-n', 'never', '--after', 'ok,bad', '--cwd', t, '--', 'true']);
    expect(gone.status).toBe('ended');
    expect(gone.exit_detail).toBe('dependency bad ended errored');
    expect(await h.wait('next')).toBe('next completed');
  });

  it('a graph with a cycle, a self-reference or an unknown name queues nothing (exit 2, naming the line)', async () => {
    const t = tempDir('orcr-dep-');
    const h = await home({});
    const file = (name: string, specs: object[]): string => {
      const f = path.join(t, name);
      fs.writeFileSync(f, specs.map((s) => JSON.stringify({ cwd: t, command: ['true'], ...s })).join('\n') + '\n');
      return f;
    };
    const cycle = await h.cli([
      'run',
      '--from',
      file('cycle.jsonl', [{ name: 'x' }, { name: 'a', after: ['c'] }, { name: 'b', after: ['a'] }, { name: 'c', after: ['b'] }]),
    ]);
    expect(cycle.code).toBe(2);
    // Named by file and line, as other bad lines are.
    expect(cycle.stderr).toMatch(
      /a cycle of "after": \S*cycle\.jsonl:2 \("a"\) → \S*cycle\.jsonl:4 \("c"\) → \S*cycle\.jsonl:3 \("b"\) → \S*cycle\.jsonl:2 \("a"\); nothing was queued/,
    );
    // The same call through the socket (the SDK, MCP) is refused by the supervisor, naming the spec.
    await expect(
      h.call('run.enqueue', {
        specs: [
          { name: 'a', after: ['b'], cwd: t, command: ['true'] },
          { name: 'b', after: ['a'], cwd: t, command: ['true'] },
        ],
      }),
    ).rejects.toThrow(/a cycle of "after": spec 1 \("a"\) → spec 2 \("b"\) → spec 1 \("a"\)/);
    const self = await h.cli(['run', '--from', file('self.jsonl', [{ name: 'a', after: ['a'] }])]);
    expect([self.code, self.stderr]).toEqual([2, expect.stringMatching(/self\.jsonl:1 \("a"\): "after" names the run itself \("a"\)/)]);
    const unknown = await h.cli(['run', '--from', file('unknown.jsonl', [{ name: 'a' }, { name: 'b', after: ['nope'] }])]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/spec 2 \("b"\): "after" names "nope", which is neither a run of this call nor a run orcr knows/);
    const flag = await h.cli(['run', '--after', 'nope', '--', 'true']);
    expect([flag.code, flag.stderr]).toEqual([2, expect.stringMatching(/"after" names "nope"/)]);
    for (const bad of [['--after', ''], ['--after', 'a\nb'], ['--after-any']]) {
      const r = await h.cli(['run', ...bad, '--', 'true']);
      expect(r.code, bad.join(' ')).toBe(2);
      expect(r.stderr).toMatch(/after/);
    }
    expect(await h.ps({ all: true })).toEqual([]);
  });

  it('a dependent waiting across a supervisor SIGKILL starts once its input ends', async () => {
    const t = tempDir('orcr-dep-');
    const gate = path.join(t, 'go');
    const h = served({});
    await h.start();
    await h.run(['-n', 'a', '--cwd', t, '--', 'sh', '-c', `while [ ! -f ${gate} ]; do sleep 0.02; done`]);
    await h.run(['-n', 'b', '--after', 'a', '--cwd', t, '--', 'true']);
    await until(async () => (await h.show('a')).status === 'working', 'a to work');
    await h.killSupervisor();
    // a ends while no supervisor watches.
    fs.writeFileSync(gate, '');
    await h.start();
    expect((await h.settle(['a', 'b'], 60_000)).map((x) => x.token)).toEqual(['completed', 'completed']);
  });

  it('killing a run cancels what waits for it; --keep-dependents leaves them waiting for their other inputs; kill --after finds them', async () => {
    const t = tempDir('orcr-dep-');
    const gate = path.join(t, 'go');
    const h = await home({ concurrency: { max: 4 } });
    const wait = ['sh', '-c', `while [ ! -f ${gate} ]; do sleep 0.02; done`];
    await h.runFrom([
      { name: 'a', cwd: t, command: wait },
      { name: 'b', cwd: t, command: wait },
      { name: 'x', cwd: t, command: wait },
      { name: 'after-a', after: ['a'], cwd: t, command: ['true'] },
      { name: 'after-ab', after: ['a', 'b'], cwd: t, command: ['true'] },
      { name: 'after-x1', after: ['x'], cwd: t, command: ['true'] },
      { name: 'after-x2', after: ['x'], cwd: t, command: ['true'] },
    ]);
    await until(async () => (await h.ps()).filter((r) => r.status === 'working').length === 3, 'a, b and x to work');
    // Plain kill: its dependents are canceled with it.
    expect((await h.cli(['kill', 'x'])).code).toBe(0);
    expect((await h.settle(['x', 'after-x1', 'after-x2'], 60_000)).map((r) => r.token)).toEqual(['killed', 'canceled', 'canceled']);
    expect((await h.show('after-x1')).exit_detail).toBe('dependency x ended killed');
    // --keep-dependents: after-a has nothing left to wait for and starts; after-ab waits for b only.
    expect((await h.cli(['kill', '--keep-dependents', 'a'])).code).toBe(0);
    expect(await h.wait('a', 'after-a')).toBe('a killed\nafter-a completed');
    const ab = await h.show('after-ab');
    expect([ab.status, ab.after]).toEqual(['queued', [(await h.show('b')).uuid]]);
    expect((await h.cli(['ps'])).stdout).toMatch(/^after-ab\s.*after b \(working\)/m);
    // kill --after b: the runs waiting for b.
    const dry = await h.cli(['kill', '--after', 'b', '--dry-run']);
    expect(dry.stdout).toMatch(/would kill 1 run:\n  after-ab queued/);
    expect((await h.cli(['kill', '--after', 'b', '--yes'])).code).toBe(0);
    expect(await h.wait('after-ab')).toBe('after-ab canceled');
    expect((await h.show('b')).status).toBe('working');
    fs.writeFileSync(gate, '');
    expect(await h.wait('b')).toBe('b completed');
    const dropped = (await h.events<{ type: string; data: Record<string, unknown> }>()).filter((e) => e.type === 'after_dropped');
    expect(dropped.map((e) => e.data.name)).toEqual(['a', 'a']);
  });

  it('a fleet budget that cancels the queue cancels waiting dependents too', async () => {
    const t = tempDir('orcr-dep-');
    const agent = path.join(t, 'spend.sh');
    fs.writeFileSync(
      agent,
      `#!/bin/sh\necho '{"type":"turn_start"}'\necho '{"type":"usage","input_tokens":10,"output_tokens":0,"cost_usd":5}'\necho '{"type":"turn_end"}'\n`,
      { mode: 0o755 },
    );
    const h = await home({ budgets: { fleet: { max_cost_usd: 1 } } });
    await h.runFrom([
      { name: 'spender', cwd: t, protocol: 'jsonl', command: [agent] },
      { name: 'later', after: ['spender'], after_any: true, cwd: t, command: ['true'] },
    ]);
    expect((await h.settle(['spender', 'later'], 60_000)).map((r) => r.token)).toEqual(['completed', 'canceled']);
    expect((await h.show('later')).exit_detail).toBe('fleet_budget');
  });

  it('the SDK takes "after" in its run specs, and kill({ keepDependents })', async () => {
    const t = tempDir('orcr-dep-');
    const h = await home({});
    await h.startSupervisor();
    const orcr = await connect({ home: h.dir });
    try {
      const [first, second] = await orcr.runMany([
        { name: 'first', cwd: t, command: ['sh', '-c', 'exec sleep 600'] },
        { name: 'second', cwd: t, after: ['first'], command: ['true'] },
      ]);
      expect(second!.after).toEqual([first!.uuid]);
      expect((await orcr.show('second')).waiting).toMatchObject({ reason: 'after', inputs: [{ name: 'first' }] });
      await orcr.kill('first', { force: true, keepDependents: true });
      expect((await orcr.wait(['second'])).map((r) => r.token)).toEqual(['completed']);
    } finally {
      orcr.close();
    }
  });

  it("--worktree --base RUN builds on that run's work as it left it (uncommitted too); its diff is its own; --base RUN needs --after RUN", async () => {
    const t = tempDir('orcr-dep-');
    const r = repo();
    const h = await home({});
    await h.runFrom([
      { name: 'first', cwd: r, worktree: true, command: ['sh', '-c', 'echo one > first.txt; echo changed >> base.txt'] },
      {
        name: 'second',
        cwd: r,
        after: ['first'],
        worktree: { base: 'first' },
        command: ['sh', '-c', `cat first.txt base.txt > ${t}/seen; echo two > second.txt`],
      },
    ]);
    expect((await h.settle(['first', 'second'], 60_000)).map((x) => x.token)).toEqual(['completed', 'completed']);
    expect(fs.readFileSync(path.join(t, 'seen'), 'utf8')).toBe('one\nbase\nchanged\n');
    const second = await h.show('second');
    expect(second.worktree).toMatchObject({ base: 'run first', state: 'ready' });
    expect(second.worktree!.base_commit).toMatch(/^[0-9a-f]{40}$/);
    const diff = await h.cli(['diff', 'second', '--stat']);
    expect(diff.stdout).toContain('second.txt');
    expect(diff.stdout).not.toContain('first.txt');
    // The run it was built on is as it was: nothing committed on its branch, its files still uncommitted.
    expect(fs.readFileSync(path.join((await h.show('first')).worktree!.path, 'first.txt'), 'utf8')).toBe('one\n');
    // An existing run by name, from the command line; without --after it is refused.
    const refused = await h.cli(['run', '-n', 'third', '--worktree', '--base', 'first', '--cwd', r, '--', 'true']);
    expect([refused.code, refused.stderr]).toEqual([2, expect.stringMatching(/--base "first" builds on that run's work: it needs --after "first" too/)]);
    await h.run(['-n', 'third', '--after', 'first', '--worktree', '--base', 'first', '--cwd', r, '--', 'sh', '-c', `cat first.txt > ${t}/third`]);
    expect(await h.wait('third')).toBe('third completed');
    expect(fs.readFileSync(path.join(t, 'third'), 'utf8')).toBe('one\n');
  });

  it('an input retried after a passing failure has not ended: what waits for it waits on, and starts once it completes', async () => {
    const t = tempDir('orcr-dep-');
    const once = path.join(t, 'failed-once');
    // Claude Code's stand-in: the first call ends on an overloaded API (a passing failure), the next completes.
    const agent = path.join(t, 'claude');
    fs.writeFileSync(
      agent,
      `#!${NODE}
const fs = require('node:fs');
const out = (o) => process.stdout.write(JSON.stringify(o) + '\\n');
process.stdin.resume().once('data', () => {
  out({ type: 'system', subtype: 'init', session_id: 's-1' });
  if (!fs.existsSync(${JSON.stringify(once)})) {
    fs.writeFileSync(${JSON.stringify(once)}, '');
    out({ type: 'result', subtype: 'success', is_error: true, api_error_status: 529, result: 'API Error: 529 Overloaded', session_id: 's-1' });
    process.exit(1);
  }
  out({ type: 'result', subtype: 'success', is_error: false, result: 'Done.', session_id: 's-1' });
  process.exit(0);
});
`,
      { mode: 0o755 },
    );
    const h = await home({ providers: { claude: { command: [agent] } } });
    await h.run(['-n', 'flaky', '-a', 'claude', '--retries', '1', '--cwd', t, '-p', 'go']);
    await h.run(['-n', 'next', '--after', 'flaky', '--cwd', t, '--', 'true']);
    expect((await h.settle(['flaky', 'next'], 60_000)).map((r) => r.token)).toEqual(['completed', 'completed']);
    expect((await h.show('flaky')).attempts).toHaveLength(1);
    const types = (await h.events<{ run: string | null; type: string }>()).map((e) => e.type);
    expect(types).toContain('retrying');
    expect(types).not.toContain('after_dropped');
  });

  it("a workload's max_wait counts from when a dependent is let go, not from when it was queued", async () => {
    const t = tempDir('orcr-dep-');
    const gate = path.join(t, 'go');
    const h = await home({ concurrency: { workloads: { quick: { max_wait: '2s' } } } });
    await h.run(['-n', 'slow', '--cwd', t, '--', 'sh', '-c', `while [ ! -f ${gate} ]; do sleep 0.02; done`]);
    await h.run(['-n', 'next', '-w', 'quick', '--after', 'slow', '--cwd', t, '--', 'true']);
    // Longer than its max_wait, waiting for its input.
    await until(async () => Date.now() - Date.parse((await h.show('next')).created_at) > 3000, 'the dependent to wait past its max_wait', 30_000);
    expect((await h.show('next')).status).toBe('queued');
    fs.writeFileSync(gate, '');
    expect(await h.wait('slow', 'next')).toBe('slow completed\nnext completed');
  });

  it('a waiting dependent holds no slot: with a cap of 1, a → b completes', async () => {
    const t = tempDir('orcr-dep-');
    const h = await home({ concurrency: { max: 1 } });
    // b first in the queue: were it holding the one slot, a could never start.
    await h.runFrom([
      { name: 'b', after: ['a'], cwd: t, command: ['true'] },
      { name: 'a', cwd: t, command: ['true'] },
    ]);
    expect((await h.settle(['a', 'b'], 60_000)).map((x) => x.token)).toEqual(['completed', 'completed']);
  });
});
