// JSON bound for a terminal or a pipe. JSON.stringify escapes C0 controls but
// leaves DEL, the C1 controls (U+0080–U+009F: some terminals obey U+009B as
// CSI and U+009D as OSC) and the line separators U+2028/U+2029 raw. Escaped
// here, the text still decodes to exactly what it was.

// eslint-disable-next-line no-control-regex
const RAW = /[\u007f-\u009f\u2028\u2029]/g;

const escape = (c: string): string => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0');

/** JSON.stringify, with DEL, C1 and U+2028/2029 escaped too. */
export function jsonText(value: unknown, indent?: number): string {
  const text = JSON.stringify(value, null, indent) as string | undefined;
  return text === undefined ? 'null' : text.replace(RAW, escape);
}

/** A string as a JSON literal, every control escaped: a name or a value shown inside a message. */
export function quote(text: string): string {
  return jsonText(text);
}
