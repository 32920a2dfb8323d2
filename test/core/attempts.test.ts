import { describe, expect, it } from 'vitest';
import { agentProtocol } from '../../src/agents/registry.js';
import { afterExit, passingFailure, retryDelay, RETRY_MAX_MS, waitingDeadline, type Attempt, type ContinuePolicy } from '../../src/core/attempts.js';
import { newRun } from '../../src/core/run-record.js';
import { NO_LIMITS } from '../../src/core/budget.js';
import type { Run } from '../../src/core/types.js';

// The run's protocol resumes as its record says (the shell hands core the function).
const policy: ContinuePolicy = { on_limit: 'continue', max_continues: 2, prompt: 'go on', resume: agentProtocol('claude')!.resume! };
const run = (patch: Partial<Run> = {}): Run => ({
  ...newRun({
    uuid: 'u1',
    name: 'r',
    provider: 'claude',
    workload: 'default',
    protocol: 'claude',
    queue_seq: 1,
    command: ['claude', '-p', '--verbose'],
    cwd: '/tmp',
    now: 1000,
    limits: NO_LIMITS,
  }),
  session_id: 'S1',
  started_at: 1000,
  ...patch,
});
const limit = { reason: 'errored' as const, detail: 'limit' };

describe('afterExit', () => {
  it('continues a usage limit: the attempt recorded, the resume command from the first command', () => {
    const a = afterExit(run(), limit, policy, 5000);
    expect(a).toEqual({
      kind: 'continue',
      attempt: { n: 1, kind: 'continue', started_at: 1000, ended_at: 5000, reason: 'errored', detail: 'limit', session_id: 'S1', prompt: null },
      argv: ['claude', '--resume', 'S1', '-p', '--verbose'],
    });
    if (a.kind !== 'continue') throw new Error(`expected a continue, got ${a.kind}`);
    // A second limit: built from first_command, not from the resume command.
    const again = afterExit(
      run({
        attempts: [a.attempt],
        first_command: ['claude', '-p', '--verbose'],
        command: ['claude', '--resume', 'S1', '-p', '--verbose'],
      }),
      limit,
      policy,
      9000,
    );
    expect(again).toMatchObject({ kind: 'continue', attempt: { n: 2 }, argv: ['claude', '--resume', 'S1', '-p', '--verbose'] });
  });

  it('ends everything else as the exit said, and a limit it cannot continue with a note why', () => {
    for (const v of [
      { reason: 'completed' as const, detail: null },
      { reason: 'errored' as const, detail: 'login' },
      { reason: 'budget' as const, detail: 'max_tokens' },
      { reason: 'killed' as const, detail: null },
    ]) {
      expect(afterExit(run(), v, policy, 1)).toEqual({ kind: 'end', ...v, note: null });
    }
    expect(afterExit(run(), limit, { ...policy, on_limit: 'end' }, 1)).toEqual({ kind: 'end', ...limit, note: null });
    expect(afterExit(run(), limit, null, 1)).toMatchObject({ kind: 'end', note: null });
    expect(afterExit(run({ session_id: null }), limit, policy, 1)).toMatchObject({ kind: 'end', note: 'not continued: the agent named no session to resume' });
    expect(afterExit(run({ protocol: null, command: ['sh'] }), limit, { ...policy, resume: null }, 1)).toMatchObject({
      kind: 'end',
      note: expect.stringMatching(/does not know how to resume/),
    });
    const two = [1, 2].map((n) => ({
      n,
      kind: 'continue' as const,
      started_at: 0,
      ended_at: 0,
      reason: 'errored' as const,
      detail: 'limit',
      session_id: 'S1',
      prompt: null,
    }));
    expect(afterExit(run({ attempts: two }), limit, policy, 1)).toMatchObject({ kind: 'end', note: 'not continued: 2 continuations already (max_continues)' });
  });
});

