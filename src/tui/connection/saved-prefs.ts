// What the TUI remembers for the next session (the theme `t` picks, the
// order `S`, `-` and `b` set), written to the home's tui.json as it changes;
// a write that fails says so in the footer and changes nothing on screen.

import type { PrefsPort } from '../input/actions.js';
import { writePrefs } from '../state/prefs.js';
import { error, info } from '../state/store.js';
import type { SortSpec } from '../state/sort.js';
import type { Session } from './session.js';

export class SavedPrefs implements PrefsPort {
  constructor(
    private readonly homeDir: string,
    private readonly session: Session,
  ) {}

  themeChanged(name: string): void {
    const problem = writePrefs(this.homeDir, { theme: name });
    this.session.set(problem ? error(problem, Date.now()) : info(`theme: ${name}`, Date.now()));
  }

  sortChanged(sort: SortSpec): void {
    const problem = writePrefs(this.homeDir, { sort });
    if (problem) this.session.set(error(problem, Date.now()));
  }
}
