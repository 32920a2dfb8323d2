// `orcr gc`, `orcr diff`, `orcr worktree finish|prune`: what runs leave
// behind (ended runs, their worktrees and branches) and a worktree's changes.

import type { LetGo } from '../../client/methods.js';
import { formatDuration } from '../../config/duration.js';
import { safeLine } from '../../text/terminal-text.js';
import { sizeText } from '../format.js';
import { VERBS } from '../grammar.js';
import { durationFlag, type Shell, type Verb } from '../shell.js';
import { UsageError } from '../usage-error.js';

/** One line per worktree gc or prune let go of, or kept (and why). */
function printLetGo(sh: Shell, list: LetGo[], dry: boolean): void {
  for (const w of list) {
    const branch = w.branch ? ` (branch ${safeLine(w.branch)}${w.branch_kept ? ' kept: it has commits' : ''})` : '';
    if (w.action === 'removed') sh.out(`${dry ? 'would remove' : 'removed'} worktree ${safeLine(w.path)}${branch}`);
    else if (w.action === 'kept_dirty') sh.out(`kept worktree ${safeLine(w.path)}: it has uncommitted changes (--force removes it)`);
    else sh.out(`kept worktree ${safeLine(w.path)}: its branch ${safeLine(w.branch ?? '')} has commits (--branches removes the worktree, keeping the branch)`);
  }
}

/** A diff for a terminal: coloured by line (+ green, − red) when colour is on, never an escape of its own. */
function safeDiff(text: string): string {
  const color = process.stdout.isTTY ? !process.env.NO_COLOR : process.env.FORCE_COLOR === '1';
  return text
    .split('\n')
    .map((l) => {
      const s = safeLine(l);
      if (!color) return s;
      if (l.startsWith('+') && !l.startsWith('+++')) return `\x1b[32m${s}\x1b[0m`;
      if (l.startsWith('-') && !l.startsWith('---')) return `\x1b[31m${s}\x1b[0m`;
      if (l.startsWith('@@')) return `\x1b[36m${s}\x1b[0m`;
      return s;
    })
    .join('\n');
}

async function gc(verb: string, rest: string[], sh: Shell): Promise<number> {
  const { values } = sh.parse(verb, rest);
  const olderThan = values['older-than'] === undefined ? undefined : durationFlag(values['older-than'] as string, '--older-than');
  const res = await sh.withSdk((o) =>
    o.gc({ olderThan, dryRun: values['dry-run'] === true, branches: values.branches === true, force: values.force === true }),
  );
  if (sh.json) sh.printJson(res);
  else {
    // A dry run and the gc after it say the same, in the same words.
    const what = `${res.runs} ended run${res.runs === 1 ? '' : 's'} older than ${formatDuration(res.older_than_ms)} and ${res.events} event${res.events === 1 ? '' : 's'} (${sizeText(res.bytes)} of journal rows and run directories)`;
    sh.out(res.dry_run ? `would remove ${what}` : `removed ${what}`);
    printLetGo(sh, res.worktrees ?? [], res.dry_run);
  }
  return 0;
}

async function worktree(verb: string, rest: string[], sh: Shell): Promise<number> {
  const [sub, ...args] = rest;
  if (sub === 'finish') {
    const { values, positionals } = sh.parse(verb, args, VERBS.worktree.subcommands.finish);
    if (positionals.length !== 1) throw new UsageError('worktree finish takes exactly one run', verb);
    const modes = (['merge', 'keep-branch', 'discard'] as const).filter((m) => values[m] === true);
    if (modes.length !== 1) throw new UsageError('worktree finish needs one of --merge, --keep-branch, --discard', verb);
    const mode = modes[0] === 'keep-branch' ? 'keep_branch' : modes[0]!;
    const res = await sh.withSdk((o) => o.worktrees.finish(positionals[0]!, mode));
    if (sh.json) sh.printJson(res);
    else {
      const w = res.run.worktree!;
      const note = res.committed ? ' (its uncommitted work was committed first)' : '';
      sh.out(
        mode === 'merge'
          ? `merged ${safeLine(w.branch)} into ${safeLine(res.merged_into ?? '')}${note}; worktree removed`
          : mode === 'keep_branch'
            ? `kept branch ${safeLine(w.branch)}${note}; worktree removed`
            : `discarded ${safeLine(w.branch)} and its worktree`,
      );
    }
    return 0;
  }
  if (sub === 'prune') {
    const { values } = sh.parse(verb, args, VERBS.worktree.subcommands.prune);
    const worktrees = await sh.withSdk((o) => o.worktrees.prune({ force: values.force === true, dryRun: values['dry-run'] === true }));
    if (sh.json) sh.printJson({ worktrees });
    else if (worktrees.length === 0) sh.out('no orphaned worktrees');
    else printLetGo(sh, worktrees, values['dry-run'] === true);
    return 0;
  }
  throw new UsageError('worktree takes finish or prune', verb);
}

const worktreeVerbs: Verb = async (verb, rest, sh) => {
  if (verb === 'gc') return gc(verb, rest, sh);
  if (verb === 'worktree') return worktree(verb, rest, sh);
  const { values, positionals } = sh.parse(verb, rest);
  if (positionals.length !== 1) throw new UsageError('diff takes exactly one run', verb);
  const res = await sh.withSdk((o) => o.diff(positionals[0]!, { stat: values.stat === true }));
  if (sh.json) sh.printJson(res);
  else sh.write(safeDiff(res.text));
  return 0;
};
export default worktreeVerbs;
