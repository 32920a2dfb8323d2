// Git for the tests that make worktrees: who commits, with no user's or
// system's git config read, and a repository with its first commit.

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/** Who commits: the test's author, and no global or system git config. */
export const GIT_IDENTITY = {
  GIT_AUTHOR_NAME: 'Test',
  GIT_AUTHOR_EMAIL: 'test@example.com',
  GIT_COMMITTER_NAME: 'Test',
  GIT_COMMITTER_EMAIL: 'test@example.com',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_CONFIG_NOSYSTEM: '1',
};

/** Makes the folder `dir` a repository on branch main whose one commit ("base") holds `files` (name → text); returns `dir`. */
export function initRepo(dir: string, files: Readonly<Record<string, string>>): string {
  const git = (...args: string[]): void => void execFileSync('git', args, { cwd: dir, env: { ...process.env, ...GIT_IDENTITY } });
  git('init', '-q', '-b', 'main');
  for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), text);
  git('add', '.');
  git('commit', '-q', '-m', 'base');
  return dir;
}
