// What an agent does while no supervisor runs is read by the next one as if
// it had watched: a usage limit continues the run, a passing failure
// retries it, an agent that exits 0 having worked completes it — whatever
// status the run had when the last supervisor died (`starting` included). A
// wrapper killed under a live supervisor is `lost`, as it is when found gone
// at start-up, and retried like it.

import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { alive, NODE, script, tempDir, until } from '../support/harness.js';
import { Journal } from '../../src/journal/journal.js';
import { useServedHomes, type ServedHome } from '../support/in-process.js';

const served = useServedHomes();
const SESSION = '9d2b6c1e-3a4f-4b8d-8e7a-1f0c5d9e2a64';

function place(): { dir: string } {
  return { dir: tempDir('orcr-away-') };
}

/**
 * Claude Code's stand-in that waits for a gate file before it answers (so the
 * test kills the supervisor first), then hits `first` on its first call; a
 * `--resume` call finishes the work. Each call's argv goes to calls.jsonl.
 */
function gated(at: { dir: string }, first: 'limit' | 'overloaded' | 'ok'): { agent: string; open: () => void; calls: () => string[][] } {
  const gate = path.join(at.dir, 'gate');
  const log = path.join(at.dir, 'calls.jsonl');
  const agent = script(
    at,
    'claude',
    `#!${NODE}
const fs = require('node:fs');
const args = process.argv.slice(2);
const at = args.indexOf('--resume');
fs.appendFileSync(${JSON.stringify(log)}, JSON.stringify(args) + '\\n');
const out = (o) => process.stdout.write(JSON.stringify(o) + '\\n');
const go = () => {
  if (at < 0 && !fs.existsSync(${JSON.stringify(gate)})) return setTimeout(go, 20);
  const usage = { input_tokens: 10, output_tokens: 5 };
  out({ type: 'system', subtype: 'init', session_id: ${JSON.stringify(SESSION)}, tools: [], model: 'claude-sonnet-4-5' });
  out({ type: 'assistant', message: { id: 'm' + (at < 0 ? 1 : 2), role: 'assistant', content: [{ type: 'text', text: 'working' }], usage }, session_id: ${JSON.stringify(SESSION)} });
  const kind = at < 0 ? ${JSON.stringify(first)} : 'ok';
  if (kind === 'limit') { out({ type: 'result', subtype: 'success', is_error: true, api_error_status: 429, result: "You've hit your limit", session_id: ${JSON.stringify(SESSION)}, usage }); process.exit(1); }
  if (kind === 'overloaded') { out({ type: 'result', subtype: 'success', is_error: true, api_error_status: 529, result: 'API Error: 529 Overloaded', session_id: ${JSON.stringify(SESSION)}, usage }); process.exit(1); }
  out({ type: 'result', subtype: 'success', is_error: false, result: 'Done.', session_id: ${JSON.stringify(SESSION)}, usage });
  process.exit(0);
};
go();
`,
  );
  return {
    agent,
    open: () => fs.writeFileSync(gate, ''),
    calls: () =>
      fs
        .readFileSync(log, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as string[]),
  };
}

/** The run's wrapper wrote its `exit` line: its agent is done. */
const exited = (dir: string): Promise<true> =>
  until(() => fs.existsSync(path.join(dir, 'status')) && /^exit /m.test(fs.readFileSync(path.join(dir, 'status'), 'utf8')), 'the agent to exit', 30_000);

/**
 * Claude Code's stand-in that says its turn failed (`status`, `text`) at
 * once, then exits 1 only once `gate` opens — so the supervisor reads the
 * failure and dies before the exit; a `--resume` call finishes the work.
 */
