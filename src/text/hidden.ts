// Characters a reader cannot see, or that break a line: in a name they make
// two names that look alike (`a\u200bb` and `ab`), so names refuse them, and
// a message that quotes text shows them escaped instead of passing them on.
// Pure, no dependencies.

/**
 * Invisible (Unicode Default_Ignorable_Code_Point: zero-width space and
 * joiners, soft hyphen, U+034F, variation selectors, Hangul fillers, tags…),
 * format characters (Cf: U+FEFF, bidi controls…) and the line and paragraph
 * separators U+2028/U+2029.
 */
const HIDDEN = /[\p{Default_Ignorable_Code_Point}\p{Cf}\p{Zl}\p{Zp}]/u;
/** The same, to replace every one. */
export const HIDDEN_ALL = new RegExp(HIDDEN.source, 'gu');

/** Combining marks; the non-spacing and enclosing ones pile up on their base with no width of their own. */
const MARK = /\p{M}/u;
const STACKING = /[\p{Mn}\p{Me}]/u;

/** At most this many non-spacing marks in a row (Vietnamese puts two on one letter). */
export const MAX_STACKED = 2;

/** Why one character would not show as it should, or null. */
export type HiddenKind = 'hidden' | 'baseless' | 'stacked';

/**
 * Each code point of the text, and why a name refuses it: a hidden character,
 * a combining mark with no base (first, or after a space or a hidden
 * character), or a mark in a pile of more than MAX_STACKED (the whole pile).
 */
export function scanHidden(text: string): { char: string; kind: HiddenKind | null }[] {
  const out: { char: string; kind: HiddenKind | null }[] = [...text].map((char) => ({ char, kind: HIDDEN.test(char) ? 'hidden' : null }));
  for (let i = 0; i < out.length; i++) {
    if (out[i]!.kind !== null || !MARK.test(out[i]!.char)) continue;
    const prev = out[i - 1];
    if (prev === undefined || prev.kind !== null || /\s/u.test(prev.char)) {
      out[i]!.kind = 'baseless';
      continue;
    }
    let end = i;
    while (end < out.length && out[end]!.kind === null && STACKING.test(out[end]!.char)) end++;
    if (end - i > MAX_STACKED) for (let k = i; k < end; k++) out[k]!.kind = 'stacked';
    i = Math.max(i, end - 1);
  }
  return out;
}

/** Why a name would be refused for what it cannot show (a hidden character before a mark problem), or null. */
export function hiddenProblem(text: string): HiddenKind | null {
  const kinds = new Set(scanHidden(text).map((c) => c.kind));
  return (['hidden', 'baseless', 'stacked'] as const).find((k) => kinds.has(k)) ?? null;
}

/** `\u200b`: one character as JSON escapes (one past U+FFFF is two, its UTF-16 pair). */
export function unicodeEscape(char: string): string {
  let out = '';
  for (let i = 0; i < char.length; i++) out += '\\u' + char.charCodeAt(i).toString(16).padStart(4, '0');
  return out;
}
