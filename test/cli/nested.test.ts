// Agents that spawn agents, through the real CLI and supervisor: a run made
// from inside a run is its child (ORCR_RUN), spend rolls up into the parent's
// budget, depth is bounded, a waiting parent lends its slot, a kill takes the
// tree, and the links survive a SIGKILL of the supervisor.

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI, NODE, script, until } from '../support/harness.js';
import { Remote, useLiveHomes, useServedHomes, type LiveHome } from '../support/in-process.js';
import type { PublicRun } from '../../src/protocol/views.js';

/** Homes whose supervisor runs in this process (most tests). */
const home = useLiveHomes();
/** Homes whose supervisor is a process of its own, to SIGKILL it. */
const served = useServedHomes();

/** The spawned `orcr ARGS` as run RUN's process would call it (ORCR_RUN in its environment). */
function inside(h: LiveHome, run: string, args: string[]) {
  return h.cli(args, { env: { ...h.env, ORCR_RUN: run } });
}

/** What `orcr run ARGS --json` queues when run RUN's process calls it. */
async function runInside(h: Remote, run: string, args: string[]): Promise<PublicRun> {
  const caller = new Remote(h.dir, () => ({ ...process.env, ORCR_HOME: h.dir, NO_COLOR: '1', ORCR_RUN: run }));
  try {
    return await caller.run(args);
  } finally {
    caller.disconnect();
  }
}

const show = (h: Remote, ref: string) => h.show(ref);

/** Every one of `refs` satisfies `ok` (shown one by one). */
async function every(h: Remote, refs: string[], ok: (r: PublicRun) => boolean): Promise<boolean> {
  for (const r of refs) if (!ok(await h.show(r))) return false;
  return true;
}

/** A shell line that calls the real CLI (ORCR_HOME and ORCR_RUN are inherited from the run). */
const orcr = (args: string) => `"${NODE}" "${CLI}" ${args}`;

