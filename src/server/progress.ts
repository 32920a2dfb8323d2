// Output becomes state: an agent's new lines go through its adapter into the
// pure run reducer (core/run-progress), the result is journaled as one unit
// of work, and then its effects are carried out — a hold, a stop, input
// closed, a loop warning sent. The reducer decides; this only commits and acts.

import { acceptsInput } from '../agents/input.js';
import { holdsSlot } from '../core/run-state.js';
import { applySignals, type Progress as Applied, type ProgressSignal } from '../core/run-progress.js';
import type { Run } from '../core/types.js';
import type { TailLine } from '../runtime/tailer.js';
import { monoNow } from './clock.js';
import type { Parts } from './parts.js';

export class Progress {
  constructor(private readonly p: Parts) {}

  /** New complete lines of a run's output. */
  onLines(uuid: string, lines: TailLine[]): void {
    // Any line is a sign of life for the per-turn deadline, whatever it says.
    if (lines.length > 0) this.p.stalls.onOutput(uuid);
    const live = this.p.live.get(uuid);
    const run = this.p.store.get(uuid);
    if (!live || !run) return;
    const signals: ProgressSignal[] = [];
    for (const line of lines) signals.push(...live.adapter.line(line.text));
    let next: Run = lines.length > 0 ? { ...run, out_offset: lines[lines.length - 1]!.end } : run;
    if (next.protocol === null && live.adapter.protocol) {
      const detected = live.adapter.protocol();
      if (detected) next = { ...next, protocol: detected };
    }
    this.apply(uuid, next, signals);
  }

  /** The process exited: what the adapter held back. */
  onEnd(uuid: string): void {
    const live = this.p.live.get(uuid);
    const run = this.p.store.get(uuid);
    if (!live || !run) return;
    const signals = live.adapter.end?.() ?? [];
    if (signals.length > 0) this.apply(uuid, run, signals);
  }

  private apply(uuid: string, run: Run, signals: ProgressSignal[]): void {
    const live = this.p.live.get(uuid)!;
    const before = this.p.store.get(uuid)!;
    const now = monoNow();
    const result = applySignals(run, live.progress, signals, {
      now,
      price: this.p.config.providers[run.provider]?.price ?? null,
      fleetExceeded: this.p.fleet.exceeded,
      limitHoldMs: this.p.config.timings.limit_hold,
      heldUntil: this.p.fleet.heldUntil(run.provider, now),
      takesInput: acceptsInput(run.protocol),
    });
    // The loop window travels with the run: a supervisor that re-adopts it goes on counting.
    if (result.state.loop !== live.progress.loop) result.run = { ...result.run, loop_state: result.state.loop };
    const overTree = this.commit(before, result);
    live.progress = result.state;
    this.act(before, result);
    for (const t of overTree) this.p.tree.stopForTree(t.run.uuid, t.meter);
  }

  /**
   * The reducer's run, events, holds and fleet usage, and its spend rolled up
   * into its ancestors, in one unit of work. Returns the ancestors it pushed
   * over a ceiling.
   */
  private commit(before: Run, { run, events, effects }: Applied): ReturnType<Parts['tree']['rollUp']> {
    const { store, fleet } = this.p;
    const changed =
      run.tokens.input !== before.tokens.input ||
      run.tokens.output !== before.tokens.output ||
      run.tokens.cached !== before.tokens.cached ||
      run.cost_usd !== before.cost_usd ||
      run.turns !== before.turns;
    return store.transaction(() => {
      for (const e of effects) {
        if (e.kind === 'fleet_usage') fleet.add(e.tokens, e.cost);
        else if (e.kind === 'hold') fleet.hold(e.provider, e.until);
      }
      if (events.length > 0) store.save(run, events);
      else if (changed) store.save(run, { type: 'usage', data: { turns: run.turns, tokens: run.tokens, cost_usd: run.cost_usd } });
      // Only the offset, the last words or the tool moved: kept in memory, written with the next change.
      else store.remember(run, run.last_text !== before.last_text || run.last_tool !== before.last_tool);
      return changed ? this.p.tree.rollUp(before, run) : [];
    });
  }

  private act(before: Run, { run, effects }: Applied): void {
    const p = this.p;
    // A take-over waits for the turn to end: the agent is idle, its session whole.
    if (run.status === 'idle' && before.status !== 'idle' && p.live.get(run.uuid)?.takeoverAtTurnEnd) p.guards.stopFor(run.uuid, 'taken_over', 'at the end of its turn');
    if (run.status !== before.status) p.guards.arm(run.uuid);
    for (const e of effects) {
      if (e.kind === 'stop') {
        p.guards.stopFor(run.uuid, e.reason, e.detail);
        // A parent over its budget (its own spend or its tree's) takes its descendants with it.
        if (e.reason === 'budget') p.tree.endDescendants(run.uuid, 'budget', 'parent_budget');
      }
      else if (e.kind === 'close_input') p.input.close(run);
      else if (e.kind === 'send') p.input.send(run.uuid, e.text);
    }
    if (holdsSlot(before.status) !== holdsSlot(run.status)) p.admission.schedule();
    if (effects.some((e) => e.kind === 'fleet_usage')) p.fleet.check();
    p.waits.settle(run.uuid);
  }
}
