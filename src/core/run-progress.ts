// A running agent's progress: the signals its output lines became, applied to
// its run. Pure — the next run, the events that explain it and the side
// effects to take, as data; the supervisor journals the first two and then
// carries out the effects. It never touches the journal, a process or a timer.

import type { EventInput } from './events.js';
import { rolledUp } from './run-tree.js';
import { countedTokens, firstTrip, mayBeginTurn, roundFraction, runCost, runMeters, runUsage, tripReason, type Price } from './budget.js';
import { initialLoopState, loopConfigFor, observeTurn, type LoopState, type TurnRecord } from './loop.js';
import { transition } from './run-state.js';
import type { ExtendedSignal } from './signals.js';
import { PLAIN_PROTOCOL, type ExitReason, type Run } from './types.js';

/** What the adapters say: their signals, model-turn boundaries included. */
export type ProgressSignal = ExtendedSignal;

/** What the reducer remembers of a live run between calls, beside the run itself. */
export interface ProgressState {
  loop: LoopState;
  /** Tool calls and text since the last model-turn boundary. */
  turn: TurnRecord;
  /** A guardrail decided to stop the run; the exit reason it will end with. */
  stoppedFor: { reason: ExitReason; detail: string | null } | null;
  /** A loop warning to send once the agent is idle again. */
  pendingWarning: string | null;
}

export function initialProgress(): ProgressState {
  return { loop: initialLoopState(), turn: { tools: [], text: null }, stoppedFor: null, pendingWarning: null };
}

export interface ProgressContext {
  now: number;
  /** The provider's price, when the agent does not report its own cost. */
  price: Price | null;
  /** The fleet budget is spent: no new turns, so an interactive run is not left idle. */
  fleetExceeded: boolean;
  /** How long a usage limit holds its provider when the agent names no time. */
  limitHoldMs: number;
  /** Until when this run's provider is already held (epoch ms), or null. */
  heldUntil: number | null;
  /** providers.NAME.pause_at: at this share of a usage window, no new run of the provider starts until it resets. Absent: never. */
  pauseAt?: number | null;
  /** When the run's provider's last hold lifted (same clock as `now`), or null: a limit soon after is the reset's rush. */
  liftedAt?: number | null;
  /** Until when the run's account is held already (pause_at), or null. */
  accountHeldUntil?: number | null;
  /** The agent reads input between turns (its protocol takes it): a loop warning can reach it. */
  takesInput: boolean;
}

type ProgressEvent = EventInput;

type ProgressEffect =
  /** Close the agent's stdin: a one-shot agent's turn is done. */
  | { kind: 'close_input' }
  /** Hold the provider (a usage limit) until then; journaled with the run's events. */
  | { kind: 'hold'; provider: string; until: number }
  /** Hold one account of the provider (pause_at) until then: its queued runs wait; the provider's others do not. */
  | { kind: 'hold_account'; provider: string; account: string | null; until: number }
  /** Stop the run: it ends with this reason (budget, timeout, loop). */
  | { kind: 'stop'; reason: ExitReason; detail: string | null }
  /** Send this text as the next input (a loop warning to an idle interactive agent). */
  | { kind: 'send'; text: string }
  /** A two-way protocol's session opened: its prompt goes to it now, as its first turn. */
  | { kind: 'first_input' }
  /** Write this line back to the agent at once (its protocol's answer to a request orcr does not serve). */
  | { kind: 'reply'; line: string }
  /** Add to the fleet's usage. */
  | { kind: 'fleet_usage'; tokens: number; cost: number }
  /** The provider's latest standing in a usage window (kept by the fleet, shown in stats and the TUI). */
  | { kind: 'quota'; provider: string; account: string | null; window: string; status: string; utilization: number | null; resets_at: number | null };

export interface Progress {
  run: Run;
  state: ProgressState;
  events: ProgressEvent[];
  effects: ProgressEffect[];
}

/**
 * Apply a batch of signals (one read of the agent's output) to its run.
 * `run.protocol` and `run.out_offset` are the caller's; everything else that
 * changes comes out of here.
 */
export function applySignals(run: Run, state: ProgressState, signals: readonly ProgressSignal[], ctx: ProgressContext): Progress {
  const before = run;
  const acc: Progress = { run, state: { ...state }, events: [], effects: [] };
  for (const sig of signals) acc.run = afterAgentRetry(applySignal(acc, sig, ctx), sig);
  return settle(before, state.stoppedFor !== null, acc, ctx);
}

