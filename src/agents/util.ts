// Small, total helpers shared by the protocol adapters. Everything here is
// defensive: agent output is untrusted text, so nothing may throw on it.

import type { Adapter, AdapterOptions, ExtendedAdapter, ExtendedSignal, Signal } from './signals.js';

export type JsonObject = Record<string, unknown>;

export function isObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The field is there and not null. */
export function present(obj: JsonObject, key: string): boolean {
  return obj[key] !== undefined && obj[key] !== null;
}

/**
 * Parse a line as a JSON object, or null. Lines that do not start with `{`
 * are rejected before JSON.parse, so a 10 MB banner costs a scan, not a parse.
 * Arrays, numbers and strings are valid JSON but not protocol lines: null.
 */
export function parseObject(line: string): JsonObject | null {
  let i = 0;
  // Skip leading whitespace (and a UTF-8 BOM) without copying the line.
  while (i < line.length) {
    const c = line.charCodeAt(i);
    if (c === 0x20 || c === 0x09 || c === 0x0d || c === 0x0a || c === 0xfeff) i++;
    else break;
  }
  if (line.charCodeAt(i) !== 0x7b /* { */) return null;
  try {
    const v: unknown = JSON.parse(i === 0 ? line : line.slice(i));
    return isObject(v) ? v : null;
  } catch {
    return null;
  }
}

/** A token count or cost: finite and non-negative, else 0. Numeric strings are accepted. */
export function num(v: unknown): number {
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN;
  return Number.isFinite(n) && n > 0 ? n : 0;
}

/** Like num, but undefined when the field is absent or unusable (to tell "0" from "missing"). */
export function optNum(v: unknown): number | undefined {
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN;
  return Number.isFinite(n) && n >= 0 ? n : undefined;
}

export function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

/**
 * Does this error text describe a usage or rate limit? Agents word it many
 * ways ("usage limit reached", "Rate limit exceeded", "429 Too Many
 * Requests", "RESOURCE_EXHAUSTED: quota"), so this is deliberately broad; it is
 * only ever applied to error messages, never to ordinary assistant text.
 */
export function mentionsLimit(text: string | undefined): boolean {
  if (!text) return false;
  return /usage[ _-]?limit|rate[ _-]?limit|limit reached|limit exceeded|hit your limit|quota|resource[ _]exhausted|too many requests|\b429\b/i.test(text);
}

/**
 * Does this error text describe a failed login or a rejected credential?
 * Seen from the real CLIs: Claude "Not logged in · Please run /login",
 * "Invalid API key · Fix external API key"; Codex "unexpected status 401
 * Unauthorized", "Missing environment variable: `OPENAI_API_KEY`"; Gemini
 * `"status":"UNAUTHENTICATED"`, "API key not valid". Like mentionsLimit, only
 * ever applied to error messages.
 */
export function mentionsLogin(text: string | undefined): boolean {
  if (!text) return false;
  return /not logged in|please run \/login|\/login\b|authentication[ _-]?(failed|error)|unauthenticated|unauthori[sz]ed|\b401\b|invalid[ _-]?(x-)?api[ _-]?key|api key not valid|incorrect api key|missing (environment variable|api key)|no api key|credentials? (expired|invalid|missing)|token (expired|revoked)/i.test(
    text,
  );
}

export { statedRetryAfter } from './retry-time.js';

const output = (line: string): Signal => ({ kind: 'output', line });

/**
 * Finish an adapter built to emit `model_turn` boundaries: as it is when the
 * caller asked for them, else with the boundaries filtered out, so callers
 * that only know `Signal` never see one.
 */
export function withModelTurns(inner: ExtendedAdapter, options: AdapterOptions | undefined): ExtendedAdapter {
  if (options?.modelTurns) return inner;
  const drop = (s: ExtendedSignal[]): ExtendedSignal[] => (s.some((x) => x.kind === 'model_turn') ? s.filter((x) => x.kind !== 'model_turn') : s);
  const end = inner.end?.bind(inner);
  return {
    line: (l) => drop(inner.line(l)),
    ...(end ? { end: () => drop(end()) } : {}),
  };
}

/**
 * How many times a guard had to catch. Adapters are meant to be total on their
 * own, so the fuzz tests assert this stays 0: the guard must never hide a bug.
 */
export const guardStats = { caught: 0 };

/**
 * Wrap an adapter so that no input can make it throw: a line whose handling
 * fails is reported as plain output instead. Adapters are written to be total
 * already; this is the belt to their braces.
 */
export function guarded<S, A extends Adapter<S>>(adapter: A & Adapter<S>): A {
  const line = adapter.line.bind(adapter);
  const end = adapter.end?.bind(adapter);
  const wrapped: A = {
    ...adapter,
    line(l: string): S[] {
      try {
        return line(l);
      } catch {
        guardStats.caught++;
        return [output(typeof l === 'string' ? l : '') as S];
      }
    },
  };
  if (end) {
    wrapped.end = (): S[] => {
      try {
        return end();
      } catch {
        guardStats.caught++;
        return [];
      }
    };
  }
  return wrapped;
}

/**
 * The shell every JSON-lines adapter shares: a line that is not a JSON object,
 * or one `handle` does not know (null), is plain output; the adapter never
 * throws (guarded).
 */
export function jsonLinesAdapter<S extends Signal | ExtendedSignal = ExtendedSignal>(handle: (obj: JsonObject) => S[] | null, end?: () => S[]): Adapter<S> {
  return guarded<S, Adapter<S>>({
    line(l) {
      const obj = parseObject(l);
      if (!obj) return [output(l) as S];
      return handle(obj) ?? [output(l) as S];
    },
    ...(end ? { end } : {}),
  });
}
