// What each run spends per minute, from its rows' running totals as they
// change (tokens and cost only grow; the difference is what the last moments
// cost). Ten one-minute buckets per run, enough for a sparkline and a rate
// over the last five minutes (view/burn.ts). Pure: time is a parameter.

export const BURN_MINUTES = 10;
/** Minutes a rate is taken over: long enough to smooth a turn's burst, short enough to follow a change. */
export const RATE_MINUTES = 5;

export interface RunBurn {
  /** The minute (epoch ms / 60,000) of the last bucket. */
  minute: number;
  /** Tokens and cost spent in each of the last BURN_MINUTES minutes, oldest first. */
  tokens: readonly number[];
  cost: readonly number[];
  /** The running totals last seen. */
  seenTokens: number;
  seenCost: number;
}

export type Burns = Readonly<Record<string, RunBurn>>;

const zeros = (): number[] => new Array<number>(BURN_MINUTES).fill(0);

/** The buckets moved on to `minute` (older ones fall off the front). */
export function shifted(b: RunBurn, minute: number): { tokens: number[]; cost: number[] } {
  const by = Math.max(0, minute - b.minute);
  if (by === 0) return { tokens: [...b.tokens], cost: [...b.cost] };
  if (by >= BURN_MINUTES) return { tokens: zeros(), cost: zeros() };
  return { tokens: [...b.tokens.slice(by), ...new Array<number>(by).fill(0)], cost: [...b.cost.slice(by), ...new Array<number>(by).fill(0)] };
}

/**
 * A run's totals as of `at`: what grew since last seen is spent in that
 * minute. The first sight is only a starting point (what a run spent before
 * the TUI saw it is not a rate).
 */
export function noteTotals(b: RunBurn | undefined, tokens: number, cost: number, at: number): RunBurn {
  const minute = Math.floor(at / 60_000);
  if (!b) return { minute, tokens: zeros(), cost: zeros(), seenTokens: tokens, seenCost: cost };
  const dt = tokens - b.seenTokens;
  const dc = cost - b.seenCost;
  if (dt <= 0 && dc <= 0) return dt === 0 && dc === 0 ? b : { ...b, seenTokens: Math.max(tokens, b.seenTokens), seenCost: Math.max(cost, b.seenCost) };
  const at_ = Math.max(minute, b.minute);
  const next = shifted(b, at_);
  next.tokens[BURN_MINUTES - 1]! += Math.max(0, dt);
  next.cost[BURN_MINUTES - 1]! += Math.max(0, dc);
  return { minute: at_, tokens: next.tokens, cost: next.cost, seenTokens: Math.max(tokens, b.seenTokens), seenCost: Math.max(cost, b.seenCost) };
}

/**
 * A run's row as of `at`: its burn moved on, or undefined for a run that has
 * spent nothing yet and so has nothing to count from (most rows of a busy
 * stream are such: no entry is made for them).
 */
export function noteRun(prev: RunBurn | undefined, r: { tokens: { input: number; output: number }; cost_usd: number }, at: number): RunBurn | undefined {
  const tokens = r.tokens.input + r.tokens.output;
  if (!prev && tokens === 0 && r.cost_usd === 0) return undefined;
  return noteTotals(prev, tokens, r.cost_usd, at);
}