/** The agent's own retry is over once it shows work again (text, a tool, usage, a result, a turn's end). */
function afterAgentRetry(run: Run, sig: ProgressSignal): Run {
  if (!run.agent_retry) return run;
  return sig.kind === 'text' || sig.kind === 'tool' || sig.kind === 'usage' || sig.kind === 'result' || sig.kind === 'turn_end'
    ? { ...run, agent_retry: null }
    : run;
}

function applySignal(acc: Progress, sig: ProgressSignal, ctx: ProgressContext): Run {
  const { run, state, events } = acc;
  const now = ctx.now;
  if (inRefusedTurn(state) && sig.kind !== 'usage') {
    // The run is stopped at the first line of a turn its max_turns does not
    // allow; what the agent prints before the stop lands (the rest of a read,
    // or reads before it dies) belongs to that turn, which is not counted:
    // the run ends at N / N with turn N's words. What it spent still counts,
    // and a usage limit it met still holds its provider.
    if (sig.kind === 'blocked' && sig.blocked === 'limit') hold(acc, run, sig.retry_after_s ?? null, ctx);
    return run;
  }
  if (sig.kind === 'opened' || sig.kind === 'reply' || sig.kind === 'protocol_error') return twoWay(acc, run, sig, now);
  switch (sig.kind) {
    case 'alive':
      return alive(events, run, sig, now);
    case 'turn_start':
      if (!mayBeginTurn(run.turns, run.limits.max_turns)) {
        // Turn N+1 would begin: stop before it does any (paid) work; settle issues the stop.
        if (!state.stoppedFor) state.stoppedFor = { reason: 'budget', detail: 'turns' };
        return run;
      }
      if (run.status === 'idle' || (run.status === 'blocked' && run.blocked_kind !== 'approval') || run.status === 'starting') {
        events.push({ type: 'working', data: { from: run.status } });
        // Input orcr sends moves the run on before the agent answers: a turn begun while idle is the agent's own,
        // going on after a limit by itself, so orcr must not tell it to go on again when the hold lifts.
        return transition(run, 'working', now, run.status === 'idle' ? { limited_at: null } : {});
      }
      return run;
    case 'model_turn':
      // One model message: the unit the loop detector counts.
      return observeLoop(acc, run, ctx);
    case 'turn_end':
      return turnEnd(acc, run, ctx);
    case 'usage':
      return {
        ...resumeFromBlocked(run, events, now),
        tokens: {
          input: run.tokens.input + sig.input,
          output: run.tokens.output + sig.output,
          cached: run.tokens.cached + sig.cached,
        },
        // A process reports its own total from zero: earlier attempts' (cost_base) come first.
        cost_reported: sig.cost_usd_total !== undefined ? run.cost_base + sig.cost_usd_total : run.cost_reported,
      };
    case 'tool':
      state.turn = { ...state.turn, tools: [...state.turn.tools, { name: sig.name, input: sig.input }] };
      return { ...resumeFromBlocked(run, events, now), last_tool: sig.name };
    case 'text':
      state.turn = { ...state.turn, text: sig.text };
      return { ...resumeFromBlocked(run, events, now), last_text: sig.text.slice(0, 500) };
    case 'result': {
      const last_result = { ok: sig.ok, detail: sig.ok ? null : (sig.detail ?? null) };
      // A result's text is the agent's last word: on a failure it is the
      // only place the reason is given (Gemini, Codex).
      return sig.text ? { ...run, last_result, last_text: sig.text.slice(0, 500) } : { ...run, last_result };
    }
    case 'blocked': {
      if (sig.blocked === 'limit') hold(acc, run, sig.retry_after_s ?? null, ctx);
      if (run.status === 'ended' || run.status === 'blocked') return run;
      events.push({ type: 'blocked', data: { from: run.status, kind: sig.blocked, retry_after_s: sig.retry_after_s ?? null } });
      return transition(run, 'blocked', now, { blocked_kind: sig.blocked });
    }
    case 'quota':
      return quota(acc, run, sig, ctx);
    case 'agent_retry':
      return agentRetry(events, run, sig, now);
    case 'approval':
    case 'approval_withdrawn':
    case 'denied':
      // The requests' room's (server/approval-intake.ts), which the supervisor hands them to: a run's progress is not moved by them.
      return run;
    case 'output':
      if (run.status === 'starting' && (run.protocol === PLAIN_PROTOCOL || run.protocol === null)) {
        events.push({ type: 'working', data: { from: 'starting' } });
        return transition(run, 'working', now);
      }
      return run;
  }
}

