// Issue 3 acceptance: agents for real — protocols, turns, send/wait, and
// agents that outlive the supervisor. Stand-in agents speak the real formats.

import fs from 'node:fs';
import Database from 'better-sqlite3';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { alive, MOCK_AGENT, NODE, ROOT, script, until, useHomes } from '../support/harness.js';
import { roundCost } from '../../src/core/budget.js';
import type { PublicRun } from '../../src/protocol/views.js';

const home = useHomes();


const FIXTURES: [string, string][] = [
  ['claude', 'two-turns'],
  ['codex', 'two-turns'],
  ['gemini', 'one-turn'],
  ['jsonl', 'two-turns'],
];

describe('agents', () => {
  it.each(FIXTURES)('a %s stand-in printing a real transcript yields its turns, tokens, cost, tools, text and reason', async (protocol, name) => {
    const h = home();
    const file = path.join(ROOT, 'test/fixtures', protocol, `${name}.jsonl`);
    const expected = JSON.parse(fs.readFileSync(path.join(ROOT, 'test/fixtures', protocol, `${name}.expected.json`), 'utf8'));
    // A stand-in that prints the transcript a line at a time, as the CLI would.
    const agent = script(h, 'agent.sh', `#!/bin/sh\nwhile IFS= read -r line; do printf '%s\\n' "$line"; done < "$1"\n`);
    // Detection from the first JSON line, as for a command without a preset.
    h.json(['run', '-n', 'a', '--', agent, file]);
    expect(h.cli(['wait', 'a']).stdout.trim()).toBe(`a ${expected.ok ? 'completed' : 'errored'}`);
    const run = h.json<PublicRun>(['show', 'a']);
    expect(run.protocol).toBe(protocol);
    expect(run.turns).toBe(expected.turns);
    expect(run.tokens).toEqual(expected.tokens);
    expect(run.cost_usd).toBe(roundCost(expected.cost_usd));
    expect(run.last_tool).toBe(expected.tools[expected.tools.length - 1]);
    expect(run.last_text).toBe(expected.final_text);
    const entries = h.json<{ kind: string; name?: string }[]>(['logs', 'a']);
    expect(entries.filter((e) => e.kind === 'tool').map((e) => e.name)).toEqual(expected.tools);
  });

  it('an interactive agent goes idle, takes input, and a wait after send settles only on the new turn', async () => {
    const h = home();
    h.json(['run', '-n', 'chat', '--interactive', '--protocol', 'jsonl', '-p', 'fix it', '--', NODE, MOCK_AGENT, '--format', 'jsonl', '--scenario', 'interactive', '--delay', '150']);
    const w1 = h.cli(['wait', 'chat']);
    expect(w1.stdout.trim()).toBe('chat turn_complete');
    expect(w1.code).toBe(0);
    expect(h.json<PublicRun>(['show', 'chat'])).toMatchObject({ status: 'idle', turns: 1, input_seq: 0 });

    expect(h.cli(['send', 'chat', 'now add a test']).code).toBe(0);
    const w2 = h.cli(['wait', 'chat']);
    expect(w2.stdout.trim()).toBe('chat turn_complete');
    // Settled on the turn the send started, not on the earlier idle.
    expect(h.json<PublicRun>(['show', 'chat'])).toMatchObject({ status: 'idle', turns: 2, input_seq: 1 });

    const third = h.cli(['send', 'chat', 'x']);
    expect(third.code).toBe(0);
    const k = h.cli(['kill', 'chat']);
    expect(k.code).toBe(0);
    const w3 = h.cli(['wait', 'chat']);
    expect(w3.stdout.trim()).toBe('chat killed');
    expect(w3.code).toBe(5);
  });

  it('sending to a run that is not idle is refused with exit 4', () => {
    const h = home();
    h.json(['run', '-n', 'busy', '--', 'sleep', '30']);
    const r = h.cli(['send', 'busy', 'hello']);
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/not idle/);
  });

  for (const stop of ['SIGKILL', 'server stop'] as const) {
    it(`re-adopts live agents and ends exited ones with their real codes after ${stop}`, async () => {
      const h = home({ concurrency: { max: 4 } });
      // Each agent: ready, then one usage line per 50 ms until its release file appears, then exit with its code.
      const agent = script(
        h,
        'agent.sh',
        `#!/bin/sh
name=$1; code=$2; dir=$3
echo "{\\"type\\":\\"ready\\"}"
echo "{\\"type\\":\\"turn_start\\"}"
echo "$name" >> "$dir/starts"
i=0
while [ ! -f "$dir/release-$name" ]; do
  i=$((i+1)); echo "{\\"type\\":\\"usage\\",\\"input_tokens\\":10,\\"output_tokens\\":1}"; echo "$i" > "$dir/count-$name"; sleep 0.05
done
echo "{\\"type\\":\\"turn_end\\"}"
exit $code
`,
      );
      const names = ['A', 'B', 'C', 'D', 'Q1', 'Q2', 'Q3', 'Q4'];
      const codes: Record<string, number> = { A: 0, B: 0, C: 0, D: 3, Q1: 0, Q2: 0, Q3: 0, Q4: 0 };
      const lines = names.map((n) => JSON.stringify({ name: n, protocol: 'jsonl', command: [agent, n, String(codes[n]), h.dir] })).join('\n');
      expect(h.cli(['run', '--from', '-'], { input: lines }).code).toBe(0);
      await until(() => h.json<PublicRun[]>(['ps']).filter((r) => r.status === 'working').length === 4, '4 working agents');
      const before = new Map(h.json<PublicRun[]>(['ps']).map((r) => [r.name, r]));
      expect(['Q1', 'Q2', 'Q3', 'Q4'].map((n) => before.get(n)!.status)).toEqual(['queued', 'queued', 'queued', 'queued']);

      const serverPid = h.serverPid()!;
      if (stop === 'SIGKILL') process.kill(serverPid, 'SIGKILL');
      else expect(h.cli(['server', 'stop']).code).toBe(0);
      await until(() => !alive(serverPid), 'the supervisor to be gone');

      // While no supervisor runs, C and D finish (0 and 3); A and B keep working.
      fs.writeFileSync(path.join(h.dir, 'release-C'), '');
      fs.writeFileSync(path.join(h.dir, 'release-D'), '');
      await until(() => !alive(before.get('C')!.pid!) && !alive(before.get('D')!.pid!), 'C and D to exit');
      const countA = Number(fs.readFileSync(path.join(h.dir, 'count-A'), 'utf8'));
      await until(() => Number(fs.readFileSync(path.join(h.dir, 'count-A'), 'utf8')) > countA + 2, 'A to keep working unsupervised');

      const after = new Map(h.json<PublicRun[]>(['ps', '--all']).map((r) => [r.name, r]));
      expect(h.serverPid()).not.toBe(serverPid);
      expect(after.get('A')).toMatchObject({ status: 'working', pid: before.get('A')!.pid });
      expect(after.get('B')).toMatchObject({ status: 'working', pid: before.get('B')!.pid });
      const c = await until(() => h.json<PublicRun>(['show', 'C']).status === 'ended' && h.json<PublicRun>(['show', 'C']), 'C ended');
      expect(c).toMatchObject({ exit_reason: 'completed', exit_code: 0 });
      expect(h.json<PublicRun>(['show', 'D'])).toMatchObject({ exit_reason: 'errored', exit_code: 3 });

      for (const n of ['A', 'B', 'Q1', 'Q2', 'Q3', 'Q4']) fs.writeFileSync(path.join(h.dir, `release-${n}`), '');
      const wait = h.cli(['wait', ...names]);
      expect(wait.stdout).toContain('A completed');
      expect(wait.stdout).toContain('D errored');

      // Nobody started twice; the queue ran in order.
      const starts = fs.readFileSync(path.join(h.dir, 'starts'), 'utf8').trim().split('\n');
      expect(starts.slice().sort()).toEqual(names.slice().sort());
      // The queue was promoted in order (the journal's order: two agents started
      // in one pass may write their own start marks in either order).
      const byUuid = new Map(h.json<PublicRun[]>(['ps', '--all']).map((r) => [r.uuid, r.name]));
      const promoted = h
        .json<{ run: string; type: string }[]>(['events'])
        .filter((e) => e.type === 'starting')
        .map((e) => byUuid.get(e.run)!)
        .filter((n) => n.startsWith('Q'));
      expect(promoted).toEqual(['Q1', 'Q2', 'Q3', 'Q4']);
      // Output applied once: tokens are exactly the lines the agent printed.
      for (const n of ['A', 'B', 'C', 'D']) {
        const printed = Number(fs.readFileSync(path.join(h.dir, `count-${n}`), 'utf8'));
        const r = h.json<PublicRun>(['show', n]);
        expect(r.tokens.input, `${n} tokens`).toBe(printed * 10);
        expect(r.turns).toBe(1);
      }
      // No cap exceeded: replay the journal.
      const events = h.json<{ run: string; type: string }[]>(['events']);
      let active = 0;
      let max = 0;
      const holding = new Set<string>();
      for (const e of events) {
        if (e.type === 'starting' && !holding.has(e.run)) {
          holding.add(e.run);
          max = Math.max(max, ++active);
        } else if (e.type === 'ended' && holding.delete(e.run)) active--;
      }
      expect(max).toBe(4);
    });
  }

  it('garbage output never crashes the supervisor or stalls other runs', async () => {
    const h = home();
    const garbage = script(
      h,
      'garbage.sh',
      `#!/bin/sh
head -c 200000 /dev/urandom
printf '\\n{"type":"assistant","message":{"id":"m1","content":[{"type":"te'
printf '\\n\\377\\376\\375 not utf8\\n'
head -c 10485760 /dev/zero | tr '\\0' 'x'
printf '\\n{"type":"result"\\n'
echo '{"type":"system","subtype":"init","session_id":null}'
`,
    );
    h.cli(['ps']);
    const serverPid = h.serverPid();
    expect(serverPid).not.toBeNull();
    h.json(['run', '-n', 'garbage', '--', garbage]);
    h.json(['run', '-n', 'normal', '--protocol', 'jsonl', '--', NODE, MOCK_AGENT, '--format', 'jsonl', '--turns', '2', '--delay', '20']);
    const w = h.cli(['wait', 'garbage', 'normal']);
    expect(w.stdout).toContain('garbage completed');
    expect(w.stdout).toContain('normal completed');
    expect(h.serverPid()).toBe(serverPid);
    expect(h.json<PublicRun>(['show', 'normal']).turns).toBe(2);
  });

  it('an agent whose process vanishes without an exit status ends lost', async () => {
    const h = home();
    h.json(['run', '-n', 'doomed', '--', 'sleep', '300']);
    const run = await until(() => {
      const r = h.json<PublicRun>(['show', 'doomed']);
      return r.status === 'working' && r;
    }, 'doomed to work');
    const serverPid = h.serverPid()!;
    process.kill(serverPid, 'SIGKILL');
    await until(() => !alive(serverPid), 'the supervisor to die');
    // The whole group dies by SIGKILL: the wrapper cannot write an exit status.
    process.kill(-run.pid!, 'SIGKILL');
    await until(() => !alive(run.pid!), 'the agent to vanish');
    const ended = await until(() => {
      const r = h.json<PublicRun>(['show', 'doomed']);
      return r.status === 'ended' && r;
    }, 'doomed to end');
    expect(ended).toMatchObject({ exit_reason: 'lost', exit_code: null });
  });

  it('a run spawned just before a crash, with no pid journaled nor pid file yet, is adopted and not started twice', async () => {
    const h = home();
    const marks = path.join(h.dir, 'marks');
    h.json(['run', '-n', 'early', '--', 'sh', '-c', `echo started >> ${marks}; sleep 30`]);
    const run = await until(() => {
      const r = h.json<PublicRun>(['show', 'early']);
      return r.status === 'working' && fs.existsSync(marks) && r;
    }, 'early to work');
    const serverPid = h.serverPid()!;
    process.kill(serverPid, 'SIGKILL');
    await until(() => !alive(serverPid), 'the supervisor to die');
    // Rewind the journal to the moment after the spawn: promoted, no pid, no status file yet.
    const db = new Database(path.join(h.dir, 'orcr.db'));
    db.prepare(`UPDATE runs SET status = 'starting', record = json_set(record, '$.status', 'starting', '$.pid', NULL, '$.pid_start', NULL) WHERE uuid = ?`).run(run.uuid);
    db.close();
    fs.rmSync(path.join(h.runDir(run.uuid), 'status'));
    const after = h.json<PublicRun>(['show', 'early']);
    expect(after).toMatchObject({ pid: run.pid, status: 'working' });
    expect(fs.readFileSync(marks, 'utf8').trim().split('\n')).toEqual(['started']);
    h.cli(['kill', 'early']);
    expect(h.cli(['wait', 'early']).stdout.trim()).toBe('early killed');
  });
});
