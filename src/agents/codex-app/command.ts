// The command a Codex request is about, as the model wrote it. Codex runs
// each through a shell and names it in that form, `/bin/bash -lc '<script>'`
// (its arguments shell-quoted back into one string, single and double quotes
// run together: `"printf 'a %s\n' \""'$(pwd)" > f'`); orcr's rules are
// written against the script itself (`Bash(npm test)`, `Bash(rm:*)`), as
// Claude Code's are. Pure.

/** Shells whose `-c` / `-lc` argument is the script they run. */
const SHELLS = new Set(['bash', 'sh', 'zsh']);
const SCRIPT_FLAGS = new Set(['-c', '-lc']);
/** What may stand unquoted in the words around the script: anything else is shell syntax, and the command no plain argv. */
const PLAIN = /[A-Za-z0-9_@%+=:,./-]/;

/** The script of `SHELL -lc SCRIPT` (SHELL bash, sh or zsh, by path or name); null for any other command. */
export function scriptOf(command: string): string | null {
  const words = shellWords(command);
  if (words === null || words.length !== 3) return null;
  const [shell, flag, script] = words as [string, string, string];
  return SHELLS.has(shell.slice(shell.lastIndexOf('/') + 1)) && SCRIPT_FLAGS.has(flag) ? script : null;
}

/** A command line as the shell splits it into words (POSIX quoting); null when it holds anything but plain words. */
export function shellWords(line: string): string[] | null {
  const words: string[] = [];
  let word: string | null = null;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (c === ' ' || c === '\t') {
      if (word !== null) words.push(word);
      word = null;
    } else if (c === "'") {
      const end = line.indexOf("'", i + 1);
      if (end < 0) return null;
      word = (word ?? '') + line.slice(i + 1, end);
      i = end;
    } else if (c === '"') {
      const read = doubleQuoted(line, i + 1);
      if (read === null) return null;
      word = (word ?? '') + read.text;
      i = read.end;
    } else if (c === '\\' && i + 1 < line.length && line[i + 1] !== '\n') {
      word = (word ?? '') + line[++i]!;
    } else if (PLAIN.test(c)) {
      word = (word ?? '') + c;
    } else return null;
  }
  if (word !== null) words.push(word);
  return words;
}

/** Inside "…" from `start`: a backslash escapes only $ ` " \ (and a newline, which it removes); an expansion ($, `) is no plain word. */
function doubleQuoted(line: string, start: number): { text: string; end: number } | null {
  let text = '';
  for (let i = start; i < line.length; i++) {
    const c = line[i]!;
    if (c === '"') return { text, end: i };
    if (c === '\\' && i + 1 < line.length && '$`"\\\n'.includes(line[i + 1]!)) {
      const next = line[++i]!;
      if (next !== '\n') text += next;
    } else if (c === '$' || c === '`') return null;
    else text += c;
  }
  return null;
}
