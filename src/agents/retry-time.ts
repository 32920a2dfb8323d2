// When an agent's limit message says it may try again: a delay ("try again in
// 4 days 23 hours 10 minutes", "Resets in 4h14m50s") or a time ("try again at
// Sep 27th, 2026 4:59 AM", "resets 5pm (Europe/Berlin)"). Pure: the clock is
// an argument, so adapters pass their injected `now` and tests a fixed one.

const UNIT_S: ReadonlyArray<[RegExp, number]> = [
  [/^(?:ms|msecs?|milliseconds?)$/i, 0.001],
  [/^(?:s|secs?|seconds?)$/i, 1],
  [/^(?:m|mins?|minutes?)$/i, 60],
  [/^(?:h|hrs?|hours?)$/i, 3600],
  [/^(?:d|days?)$/i, 86_400],
  [/^(?:w|wks?|weeks?)$/i, 604_800],
];

/** "retry after", "try again in", "resets in": what introduces a delay. */
const DELAY_INTRO = /\b(?:retry|try again|resets?)\s+(?:in|after)\s+/gi;
/** One part of a delay: a number (or "a"/"an") and a unit word, not followed by a letter. */
const DELAY_PART = /(\d+(?:\.\d+)?|an?)\s*([a-z]+)(?![a-z])/iy;
/** Between parts: nothing ("4h14m"), spaces, a comma, "and". */
const DELAY_GLUE = /(?:\s*,\s*|\s+and\s+|\s*)/iy;

/** "try again at", "retry at", "resets", "resets at", "reset on": what introduces a time. */
const TIME_INTRO = /\b(?:try again|retry|resets?|reset)(?:\s+(?:at|on|after))?\s+/gi;

/** Claude Code's older form: "Claude AI usage limit reached|1750000000" (epoch seconds). */
const EPOCH_FORM = /limit reached\s*\|\s*(\d{10}|\d{13})\b/i;

/**
 * The delay an error text states, in seconds from `nowMs`, or undefined when
 * it states none. Delays are read without a clock; a time of day or a date
 * needs `nowMs` (without it, undefined), and one already past is 0 (it has reset)
 * (undefined), except a bare clock time past today, which means tomorrow.
 * A time zone is read when it is UTC/GMT/Z, an offset (+02:00) or an IANA
 * name the runtime knows ("(Europe/Berlin)"); any other zone, or none, is
 * taken as this machine's local time, the agent's most likely zone too.
 */
export function statedRetryAfter(text: string | undefined, nowMs?: number): number | undefined {
  if (!text) return undefined;
  const delay = statedDelay(text);
  if (delay !== undefined) return delay;
  if (nowMs === undefined || !Number.isFinite(nowMs)) return undefined;
  const at = statedTime(text, nowMs);
  if (at === undefined) return undefined;
  // A reset that has passed (a limit met right at its reset, or the provider's clock behind ours): 0, try again now.
  if (at <= nowMs) return 0;
  return Math.ceil((at - nowMs) / 1000);
}

function unitSeconds(word: string): number | undefined {
  for (const [re, s] of UNIT_S) if (re.test(word)) return s;
  return undefined;
}

function statedDelay(text: string): number | undefined {
  DELAY_INTRO.lastIndex = 0;
  for (let intro = DELAY_INTRO.exec(text); intro; intro = DELAY_INTRO.exec(text)) {
    let at = DELAY_INTRO.lastIndex;
    let total = 0;
    let parts = 0;
    for (;;) {
      DELAY_PART.lastIndex = at;
      const m = DELAY_PART.exec(text);
      const unit = m ? unitSeconds(m[2]!) : undefined;
      if (!m || unit === undefined) break;
      total += (/^an?$/i.test(m[1]!) ? 1 : Number(m[1])) * unit;
      parts++;
      DELAY_GLUE.lastIndex = DELAY_PART.lastIndex;
      DELAY_GLUE.exec(text);
      at = DELAY_GLUE.lastIndex;
    }
    if (parts > 0 && Number.isFinite(total)) return total;
  }
  return undefined;
}

// ── times ────────────────────────────────────────────────────────────────

