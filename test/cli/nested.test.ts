// Agents that spawn agents, through the real CLI and supervisor: a run made
// from inside a run is its child (ORCR_RUN), spend rolls up into the parent's
// budget, depth is bounded, a waiting parent lends its slot, a kill takes the
// tree, and the links survive a SIGKILL of the supervisor.

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI, NODE, script, TestHome, until, useHomes } from '../support/harness.js';
import type { PublicRun } from '../../src/protocol/views.js';

const home = useHomes();

/** `orcr ARGS` as run RUN's process would call it (ORCR_RUN in its environment). */
function inside(h: TestHome, run: string, args: string[]) {
  return h.cli(args, { env: { ...h.env, ORCR_RUN: run } });
}

const show = (h: TestHome, ref: string) => h.json<PublicRun>(['show', ref]);

/** A shell line that calls the real CLI (ORCR_HOME and ORCR_RUN are inherited from the run). */
const orcr = (args: string) => `"${NODE}" "${CLI}" ${args}`;

describe('nested runs', () => {
  it("a child's tokens roll up into its parent: over the parent's --max-tokens the parent stops, its queued child is canceled, its live one stopped", async () => {
    const h = home({ concurrency: { max: 2 } });
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
    const p = h.json<PublicRun>(['run', '-n', 'parent', '--protocol', 'jsonl', '--max-tokens', '1000', '--', parent]);
    await until(() => show(h, 'spender').tokens.input === 600 && show(h, 'later').status === 'queued', 'the spender at 600 tokens and the later child queued');
    const mid = show(h, 'parent');
    expect(mid.children).toHaveLength(2);
    expect(mid.rollup.tokens.input).toBe(600);
    expect(mid.budget.tokens).toMatchObject({ used: 600, limit: 1000 });
    expect(mid.status).toBe('working');
    // 1,200 tokens in the tree, none of them the parent's own.
    script(h, 'more', '');
    await until(() => show(h, 'parent').status === 'ended', 'the parent to stop');
    const after = show(h, 'parent');
    expect(after).toMatchObject({ exit_reason: 'budget', exit_detail: 'tree_tokens', tokens: { input: 0, output: 0 } });
    expect(after.rollup.tokens).toMatchObject({ input: 1100, output: 100 });
    expect(show(h, 'later')).toMatchObject({ status: 'ended', exit_reason: 'canceled', exit_detail: 'parent_budget', parent: p.uuid, depth: 1 });
    await until(() => show(h, 'spender').status === 'ended', 'the spender to be stopped');
    expect(show(h, 'spender')).toMatchObject({ exit_reason: 'budget', exit_detail: 'parent_budget', parent: p.uuid });
  });

  it('refuses a fourth level at `orcr run` with exit 2 and a clear message, and queues nothing', () => {
    const h = home();
    const r0 = h.json<PublicRun>(['run', '-n', 'd0', '--', 'sleep', '100']);
    let up = r0.uuid;
    for (const n of [1, 2, 3]) {
      const r = inside(h, up, ['run', '-n', `d${n}`, '--json', '--', 'sleep', '100']);
      expect(r.code).toBe(0);
      const run = JSON.parse(r.stdout) as PublicRun;
      expect(run).toMatchObject({ parent: up, depth: n });
      up = run.uuid;
    }
    const deep = inside(h, up, ['run', '-n', 'd4', '--', 'sleep', '100']);
    expect(deep.code).toBe(2);
    expect(deep.stderr).toMatch(/too deep: a child of "d3" .* would be at depth 4, and budgets\.max_depth is 3; nothing was queued/);
    expect(h.cli(['show', 'd4']).code).toBe(6);
    expect(show(h, 'd0').children).toHaveLength(1);
  });

  it('with concurrency.max 1, a parent that runs two children and waits on them completes (its slot is lent while it waits)', async () => {
    const h = home({ concurrency: { max: 1 } });
    const parent = script(
      h,
      'parent.sh',
      `#!/bin/sh\nset -e\n${orcr('run -n kid1 -- sh -c "exit 0"')}\n${orcr('run -n kid2 -- true')}\n${orcr('wait kid1 kid2')}\necho parent-done\n`,
    );
    const p = h.json<PublicRun>(['run', '-n', 'parent', '--', parent]);
    const w = h.cli(['wait', 'parent', '--timeout', '60s']);
    expect(w.stdout).toContain('parent completed');
    expect(w.code).toBe(0);
    for (const k of ['kid1', 'kid2']) expect(show(h, k)).toMatchObject({ exit_reason: 'completed', parent: p.uuid, depth: 1 });
    const events = h.json<{ type: string; run: string | null }[]>(['events']);
    const own = events.filter((e) => e.run === p.uuid).map((e) => e.type);
    expect(own).toContain('slot_lent');
    expect(own).toContain('slot_taken_back');
  });

  it('wait --all from inside a run leaves out that run and its ancestors (it could only time out on them), not its descendants', async () => {
    const h = home();
    const d0 = h.json<PublicRun>(['run', '-n', 'd0', '--', 'sleep', '100']);
    const d1 = JSON.parse(inside(h, d0.uuid, ['run', '-n', 'd1', '--json', '--', 'sleep', '100']).stdout) as PublicRun;
    const gated = ['sh', '-c', `while [ ! -f "${h.dir}/go" ]; do sleep 0.05; done`];
    expect(inside(h, d1.uuid, ['run', '-n', 'd2', '--', ...gated]).code).toBe(0);
    h.json(['run', '-n', 'other', '--', ...gated]);
    const w = spawn(NODE, [CLI, 'wait', '--all', '--timeout', '30s'], { env: { ...h.env, ORCR_RUN: d1.uuid } });
    let out = '';
    w.stdout.on('data', (b: Buffer) => (out += b.toString()));
    const code = new Promise<number | null>((resolve) => w.on('exit', resolve));
    // Connected (this status call is the other client): its request follows its hello at once, and the gated runs take longer to notice the gate.
    await until(() => h.json<{ clients: number }>(['server', 'status']).clients >= 2, 'the wait to connect');
    fs.writeFileSync(path.join(h.dir, 'go'), '');
    expect(await code).toBe(0);
    expect(out.trim().split('\n').sort()).toEqual(['d2 completed', 'other completed']);
    // From outside, --all is every active run.
    expect(h.cli(['wait', '--all', '--timeout', '1s']).stdout).toMatch(/d0 pending[\s\S]*d1 pending|d1 pending[\s\S]*d0 pending/);
  });

  it('killing a parent kills its descendants; --keep-children keeps them running', async () => {
    const h = home();
    const p = h.json<PublicRun>(['run', '-n', 'p', '--', 'sleep', '100']);
    const c = JSON.parse(inside(h, p.uuid, ['run', '-n', 'c', '--json', '--', 'sleep', '100']).stdout) as PublicRun;
    inside(h, c.uuid, ['run', '-n', 'g', '--', 'sleep', '100']);
    await until(() => ['p', 'c', 'g'].every((n) => show(h, n).status === 'working'), 'the tree to run');
    const k = h.cli(['kill', 'p']);
    expect(k.stdout).toContain('p killing (and 2 descendants)');
    await until(() => ['p', 'c', 'g'].every((n) => show(h, n).exit_reason === 'killed'), 'the whole tree killed');

    const q = h.json<PublicRun>(['run', '-n', 'q', '--', 'sleep', '100']);
    inside(h, q.uuid, ['run', '-n', 'qc', '--', 'sleep', '100']);
    await until(() => show(h, 'qc').status === 'working', 'the child to run');
    expect(h.cli(['kill', '--keep-children', 'q']).stdout).toContain('q killing\n');
    await until(() => show(h, 'q').status === 'ended', 'the parent killed');
    expect(show(h, 'qc')).toMatchObject({ status: 'working', parent: q.uuid });
  });

  it('--detach makes no child; an ended parent is refused (exit 2), an unknown one gives a warning and no parent', () => {
    const h = home();
    const p = h.json<PublicRun>(['run', '-n', 'p', '--', 'sleep', '100']);
    const d = inside(h, p.uuid, ['run', '-n', 'free', '--detach', '--json', '--', 'sleep', '100']);
    expect(JSON.parse(d.stdout)).toMatchObject({ parent: null, depth: 0 });
    expect(show(h, 'p').children).toEqual([]);
    const done = h.json<PublicRun>(['run', '-n', 'done', '--', 'true']);
    h.cli(['wait', 'done']);
    const late = inside(h, done.uuid, ['run', '-n', 'late', '--', 'true']);
    expect(late.code).toBe(2);
    expect(late.stderr).toMatch(/inside "done" .* which has ended: a run made from there is refused; give --detach/);
    const stray = inside(h, '00000000-0000-4000-8000-000000000000', ['run', '-n', 'stray', '--json', '--', 'true']);
    expect(stray.code).toBe(0);
    expect(stray.stderr).toMatch(/warning: ORCR_RUN=00000000-.* is no run of this home/);
    expect(JSON.parse(stray.stdout)).toMatchObject({ parent: null });
  });

  it('ps --tree indents children under their parent; show names parent, children and rolled-up usage', async () => {
    const h = home();
    const p = h.json<PublicRun>(['run', '-n', 'top', '--', 'sleep', '100']);
    h.json(['run', '-n', 'other', '--', 'sleep', '100']);
    const c = JSON.parse(inside(h, p.uuid, ['run', '-n', 'mid', '--json', '--', 'sleep', '100']).stdout) as PublicRun;
    inside(h, c.uuid, ['run', '-n', 'leaf', '--', 'sleep', '100']);
    const names = h
      .cli(['ps', '--tree'])
      .stdout.split('\n')
      .slice(1)
      .filter((l) => l.trim() !== '')
      .map((l) => l.split(/ {2,}(?=[0-9a-f]{8} )/)[0]);
    expect(names).toEqual(['top', '  mid', '    leaf', 'other']);
    const tree = h.json<PublicRun[]>(['ps', '--tree']).map((r) => r.name);
    expect(tree).toEqual(['top', 'mid', 'leaf', 'other']);
    const text = h.cli(['show', 'mid']).stdout;
    expect(text).toMatch(new RegExp(`parent\\s+${p.uuid} \\(depth 1\\)`));
    expect(text).toMatch(/children\s+[0-9a-f-]{36}/);
    expect(text).toMatch(/tree tokens\s+0/);
  });

  it('survives a SIGKILL of the supervisor: the tree is re-adopted with its links, and a kill still takes it', async () => {
    const h = home();
    const p = h.json<PublicRun>(['run', '-n', 'p', '--', 'sleep', '100']);
    const c = JSON.parse(inside(h, p.uuid, ['run', '-n', 'c', '--json', '--', 'sleep', '100']).stdout) as PublicRun;
    await until(() => show(h, 'c').status === 'working' && show(h, 'p').status === 'working', 'both running');
    const pids = { p: show(h, 'p').pid, c: show(h, 'c').pid };
    const sup = h.serverPid()!;
    process.kill(sup, 'SIGKILL');
    await until(() => {
      try {
        process.kill(sup, 0);
        return false;
      } catch {
        return true;
      }
    }, 'the supervisor gone');
    const after = show(h, 'c');
    expect(h.serverPid()).not.toBe(sup);
    expect(after).toMatchObject({ status: 'working', parent: p.uuid, depth: 1, pid: pids.c });
    expect(show(h, 'p')).toMatchObject({ status: 'working', children: [c.uuid], pid: pids.p });
    expect(h.cli(['kill', 'p']).stdout).toContain('(and 1 descendant)');
    await until(() => show(h, 'c').exit_reason === 'killed', 'the child killed with its parent');
  });
});