/** The agent says it is alive (and its session): at work, or, asked nothing yet, waiting for input. */
function alive(events: ProgressEvent[], run: Run, sig: Extract<ProgressSignal, { kind: 'alive' }>, now: number): Run {
  let next = { ...run, session_id: sig.session_id ?? run.session_id };
  if (next.status === 'starting' && awaitsFirstInput(next)) {
    // Ready, and nothing was asked of it yet: it waits for input.
    next = transition(next, 'idle', now);
    events.push({ type: 'idle', data: { from: 'starting', turn: 0 } });
  } else if (next.status === 'starting') {
    next = transition(next, 'working', now);
    events.push({ type: 'working', data: { from: 'starting' } });
  }
  return next;
}

/** A two-way protocol's session opened; what its reader says back to its agent, or of it: a reply written at once; a broken protocol, an event (fatal: the run stopped, ended errored with the reason). */
function twoWay(acc: Progress, run: Run, sig: Extract<ProgressSignal, { kind: 'opened' | 'reply' | 'protocol_error' }>, now: number): Run {
  if (sig.kind === 'opened') return opened(acc, run, sig.session_id, sig.resume_after ?? null, now);
  if (sig.kind === 'reply') {
    acc.effects.push({ kind: 'reply', line: sig.line });
    return run;
  }
  const message = sig.message.slice(0, 500);
  acc.events.push({ type: 'protocol_error', data: { message, fatal: sig.fatal } });
  // Settle issues the stop.
  if (sig.fatal && !acc.state.stoppedFor) acc.state.stoppedFor = { reason: 'errored', detail: `protocol: ${sig.message.slice(0, 200)}` };
  return { ...run, protocol_errors: { count: run.protocol_errors.count + 1, last: message } };
}

/**
 * A two-way protocol's session is open. While the attempt is still
 * `starting`, orcr starts its first turn: the prompt goes now (counted as
 * input, the run at work), or, without one, the run waits for input. The
 * same answer read again (after a restart, the run no longer starting)
 * changes nothing but the session: the prompt is never sent twice.
 */
function opened(acc: Progress, run: Run, session: string, resumeAfter: number | null, now: number): Run {
  const next = { ...run, session_id: session, resume_after: resumeAfter };
  if (next.status !== 'starting') return next;
  if (next.prompt !== null && !next.prompt_argv) {
    const seq = next.input_seq + 1;
    acc.events.push({ type: 'working', data: { from: 'starting', input_seq: seq } });
    acc.effects.push({ kind: 'first_input' });
    return transition(next, 'working', now, { input_seq: seq });
  }
  if (next.interactive) {
    acc.events.push({ type: 'idle', data: { from: 'starting', turn: 0 } });
    return transition(next, 'idle', now);
  }
  // One-shot with nothing to ask: let it exit.
  acc.effects.push({ kind: 'close_input' });
  return next;
}

/** A turn ends: counted; an interactive run waits for input (idle), a one-shot one is let exit. */
function turnEnd(acc: Progress, run: Run, ctx: ProgressContext): Run {
  const { state, events } = acc;
  const now = ctx.now;
  // Whatever the last model_turn did not cover (nothing, for adapters that emit them).
  let next = { ...observeLoop(acc, run, ctx), turns: run.turns + 1 };
  if (next.status === 'blocked' && next.blocked_kind === 'login' && next.interactive) {
    // The turn ended on a refused login: nothing will change until the
    // user logs in, so the run stays blocked (not idle) while the agent lives.
    return next;
  }
  if (next.status !== 'ended' && next.status !== 'idle') {
    if (next.interactive && !state.stoppedFor && !ctx.fleetExceeded && mayBeginTurn(next.turns, next.limits.max_turns)) {
      // A turn a usage limit cut short: the agent lives on, and is told to go on when the hold lifts.
      const limited = next.last_result?.detail === 'limit' ? { limited_at: now } : {};
      next = transition(next, 'idle', now, limited);
      events.push({ type: 'idle', data: { from: run.status, turn: next.turns } });
    } else {
      // One-shot (or no new turns allowed: the fleet budget, the run's
      // max_turns): the turn is done, so let it exit.
      acc.effects.push({ kind: 'close_input' });
    }
  }
  return next;
}

