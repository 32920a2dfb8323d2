// `d` with a real supervisor and a real git repository: a run in a worktree
// edits a file; the runs table shows its +/− counts, `d` shows its diff
// full-screen (summary, file header, + green and − red), / searches it, esc
// goes back; a run without a worktree says why in the footer.

import './color-on.js';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { KEY } from './helpers.js';
import { until } from '../support/harness.js';
import { GIT_IDENTITY, initRepo } from '../support/git.js';
import { Home } from './home.js';
import { liveApp, type LiveApp } from './live-app.js';

class GitHome extends Home {
  override get env(): NodeJS.ProcessEnv {
    return { ...super.env, ...GIT_IDENTITY };
  }
}

let home: Home | null = null;
let app: LiveApp | null = null;
const temps: string[] = [];

afterEach(() => {
  app?.close();
  app = null;
  home?.cleanup();
  home = null;
  for (const t of temps.splice(0)) fs.rmSync(t, { recursive: true, force: true });
});

/** A repository on main with one commit of f.txt (three lines). */
function repo(): string {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'orcr-diffrepo-')));
  temps.push(dir);
  return initRepo(dir, { 'f.txt': 'alpha\nbeta\ngamma\n' });
}

// A foreground colour as Ink writes it (the theme's hex colours come out at the
// level chalk chose; which token is which is checked in diff-rows.test.ts).
const COLOUR = /\x1b\[(?:3[0-7]|9[0-7]|38;[\d;]+)m/;

function open(h: Home): LiveApp {
  app = liveApp(h, { columns: 200, rows: 30 }, { plain: true });
  return app;
}

/** The line of the frame (with its colours) holding `text`. */
const lineWith = (frame: string, text: string): string => frame.split('\n').find((l) => l.replace(/\x1b\[[0-9;]*m/g, '').includes(text)) ?? '';

describe('the diff view', () => {
  it('d shows a worktree run’s diff: summary, file header, + and − lines coloured; / searches; esc back; CHANGES in the table', async () => {
    home = new GitHome();
    const r = repo();
    home.run(['--worktree', '-n', 'edit', '--cwd', r, '--', 'sh', '-c', "printf 'alpha\\nBETA\\ngamma\\n' > f.txt && printf 'new\\n' > g.txt"]);
    home.run(['-n', 'inplace', '--cwd', r, '--', 'true']);
    await until(
      () => (home!.ps().find((x) => x.name === 'edit')?.worktree?.added === 2 ? true : null),
      () => 'edit ended with its counts',
      15_000,
    );
    await until(
      () => (home!.ps().every((x) => x.status === 'ended') ? true : null),
      () => 'both ended',
      15_000,
    );
    const ui = open(home);
    let f = await ui.until((x) => x.includes('Runs'), 'the runs');
    if (f.includes('active only')) await ui.press('a');
    f = await ui.until((x) => x.includes('CHANGES') && /edit .*\+2 −1/.test(x) && x.includes('inplace'), 'the table with CHANGES');
    // The cursor on `edit`, then d.
    while (!/› .*edit/.test(f)) {
      await ui.press('j');
      f = await ui.until(() => true, 'moved');
    }
    await ui.press('d');
    f = await ui.until((x) => x.includes('Diff: edit') && x.includes('━━ f.txt'), 'the diff');
    expect(f).toContain('2 files changed, +2 −1');
    expect(f).toMatch(/ f\.txt\s+\+1 −1/);
    expect(f).toContain('━━ g.txt  +1 −0');
    expect(f).toContain('-beta');
    expect(f).toContain('+BETA');
    expect(f).toContain('+new');
    expect(f).toContain('esc back');
    const colored = ui.frame();
    const add = lineWith(colored, '+BETA');
    const del = lineWith(colored, '-beta');
    expect(add).toMatch(COLOUR);
    expect(del).toMatch(COLOUR);
    // reason.ok and reason.bad: two colours, neither that of a context line.
    const colourOf = (l: string): string => l.match(COLOUR)![0];
    expect(colourOf(add)).not.toBe(colourOf(del));
    expect(colourOf(lineWith(colored, ' alpha'))).not.toBe(colourOf(add));
    // Search: the pager's own.
    await ui.press('/', 'g', 'a', 'm', 'm', 'a', KEY.enter);
    // The whole diff is on screen: the match is shown reversed where it is.
    await until(
      () => (lineWith(ui.frame(), ' gamma').includes('\x1b[7m') ? true : null),
      () => `the match reversed:\n${ui.frame()}`,
      15_000,
    );
    expect(lineWith(ui.frame(), ' alpha')).not.toContain('\x1b[7m');
    await ui.press(KEY.esc);
    f = await ui.until((x) => !x.includes('Diff: edit') && x.includes('CHANGES'), 'back to the list');
    // A run without a worktree: the footer says why.
    while (!/› .*inplace/.test(f)) {
      await ui.press('j');
      f = await ui.until(() => true, 'moved');
    }
    await ui.press('d');
    f = await ui.until((x) => x.includes('inplace has no worktree'), 'the reason');
    expect(f).not.toContain('Diff: inplace');
    // From details too; esc goes back to details.
    await ui.press('k', KEY.enter);
    await ui.until((x) => x.includes('Details: edit') && x.includes('repo orcr-diffrepo-'), 'details with the repository');
    await ui.press('d');
    await ui.until((x) => x.includes('Diff: edit') && x.includes('+BETA'), 'the diff from details');
    await ui.press(KEY.esc);
    await ui.until((x) => x.includes('Details: edit'), 'back to details');
  }, 60_000);
});
