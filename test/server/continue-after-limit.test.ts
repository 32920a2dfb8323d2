// A run whose agent stops on a usage limit is not ended: it goes back to the
// queue in its place, held with its provider, and when the hold lifts orcr
// starts the agent's resume command on the same session with the
// continuation prompt; the run completes as one run with two attempts. The
// supervisor runs in this process behind its real socket; the agent is a
// stand-in for Claude Code that speaks its stream-json (agent-formats: a
// limit is a `result` with is_error and api_error_status 429; `--resume ID`
// carries the session on and prints its own init with the same session_id).

import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { NODE, script, tempDir, until } from '../support/harness.js';
import { initRepo } from '../support/git.js';
import { useLiveHomes, useServedHomes } from '../support/in-process.js';
import { parseConfig } from '../../src/config/load.js';
import type { PublicRun } from '../../src/protocol/views.js';

const home = useLiveHomes();
const served = useServedHomes();
const SESSION = '4f1e9c2a-7b3d-4e21-9a55-0c8d2e6f1b73';

/** Claude Code's stand-in: the first call hits a usage limit after one message; a `--resume` call finishes the work. Each call's argv and first input line go to calls.jsonl. */
function standIn(h: { dir: string }, first: 'limit' | 'overloaded' = 'limit'): string {
  const calls = path.join(h.dir, 'calls.jsonl');
  return script(
    h,
    'claude',
    `#!${NODE}
const fs = require('node:fs');
const args = process.argv.slice(2);
const at = args.indexOf('--resume');
const session = at >= 0 ? args[at + 1] : ${JSON.stringify(SESSION)};
const out = (o) => process.stdout.write(JSON.stringify(o) + '\\n');
let buf = '';
process.stdin.setEncoding('utf8').on('data', (d) => {
  buf += d;
  const nl = buf.indexOf('\\n');
  if (nl < 0) return;
  process.stdin.pause();
  fs.appendFileSync(${JSON.stringify(calls)}, JSON.stringify({ args, input: buf.slice(0, nl), cwd: process.cwd(), found: fs.readdirSync('.').filter((f) => f.startsWith('work-')) }) + '\\n');
  // Work left in its folder, as an agent's edits are (uncommitted); only where a test asks (-e LEAVE_WORK=1).
  if (process.env.LEAVE_WORK === '1') fs.writeFileSync('work-' + (at >= 0 ? 2 : 1) + '.txt', 'done\\n');
  out({ type: 'system', subtype: 'init', cwd: process.cwd(), session_id: session, tools: [], model: 'claude-sonnet-4-5' });
  const usage = { input_tokens: 10, output_tokens: 5 };
  out({ type: 'assistant', message: { id: at >= 0 ? 'msg_2' : 'msg_1', role: 'assistant', content: [{ type: 'text', text: at >= 0 ? 'Picking up where I was.' : 'Working on it.' }], usage }, session_id: session });
  if (at < 0) {
    out(${first === 'limit' ? `{ type: 'result', subtype: 'success', is_error: true, api_error_status: 429, result: "You've hit your limit", session_id: session, num_turns: 1, usage, total_cost_usd: 0.01 }` : `{ type: 'result', subtype: 'success', is_error: true, api_error_status: 529, result: 'API Error: 529 Overloaded', session_id: session, num_turns: 1, usage, total_cost_usd: 0.01 }`});
    process.exit(1);
  }
  out({ type: 'result', subtype: 'success', is_error: false, result: 'Done.', session_id: session, num_turns: 1, usage, total_cost_usd: 0.01 });
  process.exit(0);
});
`,
  );
}

/** A folder for the stand-in and its calls, outside the home (the config names it before the home exists). */
function place(): { dir: string } {
  return { dir: tempDir('orcr-standin-') };
}

