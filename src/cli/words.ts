// A word a person typed where orcr expected one of its own (a verb, a
// subcommand, a shell): shown back escaped and cut to a readable length, and
// matched against the words it could have meant.

import { quote } from '../text/json-text.js';
import { shownVerbs } from './grammar.js';
import { UsageError } from './usage-error.js';

/** Characters of a typed word shown in a message; the rest is counted, not shown. */
const SHOWN = 60;

/** `word` as a message quotes it: every control escaped (`"a\nb"`), a long one cut (`"aaaa…" (1000000 characters)`). */
export function shownWord(word: string): string {
  const chars = Array.from(word);
  if (chars.length <= SHOWN) return quote(word);
  return `${quote(chars.slice(0, SHOWN).join('')).slice(0, -1)}…" (${chars.length} characters)`;
}

/**
 * The words of `candidates` that `word` most likely meant: those it begins
 * (`comp` → completion), else the nearest by edits — a letter added, dropped,
 * changed, or two swapped (`lgos` → logs) — within a third of the word's
 * length (at least one). Case is ignored (`BASH` → bash). None for a word
 * far longer than any candidate.
 */
export function closest(word: string, candidates: readonly string[]): string[] {
  const w = word.toLowerCase();
  const longest = Math.max(0, ...candidates.map((c) => c.length));
  if (w === '' || w.length > longest + 3) return [];
  const exact = candidates.filter((c) => c.toLowerCase() === w);
  if (exact.length > 0) return exact;
  const begun = w.length >= 2 ? candidates.filter((c) => c.toLowerCase().startsWith(w)) : [];
  if (begun.length > 0) return begun;
  let best = Infinity;
  let found: string[] = [];
  for (const c of candidates) {
    const d = edits(w, c.toLowerCase());
    if (d > Math.max(1, Math.floor(c.length / 3))) continue;
    if (d < best) [best, found] = [d, [c]];
    else if (d === best) found.push(c);
  }
  return found;
}

/** `, did you mean "x"?` (or `"x" or "y"`), or nothing. */
export function didYouMean(word: string, candidates: readonly string[]): string {
  const near = closest(word, candidates);
  if (near.length === 0) return '';
  const named = near.map((c) => `"${c}"`);
  return `; did you mean ${named.length === 1 ? named[0] : `${named.slice(0, -1).join(', ')} or ${named.at(-1)}`}?`;
}

/** Edits from a to b: insertions, deletions, substitutions and swaps of neighbours (optimal string alignment). */
function edits(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, d[i - 2]![j - 2]! + 1);
      d[i]![j] = v;
    }
  }
  return d[a.length]![b.length]!;
}

/** The usage error for a word given where a verb goes: shown escaped, with the verbs it may have meant. */
export function unknownVerb(word: string): UsageError {
  if (word.startsWith('-') && word !== '-')
    return new UsageError(`unknown option ${shownWord(word)}: before a verb orcr takes only --help or --version (orcr --help lists the verbs)`);
  return new UsageError(`unknown verb ${shownWord(word)}${didYouMean(word, shownVerbs())} (orcr --help lists the verbs)`);
}
