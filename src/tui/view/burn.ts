// Burn rates as shown: a run's tokens a minute and dollars an hour over the
// last few minutes, the fleet's (every run's summed), and a sparkline of the
// minutes. Pure.

import { BURN_MINUTES, RATE_MINUTES, shifted, type Burns, type RunBurn } from '../state/burn.js';

export interface Rate {
  tokensPerMin: number;
  costPerHour: number;
  /** Tokens per minute over the last BURN_MINUTES minutes as of now, oldest first. */
  spark: number[];
}

const QUIET: Rate = { tokensPerMin: 0, costPerHour: 0, spark: new Array<number>(BURN_MINUTES).fill(0) };

export function rateOf(b: RunBurn, now: number): Rate {
  // Nothing spent in the minutes shown: no copy to make.
  if (Math.floor(now / 60_000) - b.minute >= BURN_MINUTES) return QUIET;
  const { tokens, cost } = shifted(b, Math.floor(now / 60_000));
  const recent = (xs: number[]): number => xs.slice(-RATE_MINUTES).reduce((a, x) => a + x, 0);
  return { tokensPerMin: recent(tokens) / RATE_MINUTES, costPerHour: (recent(cost) / RATE_MINUTES) * 60, spark: tokens };
}

/** The fleet's rate: every run's, summed. */
export function fleetRate(burns: Burns, now: number): Rate {
  const spark = new Array<number>(BURN_MINUTES).fill(0);
  let tokensPerMin = 0;
  let costPerHour = 0;
  for (const id in burns) {
    const r = rateOf(burns[id]!, now);
    tokensPerMin += r.tokensPerMin;
    costPerHour += r.costPerHour;
    r.spark.forEach((v, i) => (spark[i]! += v));
  }
  return { tokensPerMin, costPerHour, spark };
}

const BARS = '▁▂▃▄▅▆▇█';

/** `▁▃▅█…`: each value against the largest; blanks where nothing was spent. */
export function sparkline(values: readonly number[]): string {
  const max = Math.max(...values);
  if (max <= 0) return ' '.repeat(values.length);
  return values.map((v) => (v <= 0 ? ' ' : BARS[Math.min(BARS.length - 1, Math.floor((v / max) * (BARS.length - 1) + 0.5))]!)).join('');
}
