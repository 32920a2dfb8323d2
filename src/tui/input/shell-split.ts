// Split a typed command line into argv the way a POSIX shell would for
// quoting: 'single quotes' are literal, "double quotes" allow \" \\ \$ \`,
// a backslash outside quotes escapes the next character. No expansion of
// variables, globs or substitutions: what you type is what runs.

export class SplitError extends Error {}

export function shellSplit(line: string): string[] {
  const out: string[] = [];
  let cur = '';
  let inWord = false;
  let i = 0;
  while (i < line.length) {
    const c = line[i]!;
    if (c === "'") {
      const end = line.indexOf("'", i + 1);
      if (end < 0) throw new SplitError('unterminated single quote');
      cur += line.slice(i + 1, end);
      inWord = true;
      i = end + 1;
    } else if (c === '"') {
      i++;
      let closed = false;
      while (i < line.length) {
        const d = line[i]!;
        if (d === '"') {
          closed = true;
          i++;
          break;
        }
        if (d === '\\' && i + 1 < line.length && '"\\$`'.includes(line[i + 1]!)) {
          cur += line[i + 1];
          i += 2;
          continue;
        }
        cur += d;
        i++;
      }
      if (!closed) throw new SplitError('unterminated double quote');
      inWord = true;
    } else if (c === '\\') {
      if (i + 1 >= line.length) throw new SplitError('a backslash at the end of the line escapes nothing');
      cur += line[i + 1];
      inWord = true;
      i += 2;
    } else if (/\s/.test(c)) {
      if (inWord) out.push(cur);
      cur = '';
      inWord = false;
      i++;
    } else {
      cur += c;
      inWord = true;
      i++;
    }
  }
  if (inWord) out.push(cur);
  return out;
}