describe('nested runs', () => {
  it("a child's tokens roll up into its parent: over the parent's --max-tokens the parent stops, its queued child is canceled, its live one stopped", async () => {
    const h = await home({ concurrency: { max: 2 } });
    const gate = `while [ ! -f "${h.dir}/never" ]; do sleep 0.05; done`;
    const spender = script(
      h,
      'spender.sh',
      `#!/bin/sh\nprintf '%s\\n' '{"type":"ready"}' '{"type":"turn_start"}' '{"type":"usage","input_tokens":600,"output_tokens":0}'\n` +
        `while [ ! -f "${h.dir}/more" ]; do sleep 0.02; done\nprintf '%s\\n' '{"type":"usage","input_tokens":500,"output_tokens":100}'\n${gate}\n`,
    );
    const parent = script(
      h,
      'parent.sh',
      `#!/bin/sh\nprintf '%s\\n' '{"type":"ready"}'\n` +
        `${orcr(`run -n spender --protocol jsonl -- "${spender}"`)} >/dev/null || exit 9\n` +
        `${orcr('run -n later -- sleep 100')} >/dev/null || exit 9\n${gate}\n`,
    );
    const p = await h.run(['-n', 'parent', '--protocol', 'jsonl', '--max-tokens', '1000', '--', parent]);
    await until(
      async () => (await show(h, 'spender')).tokens.input === 600 && (await show(h, 'later')).status === 'queued',
      'the spender at 600 tokens and the later child queued',
    );
    const mid = await show(h, 'parent');
    expect(mid.children).toHaveLength(2);
    expect(mid.rollup.tokens.input).toBe(600);
    expect(mid.budget.tokens).toMatchObject({ used: 600, limit: 1000 });
    expect(mid.status).toBe('working');
    // 1,200 tokens in the tree, none of them the parent's own.
    script(h, 'more', '');
    await until(async () => (await show(h, 'parent')).status === 'ended', 'the parent to stop');
    const after = await show(h, 'parent');
    expect(after).toMatchObject({ exit_reason: 'budget', exit_detail: 'tree_tokens', tokens: { input: 0, output: 0 } });
    expect(after.rollup.tokens).toMatchObject({ input: 1100, output: 100 });
    expect(await show(h, 'later')).toMatchObject({ status: 'ended', exit_reason: 'canceled', exit_detail: 'parent_budget', parent: p.uuid, depth: 1 });
    await until(async () => (await show(h, 'spender')).status === 'ended', 'the spender to be stopped');
    expect(await show(h, 'spender')).toMatchObject({ exit_reason: 'budget', exit_detail: 'parent_budget', parent: p.uuid });
  });

  it('refuses a fourth level at `orcr run` with exit 2 and a clear message, and queues nothing', async () => {
    const h = await home();
    const r0 = await h.run(['-n', 'd0', '--', 'sleep', '100']);
    let up = r0.uuid;
    for (const n of [1, 2]) {
      const run = await runInside(h, up, ['-n', `d${n}`, '--', 'sleep', '100']);
      expect(run).toMatchObject({ parent: up, depth: n });
      up = run.uuid;
    }
    // The spawned CLI inside a run: ORCR_RUN read from its environment.
    const r = await inside(h, up, ['run', '-n', 'd3', '--json', '--', 'sleep', '100']);
    expect(r.code).toBe(0);
    const d3 = JSON.parse(r.stdout) as PublicRun;
    expect(d3).toMatchObject({ parent: up, depth: 3 });
    const deep = await inside(h, d3.uuid, ['run', '-n', 'd4', '--', 'sleep', '100']);
    expect(deep.code).toBe(2);
    expect(deep.stderr).toMatch(/too deep: a child of "d3" .* would be at depth 4, and budgets\.max_depth is 3; nothing was queued/);
    await expect(h.show('d4')).rejects.toMatchObject({ code: 'not_found' });
    expect((await show(h, 'd0')).children).toHaveLength(1);
  });

  it('with concurrency.max 1, a parent that runs two children and waits on them completes (its slot is lent while it waits)', async () => {
    const h = await home({ concurrency: { max: 1 } });
    const parent = script(
      h,
      'parent.sh',
      `#!/bin/sh\nset -e\n${orcr('run -n kid1 -- sh -c "exit 0"')}\n${orcr('run -n kid2 -- true')}\n${orcr('wait kid1 kid2')}\necho parent-done\n`,
    );
    const p = await h.run(['-n', 'parent', '--', parent]);
    expect(await h.wait('parent')).toBe('parent completed');
    for (const k of ['kid1', 'kid2']) expect(await show(h, k)).toMatchObject({ exit_reason: 'completed', parent: p.uuid, depth: 1 });
    const events = await h.events<{ type: string; run: string | null }>();
    const own = events.filter((e) => e.run === p.uuid).map((e) => e.type);
    expect(own).toContain('slot_lent');
    expect(own).toContain('slot_taken_back');
  });

  it('wait --all from inside a run leaves out that run and its ancestors (it could only time out on them), not its descendants', async () => {
    const h = await home();
    const d0 = await h.run(['-n', 'd0', '--', 'sleep', '100']);
    const d1 = await runInside(h, d0.uuid, ['-n', 'd1', '--', 'sleep', '100']);
    const gated = ['sh', '-c', `while [ ! -f "${h.dir}/go" ]; do sleep 0.05; done`];
    await runInside(h, d1.uuid, ['-n', 'd2', '--', ...gated]);
    await h.run(['-n', 'other', '--', ...gated]);
    const w = spawn(NODE, [CLI, 'wait', '--all', '--timeout', '30s'], { env: { ...h.env, ORCR_RUN: d1.uuid } });
    let out = '';
    w.stdout.on('data', (b: Buffer) => (out += b.toString()));
    const code = new Promise<number | null>((resolve) => w.on('close', resolve));
    // Its wait open (the suite once saw the gate opened between its hello and its request: d2 ended before --all was read).
    await until(async () => (await h.call<{ waits: number }>('server.status')).waits >= 1, 'the wait to be open');
    fs.writeFileSync(path.join(h.dir, 'go'), '');
    expect(await code).toBe(0);
    expect(out.trim().split('\n').sort()).toEqual(['d2 completed', 'other completed']);
    // From outside, --all is every active run.
    expect((await h.cli(['wait', '--all', '--timeout', '1s'])).stdout).toMatch(/d0 pending[\s\S]*d1 pending|d1 pending[\s\S]*d0 pending/);
  });

  it('killing a parent kills its descendants; --keep-children keeps them running', async () => {
    const h = await home();
    const p = await h.run(['-n', 'p', '--', 'sleep', '100']);
    const c = await runInside(h, p.uuid, ['-n', 'c', '--', 'sleep', '100']);
    await runInside(h, c.uuid, ['-n', 'g', '--', 'sleep', '100']);
    await until(() => every(h, ['p', 'c', 'g'], (r) => r.status === 'working'), 'the tree to run');
    const k = await h.cli(['kill', 'p']);
    expect(k.stdout).toContain('p killing (and 2 descendants)');
    await until(() => every(h, ['p', 'c', 'g'], (r) => r.exit_reason === 'killed'), 'the whole tree killed');

    const q = await h.run(['-n', 'q', '--', 'sleep', '100']);
    await runInside(h, q.uuid, ['-n', 'qc', '--', 'sleep', '100']);
    await until(async () => (await show(h, 'qc')).status === 'working', 'the child to run');
    expect((await h.cli(['kill', '--keep-children', 'q'])).stdout).toContain('q killing\n');
    await until(async () => (await show(h, 'q')).status === 'ended', 'the parent killed');
    expect(await show(h, 'qc')).toMatchObject({ status: 'working', parent: q.uuid });
  });

  it('--detach makes no child; an ended parent is refused (exit 2), an unknown one gives a warning and no parent', async () => {
    const h = await home();
    const p = await h.run(['-n', 'p', '--', 'sleep', '100']);
    expect(await runInside(h, p.uuid, ['-n', 'free', '--detach', '--', 'sleep', '100'])).toMatchObject({ parent: null, depth: 0 });
    expect((await show(h, 'p')).children).toEqual([]);
    const done = await h.run(['-n', 'done', '--', 'true']);
    await h.wait('done');
    const late = await inside(h, done.uuid, ['run', '-n', 'late', '--', 'true']);
    expect(late.code).toBe(2);
    expect(late.stderr).toMatch(/inside "done" .* which has ended: a run made from there is refused; give --detach/);
    const stray = await inside(h, '00000000-0000-4000-8000-000000000000', ['run', '-n', 'stray', '--json', '--', 'true']);
    expect(stray.code).toBe(0);
    expect(stray.stderr).toMatch(/warning: ORCR_RUN=00000000-.* is no run of this home/);
    expect(JSON.parse(stray.stdout)).toMatchObject({ parent: null });
  });

  it('ps --tree indents children under their parent; show names parent, children and rolled-up usage', async () => {
    const h = await home();
    const p = await h.run(['-n', 'top', '--', 'sleep', '100']);
    await h.run(['-n', 'other', '--', 'sleep', '100']);
    const c = await runInside(h, p.uuid, ['-n', 'mid', '--', 'sleep', '100']);
    await runInside(h, c.uuid, ['-n', 'leaf', '--', 'sleep', '100']);
    const names = (await h.cli(['ps', '--tree'])).stdout
      .split('\n')
      .slice(1)
      .filter((l) => l.trim() !== '')
      .map((l) => l.split(/ {2,}(?=[0-9a-f]{8} )/)[0]);
    expect(names).toEqual(['top', '  mid', '    leaf', 'other']);
    const tree = (await h.json<PublicRun[]>(['ps', '--tree'])).map((r) => r.name);
    expect(tree).toEqual(['top', 'mid', 'leaf', 'other']);
    const text = (await h.cli(['show', 'mid'])).stdout;
    expect(text).toMatch(new RegExp(`parent\\s+${p.uuid} \\(depth 1\\)`));
    expect(text).toMatch(/children\s+[0-9a-f-]{36}/);
    expect(text).toMatch(/tree tokens\s+0/);
  });

  it('survives a SIGKILL of the supervisor: the tree is re-adopted with its links, and a kill still takes it', async () => {
    const h = served();
    const sup = await h.start();
    const p = await h.run(['-n', 'p', '--', 'sleep', '100']);
    const c = await runInside(h, p.uuid, ['-n', 'c', '--', 'sleep', '100']);
    await until(() => every(h, ['c', 'p'], (r) => r.status === 'working'), 'both running');
    const pids = { p: (await show(h, 'p')).pid, c: (await show(h, 'c')).pid };
    await h.killSupervisor();
    expect(await h.start()).not.toBe(sup);
    const after = await show(h, 'c');
    expect(after).toMatchObject({ status: 'working', parent: p.uuid, depth: 1, pid: pids.c });
    expect(await show(h, 'p')).toMatchObject({ status: 'working', children: [c.uuid], pid: pids.p });
    expect((await h.cli(['kill', 'p'])).stdout).toContain('(and 1 descendant)');
    await until(async () => (await show(h, 'c')).exit_reason === 'killed', 'the child killed with its parent');
  });
});