interface Call {
  args: string[];
  input: string;
  cwd: string;
  /** The work- files it found in its folder when it began. */
  found: string[];
}
const calls = (h: { dir: string }): Call[] =>
  fs
    .readFileSync(path.join(h.dir, 'calls.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Call);

/** The run named `name` once it is queued again after its first attempt (a continuation or a retry's wait). */
const requeued = (h: { show(ref: string): Promise<PublicRun> }, name: string, what = 'the run to be queued again'): Promise<PublicRun> =>
  until(async () => {
    const r = await h.show(name);
    return r.status === 'queued' && r.attempts.length === 1 ? r : null;
  }, what);

describe('continue after a usage limit', () => {
  it('queues the run again in its place, holds it with its provider, resumes the same session with the continuation prompt, and completes one run of two attempts', async () => {
    const at = place();
    const agent = standIn(at);
    const h = await home({
      concurrency: { max: 2 },
      // Held until lifted by hand below: a hold of seconds could lift before a CLI started on a loaded machine reads it.
      timings: { limit_hold: '10m' },
      providers: { claude: { command: [agent], continue_prompt: 'Go on, the limit has reset.' } },
    });
    const first = await h.run(['-n', 'work', '-a', 'claude', '-p', 'Fix the failing tests']);
    // Begun before the limit: it waits through the continuation (its blocked and queued are moments of the run).
    const waited = h.wait('work');
    // Queued again, held with its provider: WHY says when it resumes.
    const held = await requeued(h, 'work');
    expect(held.waiting).toMatchObject({ reason: 'hold', name: 'claude', resumes: true });
    expect((await h.cli(['ps'])).stdout).toMatch(/limit claude · resumes \d\d:\d\d \((9m[0-5]\ds|10m)\)/);
    expect((await h.cli(['provider', 'resume', 'claude'])).code).toBe(0);
    expect(await waited).toBe('work completed');
    const ended = await h.show('work');
    expect(ended.exit_reason).toBe('completed');
    expect(ended.queue_seq).toBe(first.queue_seq);
    expect(ended.session_id).toBe(SESSION);
    expect(ended.attempts).toHaveLength(1);
    expect(ended.attempts[0]).toMatchObject({ n: 1, reason: 'errored', detail: 'limit', session_id: SESSION });
    // Meters add up across attempts (each process reports its own totals from zero).
    expect(ended.turns).toBe(2);
    expect(ended.tokens).toEqual({ input: 20, output: 10, cached: 0 });
    expect(ended.cost_usd).toBeCloseTo(0.02, 6);

    const made = calls(at);
    expect(made).toHaveLength(2);
    expect(made[0]!.args).toEqual([]);
    expect(made[0]!.input).toContain('Fix the failing tests');
    expect(made[1]!.args).toEqual(['--resume', SESSION]);
    expect(made[1]!.input).toContain('Go on, the limit has reset.');

    const events = (await h.events<{ run: string | null; type: string; data: Record<string, unknown> }>()).filter(
      (e) => e.run === first.uuid || e.type === 'hold',
    );
    const types = events.map((e) => e.type);
    expect(types).toContain('hold');
    const cont = events.find((e) => e.type === 'continued')!;
    expect(cont.data).toMatchObject({ attempt: 2, reason: 'errored', detail: 'limit', session_id: SESSION, exit_code: 1 });
    expect(types.filter((t) => t === 'starting')).toHaveLength(2);
    expect(types.filter((t) => t === 'ended')).toHaveLength(1);
    expect(types.indexOf('continued')).toBeLessThan(types.lastIndexOf('starting'));

    const shown = (await h.cli(['show', 'work'])).stdout;
    expect(shown).toMatch(/^attempt 1 +.*errored \(limit\), continued session 4f1e9c2a/m);
    expect(shown).toMatch(/^attempt 2 +its last: completed/m);
  });

  it('a run waiting to continue survives a supervisor SIGKILL: the next supervisor keeps it queued with its attempt and resumes it when the hold lifts', async () => {
    const at = place();
    const agent = standIn(at);
    // A hold of hours, lifted by hand once the next supervisor has shown it
    // kept: a hold of seconds ran out during a kill and restart at load 8.
    const h = served({ timings: { limit_hold: '5h' }, providers: { claude: { command: [agent] } } });
    await h.start();
    await h.run(['-n', 'work', '-a', 'claude', '-p', 'Fix the failing tests']);
    await requeued(h, 'work');
    await h.killSupervisor();
    await h.start();
    const back = await h.show('work');
    expect([back.status, back.attempts.length, back.waiting?.reason]).toEqual(['queued', 1, 'hold']);
    expect((await h.cli(['provider', 'resume', 'claude'])).stdout.trim()).toBe('claude resumed');
    expect((await h.settle(['work'], 60_000)).map((r) => r.token)).toEqual(['completed']);
    expect(calls(at).map((c) => c.args)).toEqual([[], ['--resume', SESSION]]);
  });

  it('orcr provider resume continues a run held for hours at once', async () => {
    const at = place();
    const agent = standIn(at);
    const h = await home({ timings: { limit_hold: '5h' }, providers: { claude: { command: [agent] } } });
    await h.run(['-n', 'work', '-a', 'claude', '-p', 'go']);
    const held = await requeued(h, 'work');
    expect(Date.parse(held.waiting!.until!) - Date.now()).toBeGreaterThan(4 * 3_600_000);
    expect((await h.cli(['provider', 'resume', 'claude'])).stdout.trim()).toBe('claude resumed');
    expect(await h.wait('work')).toBe('work completed');
    expect((await h.show('work')).attempts).toHaveLength(1);
  });

  it("a run in a worktree continues in the same worktree, its first attempt's uncommitted work still there, and its diff holds both attempts' work", async () => {
    const at = place();
    const agent = standIn(at);
    const repo = initRepo(tempDir('orcr-repo-'), { 'f.txt': 'one\n' });
    const h = await home({ timings: { limit_hold: '1s' }, providers: { claude: { command: [agent] } } });
    await h.run(['-n', 'work', '-a', 'claude', '--worktree', '--cwd', repo, '-e', 'LEAVE_WORK=1', '-p', 'go']);
    expect(await h.wait('work')).toBe('work completed');
    const made = calls(at);
    expect(made.map((c) => c.args)).toEqual([[], ['--resume', SESSION]]);
    // The same folder, and what the first attempt left in it.
    expect(made[1]!.cwd).toBe(made[0]!.cwd);
    expect(made[0]!.cwd).not.toBe(repo);
    expect(made[1]!.found).toEqual(['work-1.txt']);
    const r = await h.show('work');
    expect(r.attempts).toHaveLength(1);
    expect(r.worktree?.state).toBe('ready');
    const diff = await h.cli(['diff', 'work', '--stat']);
    expect(diff.code, diff.stderr).toBe(0);
    expect(diff.stdout).toContain('work-1.txt');
    expect(diff.stdout).toContain('work-2.txt');
  });

  it('a run waiting to continue whose --timeout passes meanwhile ends timed out then, not when it would start again', async () => {
    const at = place();
    const agent = standIn(at);
    const h = await home({ timings: { limit_hold: '5h' }, providers: { claude: { command: [agent] } } });
    await h.run(['-n', 'work', '-a', 'claude', '--timeout', '3s', '-p', 'go']);
    expect(await h.wait('work')).toBe('work timeout');
    const r = await h.show('work');
    expect([r.exit_reason, r.attempts.length]).toEqual(['timeout', 1]);
    // Its hold has hours to go: it was never started again.
    expect(calls(at)).toHaveLength(1);
    const ended = (await h.events<{ run: string | null; type: string; data: Record<string, unknown> }>()).find((e) => e.run === r.uuid && e.type === 'ended')!;
    expect(ended.data).toMatchObject({ from: 'queued', reason: 'timeout' });
    expect(String(ended.data.note)).toMatch(/--timeout/);
  });

  it('so too after a supervisor SIGKILL: the next supervisor ends the waiting run when its --timeout passes', async () => {
    const at = place();
    const agent = standIn(at);
    const h = served({ timings: { limit_hold: '5h' }, providers: { claude: { command: [agent] } } });
    await h.start();
    await h.run(['-n', 'work', '-a', 'claude', '--timeout', '5s', '-p', 'go']);
    await requeued(h, 'work');
    await h.killSupervisor();
    await h.start();
    expect((await h.settle(['work'], 60_000)).map((r) => r.token)).toEqual(['timeout']);
    expect(calls(at)).toHaveLength(1);
  });

  it('an interactive run whose agent lives through a limit is sent the continuation prompt when the hold lifts', async () => {
    const at = place();
    const log = path.join(at.dir, 'lines');
    const agent = script(
      at,
      'claude-i',
      `#!${NODE}
const fs = require('node:fs');
const out = (o) => process.stdout.write(JSON.stringify(o) + '\\n');
let n = 0;
let buf = '';
process.stdin.setEncoding('utf8').on('data', (d) => {
  buf += d;
  let nl;
  while ((nl = buf.indexOf('\\n')) >= 0) {
    const line = buf.slice(0, nl);
    buf = buf.slice(nl + 1);
    fs.appendFileSync(${JSON.stringify(log)}, line + '\\n');
    n++;
    if (n === 1) out({ type: 'system', subtype: 'init', session_id: 's-i' });
    const usage = { input_tokens: 3, output_tokens: 1 };
    out({ type: 'assistant', message: { id: 'm' + n, content: [{ type: 'text', text: 'turn ' + n }], usage } });
    if (n === 1) out({ type: 'result', subtype: 'success', is_error: true, api_error_status: 429, result: "You've hit your limit", usage });
    else out({ type: 'result', subtype: 'success', is_error: false, result: 'done ' + n, usage });
  }
});
`,
    );
    const h = await home({ timings: { limit_hold: '2s' }, providers: { claude: { command: [agent], continue_prompt: 'The limit reset: go on.' } } });
    await h.run(['-n', 'chat', '-a', 'claude', '--interactive', '-p', 'Fix the failing tests']);
    // The limit's turn ends it idle, its agent alive; when the hold lifts it is told to go on.
    await until(() => fs.existsSync(log) && fs.readFileSync(log, 'utf8').trim().split('\n').length === 2, 'the continuation prompt to arrive', 30_000);
    const lines = fs.readFileSync(log, 'utf8').trim().split('\n');
    expect(lines[0]).toContain('Fix the failing tests');
    expect(lines[1]).toContain('The limit reset: go on.');
    expect(await h.wait('chat')).toBe('chat turn_complete');
    const r = await h.show('chat');
    expect([r.status, r.turns, r.last_text, r.attempts.length]).toEqual(['idle', 2, 'done 2', 0]);
  });

  it('an agent that waits a limit out itself (Claude Code under CLAUDE_CODE_RETRY_WATCHDOG) is blocked on it, WHY naming the agent as the one who waits; its provider held once however often it restates the wait; never queued again nor resumed', async () => {
    const at = place();
    const gate = path.join(at.dir, 'gate');
    const beats = path.join(at.dir, 'beats');
    const started = path.join(at.dir, 'started');
    // Claude Code 2.1.332's lines (test/real/transcripts/claude/usage-limit-wait.jsonl): the limit, then an
    // api_retry saying how long it waits for the reset, restated under the same attempt (every 30 s there, 100 ms here).
    const agent = script(
      at,
      'claude-waits',
      `#!${NODE}
const fs = require('node:fs');
fs.appendFileSync(${JSON.stringify(started)}, JSON.stringify(process.argv.slice(2)) + '\\n');
const out = (o) => process.stdout.write(JSON.stringify(o) + '\\n');
const session_id = 's-waits';
const resetsAt = Math.floor(Date.now() / 1000) + 3600;
process.stdin.setEncoding('utf8').once('data', () => {
  out({ type: 'system', subtype: 'init', session_id, model: 'claude-sonnet-5-5' });
  out({ type: 'rate_limit_event', rate_limit_info: { status: 'rejected', resetsAt, rateLimitType: 'five_hour', overageStatus: 'rejected', isUsingOverage: false }, session_id });
  const retry = () => out({ type: 'system', subtype: 'api_retry', attempt: 1, max_retries: 300, retry_delay_ms: resetsAt * 1000 - Date.now(), error_status: 429, error: 'rate_limit', session_id });
  retry();
  const beat = setInterval(() => {
    if (!fs.existsSync(${JSON.stringify(gate)})) {
      retry();
      fs.appendFileSync(${JSON.stringify(beats)}, '.');
      return;
    }
    clearInterval(beat);
    out({ type: 'assistant', message: { id: 'msg_1', role: 'assistant', content: [{ type: 'text', text: 'Carried on and done.' }], usage: { input_tokens: 30, output_tokens: 1 } }, session_id });
    out({ type: 'rate_limit_event', rate_limit_info: { status: 'allowed', isUsingOverage: false }, session_id });
    out({ type: 'result', subtype: 'success', is_error: false, result: 'Carried on and done.', session_id, num_turns: 1, usage: { input_tokens: 30, output_tokens: 5 }, total_cost_usd: 0.0001 });
  }, 100);
});
process.stdin.on('end', () => process.exit(0));
`,
    );
    const h = await home({ timings: { limit_hold: '2s' }, providers: { claude: { command: [agent] } } });
    const first = await h.run(['-n', 'work', '-a', 'claude', '-p', 'Write the summary']);
    const waited = h.wait('work');
    const blocked = await until(async () => {
      const r = await h.show('work');
      return r.status === 'blocked' && r.agent_retry?.until ? r : null;
    }, 'the run blocked, its agent waiting');
    expect(blocked).toMatchObject({ blocked_kind: 'limit', agent_retry: { attempt: 1, max: 300, error: 'rate_limit' }, attempts: [] });
    // The agent waits for the reset, and the provider is held as long: by the same clock, to the second.
    expect(Math.abs(Date.parse(blocked.agent_retry!.until!) - Date.parse(blocked.held_until!))).toBeLessThan(2000);
    expect(Date.parse(blocked.agent_retry!.until!) - Date.now()).toBeGreaterThan(3_500_000);
    expect((await h.cli(['ps'])).stdout).toMatch(/blocked:limit the agent waits until \d\d:\d\d \((59m|1h)/);
    expect((await h.cli(['show', 'work'])).stdout).toMatch(/^waiting +limit claude · the agent waits until \d\d:\d\d/m);
    await until(() => fs.existsSync(beats) && fs.readFileSync(beats, 'utf8').length >= 5, 'the wait restated five times');
    fs.writeFileSync(gate, '');
    expect(await waited).toBe('work completed');
    const r = await h.show('work');
    expect([r.exit_reason, r.attempts.length, r.agent_retry, r.last_text]).toEqual(['completed', 0, null, 'Carried on and done.']);
    // One process, never resumed by orcr: the agent went on by itself.
    expect(fs.readFileSync(started, 'utf8').trim().split('\n')).toEqual(['[]']);
    const events = (await h.events<{ run: string | null; type: string; data: Record<string, unknown> }>()).filter(
      (e) => e.run === first.uuid || e.type === 'hold',
    );
    const types = events.map((e) => e.type);
    expect(types.filter((t) => t === 'hold')).toHaveLength(1);
    expect(types.filter((t) => t === 'agent_retry')).toHaveLength(1);
    expect(types.filter((t) => t === 'blocked')).toHaveLength(1);
    expect(types).not.toContain('continued');
  });

  it('with on_limit: end, the run ends errored (limit) as before', async () => {
    const at = place();
    const agent = standIn(at);
    const h = await home({ timings: { limit_hold: '2s' }, providers: { claude: { command: [agent], on_limit: 'end' } } });
    await h.run(['-n', 'once', '-a', 'claude', '-p', 'go']);
    const r = await until(
      async () => {
        const x = await h.show('once');
        return x.status === 'ended' ? x : null;
      },
      'the run to end',
      60_000,
    );
    expect([r.exit_reason, r.exit_detail]).toEqual(['errored', 'limit']);
    expect(r.attempts).toEqual([]);
    expect(calls(at)).toHaveLength(1);
    expect((await h.events<{ type: string }>()).map((e) => e.type)).not.toContain('continued');
  });

  it("a run's own --on-limit end and --max-continues 0 come before its provider's continue", async () => {
    const at = place();
    const agent = standIn(at);
    const h = await home({ timings: { limit_hold: '2s' }, providers: { claude: { command: [agent] } } });
    const ended = async (name: string): Promise<string> =>
      until(async () => {
        const r = await h.show(name);
        return r.status === 'ended' ? `${r.exit_reason} ${r.exit_detail}` : null;
      }, `${name} to end`);
    // Not with wait: a run that will not be continued settles at its blocked, as it always did.
    await h.run(['-n', 'ends', '-a', 'claude', '--on-limit', 'end', '-p', 'go']);
    expect(await ended('ends')).toBe('errored limit');
    await h.run(['-n', 'none-left', '-a', 'claude', '--max-continues', '0', '-p', 'go']);
    expect(await ended('none-left')).toBe('errored limit');
    const notes = (await h.events<{ type: string; data: { note?: string } }>()).filter((e) => e.type === 'ended').map((e) => e.data.note ?? null);
    expect(notes).toEqual([null, 'not continued: 0 continuations already (max_continues)']);
    expect(calls(at)).toHaveLength(2);
    for (const [flag, bad] of [
      ['--on-limit', 'retry'],
      ['--max-continues', '101'],
      ['--max-continues', 'x'],
    ] as const) {
      const r = await h.cli(['run', flag, bad, '--', 'true']);
      expect(r.code, `${flag} ${bad}`).toBe(2);
      expect(r.stderr).toMatch(flag === '--on-limit' ? /on-limit|on_limit/ : /max-continues|max_continues/);
    }
  });

  it('refuses a bad on_limit, max_continues or continue_prompt in config.json: a usage error (exit 2) that names the key', async () => {
    const h = await home({});
    for (const [bad, key] of [
      [{ on_limit: 'retry' }, 'on_limit'],
      [{ max_continues: 101 }, 'max_continues'],
      [{ max_continues: -1 }, 'max_continues'],
      [{ max_continues: 1.5 }, 'max_continues'],
      [{ max_continues: '3' }, 'max_continues'],
      [{ continue_prompt: '   ' }, 'continue_prompt'],
      [{ continue_prompt: 'x'.repeat(10_001) }, 'continue_prompt'],
    ] as const) {
      h.writeConfig({ providers: { claude: bad } });
      const r = await h.cli(['ps']);
      expect(r.code, JSON.stringify(bad)).toBe(2);
      expect(r.stderr).toContain(`providers.claude.${key}`);
    }
  });

  describe('retries of passing failures', () => {
    it('--retries: an attempt the API failed (overloaded) is tried again after its backoff, resuming the session; the run completes with one retry', async () => {
      const at = place();
      const agent = standIn(at, 'overloaded');
      const h = await home({ providers: { claude: { command: [agent] } } });
      const first = await h.run(['-n', 'flaky', '-a', 'claude', '--retries', '3', '-p', 'Fix the failing tests']);
      const waited = h.wait('flaky');
      const backing = await requeued(h, 'flaky', 'the run to wait for its retry');
      expect(backing.waiting).toMatchObject({ reason: 'retry', active: 1, limit: 3, why: 'api error' });
      expect(await waited).toBe('flaky completed');
      const r = await h.show('flaky');
      expect(r.attempts).toMatchObject([{ n: 1, kind: 'retry', reason: 'errored', detail: 'api_error', session_id: SESSION }]);
      expect(r.queue_seq).toBe(first.queue_seq);
      expect(calls(at).map((c) => c.args)).toEqual([[], ['--resume', SESSION]]);
      const ev = (await h.events<{ run: string | null; type: string; data: Record<string, unknown> }>()).find(
        (e) => e.run === first.uuid && e.type === 'retrying',
      )!;
      expect(ev.data).toMatchObject({ attempt: 2, of: 4, why: 'api error', resumes: true, exit_code: 1 });
      // The first retry waits 2 s ±20%.
      expect(ev.data.delay_ms).toBeGreaterThanOrEqual(1600);
      expect(ev.data.delay_ms).toBeLessThanOrEqual(2400);
    });

    it('never retries a budget trip, and without --retries a passing failure ends the run as before', async () => {
      const at = place();
      const agent = standIn(at, 'overloaded');
      const h = await home({ providers: { claude: { command: [agent] } } });
      await h.run(['-n', 'spent', '-a', 'claude', '--retries', '3', '--max-tokens', '1', '-p', 'go']);
      expect(await h.wait('spent')).toBe('spent budget');
      await h.run(['-n', 'plain', '-a', 'claude', '-p', 'go']);
      expect(await h.wait('plain')).toBe('plain errored');
      expect((await h.show('plain')).exit_detail).toBe('api_error');
      expect(calls(at)).toHaveLength(2);
      expect((await h.events<{ type: string }>()).map((e) => e.type)).not.toContain('retrying');
    });

    it('never retries an exit code its provider or workload lists as terminal, and show says why', async () => {
      const at = place();
      const agent = standIn(at, 'overloaded');
      const h = await home({ concurrency: { workloads: { batch: { terminal_exit_codes: [1] } } }, providers: { claude: { command: [agent], retries: 2 } } });
      await h.run(['-n', 'work', '-a', 'claude', '-w', 'batch', '-p', 'go']);
      expect(await h.wait('work')).toBe('work errored');
      expect(calls(at)).toHaveLength(1);
      const ended = (await h.events<{ type: string; data: Record<string, unknown> }>()).find((e) => e.type === 'ended')!;
      expect(ended.data).toMatchObject({
        reason: 'errored',
        detail: 'api_error',
        exit_code: 1,
        note: 'not retried: exit code 1 is terminal (terminal_exit_codes)',
      });
      expect((await h.cli(['show', 'work'])).stdout).toContain('exit code 1 is terminal');
      // Without the list, the provider's retries retry it.
      await h.run(['-n', 'again', '-a', 'claude', '-p', 'go']);
      expect(await h.wait('again')).toBe('again completed');
    });

    it('shows Claude Code retrying a call by itself on the run, until it works again', async () => {
      const at = place();
      const gate = path.join(at.dir, 'gate');
      const agent = script(
        at,
        'retrying.sh',
        `#!/bin/sh
read -r line
echo '{"type":"system","subtype":"init","session_id":"s1"}'
echo '{"type":"system","subtype":"api_retry","attempt":3,"max_retries":10,"retry_delay_ms":4000,"error_status":529,"error":"overloaded_error","session_id":"s1"}'
while [ ! -e ${JSON.stringify(gate)} ]; do sleep 0.05; done
echo '{"type":"assistant","message":{"id":"m1","content":[{"type":"text","text":"back"}],"usage":{"input_tokens":3,"output_tokens":1}}}'
echo '{"type":"result","subtype":"success","is_error":false,"result":"back","usage":{"input_tokens":3,"output_tokens":1}}'
`,
      );
      const h = await home({ providers: { claude: { command: [agent] } } });
      await h.run(['-n', 'quiet', '-a', 'claude', '-p', 'go']);
      const r = await until(async () => {
        const x = await h.show('quiet');
        return x.agent_retry ? x : null;
      }, 'the retry to show');
      expect(r.status).toBe('working');
      expect(r.agent_retry).toMatchObject({ attempt: 3, max: 10, error: 'overloaded_error' });
      expect((await h.cli(['ps'])).stdout).toMatch(/working retrying overloaded 3\/10/);
      fs.writeFileSync(gate, '');
      expect(await h.wait('quiet')).toBe('quiet completed');
      expect((await h.show('quiet')).agent_retry).toBeNull();
      expect((await h.events<{ type: string }>()).map((e) => e.type)).toContain('agent_retry');
    });

    it('refuses a bad --retries (exit 2, naming it), and a bad retries or terminal_exit_codes in config', async () => {
      const h = await home({});
      for (const bad of ['101', '-1', '1.5', 'x', '']) {
        const r = await h.cli(['run', '--retries', bad, '--', 'true']);
        expect(r.code, bad).toBe(2);
        expect(r.stderr).toMatch(/retries/);
      }
      for (const [cfg, key] of [
        [{ concurrency: { workloads: { batch: { retries: 1000 } } } }, 'concurrency.workloads.batch.retries'],
        [{ providers: { claude: { retries: -1 } } }, 'providers.claude.retries'],
        [{ providers: { claude: { retries: 'two' } } }, 'providers.claude.retries'],
        [{ providers: { claude: { terminal_exit_codes: [0] } } }, 'providers.claude.terminal_exit_codes'],
        [{ providers: { claude: { terminal_exit_codes: 3 } } }, 'providers.claude.terminal_exit_codes'],
        [{ concurrency: { workloads: { batch: { terminal_exit_codes: [256] } } } }, 'concurrency.workloads.batch.terminal_exit_codes'],
        [{ concurrency: { workloads: { batch: { terminal_exit_codes: ['1'] } } } }, 'concurrency.workloads.batch.terminal_exit_codes'],
      ] as const) {
        expect(() => parseConfig(cfg), key).toThrow(key);
      }
      expect(parseConfig({ providers: { claude: { retries: 3 } }, concurrency: { workloads: { batch: { retries: 0 } } } }).providers.claude!.retries).toBe(3);
    });
  });

  describe('the quota coming', () => {
    /** A stand-in that reports its account at `utilization` of its five-hour window, resetting in `resetS` seconds, and completes. */
    function reporting(at: { dir: string }, utilization: number, resetS: number): string {
      return script(
        at,
        'claude-q',
        `#!${NODE}
process.stdin.setEncoding('utf8').once('data', () => {
  const out = (o) => process.stdout.write(JSON.stringify(o) + '\\n');
  out({ type: 'system', subtype: 'init', session_id: 's-q' });
  out({ type: 'assistant', message: { id: 'm1', content: [{ type: 'text', text: 'ok' }], usage: { input_tokens: 3, output_tokens: 1 } } });
  out({ type: 'rate_limit_event', rate_limit_info: { status: 'allowed_warning', rateLimitType: 'five_hour', utilization: Number(process.env.UTIL ?? ${utilization}), resetsAt: Math.floor(Date.now() / 1000) + ${resetS} } });
  out({ type: 'result', subtype: 'success', is_error: false, result: 'ok', usage: { input_tokens: 3, output_tokens: 1 } });
  process.exit(0);
});
`,
      );
    }

    it('keeps the latest window per provider in stats; at pause_at no new run of its account starts until the window resets', async () => {
      const at = place();
      const agent = reporting(at, 0.93, 3);
      const h = await home({ providers: { claude: { command: [agent], pause_at: 0.9 } } });
      await h.run(['-n', 'one', '-a', 'claude', '-p', 'go']);
      expect(await h.wait('one')).toBe('one completed');
      const stats = await h.stats<{
        quotas: { provider: string; window: string; status: string; utilization: number; resets_at: string }[];
        holds: Record<string, number>;
        account_holds: { provider: string; account: string | null; until: string }[];
      }>();
      expect(stats.quotas).toMatchObject([{ provider: 'claude', window: 'five_hour', status: 'allowed_warning', utilization: 0.93 }]);
      const resets = Date.parse(stats.quotas[0]!.resets_at);
      // The account's (here the agent's default login), not the provider's.
      expect(stats.holds).toEqual({});
      expect(stats.account_holds).toEqual([{ provider: 'claude', account: null, until: new Date(resets).toISOString() }]);
      expect((await h.cli(['stats'])).stdout).toMatch(/^quota: claude 5h 93% · resets \d\d:\d\d \(allowed_warning\)$/m);
      expect((await h.cli(['stats'])).stdout).toMatch(/^hold: claude \(default login\), its runs wait, lifted /m);
      const hold = (await h.events<{ type: string; data: Record<string, unknown> }>()).find((e) => e.type === 'hold')!;
      expect(hold.data).toMatchObject({ quota: { window: 'five_hour', utilization: 0.93, pause_at: 0.9 }, account: null });
      // The next run waits for the reset, then starts.
      await h.run(['-n', 'two', '-a', 'claude', '-p', 'go']);
      expect((await h.show('two')).waiting).toMatchObject({ reason: 'hold', name: 'claude', account: null });
      expect((await h.cli(['ps'])).stdout).toMatch(/hold claude \(default login\) \d/);
      expect(await h.wait('two')).toBe('two completed');
      expect(Date.now()).toBeGreaterThanOrEqual(resets - 100);
    });

    it("pause_at reached by one account holds that account's runs only: another account's, and a new one of the held account after the reset, start", async () => {
      const at = place();
      const agent = reporting(at, 0.5, 3);
      const h = await home({ providers: { claude: { command: [agent], pause_at: 0.9 } } });
      const work = ['-e', 'CLAUDE_CONFIG_DIR=/srv/agents/.claude-work'];
      await h.run(['-n', 'spent', '-a', 'claude', ...work, '-e', 'UTIL=0.95', '-p', 'go']);
      expect(await h.wait('spent')).toBe('spent completed');
      await h.run(['-n', 'waits', '-a', 'claude', ...work, '-p', 'go']);
      await h.run(['-n', 'other', '-a', 'claude', '-e', 'CLAUDE_CONFIG_DIR=/srv/agents/.claude-home', '-p', 'go']);
      await h.run(['-n', 'plain', '-a', 'claude', '-p', 'go']);
      // The other account and the default login go on while .claude-work waits for its window.
      expect((await h.settle(['other', 'plain'], 60_000)).map((r) => r.token)).toEqual(['completed', 'completed']);
      const waiting = await h.show('waits');
      expect(waiting.status).toBe('queued');
      expect(waiting.waiting).toMatchObject({ reason: 'hold', name: 'claude', account: '/srv/agents/.claude-work' });
      expect((await h.stats<{ holds: Record<string, number> }>()).holds).toEqual({});
      // Then its window resets and it starts.
      expect(await h.wait('waits')).toBe('waits completed');
      const lifted = (await h.events<{ type: string; data: Record<string, unknown> }>()).find((e) => e.type === 'hold_lifted')!;
      expect(lifted.data).toMatchObject({ provider: 'claude', account: '/srv/agents/.claude-work', early: false });
    });

    it('an account held at pause_at keeps its runs waiting across a supervisor restart, and provider resume lifts it', async () => {
      const at = place();
      const agent = reporting(at, 0.5, 3600);
      const h = served({ providers: { claude: { command: [agent], pause_at: 0.9 } } });
      await h.start();
      await h.run(['-n', 'spent', '-a', 'claude', '-e', 'UTIL=0.95', '-p', 'go']);
      expect((await h.settle(['spent'], 60_000)).map((r) => r.token)).toEqual(['completed']);
      await h.run(['-n', 'waits', '-a', 'claude', '-p', 'go']);
      await h.killSupervisor();
      await h.start();
      expect((await h.show('waits')).waiting).toMatchObject({ reason: 'hold', account: null });
      expect((await h.cli(['provider', 'resume', 'claude'])).stdout.trim()).toBe('claude resumed');
      expect((await h.settle(['waits'], 60_000)).map((r) => r.token)).toEqual(['completed']);
    });

    it('below pause_at (or without it) nothing is held', async () => {
      const at = place();
      const agent = reporting(at, 0.5, 3600);
      const h = await home({ providers: { claude: { command: [agent], pause_at: 0.9 } } });
      await h.run(['-n', 'one', '-a', 'claude', '-p', 'go']);
      expect(await h.wait('one')).toBe('one completed');
      const stats = await h.stats<{ quotas: { utilization: number }[]; holds: Record<string, number> }>();
      expect(stats.quotas[0]!.utilization).toBe(0.5);
      expect(stats.holds).toEqual({});
    });

    it("keeps each account's window apart (CLAUDE_CONFIG_DIR), and shows the windows in stats, spend and their --json", async () => {
      const at = place();
      const agent = reporting(at, 0.5, 3600);
      const h = await home({ providers: { claude: { command: [agent] } } });
      await h.run(['-n', 'work', '-a', 'claude', '-e', 'CLAUDE_CONFIG_DIR=/srv/agents/.claude-work', '-e', 'UTIL=0.7', '-p', 'go']);
      await h.run(['-n', 'home', '-a', 'claude', '-e', 'CLAUDE_CONFIG_DIR=/srv/agents/.claude-home', '-e', 'UTIL=0.2', '-p', 'go']);
      await h.run(['-n', 'plain', '-a', 'claude', '-e', 'UTIL=0.4', '-p', 'go']);
      expect((await h.settle(['work', 'home', 'plain'], 60_000)).map((r) => r.token)).toEqual(['completed', 'completed', 'completed']);
      const stats = await h.stats<{ quotas: { provider: string; account: string | null; utilization: number }[] }>();
      expect(stats.quotas.map((q) => [q.account, q.utilization])).toEqual([
        [null, 0.4],
        ['/srv/agents/.claude-home', 0.2],
        ['/srv/agents/.claude-work', 0.7],
      ]);
      const text = (await h.cli(['stats'])).stdout;
      expect(text).toMatch(/^quota: claude 5h 40% · resets \d\d:\d\d \(allowed_warning\)$/m);
      expect(text).toMatch(/^quota: claude \(\.claude-work\) 5h 70% · resets/m);
      const spend = await h.cli(['spend']);
      expect(spend.stdout).toMatch(/^quota: claude \(\.claude-home\) 5h 20% · resets/m);
      const json = JSON.parse((await h.cli(['spend', '--json'])).stdout) as { quotas: { account: string | null }[] };
      expect(json.quotas.map((q) => q.account)).toEqual([null, '/srv/agents/.claude-home', '/srv/agents/.claude-work']);
    });

    it('refuses a pause_at that is not a fraction above 0, at most 1', () => {
      for (const bad of [0, 1.5, -0.1, '0.9'])
        expect(() => parseConfig({ providers: { claude: { pause_at: bad } } }), String(bad)).toThrow('providers.claude.pause_at');
      expect(parseConfig({ providers: { claude: { pause_at: 1 } } }).providers.claude!.pause_at).toBe(1);
    });
  });
});
