// Budget meters: per-run ceilings, fleet budgets and cost. Pure; callers pass
// usage, elapsed time (from a monotonic clock) and `now` in.
//
// Decisions:
// - Trips are strictly greater-than: usage equal to a ceiling does not trip.
//   Turns are also checked before a turn begins (mayBeginTurn): at N of N
//   the agent's input is closed and the start of turn N+1 stops the run.
//   Turns, tokens and milliseconds compare exactly. Cost meters allow a
//   relative tolerance of 1e-9 of the limit, so a cost summed from float
//   increments (0.1 + 0.2) does not trip a 0.3 ceiling it only reaches by
//   rounding, nor miss the 80% warning (0.24 / 0.3 = 0.7999…).
// - A meter warns when fraction ≥ 0.8; a tripped meter warns too.
// - Tokens against `max_tokens` are input + output; cached tokens are not counted.
// - A limit of 0 or less reads as "full": fraction 1 (never Infinity, which
//   JSON would turn into null, i.e. "no limit"); it trips on any use above it.
// - Merging scopes: for every numeric ceiling (idle_after_ms included) the
//   lowest non-null value wins, so the order of scopes does not matter and a
//   narrower scope can never widen a wider one. null, undefined and NaN mean
//   "no ceiling at this scope". For `loop` the last scope that sets a valid
//   action wins; the default is 'warn'. `on_stall` likewise (default
//   'terminate': a turn timeout was asked for, so a stall ends the run).
// - Fleet rolling window: a sample counts while now - at < rolling_ms (a
//   sample exactly rolling_ms old has left the window; samples stamped in
//   the future, e.g. by clock skew, count).

import { STALL_ACTIONS, type LoopAction, type Run, type RunLimits, type StallAction, type TokenCounts } from './types.js';
import { CEILING_NAMES, type CeilingName } from './limits.js';

const WARN_FRACTION = 0.8;
const COST_TOLERANCE = 1e-9;

export interface Meter {
  name: MeterName;
  used: number;
  limit: number | null;
  /** used / limit; null when there is no limit. */
  fraction: number | null;
  warn: boolean;
  tripped: boolean;
}

/** What a run's meters read: its own counts, its tree's tokens and cost (rolled up), and the time it has run. */
export interface RunUsage {
  turns: number;
  tokens: TokenCounts;
  cost_usd: number;
  /** Wall time since start, from a monotonic clock. */
  elapsed_ms: number;
}

/** A run's usage as its meters read it: `tree` is its tokens and cost rolled up over its descendants (core/run-tree.ts' rolledUp). */
export function runUsage(run: Readonly<Run>, tree: { tokens: TokenCounts; cost_usd: number }, elapsed_ms: number): RunUsage {
  return { turns: run.turns, tokens: tree.tokens, cost_usd: tree.cost_usd, elapsed_ms };
}

/** Tokens that count against `max_tokens`: input + output, never cached. */
export function countedTokens(t: TokenCounts): number {
  return t.input + t.output;
}

/** How a meter's amounts are written for people; each reader (show, the TUI) has one writer per unit. */
export type MeterUnit = 'count' | 'tokens' | 'usd' | 'duration';

export interface MeterDecl {
  /** The ceiling it is read against (core/limits.ts). */
  ceiling: CeilingName;
  /** Its name for people: show's line and the TUI's meter. */
  label: string;
  unit: MeterUnit;
  used: (u: RunUsage) => number;
}

/**
 * A run's meters, declared once, in the order they are checked, listed and
 * shown: runMeters, the socket's budget, `orcr show` and the TUI's meters
 * follow from this table.
 */
export const RUN_METERS = {
  turns: { ceiling: 'max_turns', label: 'turns', unit: 'count', used: (u) => u.turns },
  tokens: { ceiling: 'max_tokens', label: 'tokens', unit: 'tokens', used: (u) => countedTokens(u.tokens) },
  cost_usd: { ceiling: 'max_cost_usd', label: 'cost', unit: 'usd', used: (u) => u.cost_usd },
  time_ms: { ceiling: 'timeout_ms', label: 'time', unit: 'duration', used: (u) => u.elapsed_ms },
} as const satisfies Record<string, MeterDecl>;

export type MeterName = keyof typeof RUN_METERS;
export const METER_NAMES = Object.keys(RUN_METERS) as MeterName[];

/** A meter's declaration by a name a client was sent, or undefined for a name this build does not know (a newer supervisor's). */
export function meterDecl(name: string): MeterDecl | undefined {
  return Object.hasOwn(RUN_METERS, name) ? RUN_METERS[name as MeterName] : undefined;
}

export function meter(name: MeterName, used: number, limit: number | null): Meter {
  if (limit === null || Number.isNaN(limit)) {
    return { name, used, limit: null, fraction: null, warn: false, tripped: false };
  }
  const tol = name === 'cost_usd' ? COST_TOLERANCE : 0;
  const tripped = used > limit + tol * Math.max(1, Math.abs(limit));
  const fraction = limit > 0 ? used / limit : 1;
  const warn = tripped || fraction >= WARN_FRACTION - tol;
  return { name, used, limit, fraction, warn, tripped };
}

/** The run's meters, in RUN_METERS' order. */
export function runMeters(usage: RunUsage, limits: RunLimits): Meter[] {
  return METER_NAMES.map((name) => {
    const m: MeterDecl = RUN_METERS[name];
    return meter(name, m.used(usage), limits[m.ceiling]);
  });
}

