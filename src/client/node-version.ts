// The Node.js lines orcr runs on. Older ones are past their end of life, and
// its dependencies need 22 (Ink 7, better-sqlite3 13, which on 20 installs with
// a warning and then crashes the process): one line that says so, before
// anything of theirs loads, instead of a stack trace or a segfault.

/** The oldest major line orcr supports (package.json's `engines` says the same). */
export const MIN_NODE_MAJOR = 22;

/** Why this Node cannot run orcr, or null when it can. `version` as process.versions.node gives it. */
export function nodeTooOld(version: string, program = 'orcr'): string | null {
  const major = Number(/^v?(\d+)\./.exec(version)?.[1]);
  if (Number.isInteger(major) && major >= MIN_NODE_MAJOR) return null;
  return `${program} needs Node.js ${MIN_NODE_MAJOR} or newer; this is ${version.replace(/^v/, '')}`;
}
