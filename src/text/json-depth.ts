// How deep JSON text nests, read before it is parsed: the parser copes, but
// what reads a parsed value after it recurses (a schema, JSON.stringify in a
// message), and a line of 100,000 "[" ends there in a stack overflow.

/** Whether JSON text opens more than `max` arrays or objects inside one another (brackets in strings are text). */
export function nestedDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: the next character is escaped
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}