/**
 * Whether a run that has finished `turns` turns may begin another. The turn
 * ceiling is enforced where a turn would begin, not after it ended: turn N+1
 * is never paid for, and a run that stops by itself after N turns is not cut
 * short. (`turns` still trips strictly above the ceiling, for a turn that
 * ended without its start being seen.)
 */
export function mayBeginTurn(turns: number, maxTurns: number | null | undefined): boolean {
  // Anything but a number is "no ceiling", as in mergeLimits.
  return typeof maxTurns !== 'number' || Number.isNaN(maxTurns) || turns < maxTurns;
}

/** The first tripped meter in the given order, or null. */
export function firstTrip(meters: readonly Meter[]): Meter | null {
  return meters.find((m) => m.tripped) ?? null;
}

/** The exit reason for a tripped meter: time → 'timeout', every other → 'budget'. */
export function tripReason(m: Meter): 'timeout' | 'budget' {
  return m.name === 'time_ms' ? 'timeout' : 'budget';
}

/** The meter with the highest fraction (first on ties), or null when none has a limit. */
export function fullest(meters: readonly Meter[]): Meter | null {
  let best: Meter | null = null;
  for (const m of meters) {
    if (m.fraction === null) continue;
    if (best === null || m.fraction > (best.fraction as number)) best = m;
  }
  return best;
}

export const NO_LIMITS: Readonly<RunLimits> = Object.freeze({
  ...(Object.fromEntries(CEILING_NAMES.map((k) => [k, null])) as Record<CeilingName, null>),
  loop: 'warn',
  on_stall: 'terminate',
});

function isStallAction(v: unknown): v is StallAction {
  return (STALL_ACTIONS as readonly unknown[]).includes(v);
}

function isLoopAction(v: unknown): v is LoopAction {
  return v === 'warn' || v === 'terminate' || v === 'off';
}

/** Merge limit scopes (e.g. global, workload, run): the lowest ceiling wins. */
export function mergeLimits(...scopes: Partial<RunLimits>[]): RunLimits {
  const out: RunLimits = { ...NO_LIMITS };
  for (const scope of scopes) {
    if (scope === null || typeof scope !== 'object') continue;
    for (const key of CEILING_NAMES) {
      const v = scope[key];
      if (typeof v !== 'number' || Number.isNaN(v)) continue;
      const cur = out[key];
      out[key] = cur === null ? v : Math.min(cur, v);
    }
    if (isLoopAction(scope.loop)) out.loop = scope.loop;
    if (isStallAction(scope.on_stall)) out.on_stall = scope.on_stall;
  }
  return out;
}

// ---------------------------------------------------------------------------
// Fleet

export interface FleetBudget {
  max_tokens: number | null;
  max_cost_usd: number | null;
  window: 'all' | { rolling_ms: number };
}

/**
 * Fleet meters, tokens then cost_usd, over the usage inside the budget's
 * window (the journal sums it per minute: what the window holds is its query).
 */
export function fleetMeters(usage: { tokens: number; cost_usd: number }, budget: FleetBudget): Meter[] {
  return [meter('tokens', usage.tokens, budget.max_tokens), meter('cost_usd', usage.cost_usd, budget.max_cost_usd)];
}

// ---------------------------------------------------------------------------
// Cost

/** USD per million tokens. */
export interface Price {
  input_per_mtok: number;
  output_per_mtok: number;
  /** Price of cached input; the input price when absent. */
  cached_input_per_mtok?: number;
}

/** `t.input` is uncached input; cached tokens are priced separately. */
export function costFromTokens(t: TokenCounts, price: Price): number {
  const cachedPrice = price.cached_input_per_mtok ?? price.input_per_mtok;
  return (t.input * price.input_per_mtok + t.output * price.output_per_mtok + t.cached * cachedPrice) / 1_000_000;
}

/**
 * A run's cost: the agent's own reported cumulative cost when it gave one
 * (used as is), else tokens × price, else null (unknown).
 */
export function runCost(reported: number | null, tokens: TokenCounts, price: Price | null): number | null {
  if (reported !== null && Number.isFinite(reported)) return roundCost(reported);
  if (price !== null) return roundCost(costFromTokens(tokens, price));
  return null;
}

/** A meter's fraction to four decimals (0.1234 = 12.34%), for what users read. */
export function roundFraction(f: number | null): number | null {
  return f === null || !Number.isFinite(f) ? f : Math.round(f * 1e4) / 1e4;
}

/** Costs to a millionth of a dollar: finer than any price, and no float noise (0.30000000000000004) in what users read. */
export function roundCost(usd: number): number {
  return Math.round(usd * 1e6) / 1e6;
}

// ---------------------------------------------------------------------------
// The fleet's verdict

export type FleetVerdict = {
  /** Meters past 80% not yet warned about (warned once until the budget resets). */
  warn: Meter[];
  /** `trip`: over a ceiling, stop new work; `reset`: back under; `same`: nothing changes. */
  change: { kind: 'trip'; meter: Meter } | { kind: 'reset' } | { kind: 'same' };
};

/** What the fleet's meters mean now, given whether it was already over and which meters were warned of. */
export function fleetVerdict(meters: readonly Meter[], exceeded: boolean, warned: ReadonlySet<string>): FleetVerdict {
  const warn = meters.filter((m) => m.warn && !m.tripped && !warned.has(m.name));
  const trip = firstTrip(meters);
  if (trip && !exceeded) return { warn, change: { kind: 'trip', meter: trip } };
  if (!trip && exceeded) return { warn, change: { kind: 'reset' } };
  return { warn, change: { kind: 'same' } };
}
