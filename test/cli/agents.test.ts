// Issue 3 acceptance: agents for real — protocols, turns, send/wait, and
// agents that outlive the supervisor. Stand-in agents speak the real formats.

import fs from 'node:fs';
import Database from 'better-sqlite3';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { alive, MOCK_AGENT, NODE, ROOT, script, until } from '../support/harness.js';
import { useLiveHomes, useServedHomes, type LiveHome, type ServedHome } from '../support/in-process.js';
import { roundCost } from '../../src/core/budget.js';

/** Homes whose supervisor runs in this process (most tests). */
const home = useLiveHomes();
/** Homes whose supervisor is a process of its own, to SIGKILL it. */
const served = useServedHomes();

const FIXTURES: [string, string][] = [
  ['claude', 'two-turns'],
  ['codex', 'two-turns'],
  ['gemini', 'one-turn'],
  ['jsonl', 'two-turns'],
];

describe('agents', () => {
  it.each(FIXTURES)('a %s stand-in printing a real transcript yields its turns, tokens, cost, tools, text and reason', async (protocol, name) => {
    const h = await home();
    const file = path.join(ROOT, 'test/fixtures', protocol, `${name}.jsonl`);
    const expected = JSON.parse(fs.readFileSync(path.join(ROOT, 'test/fixtures', protocol, `${name}.expected.json`), 'utf8'));
    // A stand-in that prints the transcript a line at a time, as the CLI would.
    const agent = script(h, 'agent.sh', `#!/bin/sh\nwhile IFS= read -r line; do printf '%s\\n' "$line"; done < "$1"\n`);
    // Detection from the first JSON line, as for a command without a preset.
    await h.run(['-n', 'a', '--', agent, file]);
    // A transcript that meets a rate limit (claude's api_retry) is blocked a moment on its way: a wait settles there too.
    const settled = await until(async () => {
      const w = await h.wait('a');
      return w !== 'a blocked' && w;
    }, 'the run to end');
    expect(settled).toBe(`a ${expected.ok ? 'completed' : 'errored'}`);
    const run = await h.show('a');
    expect(run.protocol).toBe(protocol);
    expect(run.turns).toBe(expected.turns);
    expect(run.tokens).toEqual(expected.tokens);
    expect(run.cost_usd).toBe(roundCost(expected.cost_usd));
    expect(run.last_tool).toBe(expected.tools[expected.tools.length - 1]);
    expect(run.last_text).toBe(expected.final_text);
    const entries = await h.logs<{ kind: string; name?: string }>('a');
    expect(entries.filter((e) => e.kind === 'tool').map((e) => e.name)).toEqual(expected.tools);
  });

  it('an interactive agent goes idle, takes input, and a wait after send settles only on the new turn', async () => {
    const h = await home();
    await h.run([
      '-n',
      'chat',
      '--interactive',
      '--protocol',
      'jsonl',
      '-p',
      'fix it',
      '--',
      NODE,
      MOCK_AGENT,
      '--format',
      'jsonl',
      '--scenario',
      'interactive',
      '--delay',
      '150',
    ]);
    expect(await h.wait('chat')).toBe('chat turn_complete');
    expect(await h.waitCode('chat')).toBe(0);
    expect(await h.show('chat')).toMatchObject({ status: 'idle', turns: 1, input_seq: 0 });

    await h.send('chat', 'now add a test');
    expect(await h.wait('chat')).toBe('chat turn_complete');
    // Settled on the turn the send started, not on the earlier idle.
    expect(await h.show('chat')).toMatchObject({ status: 'idle', turns: 2, input_seq: 1 });

    await h.send('chat', 'x');
    expect((await h.kill(['chat']))[0]).toMatchObject({ name: 'chat' });
    // What the CLI prints and exits with for a killed run.
    const w3 = await h.cli(['wait', 'chat']);
    expect(w3.stdout.trim()).toBe('chat killed');
    expect(w3.code).toBe(5);
  });

  it('sending to a run that is not idle is refused with exit 4', async () => {
    const h = await home();
    await h.run(['-n', 'busy', '--', 'sleep', '30']);
    const r = await h.cli(['send', 'busy', 'hello']);
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/not idle/);
  });

  for (const stop of ['SIGKILL', 'server stop'] as const) {
    it(`re-adopts live agents and ends exited ones with their real codes after ${stop}`, async () => {
      // SIGKILL needs a supervisor process of its own; `server stop` (the spawned CLI's) stops one in this process as well.
      const config = { concurrency: { max: 4 } };
      const h: LiveHome | ServedHome = stop === 'SIGKILL' ? served(config) : await home(config);
      if (stop === 'SIGKILL') await (h as ServedHome).start();
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
      expect(await h.runFrom(lines)).toHaveLength(8);
      await until(async () => (await h.ps()).filter((r) => r.status === 'working').length === 4, '4 working agents');
      const before = new Map((await h.ps()).map((r) => [r.name, r]));
      expect(['Q1', 'Q2', 'Q3', 'Q4'].map((n) => before.get(n)!.status)).toEqual(['queued', 'queued', 'queued', 'queued']);

      const firstPid = await h.serverPid();
      if (stop === 'SIGKILL') await (h as ServedHome).killSupervisor();
      else {
        expect((await (h as LiveHome).cli(['server', 'stop'])).code).toBe(0);
        await until(() => !(h as LiveHome).running, 'the supervisor to be gone');
      }

      // While no supervisor runs, C and D finish (0 and 3); A and B keep working.
      fs.writeFileSync(path.join(h.dir, 'release-C'), '');
      fs.writeFileSync(path.join(h.dir, 'release-D'), '');
      await until(() => !alive(before.get('C')!.pid!) && !alive(before.get('D')!.pid!), 'C and D to exit');
      const countA = Number(fs.readFileSync(path.join(h.dir, 'count-A'), 'utf8'));
      await until(() => Number(fs.readFileSync(path.join(h.dir, 'count-A'), 'utf8')) > countA + 2, 'A to keep working unsupervised');

      // A new supervisor re-adopts them (in this process, at the first call after the stop).
      if (stop === 'SIGKILL') await (h as ServedHome).start();
      const after = new Map((await h.ps({ all: true })).map((r) => [r.name, r]));
      if (stop === 'SIGKILL') expect(await h.serverPid()).not.toBe(firstPid);
      else expect((h as LiveHome).running).toBe(true);
      expect(after.get('A')).toMatchObject({ status: 'working', pid: before.get('A')!.pid });
      expect(after.get('B')).toMatchObject({ status: 'working', pid: before.get('B')!.pid });
      const c = await until(async () => {
        const r = await h.show('C');
        return r.status === 'ended' && r;
      }, 'C ended');
      expect(c).toMatchObject({ exit_reason: 'completed', exit_code: 0 });
      expect(await h.show('D')).toMatchObject({ exit_reason: 'errored', exit_code: 3 });

      for (const n of ['A', 'B', 'Q1', 'Q2', 'Q3', 'Q4']) fs.writeFileSync(path.join(h.dir, `release-${n}`), '');
      const wait = await h.wait(...names);
      expect(wait).toContain('A completed');
      expect(wait).toContain('D errored');

      // Nobody started twice; the queue ran in order.
      const starts = fs.readFileSync(path.join(h.dir, 'starts'), 'utf8').trim().split('\n');
      expect(starts.slice().sort()).toEqual(names.slice().sort());
      // The queue was promoted in order (the journal's order: two agents started
      // in one pass may write their own start marks in either order).
      const byUuid = new Map((await h.ps({ all: true })).map((r) => [r.uuid, r.name]));
      const promoted = (await h.events<{ run: string; type: string }>())
        .filter((e) => e.type === 'starting')
        .map((e) => byUuid.get(e.run)!)
        .filter((n) => n.startsWith('Q'));
      expect(promoted).toEqual(['Q1', 'Q2', 'Q3', 'Q4']);
      // Output applied once: tokens are exactly the lines the agent printed.
      for (const n of ['A', 'B', 'C', 'D']) {
        const printed = Number(fs.readFileSync(path.join(h.dir, `count-${n}`), 'utf8'));
        const r = await h.show(n);
        expect(r.tokens.input, `${n} tokens`).toBe(printed * 10);
        expect(r.turns).toBe(1);
      }
      // No cap exceeded: replay the journal.
      const events = await h.events<{ run: string; type: string }>();
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
    const h = await home();
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
    // In this process, an exception the garbage caused would fail the test as an unhandled error.
    await h.startSupervisor();
    await h.run(['-n', 'garbage', '--', garbage]);
    await h.run(['-n', 'normal', '--protocol', 'jsonl', '--', NODE, MOCK_AGENT, '--format', 'jsonl', '--turns', '2', '--delay', '20']);
    const w = await h.wait('garbage', 'normal');
    expect(w).toContain('garbage completed');
    expect(w).toContain('normal completed');
    expect(h.running).toBe(true);
    expect((await h.show('normal')).turns).toBe(2);
  });

  it('an agent whose process vanishes without an exit status ends lost', async () => {
    const h = served();
    await h.start();
    await h.run(['-n', 'doomed', '--', 'sleep', '300']);
    const run = await until(async () => {
      const r = await h.show('doomed');
      return r.status === 'working' && r;
    }, 'doomed to work');
    await h.killSupervisor();
    // The whole group dies by SIGKILL: the wrapper cannot write an exit status.
    process.kill(-run.pid!, 'SIGKILL');
    await until(() => !alive(run.pid!), 'the agent to vanish');
    await h.start();
    const ended = await until(async () => {
      const r = await h.show('doomed');
      return r.status === 'ended' && r;
    }, 'doomed to end');
    expect(ended).toMatchObject({ exit_reason: 'lost', exit_code: null });
  });

  it('a run spawned just before a crash, with no pid journaled nor pid file yet, is adopted and not started twice', async () => {
    const h = served();
    await h.start();
    const marks = path.join(h.dir, 'marks');
    await h.run(['-n', 'early', '--', 'sh', '-c', `echo started >> ${marks}; sleep 30`]);
    const run = await until(async () => {
      const r = await h.show('early');
      return r.status === 'working' && fs.existsSync(marks) && r;
    }, 'early to work');
    await h.killSupervisor();
    // Rewind the journal to the moment after the spawn: promoted, no pid, no status file yet.
    const db = new Database(path.join(h.dir, 'orcr.db'));
    db.prepare(`UPDATE runs SET status = 'starting', record = json_set(record, '$.status', 'starting', '$.pid', NULL, '$.pid_start', NULL) WHERE uuid = ?`).run(
      run.uuid,
    );
    db.close();
    fs.rmSync(path.join(h.runDir(run.uuid), 'status'));
    await h.start();
    const after = await h.show('early');
    expect(after).toMatchObject({ pid: run.pid, status: 'working' });
    expect(fs.readFileSync(marks, 'utf8').trim().split('\n')).toEqual(['started']);
    await h.kill(['early']);
    expect(await h.wait('early')).toBe('early killed');
  });
});
