// Five-field cron expressions and their next fire in an IANA time zone, and
// the `--once-at` forms. Pure: time is a parameter, wall-clock fields come
// from Intl.DateTimeFormat (no cron or tz library is installed, and this is
// small). A schedule is evaluated in the zone it was made in, so `0 9 * * *`
// stays 09:00 local across a DST change.
//
// DST, as Vixie cron does it: a wall time that does not exist (the hour
// skipped in spring) fires once, shifted forward by the gap (02:30 → 03:30);
// a wall time that happens twice (the hour repeated in autumn) fires once, at
// its first occurrence, unless the hour field is `*` (then each minute of the
// repeated hour fires again, as the clock says it is that minute again).

export class CronError extends Error {
  override readonly name = 'CronError';
}

export interface Cron {
  readonly text: string;
  readonly minutes: readonly number[];
  readonly hours: readonly number[];
  readonly days: ReadonlySet<number>;
  readonly months: ReadonlySet<number>;
  /** 0 = Sunday … 6 = Saturday (7 is read as 0). */
  readonly weekdays: ReadonlySet<number>;
  /** Day of month and day of week both restricted: a day matching either fires (POSIX cron). */
  readonly dayOr: boolean;
  readonly anyHour: boolean;
}

const MACROS: Readonly<Record<string, string>> = {
  '@yearly': '0 0 1 1 *',
  '@annually': '0 0 1 1 *',
  '@monthly': '0 0 1 * *',
  '@weekly': '0 0 * * 0',
  '@daily': '0 0 * * *',
  '@midnight': '0 0 * * *',
  '@hourly': '0 * * * *',
};

const MONTH_NAMES = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const DAY_NAMES = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];

interface FieldSpec {
  name: string;
  min: number;
  max: number;
  names?: readonly string[];
  namesFrom?: number;
}

const FIELDS: readonly FieldSpec[] = [
  { name: 'minute', min: 0, max: 59 },
  { name: 'hour', min: 0, max: 23 },
  { name: 'day of month', min: 1, max: 31 },
  { name: 'month', min: 1, max: 12, names: MONTH_NAMES, namesFrom: 1 },
  { name: 'day of week', min: 0, max: 7, names: DAY_NAMES, namesFrom: 0 },
];

function parseValue(text: string, f: FieldSpec, expr: string): number {
  const lower = text.toLowerCase();
  const named = f.names?.indexOf(lower) ?? -1;
  if (named >= 0) return named + (f.namesFrom ?? 0);
  if (!/^\d+$/.test(text))
    throw new CronError(`"${expr}": ${f.name} "${text}" is not a number${f.names ? ` or a name (${f.names.slice(0, 3).join(', ')}, …)` : ''}`);
  const n = Number(text);
  if (n < f.min || n > f.max) throw new CronError(`"${expr}": ${f.name} ${n} is out of range (${f.min}-${f.max})`);
  return n;
}

/** One field: `*`, `N`, `A-B`, each with an optional `/STEP`, comma-separated. */
function parseField(text: string, f: FieldSpec, expr: string): { values: Set<number>; star: boolean } {
  const values = new Set<number>();
  let star = false;
  for (const part of text.split(',')) {
    const m = /^([^/]+)(?:\/(\d+))?$/.exec(part);
    if (!m) throw new CronError(`"${expr}": ${f.name} "${part}" is not a cron field (e.g. *, 5, 1-5, */15, 1,15)`);
    const step = m[2] === undefined ? 1 : Number(m[2]);
    if (step < 1) throw new CronError(`"${expr}": ${f.name} step must be at least 1`);
    let lo: number;
    let hi: number;
    if (m[1] === '*') {
      lo = f.min;
      hi = f.max;
      if (m[2] === undefined) star = true;
    } else if (m[1]!.includes('-')) {
      const [a, b, ...more] = m[1]!.split('-');
      if (more.length > 0 || a === '' || b === '') throw new CronError(`"${expr}": ${f.name} range "${m[1]}" is not A-B`);
      lo = parseValue(a!, f, expr);
      hi = parseValue(b!, f, expr);
      if (lo > hi) throw new CronError(`"${expr}": ${f.name} range ${m[1]} goes backwards`);
    } else {
      lo = parseValue(m[1]!, f, expr);
      // N/STEP means N to the end, stepping (as Vixie cron).
      hi = m[2] === undefined ? lo : f.max;
    }
    for (let v = lo; v <= hi; v += step) values.add(v);
  }
  return { values, star };
}