function failsThenWaits(at: { dir: string }, gate: string, status: number, text: string): string {
  return script(
    at,
    'claude',
    `#!${NODE}
const fs = require('node:fs');
const args = process.argv.slice(2);
const out = (o) => process.stdout.write(JSON.stringify(o) + '\\n');
const usage = { input_tokens: 10, output_tokens: 5 };
out({ type: 'system', subtype: 'init', session_id: ${JSON.stringify(SESSION)}, tools: [], model: 'claude-sonnet-4-5' });
if (args.includes('--resume')) {
  out({ type: 'result', subtype: 'success', is_error: false, result: 'Done.', session_id: ${JSON.stringify(SESSION)}, usage });
  process.exit(0);
}
out({ type: 'result', subtype: 'success', is_error: true, api_error_status: ${status}, result: ${JSON.stringify(text)}, session_id: ${JSON.stringify(SESSION)}, usage });
const wait = () => (fs.existsSync(${JSON.stringify(gate)}) ? process.exit(1) : setTimeout(wait, 20));
wait();
`,
  );
}

/** The supervisor SIGKILLed, the agent let go on to its exit (`open`) while none runs, and the next supervisor started. */
async function exitWhileAway(h: ServedHome, open: () => void, uuid: string): Promise<void> {
  await h.killSupervisor();
  open();
  await exited(h.runDir(uuid));
  await h.start();
}

/** Run ARGS; once its agent has started, kill the supervisor, let the agent go on to its end, and start the next supervisor. */
async function awayAndBack(h: ServedHome, a: ReturnType<typeof gated>, args: string[]): Promise<void> {
  const r = await h.run(args);
  await until(() => a.calls().length === 1, 'the agent to start');
  await exitWhileAway(h, a.open, r.uuid);
}

