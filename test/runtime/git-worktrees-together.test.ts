// Worktrees of one repository made, listed and removed together (runs of one
// repository started at once): git reads every worktree's admin folder while
// it makes one and failed on one being made beside it ("failed to read
// .git/worktrees/NAME/commondir"); orcr runs one worktree command per
// repository at a time.

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { addWorktree, checkedOutAt, git, removeLeftovers } from '../../src/runtime/git-worktree.js';

const ENV = {
  ...process.env,
  GIT_AUTHOR_NAME: 't',
  GIT_AUTHOR_EMAIL: 't@example.com',
  GIT_COMMITTER_NAME: 't',
  GIT_COMMITTER_EMAIL: 't@example.com',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_CONFIG_NOSYSTEM: '1',
};

describe('worktrees of one repository, together', () => {
  it('twenty made at once all come, and are listed and removed at once', async () => {
    const repo = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'orcr-wt-many-')));
    onTestFinished(() => fs.rmSync(repo, { recursive: true, force: true }));
    execFileSync('git', ['init', '-q', '-b', 'main'], { cwd: repo, env: ENV });
    fs.writeFileSync(path.join(repo, 'f.txt'), 'one\n');
    execFileSync('git', ['add', '.'], { cwd: repo, env: ENV });
    execFileSync('git', ['commit', '-q', '-m', 'base'], { cwd: repo, env: ENV });
    const base = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: repo, env: ENV, encoding: 'utf8' }).trim();
    const names = Array.from({ length: 20 }, (_, i) => `w${i}`);
    const made = await Promise.allSettled(names.map((n) => addWorktree(repo, `${repo}-${n}`, `orcr/${n}`, base)));
    onTestFinished(() => names.forEach((n) => fs.rmSync(`${repo}-${n}`, { recursive: true, force: true })));
    expect(made.filter((r) => r.status === 'rejected').map((r) => String((r as PromiseRejectedResult).reason))).toEqual([]);
    const at = await Promise.all(names.map((n) => checkedOutAt(repo, `orcr/${n}`)));
    expect(at).toEqual(names.map((n) => `${repo}-${n}`));
    await Promise.all(names.map((n) => removeLeftovers(repo, `${repo}-${n}`, `orcr/${n}`, base)));
    expect((await git(repo, ['worktree', 'list'])).stdout.trim().split('\n')).toHaveLength(1);
  });
});