export function parseCron(text: string): Cron {
  const expr = text.trim();
  const body = MACROS[expr.toLowerCase()] ?? expr;
  const parts = body.split(/\s+/).filter((s) => s !== '');
  if (parts.length !== 5) {
    throw new CronError(
      `"${expr}" has ${parts.length} field${parts.length === 1 ? '' : 's'}; a cron schedule has five: minute hour day-of-month month day-of-week (e.g. "0 9 * * 1-5")`,
    );
  }
  const [mi, h, dom, mon, dow] = parts.map((p, i) => parseField(p, FIELDS[i]!, expr));
  const weekdays = new Set([...dow!.values].map((d) => d % 7));
  return {
    text: expr,
    minutes: [...mi!.values].sort((a, b) => a - b),
    hours: [...h!.values].sort((a, b) => a - b),
    days: dom!.values,
    months: mon!.values,
    weekdays,
    dayOr: !dom!.star && !dow!.star,
    anyHour: h!.star,
  };
}

// ---------- time zones ----------

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(zone: string): Intl.DateTimeFormat {
  let f = formatters.get(zone);
  if (!f) {
    try {
      f = new Intl.DateTimeFormat('en-US', {
        timeZone: zone,
        hourCycle: 'h23',
        year: 'numeric',
        month: 'numeric',
        day: 'numeric',
        hour: 'numeric',
        minute: 'numeric',
        second: 'numeric',
      });
    } catch {
      throw new CronError(`unknown time zone "${zone}" (an IANA name such as Europe/Berlin or America/New_York)`);
    }
    formatters.set(zone, f);
  }
  return f;
}

/** Throws a CronError for a zone Intl does not know; returns its canonical name. */
export function checkZone(zone: string): string {
  return formatter(zone).resolvedOptions().timeZone;
}

export interface Wall {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
}

/** The wall clock in `zone` at an instant (seconds dropped). */
export function wallAt(ms: number, zone: string): Wall {
  const parts = formatter(zone).formatToParts(new Date(ms));
  const get = (t: string): number => Number(parts.find((p) => p.type === t)!.value);
  return { year: get('year'), month: get('month'), day: get('day'), hour: get('hour') % 24, minute: get('minute') };
}

const wallUtc = (w: Wall): number => Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute);
const sameWall = (a: Wall, b: Wall): boolean => a.year === b.year && a.month === b.month && a.day === b.day && a.hour === b.hour && a.minute === b.minute;

/** The zone's offset from UTC at an instant, in ms. */
function offsetAt(ms: number, zone: string): number {
  const floored = Math.floor(ms / 60_000) * 60_000;
  return wallUtc(wallAt(floored, zone)) - floored;
}

/**
 * The instants at which the zone's clock reads `w`: one; two in a repeated
 * hour (earliest first); none in a skipped one, where the one returned is
 * shifted forward by the gap (`gap: true`).
 */
function wallToInstants(w: Wall, zone: string): { instants: number[]; gap: boolean } {
  const local = wallUtc(w);
  // Offsets a day either side: no zone changes its offset twice within two days.
  const before = offsetAt(local - 86_400_000, zone);
  const after = offsetAt(local + 86_400_000, zone);
  const found = [...new Set([before, after])].map((o) => local - o).filter((ms) => sameWall(wallAt(ms, zone), w));
  if (found.length > 0) return { instants: [...new Set(found)].sort((a, b) => a - b), gap: false };
  return { instants: [local - before], gap: true };
}

// ---------- next fire ----------

function dayMatches(c: Cron, year: number, month: number, day: number): boolean {
  if (!c.months.has(month)) return false;
  const dom = c.days.has(day);
  const dow = c.weekdays.has(new Date(Date.UTC(year, month - 1, day)).getUTCDay());
  return c.dayOr ? dom || dow : dom && dow;
}

/** Far enough for any satisfiable expression (29 February on a given weekday repeats every 28 years). */
const SEARCH_DAYS = 366 * 29;

