// Git operations for run worktrees: the `git` binary through execFile (never a
// shell), each call with a fixed locale so that messages can be matched. The
// sync checks run at enqueue (fast, read-only: they decide exit 2 or not); the
// rest is async, off the supervisor's event loop.

import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { isResourceLimit } from './os-limits.js';

export class GitError extends Error {
  constructor(
    message: string,
    readonly output = '',
  ) {
    super(message);
  }
}

const ENV = { ...process.env, LC_ALL: 'C', GIT_TERMINAL_PROMPT: '0' };

function gitMissing(e: unknown): boolean {
  return (e as NodeJS.ErrnoException).code === 'ENOENT' && (e as { path?: string }).path === 'git';
}

const MISSING = 'git is not installed (no "git" on the supervisor\'s PATH)';

/** Run git synchronously; null when it exits non-zero. */
function gitSync(cwd: string, args: string[]): string | null {
  try {
    return execFileSync('git', args, { cwd, env: ENV, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 16 << 20 }).trim();
  } catch (e) {
    if (gitMissing(e)) throw new GitError(MISSING);
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') throw new GitError(`${cwd}: no such directory`);
    return null;
  }
}

export interface GitResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * The worktree command of each repository in flight (its tail). git reads
 * every worktree's admin folder (.git/worktrees/NAME) while it adds, lists,
 * removes or prunes one, and fails on one another git is making at that
 * moment ("failed to read .git/worktrees/NAME/commondir": seen when runs in
 * fresh worktrees of one repository were started together under load): one
 * at a time per repository, then.
 */
const worktreeCommands = new Map<string, Promise<unknown>>();

/** Run git; resolves with its exit code (a missing git binary rejects). `git worktree …` waits for the repository's last one. */
export function git(cwd: string, args: string[], extraEnv: Record<string, string> = {}): Promise<GitResult> {
  if (args[0] !== 'worktree') return runGit(cwd, args, extraEnv);
  const run = (): Promise<GitResult> => runGit(cwd, args, extraEnv);
  const done = (worktreeCommands.get(cwd) ?? Promise.resolve()).then(run, run);
  const tail = done.catch(() => undefined);
  worktreeCommands.set(cwd, tail);
  void tail.then(() => {
    if (worktreeCommands.get(cwd) === tail) worktreeCommands.delete(cwd);
  });
  return done;
}

