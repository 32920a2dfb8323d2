// Durations as people write them ("500ms", "30s", "1m30s", "1h 30m", "2d")
// for CLI flags and config keys, and as orcr prints them ("8.5s", "45m",
// "1h05m", "4d23h"). Parsing is strict: a typo is an error, never a guess.

/** The longest duration orcr accepts: 365 days. Longer ones are refused, never clamped. */
export const MAX_DURATION_MS = 365 * 24 * 3600 * 1000;

const HINT = 'use e.g. 500ms, 30s, 1m30s, 2h, 3d';

const UNIT_MS: Readonly<Record<string, number>> = (() => {
  const table: Record<string, number> = {};
  const add = (ms: number, ...names: string[]): void => {
    for (const n of names) table[n] = ms;
  };
  add(1, 'ms', 'msec', 'msecs', 'millisecond', 'milliseconds');
  add(1000, 's', 'sec', 'secs', 'second', 'seconds');
  add(60_000, 'm', 'min', 'mins', 'minute', 'minutes');
  add(3_600_000, 'h', 'hr', 'hrs', 'hour', 'hours');
  add(86_400_000, 'd', 'day', 'days');
  add(604_800_000, 'w', 'wk', 'wks', 'week', 'weeks');
  return table;
})();

const PART = /(\d+)(\.\d+)?\s*([a-z]+)\s*/iy;

function refuse(text: string, why?: string): never {
  throw new Error(`"${text}" is not a duration${why ? `: ${why}` : ''} (${HINT})`);
}

/**
 * Parse a human duration into ms: one or more parts, each a number and a unit
 * (ms, s, m, h, d, w, or their words: "2 minutes"), largest unit first, each
 * unit once, a fraction only in the last part ("1.5h", "1h30m", "1h 30m").
 * A bare number is refused: "30" could mean seconds or milliseconds, and a
 * guess there silently changes a timeout by a factor of a thousand. At most
 * MAX_DURATION_MS.
 *
 * Written here rather than taken from a library: `ms` reads one unit only,
 * and the compound parsers on npm (parse-duration, timestring) accept text
 * around the numbers ("abc 5s" is 5 s) or drop a minus sign ("-1s" is 1 s).
 */
export function parseDuration(text: string): number {
  const trimmed = text.trim();
  if (trimmed.startsWith('-')) {
    let ok = false;
    try {
      parseDuration(trimmed.slice(1));
      ok = true;
    } catch {
      /* not a duration at all: say that instead */
    }
    if (ok) throw new Error(`"${text}" is negative: a duration must be 0 or more`);
    refuse(text);
  }
  if (/^\d+(\.\d+)?$/.test(trimmed)) refuse(text, 'it has no unit');
  if (trimmed === '') refuse(text);
  let total = 0;
  let lastUnit = Infinity;
  let fractionSeen = false;
  PART.lastIndex = 0;
  while (PART.lastIndex < trimmed.length) {
    const at = PART.lastIndex;
    const m = PART.exec(trimmed);
    if (!m || m.index !== at) {
      const rest = trimmed.slice(at);
      refuse(text, /^\d+(\.\d+)?$/.test(rest) ? `"${rest}" has no unit` : at > 0 ? `unexpected "${rest.length > 20 ? `${rest.slice(0, 20)}…` : rest}"` : undefined);
    }
    const unitMs = UNIT_MS[m[3]!.toLowerCase()];
    if (unitMs === undefined) refuse(text, `unknown unit "${m[3]}"`);
    if (fractionSeen) refuse(text, 'only the last part may have a fraction');
    if (unitMs >= lastUnit) refuse(text, 'give each unit once, largest first');
    if (m[2] !== undefined) fractionSeen = true;
    lastUnit = unitMs;
    total += Number(m[1]! + (m[2] ?? '')) * unitMs;
  }
  checkDurationMs(total, () => `"${text}"`);
  return Math.round(total);
}

/** A duration well written but outside orcr's range (negative, or past a year): callers say the range, not the form. */
export class DurationRangeError extends Error {
  override name = 'DurationRangeError';
}

/**
 * Throw unless `ms` is in orcr's range (0 to MAX_DURATION_MS); used for
 * durations given as numbers of milliseconds, too. `what` names the value.
 */
export function checkDurationMs(ms: number, what: () => string = () => String(ms)): void {
  if (Number.isNaN(ms)) throw new Error(`${what()} is not a number of milliseconds`);
  if (ms < 0) throw new DurationRangeError(`${what()} is negative: a duration must be 0 or more`);
  if (ms > MAX_DURATION_MS) throw new DurationRangeError(`${what()} is longer than the limit of 365d (a year)`);
}

const pad = (n: number): string => String(n).padStart(2, '0');

/**
 * Short, for table columns: "250ms", "8.5s" (one decimal below 10 s), "45s",
 * "1m05s", "45m", "1h05m", "2h", "4d23h", "3d". At most two units, and no
 * trailing zero unit. Whole seconds and above are rounded, then split, so 59.6 s
 * is "1m", never "60s".
 */
export function formatDuration(msValue: number): string {
  if (msValue < 0) return `-${formatDuration(-msValue)}`;
  if (!Number.isFinite(msValue)) return String(msValue);
  if (Math.round(msValue) < 1000) return `${Math.round(msValue)}ms`;
  const tenths = Math.round(msValue / 100);
  if (tenths < 100) return `${(tenths / 10).toFixed(1)}s`;
  const secs = Math.round(msValue / 1000);
  if (secs < 60) return `${secs}s`;
  const mins = Math.floor(secs / 60);
  if (mins < 60) return secs % 60 ? `${mins}m${pad(secs % 60)}s` : `${mins}m`;
  const hours = Math.floor(mins / 60);
  if (hours < 24) return mins % 60 ? `${hours}h${pad(mins % 60)}m` : `${hours}h`;
  const days = Math.floor(hours / 24);
  return hours % 24 ? `${days}d${pad(hours % 24)}h` : `${days}d`;
}
