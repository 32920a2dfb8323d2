// <ORCR_HOME>/tui.json: what the TUI remembers between sessions (the theme).
// Best effort: an unreadable or read-only home never stops the TUI.

import fs from 'node:fs';
import path from 'node:path';
import { isSortSpec, type SortSpec } from './sort.js';

export interface Prefs {
  theme?: string;
  /** The runs' order (`S`, `-`). */
  sort?: SortSpec;
}

function prefsPath(homeDir: string): string {
  return path.join(homeDir, 'tui.json');
}

export function readPrefs(homeDir: string): Prefs {
  try {
    const obj = JSON.parse(fs.readFileSync(prefsPath(homeDir), 'utf8')) as unknown;
    if (!obj || typeof obj !== 'object') return {};
    const { theme, sort } = obj as Record<string, unknown>;
    return { ...(typeof theme === 'string' ? { theme } : {}), ...(isSortSpec(sort) ? { sort } : {}) };
  } catch {
    return {};
  }
}

/** Best effort: a read-only home must not break the TUI. Returns an error message or null. */
export function writePrefs(homeDir: string, patch: Prefs): string | null {
  try {
    const next = { ...readPrefs(homeDir), ...patch };
    const file = prefsPath(homeDir);
    const tmp = `${file}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, JSON.stringify(next, null, 2) + '\n', { mode: 0o600 });
    fs.renameSync(tmp, file);
    return null;
  } catch (e) {
    return `could not remember ${patch.sort ? 'the sort' : 'the theme'}: ${(e as Error).message}`;
  }
}
