// Output becomes state: an agent's new lines go through its adapter into the
// pure run reducer (core/run-progress), and the result — the run, its events,
// its holds and fleet usage, its spend rolled up into its ancestors, and the
// effects that follow (a stop, input closed, a loop warning sent, a guard
// re-armed, waits settled) — is committed as one unit of work. Its agent's
// requests (and their withdrawals, and the CLI's own refusals) are taken
// apart, in their place among the lines, by the requests' room
// (approval-intake.ts), in the same unit of work. The reducer and the rules
// decide; this only commits, and names the effects.

import { acceptsInput } from '../agents/input.js';
import { agentProtocol } from '../agents/registry.js';
import type { Config } from '../config/load.js';
import type { Effect } from '../core/effects.js';
import { holdsSlot } from '../core/run-state.js';
import { applySignals, type Progress as Applied, type ProgressContext, type ProgressSignal } from '../core/run-progress.js';
import type { Run } from '../core/types.js';
import type { TailLine } from '../runtime/tailer.js';
import { isRequestSignal, type ApprovalIntake } from './approval-intake.js';
import { monoNow } from './clock.js';
import type { Fleet } from './fleet.js';
import type { Guards } from './guards.js';
import type { LiveRuns } from './live-runs.js';
import type { RunStore } from './run-store.js';
import type { RunTree } from './run-tree.js';

/** The longest request line read whole (its input a whole file); past it, the line is as cut as any other. */
const REQUEST_LINE_MAX = 64 * 1024 * 1024;

export class Progress {
  constructor(
    private readonly d: {
      store: RunStore;
      live: LiveRuns;
      config: () => Config;
      fleet: Pick<Fleet, 'exceeded' | 'heldUntil' | 'add' | 'hold' | 'noteQuota' | 'liftedAt' | 'holdAccount' | 'accountHeldUntil'>;
      guards: Pick<Guards, 'heard'>;
      tree: Pick<RunTree, 'rollUp'>;
      approvals: Pick<ApprovalIntake, 'take'>;
    },
  ) {}

  /** New complete lines of a run's output. */
  onLines(uuid: string, lines: TailLine[]): void {
    // Any line is a sign of life for the per-turn deadline, whatever it says.
    if (lines.length > 0) this.d.guards.heard(uuid);
    const adapter = this.d.live.adapter(uuid);
    const run = this.d.store.get(uuid);
    if (!adapter || !run) return;
    const signals: ProgressSignal[] = [];
    const channel = agentProtocol(run.protocol ?? adapter.protocol?.() ?? null)?.approvals;
    for (const line of lines) {
      // A request cut at the line limit would never be answered, and its agent waits for the answer: it is read whole.
      const whole = line.truncated && channel?.carriesRequest(line.text) ? this.d.live.wholeLine(uuid, line, REQUEST_LINE_MAX) : null;
      signals.push(...adapter.line(whole ?? line.text));
    }
    let next: Run = lines.length > 0 ? { ...run, out_offset: lines[lines.length - 1]!.end } : run;
    if (next.protocol === null && adapter.protocol) {
      const detected = adapter.protocol();
      if (detected) next = { ...next, protocol: detected };
    }
    this.apply(uuid, next, signals);
  }

  /** The process exited: what the adapter held back. */
  onEnd(uuid: string): void {
    const adapter = this.d.live.adapter(uuid);
    const run = this.d.store.get(uuid);
    if (!adapter || !run) return;
    const signals = adapter.end?.() ?? [];
    if (signals.length > 0) this.apply(uuid, run, signals);
  }

  private apply(uuid: string, run: Run, signals: ProgressSignal[]): void {
    const { live, store } = this.d;
    const state = live.progress(uuid)!;
    const before = store.get(uuid)!;
    const now = monoNow();
    const ctx = this.context(run, now);
    store.transaction(() => {
      let acc: Applied = { run, state, events: [], effects: [] };
      let lines: ProgressSignal[] = [];
      const reduce = (): void => {
        const r = applySignals(acc.run, acc.state, lines, ctx);
        acc = { run: r.run, state: r.state, events: [...acc.events, ...r.events], effects: [...acc.effects, ...r.effects] };
        lines = [];
      };
      for (const sig of signals) {
        if (!isRequestSignal(sig)) {
          lines.push(sig);
          continue;
        }
        // A request comes between the lines before it and those after: the run as they left it, and they find it blocked.
        if (lines.length > 0) reduce();
        const took = this.d.approvals.take(acc.run, sig, now);
        acc = { ...acc, run: took.run, events: [...acc.events, ...took.events] };
      }
      reduce();
      // The loop window travels with the run: a supervisor that re-adopts it goes on counting.
      if (acc.state.loop !== state.loop) acc.run = { ...acc.run, loop_state: acc.state.loop };
      this.commit(before, acc);
    });
  }

