// Durations as people write them ("500ms", "30s", "1m30s", "1h 30m", "2d")
// for CLI flags and config keys, and as orcr prints them ("8.5s", "45m",
// "1h05m", "4d23h"). Parsing is strict: a typo is an error, never a guess.

import { jsonText } from '../text/json-text.js';

/** The longest duration orcr accepts: 365 days. Longer ones are refused, never clamped. */
export const MAX_DURATION_MS = 365 * 24 * 3600 * 1000;

/** What a bad duration is told: the forms orcr reads. */
export const DURATION_FORM = 'must be a duration such as 500ms, 30s, 1m30s, 2h or 3d';

/** Refusing 0 where 0 would end a run the moment it starts (--timeout, --turn-timeout, --idle-after). */
export const NOT_ZERO = 'must be more than 0 (0 would stop it at once; leave it out for no limit)';

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

/**
 * A refused duration. `problem` is worded to follow the value's name
 * (`must be a duration such as … (unknown unit "y")`), so every input —
 * a flag, a spec line's field, a config key — says the same thing the same
 * way: `--timeout must be …, got "99y"`, `"timeout" must be …, got "99y"`.
 */
export class DurationError extends Error {
  override name = 'DurationError';
  constructor(
    readonly problem: string,
    message: string,
  ) {
    super(message);
  }
}

/** A duration well written but outside orcr's range (negative, or past a year): the problem says the range, not the form. */
class DurationRangeError extends DurationError {
  override name = 'DurationRangeError';
}

/** `NAME problem, got VALUE` (or `problem, got VALUE` without a name): the one shape of the message. */
function message(problem: string, value: string | number, name: string | undefined): string {
  const shown = typeof value === 'number' ? String(value) : jsonText(value);
  const cut = [...shown].length <= 80 ? shown : [...shown].slice(0, 79).join('') + '…';
  return `${name === undefined ? '' : `${name} `}${problem}, got ${cut}`;
}

/**
 * Parse a human duration into ms: one or more parts, each a number and a unit
 * (ms, s, m, h, d, w, or their words: "2 minutes"), largest unit first, each
 * unit once, a fraction only in the last part ("1.5h", "1h30m", "1h 30m").
 * A bare number is refused: "30" could mean seconds or milliseconds, and a
 * guess there silently changes a timeout by a factor of a thousand. At most
 * MAX_DURATION_MS. `name` (a flag, a field) starts the message of a refusal.
 *
 * Written here rather than taken from a library: `ms` reads one unit only,
 * and the compound parsers on npm (parse-duration, timestring) accept text
 * around the numbers ("abc 5s" is 5 s) or drop a minus sign ("-1s" is 1 s).
 */
export function parseDuration(text: string, name?: string): number {
  const refuse: (why?: string) => never = (why) => {
    const problem = why ? `${DURATION_FORM} (${why})` : DURATION_FORM;
    throw new DurationError(problem, message(problem, text, name));
  };
  const trimmed = text.trim();
  if (trimmed.startsWith('-')) {
    let ok = false;
    try {
      parseDuration(trimmed.slice(1));
      ok = true;
    } catch {
      /* not a duration at all: say that instead */
    }
    if (ok) throw new DurationRangeError('must not be negative', message('must not be negative', text, name));
    refuse();
  }
  if (/^\d+(\.\d+)?$/.test(trimmed)) refuse('a number needs a unit');
  if (trimmed === '') refuse();
  let total = 0;
  let lastUnit = Infinity;
  let fractionSeen = false;
  PART.lastIndex = 0;
  while (PART.lastIndex < trimmed.length) {
    const at = PART.lastIndex;
    const m = PART.exec(trimmed);
    if (!m || m.index !== at) {
      const rest = trimmed.slice(at);
      refuse(
        /^\d+(\.\d+)?$/.test(rest)
          ? `${JSON.stringify(rest)} needs a unit`
          : at > 0
            ? `unexpected ${JSON.stringify(rest.length > 20 ? `${rest.slice(0, 20)}…` : rest)}`
            : undefined,
      );
    }
    const unitMs = UNIT_MS[m[3]!.toLowerCase()];
    if (unitMs === undefined) refuse(`unknown unit ${JSON.stringify(m[3])}`);
    if (fractionSeen) refuse('a fraction only in the last part');
    if (unitMs >= lastUnit) refuse('largest unit first, each unit once');
    if (m[2] !== undefined) fractionSeen = true;
    lastUnit = unitMs;
    total += Number(m[1]! + (m[2] ?? '')) * unitMs;
  }
  const range = durationRangeProblem(total);
  if (range !== null) throw new DurationRangeError(range, message(range, text, name));
  return Math.round(total);
}

/** What is wrong with a number of milliseconds as a duration (negative, past a year, not a number), or null. */
export function durationRangeProblem(ms: number): string | null {
  if (Number.isNaN(ms)) return `${DURATION_FORM} or a number of milliseconds`;
  if (ms < 0) return 'must not be negative';
  if (ms > MAX_DURATION_MS) return 'must be at most 365d (a year)';
  return null;
}

/**
 * Throw unless `ms` is in orcr's range (0 to MAX_DURATION_MS): for durations
 * given as numbers of milliseconds (config.json, the socket). `name` starts
 * the message, as for parseDuration.
 */
export function checkDurationMs(ms: number, name?: string): void {
  const problem = durationRangeProblem(ms);
  if (problem !== null) throw new DurationRangeError(problem, message(problem, ms, name));
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