describe('what an agent did while no supervisor ran', () => {
  it('a usage limit hit while no supervisor runs continues the run (it is not ended errored), and it completes after attempt 2', async () => {
    const at = place();
    const a = gated(at, 'limit');
    const h = served({ timings: { limit_hold: '1s' }, providers: { claude: { command: [a.agent] } } });
    await h.start();
    await awayAndBack(h, a, ['-n', 'away', '-a', 'claude', '-p', 'go']);
    expect((await h.settle(['away'], 60_000)).map((s) => s.token)).toEqual(['completed']);
    const done = await h.show('away');
    expect(done.attempts).toMatchObject([{ n: 1, kind: 'continue', detail: 'limit' }]);
    expect(a.calls()).toEqual([[], ['--resume', SESSION]]);
  });

  it('a passing API error hit while no supervisor runs is retried under --retries', async () => {
    const at = place();
    const a = gated(at, 'overloaded');
    const h = served({ providers: { claude: { command: [a.agent] } } });
    await h.start();
    await awayAndBack(h, a, ['-n', 'away', '-a', 'claude', '--retries', '2', '-p', 'go']);
    expect((await h.settle(['away'], 60_000)).map((s) => s.token)).toEqual(['completed']);
    expect((await h.show('away')).attempts).toMatchObject([{ n: 1, kind: 'retry', detail: 'api_error' }]);
  });

  it('a run still starting when the supervisor died (its launch not yet recorded), whose agent ran and exited 0 meanwhile, is completed, not failed', async () => {
    const at = place();
    const gate = path.join(at.dir, 'gate');
    const h = served({});
    await h.start();
    const r = await h.run(['-n', 'away', '--', 'sh', '-c', `while [ ! -e ${gate} ]; do sleep 0.02; done`]);
    await until(async () => (await h.show('away')).status === 'working', 'the run to work');
    await h.killSupervisor();
    // The crash fell between the spawn and its record: the journal still says `starting`, with no pid.
    const journal = new Journal(path.join(h.dir, 'orcr.db'));
    const row = journal.getRun(r.uuid)!;
    journal.updateRun({ ...row, status: 'starting', pid: null, pid_start: null, started_at: null }, null);
    journal.close();
    fs.writeFileSync(gate, '');
    await exited(h.runDir(r.uuid));
    await h.start();
    expect((await h.settle(['away'], 60_000)).map((s) => s.token)).toEqual(['completed']);
    expect((await h.show('away')).exit_code).toBe(0);
  });

  it("a run started again whose new launch was journaled but not carried out when the supervisor died does not read the last attempt's exit as its own", async () => {
    const at = place();
    const a = gated(at, 'limit');
    a.open();
    // A limit that names no reset holds the provider for timings.limit_hold (5 min): the run waits, queued, its attempt 1 ended with exit 1.
    const h = served({ providers: { claude: { command: [a.agent] } } });
    await h.start();
    const r = await h.run(['-n', 'again', '-a', 'claude', '-p', 'go']);
    await until(async () => (await h.show('again')).attempts.length === 1, 'attempt 1 to end on its limit');
    await h.killSupervisor();
    expect(fs.readFileSync(path.join(h.runDir(r.uuid), 'status'), 'utf8')).toMatch(/^exit 1$/m);
    // The hold lifted and the next supervisor promoted it, then died before the launch removed attempt 1's status.
    const journal = new Journal(path.join(h.dir, 'orcr.db'));
    const row = journal.getRun(r.uuid)!;
    journal.updateRun({ ...row, status: 'starting', pid: null, pid_start: null }, null);
    journal.close();
    await h.start();
    expect((await h.settle(['again'], 60_000)).map((s) => s.token)).toEqual(['completed']);
    expect((await h.show('again')).attempts).toMatchObject([{ n: 1, kind: 'continue' }]);
    expect(a.calls()).toHaveLength(2);
  });

  it('a limit read by one supervisor, whose agent exits while none runs, is continued by the next (the block journaled says what its memory lost)', async () => {
    const at = place();
    const gate = path.join(at.dir, 'gate');
    const agent = failsThenWaits(at, gate, 429, "You've hit your limit");
    const h = served({ providers: { claude: { command: [agent] } }, timings: { limit_hold: '1s' } });
    await h.start();
    const r = await h.run(['-n', 'held', '-a', 'claude', '-p', 'go']);
    await until(async () => (await h.show('held')).blocked_kind === 'limit', 'the limit to be read');
    await exitWhileAway(h, () => fs.writeFileSync(gate, ''), r.uuid);
    expect((await h.settle(['held'], 60_000)).map((s) => s.token)).toEqual(['completed']);
    expect((await h.show('held')).attempts).toMatchObject([{ n: 1, kind: 'continue' }]);
  });

  it('a passing API error read by one supervisor, whose agent exits while none runs, is retried by the next (its verdict journaled, not only in memory)', async () => {
    const at = place();
    const gate = path.join(at.dir, 'gate');
    const agent = failsThenWaits(at, gate, 529, 'API Error: 529 Overloaded');
    const h = served({ providers: { claude: { command: [agent] } } });
    await h.start();
    const r = await h.run(['-n', 'failing', '-a', 'claude', '--retries', '1', '-p', 'go']);
    await until(async () => (await h.show('failing')).last_text === 'API Error: 529 Overloaded', 'the failure to be read');
    await exitWhileAway(h, () => fs.writeFileSync(gate, ''), r.uuid);
    expect((await h.settle(['failing'], 60_000)).map((s) => s.token)).toEqual(['completed']);
    expect((await h.show('failing')).attempts).toMatchObject([{ n: 1, kind: 'retry', detail: 'api_error' }]);
  });

  it("a guardrail's stop (--timeout) signalled by one supervisor, whose agent exits while none runs, ends the run as the guardrail said", async () => {
    const at = place();
    const gate = path.join(at.dir, 'gate');
    const termed = path.join(at.dir, 'termed');
    // Takes its TERM, notes it, and exits only once the gate opens: the supervisor dies between its stop and the exit.
    const agent = `trap 'touch ${termed}' TERM; while [ ! -e ${gate} ]; do sleep 0.02; done; exit 1`;
    const h = served({ timings: { kill_grace: '10m' } });
    await h.start();
    const r = await h.run(['-n', 'slow', '--timeout', '1s', '--', 'sh', '-c', agent]);
    await until(() => fs.existsSync(termed), 'the timeout to signal the agent');
    await exitWhileAway(h, () => fs.writeFileSync(gate, ''), r.uuid);
    await h.settle(['slow'], 60_000);
    expect(await h.show('slow')).toMatchObject({ status: 'ended', exit_reason: 'timeout' });
  });

  it('a prompt is not lost when the supervisor dies before the agent could be given it: the agent gets it once, and the run completes', async () => {
    const at = place();
    // The wrapper makes the agent's FIFO only once the gate opens: the supervisor is killed before it exists.
    const gate = path.join(at.dir, 'gate');
    const bin = path.join(at.dir, 'bin');
    fs.mkdirSync(bin);
    script({ dir: bin }, 'mkfifo', `#!/bin/sh\nwhile [ ! -e ${gate} ]; do sleep 0.02; done\nexec /usr/bin/mkfifo "$@"\n`);
    const got = path.join(at.dir, 'got');
    const agent = script(
      at,
      'claude-reads',
      `#!/bin/sh
read -r line
printf '%s\\n' "$line" >> ${got}
echo '{"type":"system","subtype":"init","session_id":"s1"}'
echo '{"type":"result","subtype":"success","is_error":false,"result":"done","session_id":"s1"}'
`,
    );
    const h = served({});
    await h.start();
    await h.call('run.enqueue', {
      specs: [{ name: 'p', command: [agent], protocol: 'claude', prompt: 'Fix the tests', cwd: at.dir }],
      caller_env: { ...process.env, PATH: `${bin}:${process.env.PATH}` },
    });
    await until(async () => (await h.show('p')).pid !== null, 'the wrapper to start');
    await h.killSupervisor();
    fs.writeFileSync(gate, '');
    await h.start();
    expect((await h.settle(['p'], 60_000)).map((s) => s.token)).toEqual(['completed']);
    const lines = fs.readFileSync(got, 'utf8').trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('Fix the tests');
  });

  it('a wrapper SIGKILLed under a live supervisor leaves its run lost (its agent killed with it), and --retries retries it to completion', async () => {
    const at = place();
    const mark = path.join(at.dir, 'first');
    const h = served({});
    await h.start();
    await h.run(['-n', 'lost', '--retries', '2', '--', 'sh', '-c', `[ -e ${mark} ] && exit 0; touch ${mark}; sleep 30`]);
    const first = await until(async () => {
      const x = await h.show('lost');
      return x.status === 'working' && x.pid !== null && fs.existsSync(mark) ? x : null;
    }, 'the first attempt to run');
    process.kill(first.pid!, 'SIGKILL');
    expect((await h.settle(['lost'], 60_000)).map((s) => s.token)).toEqual(['completed']);
    const done = await h.show('lost');
    expect(done.attempts).toMatchObject([{ n: 1, kind: 'retry', reason: 'lost' }]);
    // The first attempt's agent went with its wrapper: no `sleep 30` of this run is left.
    expect(alive(first.pid!)).toBe(false);
  });

  it("without --retries, that wrapper's run ends lost with a detail, not errored with nothing said", async () => {
    const h = served({});
    await h.start();
    await h.run(['-n', 'lost', '--', 'sh', '-c', 'sleep 30']);
    const first = await until(async () => {
      const x = await h.show('lost');
      return x.status === 'working' && x.pid !== null ? x : null;
    }, 'the run to work');
    process.kill(first.pid!, 'SIGKILL');
    expect((await h.settle(['lost'], 60_000)).map((s) => s.token)).toEqual(['lost']);
    const done = await h.show('lost');
    expect([done.exit_reason, done.exit_detail]).toEqual(['lost', 'no exit status and no process']);
  });
});