  /** What the reducer reads beside the run: prices, holds, the fleet's verdict. */
  private context(run: Run, now: number): ProgressContext {
    const { fleet } = this.d;
    const config = this.d.config();
    return {
      now,
      price: config.providers[run.provider]?.price ?? null,
      fleetExceeded: fleet.exceeded,
      limitHoldMs: config.timings.limit_hold,
      heldUntil: fleet.heldUntil(run.provider, now),
      takesInput: acceptsInput(run.protocol),
      pauseAt: config.providers[run.provider]?.pause_at ?? null,
      liftedAt: fleet.liftedAt(run.provider),
      accountHeldUntil: fleet.accountHeldUntil(run.provider, run.account ?? null, now),
    };
  }

  /**
   * The reducer's run, events, holds and fleet usage, its spend rolled up
   * into its ancestors, and the effects that follow, in one unit of work.
   */
  private commit(before: Run, result: Applied): void {
    const { store, fleet, tree } = this.d;
    const { run, events, effects } = result;
    const changed =
      run.tokens.input !== before.tokens.input ||
      run.tokens.output !== before.tokens.output ||
      run.tokens.cached !== before.tokens.cached ||
      run.cost_usd !== before.cost_usd ||
      run.turns !== before.turns;
    store.transaction(() => {
      for (const e of effects) {
        if (e.kind === 'fleet_usage') fleet.add(e.tokens, e.cost);
        else if (e.kind === 'hold') fleet.hold(e.provider, e.until);
        else if (e.kind === 'hold_account') fleet.holdAccount(e.provider, e.account, e.until);
        else if (e.kind === 'quota') fleet.noteQuota(e, Date.now());
      }
      if (events.length > 0) store.save(run, events);
      else if (changed) store.save(run, { type: 'usage', data: { turns: run.turns, tokens: run.tokens, cost_usd: run.cost_usd } });
      // Only the offset, the last words or the tool moved: kept in memory, written with the next change.
      else store.remember(run, run.last_text !== before.last_text || run.last_tool !== before.last_tool);
      const overTree = changed ? tree.rollUp(before, run) : [];
      // The reducer's memory first: the effects below read the stop it decided, and so
      // do the next lines and the exit of this run heard in the same unit of work.
      const prior = this.d.live.progress(run.uuid);
      store.provisional(
        () => this.d.live.setProgress(run.uuid, result.state),
        () => prior && this.d.live.setProgress(run.uuid, prior),
      );
      store.emit(...this.next(before, result));
      // An ancestor over its tree budget: stopped like a run over its own, and its descendants with it.
      for (const t of overTree)
        store.emit(
          { kind: 'stop', uuid: t.run.uuid, reason: 'budget', detail: `tree_${t.meter.name}` },
          { kind: 'stop_below', uuid: t.run.uuid, reason: 'budget', detail: 'parent_budget', force: false },
        );
    });
  }

  /** What follows from the reducer's result, once it is committed. */
  private next(before: Run, { run, effects }: Applied): Effect[] {
    const uuid = run.uuid;
    const out: Effect[] = [];
    // A take-over waits for the turn to end: the agent is idle, its session whole.
    if (run.status === 'idle' && before.status !== 'idle' && this.d.live.takeoverRequested(uuid))
      out.push({ kind: 'stop', uuid, reason: 'taken_over', detail: 'at the end of its turn' });
    if (run.status !== before.status) out.push({ kind: 'guard', uuid });
    for (const e of effects) {
      if (e.kind === 'stop') {
        out.push({ kind: 'stop', uuid, reason: e.reason, detail: e.detail });
        // A parent over its budget (its own spend or its tree's) takes its descendants with it.
        if (e.reason === 'budget') out.push({ kind: 'stop_below', uuid, reason: 'budget', detail: 'parent_budget', force: false });
      } else if (e.kind === 'close_input') out.push({ kind: 'close_input', uuid });
      else if (e.kind === 'send') out.push({ kind: 'send', uuid, text: e.text });
      else if (e.kind === 'first_input') out.push({ kind: 'first_input', uuid });
      else if (e.kind === 'reply') out.push({ kind: 'reply', uuid, line: e.line });
    }
    if (holdsSlot(before.status) !== holdsSlot(run.status)) out.push({ kind: 'admit' });
    if (effects.some((e) => e.kind === 'fleet_usage')) out.push({ kind: 'fleet', reload: false });
    out.push({ kind: 'settle', uuid });
    return out;
  }
}