describe('retries of passing failures', () => {
  const retrying: ContinuePolicy = { ...policy, retries: 2 };
  it('names what may pass, and nothing else', () => {
    expect(passingFailure({ reason: 'lost', detail: 'no exit status and no process' })).toBe('lost');
    expect(passingFailure({ reason: 'timeout', detail: 'stall' })).toBe('turn timeout');
    expect(passingFailure({ reason: 'failed', detail: 'exited before it started (exit code 1)' })).toBe('never started');
    expect(passingFailure({ reason: 'failed', detail: 'stuck_start: no sign of life within timings.max_starting' })).toBe('never started');
    expect(passingFailure({ reason: 'errored', detail: 'api_error' })).toBe('api error');
    for (const v of [
      { reason: 'completed' as const, detail: null },
      { reason: 'budget' as const, detail: 'max_tokens' },
      { reason: 'loop' as const, detail: null },
      { reason: 'killed' as const, detail: null },
      { reason: 'canceled' as const, detail: null },
      { reason: 'errored' as const, detail: 'limit' },
      { reason: 'errored' as const, detail: 'login' },
      { reason: 'errored' as const, detail: null },
      { reason: 'timeout' as const, detail: null },
      { reason: 'failed' as const, detail: 'ENOENT' },
    ])
      expect(passingFailure(v), JSON.stringify(v)).toBeNull();
  });

  it('backs off doubling from 2 s up to 5 min, ±20%', () => {
    expect([1, 2, 3].map((n) => retryDelay(n, 0.5))).toEqual([2000, 4000, 8000]);
    expect(retryDelay(1, 0)).toBe(1600);
    expect(retryDelay(1, 0.999999)).toBe(2400);
    expect(retryDelay(30, 0.5)).toBe(RETRY_MAX_MS);
  });

  it('retries resuming the session where there is one, else afresh with the first command; counts only retries', () => {
    const lost = { reason: 'lost' as const, detail: 'no exit status and no process' };
    expect(afterExit(run(), lost, retrying, 5000)).toMatchObject({
      kind: 'retry',
      resumes: true,
      argv: ['claude', '--resume', 'S1', '-p', '--verbose'],
      delay_ms: 2000,
      why: 'lost',
      attempt: { n: 1, kind: 'retry' },
    });
    expect(afterExit(run({ session_id: null }), lost, retrying, 5000)).toMatchObject({ kind: 'retry', resumes: false, argv: ['claude', '-p', '--verbose'] });
    const cont: Attempt = { n: 1, kind: 'continue', started_at: 0, ended_at: 0, reason: 'errored', detail: 'limit', session_id: 'S1', prompt: null };
    const retry: Attempt = { ...cont, n: 2, kind: 'retry', reason: 'lost' };
    // A continuation before does not use a retry up; two retries do.
    expect(afterExit(run({ attempts: [cont, retry] }), lost, retrying, 5000)).toMatchObject({ kind: 'retry', delay_ms: 4000, attempt: { n: 3 } });
    expect(afterExit(run({ attempts: [cont, retry, { ...retry, n: 3 }] }), lost, retrying, 5000)).toEqual({
      kind: 'end',
      ...lost,
      note: 'not retried: 2 retries already (--retries)',
    });
    // No retries asked for: ends as it was.
    expect(afterExit(run(), lost, policy, 5000)).toEqual({ kind: 'end', ...lost, note: null });
  });

  it('never retries an exit code listed as terminal, nor 126 or 127', () => {
    const api = { reason: 'errored' as const, detail: 'api_error' };
    expect(afterExit(run(), { ...api, code: 3 }, { ...retrying, terminal_exit_codes: [3, 9] }, 5000)).toEqual({
      kind: 'end',
      ...api,
      note: 'not retried: exit code 3 is terminal (terminal_exit_codes)',
    });
    expect(afterExit(run(), { ...api, code: 127 }, retrying, 5000)).toEqual({ kind: 'end', ...api, note: 'not retried: exit code 127 is terminal' });
    expect(afterExit(run(), { ...api, code: 1 }, { ...retrying, terminal_exit_codes: [3] }, 5000)).toMatchObject({ kind: 'retry' });
    // No exit code (a lost process): nothing to match.
    expect(afterExit(run(), { reason: 'lost', detail: null, code: null }, { ...retrying, terminal_exit_codes: [1] }, 5000)).toMatchObject({ kind: 'retry' });
  });

  it('a retry that resumes waits until its session may be loaded (resume_after: Gemini refuses a load in the minute it was opened); afresh, it does not', () => {
    const api = { reason: 'errored' as const, detail: 'api_error' };
    // Opened at 10:00:20 (resume_after 10:01:01), failed at 10:00:30: the 2 s backoff becomes 31 s.
    const at = Date.UTC(2026, 11, 7, 10, 0, 30);
    const opened = run({ resume_after: Date.UTC(2026, 11, 7, 10, 1, 1) });
    expect(afterExit(opened, api, retrying, at)).toMatchObject({ kind: 'retry', resumes: true, delay_ms: 31_000 });
    // Past it already: the backoff alone.
    expect(afterExit(opened, api, retrying, Date.UTC(2026, 11, 7, 10, 2, 0))).toMatchObject({ kind: 'retry', delay_ms: 2000 });
    // No session to load: afresh, no wait for one.
    expect(afterExit(run({ session_id: null, resume_after: Date.UTC(2026, 11, 7, 10, 1, 1) }), api, retrying, at)).toMatchObject({
      kind: 'retry',
      resumes: false,
      delay_ms: 2000,
    });
    // The wait counts against the run's --timeout as the backoff does.
    const short = run({ resume_after: Date.UTC(2026, 11, 7, 10, 1, 1), started_at: at - 10_000, limits: { ...NO_LIMITS, timeout_ms: 30_000 } });
    expect(afterExit(short, api, retrying, at)).toMatchObject({ kind: 'end', note: "not retried: the run's --timeout would pass before the retry" });
  });

  it("does not retry past the run's timeout", () => {
    const r = run({ started_at: 1000, limits: { ...NO_LIMITS, timeout_ms: 10_000 } });
    expect(afterExit(r, { reason: 'errored', detail: 'api_error' }, retrying, 8000)).toMatchObject({ kind: 'retry' });
    expect(afterExit(r, { reason: 'errored', detail: 'api_error' }, retrying, 9500)).toEqual({
      kind: 'end',
      reason: 'errored',
      detail: 'api_error',
      note: "not retried: the run's --timeout would pass before the retry",
    });
  });
});

describe('waitingDeadline', () => {
  const attempt: Attempt = { n: 1, kind: 'continue', started_at: 5_000, ended_at: 9_000, reason: 'errored', detail: 'limit', session_id: 's', prompt: 'go' };
  it("is the first attempt's start plus the timeout, for a run queued between attempts", () => {
    expect(waitingDeadline(run({ status: 'queued', attempts: [attempt], limits: { ...NO_LIMITS, timeout_ms: 60_000 } }))).toBe(65_000);
  });
  it('is null without a timeout, before a first attempt, or once the run is started again', () => {
    expect(waitingDeadline(run({ status: 'queued', attempts: [attempt] }))).toBeNull();
    expect(waitingDeadline(run({ status: 'queued', limits: { ...NO_LIMITS, timeout_ms: 60_000 } }))).toBeNull();
    expect(waitingDeadline(run({ status: 'starting', attempts: [attempt], limits: { ...NO_LIMITS, timeout_ms: 60_000 } }))).toBeNull();
  });
});
