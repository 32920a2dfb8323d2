// The details pane shows a worktree run's branch, its +/− counts and its repository.

import { describe, expect, it } from 'vitest';
import { detailLines } from '../../src/tui/view/details.js';
import { run } from './fixtures.js';

describe('details of a worktree run', () => {
  it('shows the branch, +added in the ok colour and −removed in the bad one, the repository and the base', () => {
    const r = run({
      worktree: { repo: '/src/app', path: '/w/app-a', branch: 'orcr/a', base: 'main', base_commit: 'abc', state: 'ready', added: 12, removed: 3, files: 2 },
    });
    const line = detailLines(r, null, Date.now(), undefined).find((l) => l.some((s) => s.text === 'orcr/a'))!;
    expect(line.map((s) => s.text).join('')).toMatch(/orcr\/a \+12 −3 in 2 files · repo app from main · ready · \/w\/app-a/);
    expect(line.find((s) => s.text === '+12')!.token).toBe('reason.ok');
    expect(line.find((s) => s.text === '−3')!.token).toBe('reason.bad');
  });

  it('has no worktree line without one', () => {
    expect(
      detailLines(run({ worktree: null }), null, Date.now(), undefined)
        .flat()
        .some((s) => s.text.includes('orcr/')),
    ).toBe(false);
  });
});