/** The account's usage window as the agent reported it; with pause_at, the last of it is kept from runs that would stop midway. */
function quota(acc: Progress, run: Run, sig: Extract<ProgressSignal, { kind: 'quota' }>, ctx: ProgressContext): Run {
  const now = ctx.now;
  const utilization = sig.utilization ?? null;
  const resets = sig.resets_at ?? null;
  acc.effects.push({
    kind: 'quota',
    provider: run.provider,
    account: run.account ?? null,
    window: sig.window,
    status: sig.status,
    utilization,
    resets_at: resets,
  });
  // pause_at: the last of a window is not spent on runs that would stop midway. The window is the
  // account's (quotas are kept per account): its runs wait, the provider's other accounts go on.
  if (ctx.pauseAt != null && utilization !== null && utilization >= ctx.pauseAt && resets !== null && resets > now) {
    holdUntil(acc, run, resets, {
      retryAfterS: null,
      heldUntil: ctx.accountHeldUntil ?? null,
      quota: { window: sig.window, utilization, pause_at: ctx.pauseAt },
      account: run.account ?? null,
    });
  }
  return run;
}

/** The agent retrying by itself: recorded once per attempt. */
function agentRetry(events: ProgressEvent[], run: Run, sig: Extract<ProgressSignal, { kind: 'agent_retry' }>, now: number): Run {
  const data = { attempt: sig.attempt ?? null, max: sig.max ?? null, error: sig.error.slice(0, 200), delay_ms: sig.delay_ms ?? null };
  // The same attempt read again (its line reread after a restart): the retry it records, since when it began.
  if (run.agent_retry && run.agent_retry.attempt !== null && run.agent_retry.attempt === data.attempt && run.agent_retry.error === data.error) return run;
  events.push({ type: 'agent_retry', data });
  return { ...run, agent_retry: { ...data, at: now } };
}

/** Stopped for its turns: any turn it is in now is one past its max_turns. */
const inRefusedTurn = (state: ProgressState): boolean => state.stoppedFor?.reason === 'budget' && state.stoppedFor.detail === 'turns';

/** The longest hold an agent's words can set: a year, orcr's longest duration. */
const MAX_HOLD_MS = 365 * 24 * 3600 * 1000;

/**
 * A limit's reset said again within this of the hold in force is that hold: a
 * reset to the second, or a line read a moment late, moves it on by a little
 * (Claude Code says one reset in its rate_limit_event and again in each
 * api_retry while it waits).
 */
const SAME_HOLD_MS = 2000;

/** A usage limit holds the run's provider for the time the agent named, else the configured hold; never shortens one. */
function hold(acc: Progress, run: Run, retryAfterS: number | null, ctx: ProgressContext): void {
  holdUntil(acc, run, ctx.now + holdFor(retryAfterS, ctx.now, ctx.liftedAt ?? null, ctx.limitHoldMs), {
    retryAfterS,
    heldUntil: ctx.heldUntil,
    slack: SAME_HOLD_MS,
  });
}

/** A limit met this soon after its provider's hold lifted, saying nothing of when it resets, is the reset's rush, not a new window. */
export const RESET_RUSH_MS = 10 * 60_000;
/** How long a limit holds that is no new window: one that says it has reset already, or one met in the rush after a reset. */
export const SHORT_HOLD_MS = 30_000;

/**
 * How long a usage limit holds its provider: as long as it says (an agent's
 * words are not trusted past a year: a date in 2099 is a typo or a lie);
 * briefly when what it says has passed already, or when it says nothing and
 * comes within RESET_RUSH_MS of the provider's last hold lifting (the
 * provider refusing the burst that followed a reset: tried again soon, not
 * held for limit_hold); else limit_hold.
 */
export function holdFor(retryAfterS: number | null, now: number, liftedAt: number | null, limitHoldMs: number): number {
  if (retryAfterS === 0) return SHORT_HOLD_MS;
  if (retryAfterS !== null && retryAfterS > 0) return Math.min(Math.round(retryAfterS * 1000), MAX_HOLD_MS);
  const rush = liftedAt !== null && now >= liftedAt && now - liftedAt < RESET_RUSH_MS;
  return rush ? Math.min(SHORT_HOLD_MS, limitHoldMs) : limitHoldMs;
}

/**
 * Hold the run's provider — or, with `account`, that account of it only —
 * until then, unless it is held as long already (`heldUntil`, or a hold of
 * this batch; by `slack`, about as long).
 */