const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];
const WEEKDAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];
/** Index of the name this word abbreviates (at least three letters: "sep", "sept", "thurs"), or -1: "monthly" is no Monday. */
const nameIndex = (names: readonly string[], word: string): number => (word.length >= 3 ? names.findIndex((n) => n.startsWith(word.toLowerCase())) : -1);

const ISO = /(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{1,2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?)?/y;
const MONTH_DAY = /([a-z]{3,9})(?![a-z])\.?\s+(\d{1,2})(?:st|nd|rd|th)?(?![\d:])(?:,?\s+(\d{4})(?![\d:]))?,?\s*(?:at\s+)?/iy;
const WEEKDAY = /([a-z]{3,9})(?![a-z])\.?,?\s+(?:at\s+)?/iy;
const CLOCK = /(\d{1,2})(?::(\d{2}))?(?::(\d{2}))?\s*(?:([ap])\.?m\.?(?![a-z]))?/iy;
const ZONE = /\s*(?:\(\s*([A-Za-z][\w+\-/]*)\s*\)|(UTC|GMT|Z)(?![A-Za-z])(?:\s*([+-]\d{1,2}(?::?\d{2})?))?|([+-]\d{2}:?\d{2})\b)?/y;

interface Clock {
  h: number;
  mi: number;
  s: number;
}
/** Offset from UTC, in ms, of a zone at a UTC instant. */
type Zone = (utcMs: number) => number;

const LOCAL: Zone = (ms) => -new Date(ms).getTimezoneOffset() * 60_000;

function statedTime(text: string, nowMs: number): number | undefined {
  const epoch = EPOCH_FORM.exec(text);
  if (epoch) return epoch[1]!.length === 13 ? Number(epoch[1]) : Number(epoch[1]) * 1000;
  TIME_INTRO.lastIndex = 0;
  for (let intro = TIME_INTRO.exec(text); intro; intro = TIME_INTRO.exec(text)) {
    const t = timeAt(text, TIME_INTRO.lastIndex, nowMs);
    if (t !== undefined) return t;
  }
  return undefined;
}

function sticky(re: RegExp, text: string, at: number): RegExpExecArray | null {
  re.lastIndex = at;
  return re.exec(text);
}

function clockAt(text: string, at: number): { clock: Clock; end: number } | undefined {
  const m = sticky(CLOCK, text, at);
  if (!m || m[0].trim() === '') return undefined;
  // "5" alone is no time; "5pm", "5:30", "17:00" are.
  if (m[2] === undefined && m[4] === undefined) return undefined;
  let h = Number(m[1]);
  const mi = m[2] === undefined ? 0 : Number(m[2]);
  const s = m[3] === undefined ? 0 : Number(m[3]);
  if (mi > 59 || s > 59) return undefined;
  if (m[4] !== undefined) {
    if (h < 1 || h > 12) return undefined;
    h = (h % 12) + (m[4].toLowerCase() === 'p' ? 12 : 0);
  } else if (h > 23) return undefined;
  return { clock: { h, mi, s }, end: CLOCK.lastIndex };
}

function zoneAt(text: string, at: number): Zone {
  const m = sticky(ZONE, text, at);
  if (!m) return LOCAL;
  const fixed = (sign: string, hh: string, mm: string): Zone => {
    const off = (Number(hh) * 60 + Number(mm || 0)) * 60_000 * (sign === '-' ? -1 : 1);
    return () => off;
  };
  if (m[1] !== undefined) {
    if (/^(UTC|GMT|Z)$/i.test(m[1])) return () => 0;
    return ianaZone(m[1]) ?? LOCAL;
  }
  if (m[2] !== undefined) {
    const o = m[3] === undefined ? null : /^([+-])(\d{1,2}):?(\d{2})?$/.exec(m[3]);
    return o ? fixed(o[1]!, o[2]!, o[3] ?? '0') : () => 0;
  }
  if (m[4] !== undefined) {
    const o = /^([+-])(\d{2}):?(\d{2})$/.exec(m[4])!;
    return fixed(o[1]!, o[2]!, o[3]!);
  }
  return LOCAL;
}

const zoneCache = new Map<string, Intl.DateTimeFormat>();

function ianaZone(name: string): Zone | undefined {
  let f = zoneCache.get(name);
  if (!f) {
    try {
      f = new Intl.DateTimeFormat('en-US', {
        timeZone: name,
        hourCycle: 'h23',
        year: 'numeric',
        month: 'numeric',
        day: 'numeric',
        hour: 'numeric',
        minute: 'numeric',
        second: 'numeric',
      });
    } catch {
      return undefined; // not a zone this runtime knows: local time
    }
    // Agent text is untrusted: the cache holds real zones only, and few of them.
    if (zoneCache.size < 64) zoneCache.set(name, f);
  }
  const fmt = f;
  return (ms) => {
    const p: Record<string, number> = {};
    for (const part of fmt.formatToParts(ms)) if (part.type !== 'literal') p[part.type] = Number(part.value);
    const wall = Date.UTC(p.year!, p.month! - 1, p.day, p.hour! % 24, p.minute, p.second);
    return wall - (ms - (((ms % 1000) + 1000) % 1000));
  };
}

/** The UTC instant of a wall-clock time in a zone (Date.UTC normalizes day overflow). */
function fromWall(zone: Zone, y: number, mo: number, d: number, c: Clock): number {
  const wall = Date.UTC(y, mo, d, c.h, c.mi, c.s);
  // Twice, so a wall time on the other side of a DST change gets that side's offset.
  const first = wall - zone(wall);
  return wall - zone(first);
}

function wallNow(zone: Zone, nowMs: number): Date {
  return new Date(nowMs + zone(nowMs)); // read with getUTC*
}

function timeAt(text: string, at: number, nowMs: number): number | undefined {
  const midnight: Clock = { h: 0, mi: 0, s: 0 };

  const iso = sticky(ISO, text, at);
  if (iso) {
    const c: Clock = iso[4] === undefined ? midnight : { h: Number(iso[4]), mi: Number(iso[5]), s: Number(iso[6] ?? 0) };
    if (c.h > 23 || c.mi > 59 || c.s > 59) return undefined;
    const zone = zoneAt(text, ISO.lastIndex);
    return fromWall(zone, Number(iso[1]), Number(iso[2]) - 1, Number(iso[3]), c);
  }

  const md = sticky(MONTH_DAY, text, at);
  const mo = md ? nameIndex(MONTHS, md[1]!) : -1;
  if (md && mo >= 0) {
    const d = Number(md[2]);
    if (d < 1 || d > 31) return undefined;
    const ck = clockAt(text, MONTH_DAY.lastIndex);
    const c = ck?.clock ?? midnight;
    const zone = zoneAt(text, ck?.end ?? MONTH_DAY.lastIndex);
    if (md[3] !== undefined) return fromWall(zone, Number(md[3]), mo, d, c);
    // No year: the next such date.
    const y = wallNow(zone, nowMs).getUTCFullYear();
    const t = fromWall(zone, y, mo, d, c);
    return t > nowMs ? t : fromWall(zone, y + 1, mo, d, c);
  }

  const wd = sticky(WEEKDAY, text, at);
  const day = wd ? nameIndex(WEEKDAYS, wd[1]!) : -1;
  if (wd && day >= 0) {
    const ck = clockAt(text, WEEKDAY.lastIndex);
    if (!ck) return undefined;
    const zone = zoneAt(text, ck.end);
    const now = wallNow(zone, nowMs);
    const ahead = (day - now.getUTCDay() + 7) % 7;
    const t = fromWall(zone, now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + ahead, ck.clock);
    return t > nowMs ? t : fromWall(zone, now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + ahead + 7, ck.clock);
  }

  const ck = clockAt(text, at);
  if (!ck) return undefined;
  const zone = zoneAt(text, ck.end);
  const now = wallNow(zone, nowMs);
  const t = fromWall(zone, now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate(), ck.clock);
  // The agent writes its reset to the minute, rounded down ("resets 4:01pm" for 16:01:16): a clock
  // time in the minute now running is the end of that minute, not tomorrow.
  if (t <= nowMs && nowMs - t < 60_000 && ck.clock.s === 0) return t + 60_000;
  // A clock time already past today means tomorrow.
  return t > nowMs ? t : fromWall(zone, now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1, ck.clock);
}
