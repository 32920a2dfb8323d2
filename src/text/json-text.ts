// JSON bound for a terminal or a pipe. JSON.stringify escapes C0 controls but
// leaves DEL, the C1 controls (U+0080–U+009F: some terminals obey U+009B as
// CSI and U+009D as OSC) and the line separators U+2028/U+2029 raw. Escaped
// here, the text still decodes to exactly what it was.

import { HIDDEN_ALL, scanHidden, unicodeEscape } from './hidden.js';

const RAW = /[\u007f-\u009f\u2028\u2029]/g;

const escape = (c: string): string => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0');

/** JSON.stringify, with DEL, C1 and U+2028/2029 escaped too. */
export function jsonText(value: unknown, indent?: number): string {
  const text = JSON.stringify(value, null, indent) as string | undefined;
  return text === undefined ? 'null' : text.replace(RAW, escape);
}

/**
 * A string as a JSON literal, every control escaped, and every character a
 * name refuses for not showing (text/hidden.ts) escaped too: a name or a value
 * shown inside a message reads as what it is (`"a\\u200bb"`), never as a
 * look-alike with its invisible part stripped.
 */
export function quote(text: string): string {
  let out = '';
  let plain = '';
  for (const { char, kind } of scanHidden(text)) {
    if (kind === null) {
      plain += char;
      continue;
    }
    out += jsonText(plain).slice(1, -1) + unicodeEscape(char);
    plain = '';
  }
  return `"${out}${jsonText(plain).slice(1, -1)}"`;
}

/** Any value for a message: a string as quote() shows it, anything else as JSON with its hidden characters escaped. */
function quoteValue(value: unknown): string {
  if (typeof value === 'string') return quote(value);
  return jsonText(value).replace(HIDDEN_ALL, unicodeEscape);
}

/**
 * A value for a message, as quoteValue shows it but cut after about `max`
 * characters: written only as far as it is shown, so a value nested
 * thousands of levels deep or megabytes long costs no more than its preview
 * (JSON.stringify of the whole would overflow the stack, or copy it all).
 */
export function previewValue(value: unknown, max = 80): string {
  let out = '';
  // Each level writes a bracket before it goes down: at most `max` levels are entered.
  const walk = (v: unknown): void => {
    if (out.length > max) return;
    if (Array.isArray(v)) {
      out += '[';
      for (let i = 0; i < v.length && out.length <= max; i++) {
        if (i > 0) out += ',';
        walk(v[i]);
      }
      out += ']';
    } else if (v !== null && typeof v === 'object') {
      out += '{';
      let first = true;
      for (const k in v) {
        if (out.length > max) break;
        if (!Object.hasOwn(v, k)) continue;
        if (!first) out += ',';
        first = false;
        out += quote(k.length > max ? k.slice(0, max + 1) : k) + ':';
        walk((v as Record<string, unknown>)[k]);
      }
      out += '}';
    } else out += typeof v === 'string' ? quote(v.length > max ? v.slice(0, max + 1) : v) : quoteValue(v);
  };
  walk(value);
  return [...out].length <= max ? out : [...out].slice(0, max - 1).join('') + '…';
}