function holdUntil(
  acc: Progress,
  run: Run,
  until: number,
  o: {
    retryAfterS: number | null;
    heldUntil: number | null;
    quota?: { window: string; utilization: number; pause_at: number };
    account?: string | null;
    slack?: number;
  },
): void {
  const kind = o.account === undefined ? 'hold' : 'hold_account';
  const held = Math.max(o.heldUntil ?? -Infinity, ...acc.effects.flatMap((e) => (e.kind === kind ? [e.until] : [])));
  if (held >= until - (o.slack ?? 0)) return;
  acc.effects.push(
    o.account === undefined ? { kind: 'hold', provider: run.provider, until } : { kind: 'hold_account', provider: run.provider, account: o.account, until },
  );
  acc.events.push({
    type: 'hold',
    data: {
      provider: run.provider,
      until,
      retry_after_s: o.retryAfterS,
      by: run.uuid,
      ...(o.quota ? { quota: o.quota } : {}),
      ...(o.account !== undefined ? { account: o.account } : {}),
    },
  });
}

/** Feed the model output since the last boundary to the loop detector, and act on its verdict. */
function observeLoop(acc: Progress, run: Run, ctx: ProgressContext): Run {
  const { state, events } = acc;
  const verdict = observeTurn(state.loop, state.turn, loopConfigFor(run.limits.loop));
  state.loop = verdict.state;
  state.turn = { tools: [], text: null };
  const next = { ...run, loop_flags: { detected: verdict.state.detected, warned: verdict.state.warned, repetitions: verdict.state.repetitions } };
  const effect = verdict.effect;
  if (effect.kind !== 'none') {
    events.push({ type: 'loop_detected', data: { by: effect.by, action: effect.kind } });
    if (effect.kind === 'terminate') state.stoppedFor = { reason: 'loop', detail: effect.by };
  }
  // A warning only reaches an agent that reads input between its turns.
  if (effect.kind === 'warn' && next.interactive && ctx.takesInput) state.pendingWarning = effect.message;
  return next;
}

/**
 * Activity after a block means the agent got past it (e.g. a retried rate
 * limit). Not a block on a request: that lasts until the request is answered
 * or withdrawn (the requests' room lifts it), whatever the agent prints.
 */
function resumeFromBlocked(run: Run, events: ProgressEvent[], now: number): Run {
  if (run.status !== 'blocked' || run.blocked_kind === 'approval') return run;
  events.push({ type: 'working', data: { from: 'blocked' } });
  return transition(run, 'working', now);
}

/** After the batch: the run's cost, budget warnings and trips, fleet usage, a pending warning. */
function settle(before: Run, wasStopped: boolean, acc: Progress, ctx: ProgressContext): Progress {
  let run = acc.run;
  const { state, events, effects } = acc;
  const cost = runCost(run.cost_reported, run.tokens, ctx.price) ?? 0;
  if (cost !== run.cost_usd) run = { ...run, cost_usd: cost };
  const dTokens = countedTokens(run.tokens) - countedTokens(before.tokens);
  const dCost = run.cost_usd - before.cost_usd;
  if (dTokens !== 0 || dCost !== 0) effects.push({ kind: 'fleet_usage', tokens: dTokens, cost: dCost });
  // Time is the guard timer's: only the meters output moves are checked here.
  // Tokens and cost are read rolled up: what its descendants spent counts against a parent's ceilings.
  const tree = rolledUp(run);
  const meters = runMeters(runUsage(run, tree, 0), { ...run.limits, timeout_ms: null });
  for (const m of meters) {
    if (m.warn && !m.tripped && !run.warned_meters.includes(m.name)) {
      run = { ...run, warned_meters: [...run.warned_meters, m.name] };
      events.push({ type: 'budget_warning', data: { meter: m.name, used: m.used, limit: m.limit, fraction: roundFraction(m.fraction) } });
    }
  }
  const trip = firstTrip(meters);
  if (trip && !state.stoppedFor) {
    state.stoppedFor = { reason: tripReason(trip), detail: trip.name };
    effects.push({ kind: 'stop', ...state.stoppedFor });
  } else if (state.stoppedFor && !wasStopped) {
    // Decided in this batch (a loop to terminate): stop it once.
    effects.push({ kind: 'stop', ...state.stoppedFor });
  }
  if (state.pendingWarning && run.status === 'idle' && !state.stoppedFor) {
    effects.push({ kind: 'send', text: state.pendingWarning });
    state.pendingWarning = null;
  }
  return { run, state, events, effects };
}

/** An interactive run started without a prompt: idle, not working, once its agent is ready. */
export function awaitsFirstInput(run: Run): boolean {
  return run.interactive && (run.prompt === null || run.prompt_argv) && run.input_seq === 0;
}