function runGit(cwd: string, args: string[], extraEnv: Record<string, string>): Promise<GitResult> {
  return new Promise((resolve, reject) => {
    execFile('git', args, { cwd, env: { ...ENV, ...extraEnv }, encoding: 'utf8', maxBuffer: 64 << 20 }, (err, stdout, stderr) => {
      if (err && gitMissing(err)) return reject(new GitError(MISSING));
      // Out of processes or descriptors: a passing state the caller waits out, not git's verdict.
      if (err && isResourceLimit(err)) return reject(err);
      if (err && typeof (err as { code?: unknown }).code !== 'number') return reject(new GitError(`git ${args[0]}: ${err.message}`, stderr));
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

/** Run git; a non-zero exit throws with what it said. */
export async function gitOk(cwd: string, args: string[], extraEnv: Record<string, string> = {}): Promise<string> {
  const r = await git(cwd, args, extraEnv);
  if (r.code !== 0) throw new GitError(`git ${args[0]} failed: ${(r.stderr || r.stdout).trim()}`, r.stderr + r.stdout);
  return r.stdout;
}

export interface WorktreePlan {
  /** The top of the repository (or of the worktree) cwd is in. */
  repo: string;
  /** cwd relative to repo: the agent starts at the same place in its worktree. */
  subdir: string;
  base: string;
  base_commit: string;
  /** The branch `finish --merge` merges into (null: the base is not a branch). */
  base_branch: string | null;
}

/** Read-only checks at enqueue: a repository, a base that resolves. Throws GitError with the reason. */
export function planWorktree(cwd: string, base: string | undefined): WorktreePlan {
  const top = gitSync(cwd, ['rev-parse', '--show-toplevel']);
  if (top === null || top === '') throw new GitError(`cwd ${cwd} is not inside a git repository (--worktree needs one)`);
  const ref = base ?? 'HEAD';
  const commit = gitSync(top, ['rev-parse', '--verify', '--quiet', '--end-of-options', `${ref}^{commit}`]);
  if (commit === null || commit === '') {
    throw new GitError(
      base === undefined
        ? `the repository ${top} has no commit yet (HEAD): --worktree needs a base commit`
        : `the base ${JSON.stringify(ref)} cannot be resolved to a commit in ${top}`,
    );
  }
  let branch: string | null = null;
  if (base === undefined) branch = gitSync(top, ['symbolic-ref', '--quiet', '--short', 'HEAD']) || null;
  else {
    const full = gitSync(top, ['rev-parse', '--symbolic-full-name', '--end-of-options', ref]);
    if (full && full.startsWith('refs/heads/')) branch = full.slice('refs/heads/'.length);
  }
  return { repo: top, subdir: path.relative(fs.realpathSync(top), fs.realpathSync(cwd)), base: ref, base_commit: commit, base_branch: branch };
}

/** Is this branch name free and well-formed in repo? Throws GitError saying why not. */
export function checkBranchFree(repo: string, branch: string): void {
  if (gitSync(repo, ['check-ref-format', '--branch', branch]) === null)
    throw new GitError(`${JSON.stringify(branch)} is not a valid branch name; pick another run name (-n)`);
  if (gitSync(repo, ['show-ref', '--verify', '--quiet', `refs/heads/${branch}`]) !== null) {
    throw new GitError(`the branch ${branch} already exists in ${repo}; pick another run name (-n), or delete the branch`);
  }
}

/** Create the worktree on a new branch at base_commit. A failure leaves nothing behind. */
export async function addWorktree(repo: string, dir: string, branch: string, baseCommit: string): Promise<void> {
  // The folders orcr makes to hold worktrees are its own, whatever the umask (git makes the worktree itself as the user's umask says).
  await fs.promises.mkdir(path.dirname(dir), { recursive: true, mode: 0o700 });
  try {
    await gitOk(repo, ['worktree', 'add', '--quiet', '-b', branch, dir, baseCommit]);
  } catch (e) {
    await removeLeftovers(repo, dir, branch, baseCommit);
    throw e;
  }
}

/**
 * What an interrupted or failed creation may have left: the directory, git's
 * record of it, and the branch while it still points at its base (no work of
 * anyone's is on it). Safe to call when none of it exists.
 */
export async function removeLeftovers(repo: string, dir: string, branch: string, baseCommit: string): Promise<void> {
  if (fs.existsSync(dir)) await git(repo, ['worktree', 'remove', '--force', '--force', dir]);
  await fs.promises.rm(dir, { recursive: true, force: true });
  await git(repo, ['worktree', 'prune']);
  const at = await git(repo, ['rev-parse', '--verify', '--quiet', `refs/heads/${branch}`]);
  if (at.code === 0 && at.stdout.trim() === baseCommit) await git(repo, ['branch', '-D', branch]);
}

/** Copy the git-ignored files that `.worktreeinclude` names (one path or glob-free path per line) from repo into dir. */
export async function copyIncludes(repo: string, dir: string): Promise<string[]> {
  let text: string;
  try {
    text = await fs.promises.readFile(path.join(repo, '.worktreeinclude'), 'utf8');
  } catch {
    return [];
  }
  const copied: string[] = [];
  for (const raw of text.split('\n')) {
    const rel = raw.trim();
    if (rel === '' || rel.startsWith('#')) continue;
    const from = path.resolve(repo, rel);
    // Only what lies inside the repository: a line must not reach out of it.
    if (!from.startsWith(repo + path.sep)) continue;
    const to = path.join(dir, path.relative(repo, from));
    if (!fs.existsSync(from) || fs.existsSync(to)) continue;
    await fs.promises.mkdir(path.dirname(to), { recursive: true });
    await fs.promises.cp(from, to, { recursive: true });
    copied.push(rel);
  }
  return copied;
}

/** Untracked files (not ignored): a diff against the base must show them too. */
async function untracked(dir: string): Promise<string[]> {
  const out = await gitOk(dir, ['ls-files', '--others', '--exclude-standard', '-z']);
  return out.split('\0').filter((f) => f !== '');
}

export interface DiffStat {
  added: number;
  removed: number;
  files: number;
}

/** Lines added and removed against base, committed and not, untracked files included. */
export async function diffStat(dir: string, baseCommit: string): Promise<DiffStat> {
  const out = await gitOk(dir, ['diff', '--numstat', '-z', baseCommit, '--']);
  let added = 0;
  let removed = 0;
  let files = 0;
  for (const rec of out.split('\0')) {
    const m = /^(\d+|-)\t(\d+|-)\t/.exec(rec);
    if (!m) continue;
    files++;
    added += m[1] === '-' ? 0 : Number(m[1]);
    removed += m[2] === '-' ? 0 : Number(m[2]);
  }
  for (const f of await untracked(dir)) {
    files++;
    try {
      const text = await fs.promises.readFile(path.join(dir, f), 'utf8');
      if (!text.includes('\0')) added += text === '' ? 0 : text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
    } catch {
      /* gone, or not a file */
    }
  }
  return { added, removed, files };
}

/** The patch against base (or `--stat` text), untracked files shown as new ones. */
export async function diffText(dir: string, baseCommit: string, stat: boolean): Promise<string> {
  const args = stat ? ['diff', '--stat=200', baseCommit, '--'] : ['diff', '--no-color', baseCommit, '--'];
  let text = await gitOk(dir, args);
  for (const f of await untracked(dir)) {
    const r = await git(dir, stat ? ['diff', '--no-index', '--stat=200', '--', '/dev/null', f] : ['diff', '--no-index', '--no-color', '--', '/dev/null', f]);
    // --no-index exits 1 when the files differ: that is its answer, not a failure.
    if (r.code > 1) throw new GitError(`git diff failed: ${r.stderr.trim()}`);
    text += stat
      ? r.stdout
          .split('\n')
          .filter((l) => l.includes('|'))
          .map((l) => l + '\n')
          .join('')
      : r.stdout;
  }
  return text;
}

/** Uncommitted changes, untracked files included. */
export async function isDirty(dir: string): Promise<boolean> {
  return (await gitOk(dir, ['status', '--porcelain'])).trim() !== '';
}

/** Commits on branch that no other ref has. */
export async function ownCommits(repo: string, branch: string): Promise<number> {
  const r = await git(repo, ['rev-list', '--count', `refs/heads/${branch}`, '--not', `--exclude=refs/heads/${branch}`, '--branches']);
  return r.code === 0 ? Number(r.stdout.trim()) : 0;
}

/** The repository a worktree belongs to, from its `.git` file (null: not a linked worktree). */
export function repoOfWorktree(dir: string): string | null {
  try {
    const text = fs.readFileSync(path.join(dir, '.git'), 'utf8');
    const m = /^gitdir: (.+)$/m.exec(text);
    if (!m) return null;
    // <repo>/.git/worktrees/<id> → <repo>
    return path.dirname(path.dirname(path.dirname(m[1]!.trim())));
  } catch {
    return null;
  }
}

/** Where a branch is checked out (the main worktree or a linked one), if anywhere. */
export async function checkedOutAt(repo: string, branch: string): Promise<string | null> {
  const out = await gitOk(repo, ['worktree', 'list', '--porcelain']);
  let at: string | null = null;
  for (const line of out.split('\n')) {
    if (line.startsWith('worktree ')) at = line.slice('worktree '.length);
    else if (line === `branch refs/heads/${branch}`) return at;
  }
  return null;
}

/** Who commits for orcr when the repository names nobody (an agent's uncommitted work at finish). */
export async function committerEnv(dir: string): Promise<Record<string, string>> {
  const name = await git(dir, ['config', 'user.name']);
  const email = await git(dir, ['config', 'user.email']);
  const env: Record<string, string> = {};
  if (name.code !== 0 && !process.env.GIT_AUTHOR_NAME) Object.assign(env, { GIT_AUTHOR_NAME: 'orcr', GIT_COMMITTER_NAME: 'orcr' });
  if (email.code !== 0 && !process.env.GIT_AUTHOR_EMAIL) Object.assign(env, { GIT_AUTHOR_EMAIL: 'orcr@localhost', GIT_COMMITTER_EMAIL: 'orcr@localhost' });
  return env;
}

/**
 * A commit of a worktree as it stands — its HEAD plus every change in it,
 * tracked or new (what .gitignore leaves out stays out) — made through an
 * index of its own, so the worktree, its index and its branch are untouched.
 * A run built on another run's work (`--base RUN`) starts from this.
 */
export async function snapshotCommit(dir: string): Promise<string> {
  const index = path.join(os.tmpdir(), `orcr-index-${process.pid}-${Math.random().toString(36).slice(2)}`);
  const env = {
    GIT_INDEX_FILE: index,
    GIT_AUTHOR_NAME: 'orcr',
    GIT_AUTHOR_EMAIL: 'orcr@localhost',
    GIT_COMMITTER_NAME: 'orcr',
    GIT_COMMITTER_EMAIL: 'orcr@localhost',
  };
  try {
    const head = (await gitOk(dir, ['rev-parse', '--verify', 'HEAD^{commit}'])).trim();
    await gitOk(dir, ['read-tree', head], env);
    await gitOk(dir, ['add', '-A', '--', '.'], env);
    const tree = (await gitOk(dir, ['write-tree'], env)).trim();
    const headTree = (await gitOk(dir, ['rev-parse', `${head}^{tree}`])).trim();
    if (tree === headTree) return head;
    return (
      await gitOk(dir, ['commit-tree', tree, '-p', head, '-m', 'orcr: the work of the run this one is based on (uncommitted in its worktree)'], env)
    ).trim();
  } finally {
    await fs.promises.rm(index, { force: true });
  }
}
