// Checked decoding of the JSON the journal reads back. This journal wrote it,
// maybe an older orcr: a decoder checks each field's type, gives a field an
// older record lacks its default, and names the field that does not read (a
// record no orcr wrote, or a damaged store). A record's decoder is written
// out field by field (run-decoder.ts): it builds the record as its type
// declares it, so the compiler checks every field is there, and reads each by
// its name, which is what keeps decoding cheap beside JSON.parse.

/** A record the journal holds does not read as its kind. */
export class JournalRecordError extends Error {
  override readonly name = 'JournalRecordError';
}

/** Reads `v`, the value found under `key` (named when it does not read), as a T. */
export type Decoder<T> = (v: unknown, key: string) => T;

/** Where a value did not read: the path is filled in on the way out, so a record that reads builds none. */
class Mismatch extends Error {
  readonly path: string[] = [];
}

function shown(v: unknown): string {
  if (v === undefined) return 'nothing';
  const text = JSON.stringify(v);
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}

function fail(key: string, want: string, v: unknown): never {
  throw within(key, new Mismatch(`expected ${want}, found ${shown(v)}`));
}

/** `e` as thrown from inside `key`: its path gets the step (rethrow it). */
function within(key: string, e: unknown): unknown {
  if (key !== '' && e instanceof Mismatch) e.path.unshift(key);
  return e;
}

/** `v` read by `d`, or a JournalRecordError naming `what` (`record of run 0f3a…`) and the field that did not read. */
export function decodeAs<T>(d: Decoder<T>, v: unknown, what: string): T {
  try {
    return d(v, '');
  } catch (e) {
    if (!(e instanceof Mismatch)) throw e;
    const where = e.path.length > 0 ? ` ${e.path.join('.').replaceAll('.[', '[')}:` : '';
    throw new JournalRecordError(`the journal's ${what} does not read:${where} ${e.message}`);
  }
}

export const str: Decoder<string> = (v, key) => (typeof v === 'string' ? v : fail(key, 'a string', v));
export const num: Decoder<number> = (v, key) => (typeof v === 'number' ? v : fail(key, 'a number', v));
export const bool: Decoder<boolean> = (v, key) => (typeof v === 'boolean' ? v : fail(key, 'true or false', v));

export function nullable<T>(d: Decoder<T>): Decoder<T | null> {
  return (v, key) => (v === null ? null : d(v, key));
}

export function oneOf<const T extends readonly string[]>(values: T): Decoder<T[number]> {
  const want = `one of ${values.join(', ')}`;
  return (v, key) => {
    for (const x of values) if (x === v) return x;
    return fail(key, want, v);
  };
}

export function arrayOf<T>(d: Decoder<T>): Decoder<T[]> {
  return (v, key) => {
    if (!Array.isArray(v)) return fail(key, 'an array', v);
    const out = new Array<T>(v.length);
    for (let i = 0; i < v.length; i++) {
      try {
        out[i] = d(v[i], '');
      } catch (e) {
        throw within(key, within(`[${i}]`, e));
      }
    }
    return out;
  };
}

export const strings = arrayOf(str);

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** An object, its fields to be read one by one. */
function fieldsOf(v: unknown, key: string): Record<string, unknown> {
  return isObject(v) ? v : fail(key, 'an object', v);
}

/**
 * How many fields or() and orElse() gave their defaults to, while the
 * object() being read reads its own: a nested object() counts its own and
 * puts the count back as it found it.
 */
let filled = 0;

/**
 * An object read by `read`, which builds it field by field (naming each
 * field it reads, for the error; a field the record lacks is filled through
 * or() or orElse() only); the fields `read` does not know are kept.
 */
export function object<T extends object>(read: (o: Record<string, unknown>) => T): Decoder<T> {
  return (v, key) => {
    const o = fieldsOf(v, key);
    const before = filled;
    let known: T;
    let itsOwn: number;
    try {
      known = read(o);
      itsOwn = filled - before;
    } catch (e) {
      throw within(key, e);
    } finally {
      filled = before;
    }
    return keepingUnknown(known, o, itsOwn);
  };
}

/** `v` read by `d`, or `absent` when a record written before the field existed lacks it. */
export function or<T>(v: unknown, key: string, d: Decoder<T>, absent: T): T {
  if (v !== undefined) return d(v, key);
  filled++;
  return absent;
}

/** As `or`, the value for an absent field made afresh each time (an object or an array). */
export function orElse<T>(v: unknown, key: string, d: Decoder<T>, fill: () => T): T {
  if (v !== undefined) return d(v, key);
  filled++;
  return fill();
}

/** Any object, its fields unchecked. */
export const anObject: Decoder<Record<string, unknown>> = fieldsOf;

/** An object of strings by name (an environment). */
export const stringRecord: Decoder<Record<string, string>> = (v, key) => {
  const o = fieldsOf(v, key);
  const out: Record<string, string> = {};
  try {
    // Defined, not assigned: a variable named __proto__ is a name like any other.
    for (const [k, x] of Object.entries(o)) Object.defineProperty(out, k, { value: str(x, k), enumerable: true, writable: true, configurable: true });
  } catch (e) {
    throw within(key, e);
  }
  return out;
};

function countFields(o: object): number {
  let n = 0;
  for (const _ in o) n++;
  return n;
}

/**
 * `known`, as decoded, with every field of `raw` it does not have: a field a
 * later orcr added is kept through this one's rewrite of the record. `known`
 * holds the fields of `raw` that it reads and the `filled` ones `raw` lacks,
 * so `raw` has others only when it has more fields than that leaves: counted
 * first, as looking each field up costs more than reading the record.
 */
function keepingUnknown<T extends object>(known: T, raw: Record<string, unknown>, filled: number): T {
  if (countFields(raw) <= countFields(known) - filled) return known;
  for (const k in raw) {
    if (!Object.hasOwn(known, k)) Object.defineProperty(known, k, { value: raw[k], enumerable: true, writable: true, configurable: true });
  }
  return known;
}
