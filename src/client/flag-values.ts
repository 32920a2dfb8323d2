// Flag values, read the same way by every verb.
//
// node:util's parseArgs refuses `--max-cost -1` as "ambiguous": a value that
// starts with "-" might be a forgotten value followed by another flag. A
// value that reads as a negative number or duration ("-1", "-.5", "-1s") is
// no flag of orcr's, so it is joined to its option (`--max-cost=-1`) and
// orcr's own check says what is wrong with it, in the same words as for
// `--max-cost=-1`.

import type { ParseArgsConfig } from 'node:util';
import { quote } from '../text/json-text.js';

const NEGATIVE = /^-\.?\d/;

/** `args` with each string option followed by a negative-looking value joined to it; nothing after `--` is touched. */
export function joinDashValues(args: readonly string[], options: NonNullable<ParseArgsConfig['options']>): string[] {
  const longOf = new Map<string, string>();
  for (const [name, o] of Object.entries(options)) {
    if (o.type !== 'string') continue;
    longOf.set(`--${name}`, name);
    if (o.short) longOf.set(`-${o.short}`, name);
  }
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--') {
      out.push(...args.slice(i));
      break;
    }
    const name = longOf.get(a);
    const next = args[i + 1];
    if (name !== undefined && next !== undefined && NEGATIVE.test(next)) {
      out.push(`--${name}=${next}`);
      i++;
    } else out.push(a);
  }
  return out;
}

/**
 * A whole-number flag (`--tail N`, `--since SEQ`, `--max-concurrency N`), in
 * the words the run spec uses for `--max-turns`: `--tail must not be
 * negative, got "-3"`. Returns the number or a message.
 */
export function wholeFlag(flag: string, raw: string, min = 0): number | { problem: string } {
  const n = /^[+-]?\d+$/.test(raw) ? Number(raw) : Number.NaN;
  const got = `, got ${quote(raw)}`;
  if (!Number.isSafeInteger(n)) return { problem: `${flag} must be a whole number${min > 0 ? `, ${min} or more` : ''}${got}` };
  if (n < min) return { problem: `${flag} ${min === 0 ? 'must not be negative' : `must be ${min} or more`}${got}` };
  return n;
}