/** The first fire strictly after `afterMs`, or null when the expression never fires (30 February). */
export function nextFire(c: Cron, zone: string, afterMs: number): number | null {
  // Fires fall on whole minutes: start at the wall minute of the next one.
  const from = Math.floor(afterMs / 60_000) * 60_000 + 60_000;
  const start = wallAt(from, zone);
  // Wall times this far before the start cannot be after it (no zone shifts by 3 h): skipped without asking Intl.
  const earliest = wallUtc(start) - 3 * 3_600_000;
  // Begin a day early: a repeated hour can put `from` after the wall times of its own date.
  let date = Date.UTC(start.year, start.month - 1, start.day) - 86_400_000;
  for (let i = 0; i < SEARCH_DAYS; i++, date += 86_400_000) {
    const d = new Date(date);
    const year = d.getUTCFullYear();
    const month = d.getUTCMonth() + 1;
    const day = d.getUTCDate();
    if (!dayMatches(c, year, month, day)) continue;
    for (const hour of c.hours) {
      for (const minute of c.minutes) {
        if (Date.UTC(year, month - 1, day, hour, minute) < earliest) continue;
        const { instants } = wallToInstants({ year, month, day, hour, minute }, zone);
        const usable = c.anyHour ? instants : instants.slice(0, 1);
        const hit = usable.find((ms) => ms >= from);
        if (hit !== undefined) return hit;
      }
    }
  }
  return null;
}

/** How many fires fall in (fromMs, toMs], counted up to `cap`. */
export function firesBetween(c: Cron, zone: string, fromMs: number, toMs: number, cap = 10_000): number {
  let n = 0;
  let t = fromMs;
  for (;;) {
    const next = nextFire(c, zone, t);
    if (next === null || next > toMs || n >= cap) return n;
    n++;
    t = next;
  }
}

// ---------- --once-at ----------

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2})(?::(\d{2})(\.\d+)?)?([Zz]|[+-]\d{2}:\d{2})$/;
const LOCAL_DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{1,2}):(\d{2})$/;
const LOCAL_TIME = /^(\d{1,2}):(\d{2})$/;

const ONCE_HINT = 'give a duration from now (30m, 2h), an RFC 3339 time (2026-12-02T09:00:00Z) or a local time (14:30, 2026-12-02 09:00)';

function checkWall(w: Wall, text: string): void {
  const probe = new Date(Date.UTC(w.year, w.month - 1, w.day));
  if (w.month < 1 || w.month > 12 || probe.getUTCDate() !== w.day || w.hour > 23 || w.minute > 59)
    throw new CronError(`--once-at "${text}" is not a real date and time`);
}

/**
 * `--once-at`: a duration from `now`, an RFC 3339 time, or a wall-clock time
 * in `zone` (HH:MM today, or tomorrow once it has passed; or YYYY-MM-DD HH:MM).
 * A time in the past is refused. `duration` is the caller's duration parser
 * (config/duration: core imports no other room), throwing on what is not one.
 */
export function parseOnceAt(text: string, nowMs: number, zone: string, duration: (text: string) => number): number {
  const t = text.trim();
  let at: number;
  let m: RegExpExecArray | null;
  if ((m = RFC3339.exec(t))) {
    checkWall({ year: +m[1]!, month: +m[2]!, day: +m[3]!, hour: +m[4]!, minute: +m[5]! }, text);
    at = Date.parse(t.replace(' ', 'T'));
    if (Number.isNaN(at)) throw new CronError(`--once-at "${text}" is not a real time`);
  } else if ((m = LOCAL_DATE_TIME.exec(t))) {
    const w = { year: +m[1]!, month: +m[2]!, day: +m[3]!, hour: +m[4]!, minute: +m[5]! };
    checkWall(w, text);
    at = wallToInstants(w, zone).instants[0]!;
  } else if ((m = LOCAL_TIME.exec(t))) {
    const today = wallAt(nowMs, zone);
    const w = { ...today, hour: +m[1]!, minute: +m[2]! };
    checkWall(w, text);
    at = wallToInstants(w, zone).instants[0]!;
    if (at <= nowMs) {
      const tomorrow = new Date(Date.UTC(today.year, today.month - 1, today.day) + 86_400_000);
      at = wallToInstants(
        { year: tomorrow.getUTCFullYear(), month: tomorrow.getUTCMonth() + 1, day: tomorrow.getUTCDate(), hour: w.hour, minute: w.minute },
        zone,
      ).instants[0]!;
    }
  } else {
    try {
      at = nowMs + duration(t);
    } catch (e) {
      // A duration past the limit is one: its own words say so (the duration parser is handed in; core knows only its error's name).
      if ((e as Error)?.name === 'DurationRangeError') throw new CronError(`--once-at ${(e as Error).message}`);
      throw new CronError(`--once-at "${text}" is not a time: ${ONCE_HINT}`);
    }
  }
  if (at < nowMs - 1000) throw new CronError(`--once-at "${text}" is in the past (${new Date(at).toISOString()})`);
  return at;
}
