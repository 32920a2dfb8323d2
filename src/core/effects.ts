// What the supervisor's rooms decide, as data: each room commits its rows and
// events through the run store and emits effects into the same unit of work;
// once it commits, one interpreter (server/effects.ts) carries them out in
// order. A room never calls back into the room that called it: what must
// happen next is an effect, queued behind the one being carried out.

import type { ExitReason } from './types.js';

export type Effect =
  /** A guardrail ends a live run: its stop reason is remembered, TERM now, KILL after the grace (never spawned: ended at once). */
  | { kind: 'stop'; uuid: string; reason: ExitReason; detail: string | null }
  /** `orcr kill`: a queued or never-spawned run is canceled, a live one signalled (it ends when it exits). */
  | { kind: 'kill'; uuid: string; force: boolean }
  /** Every active descendant of a run: `killed` ones get a kill, `budget` ones a stop (queued ones are canceled). */
  | { kind: 'stop_below'; uuid: string; reason: 'killed' | 'budget'; detail: string | null; force: boolean }
  /** An ended run's slot or queue place goes back to the limiter, and its live watch is let go. */
  | { kind: 'release'; uuid: string }
  /**
   * A queued run takes its queue place (again) as the gates outside the
   * limiter allow — a retry's backoff passed, its account not held: a
   * continued run's slot goes back first (its watch let go), a dependent
   * let go or an account's hold lifted takes its place, a run of an account
   * just held steps out of the queue; admission looks again.
   */
  | { kind: 'requeue'; uuid: string }
  /** The waits on a run look at it again. */
  | { kind: 'settle'; uuid: string }
  /** A run ended: the runs waiting for it (`run --after`) look again — released to the queue, waiting on, or canceled. */
  | { kind: 'dependents'; uuid: string }
  /** An admission pass (coalesced: one per turn of the event loop). */
  | { kind: 'admit' }
  /** A live run's guard deadline is worked out again (its status changed, it was watched). */
  | { kind: 'guard'; uuid: string }
  /** The wrapper closes the agent's stdin: a one-shot turn is done. */
  | { kind: 'close_input'; uuid: string }
  /** A two-way protocol's session opened: the attempt's prompt goes to it as its first turn (the run is already `working`, its input_seq counted). */
  | { kind: 'first_input'; uuid: string }
  /** A line the protocol writes back to the agent at once (a JSON-RPC error to a request orcr does not serve). */
  | { kind: 'reply'; uuid: string; line: string }
  /** Text as an idle run's next input (a loop warning). */
  | { kind: 'send'; uuid: string; text: string }
  /** A decided request's answer written to its agent's input, in its protocol's words; once written, the request is marked delivered. */
  | { kind: 'answer'; id: number }
  /** The limiter hears of a provider hold journaled in the unit of work; admission looks again once it has. */
  | { kind: 'hold'; provider: string; until: number }
  /** The fleet budget's verdict is looked at again (`reload`: its window's usage re-read first). */
  | { kind: 'fleet'; reload: boolean };
