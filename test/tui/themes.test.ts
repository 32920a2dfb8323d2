// A theme is named by its file: `<ORCR_HOME>/themes/NAME.json` is `--theme
// NAME`, whatever its `name` field says (a copy of dark.json saved as
// mine.json is "mine", and does not shadow the built-in dark). A user file
// named like a built-in replaces it, and says so.

import './no-ci.js';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { builtinThemeDir, loadThemes, themeListNote } from '../../src/tui/view/theme.js';

let dir: string | null = null;
afterEach(() => {
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
  dir = null;
});

function userThemes(files: Record<string, string>): string {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'orcr-themes-'));
  const themes = path.join(dir, 'themes');
  fs.mkdirSync(themes);
  for (const [f, text] of Object.entries(files)) fs.writeFileSync(path.join(themes, f), text);
  return themes;
}

const builtin = builtinThemeDir()!;
const DARK = fs.readFileSync(path.join(builtin, 'dark.json'), 'utf8');

describe('user themes are named by their file', () => {
  it('a copy of dark.json saved as mine.json is the theme "mine", and dark stays the built-in one', () => {
    const themes = userThemes({ 'mine.json': DARK.replace('"#61afef"', '"#ff0000"') });
    const set = loadThemes([builtin, themes]);
    expect(set.themes.has('mine')).toBe(true);
    expect(set.themes.get('mine')!.name).toBe('mine');
    expect(set.themes.get('mine')!.colors['text.accent']).toBe('#ff0000');
    // The built-in dark is untouched: the copy's "name": "dark" does not shadow it.
    expect(set.themes.get('dark')!.colors['text.accent']).toBe('#61afef');
    expect(set.files.get('dark')).toBe(path.join(builtin, 'dark.json'));
    expect(set.files.get('mine')).toBe(path.join(themes, 'mine.json'));
    expect(set.order.at(-1)).toBe('mine');
    expect(set.notices).toEqual([]);
    expect(set.problems).toEqual([]);
  });

  it('a file without a name field, or with another name inside, is still named by its file', () => {
    const themes = userThemes({ 'plain.json': '{"tokens": {"focus": "magenta"}}', 'calm.json': '{"name": "storm", "tokens": {"focus": "cyan"}}' });
    const set = loadThemes([builtin, themes]);
    expect(set.themes.get('plain')!.colors.focus).toBe('magenta');
    expect(set.themes.get('calm')!.colors.focus).toBe('cyan');
    expect(set.themes.has('storm')).toBe(false);
  });

  it('a user file named like a built-in replaces it, and says so at start and in the theme list', () => {
    const themes = userThemes({ 'dark.json': DARK.replace('"#61afef"', '"#00ff00"') });
    const set = loadThemes([builtin, themes]);
    expect(set.themes.get('dark')!.colors['text.accent']).toBe('#00ff00');
    expect(set.files.get('dark')).toBe(path.join(themes, 'dark.json'));
    expect(set.notices).toEqual([`theme dark: ${path.join(themes, 'dark.json')} is used instead of the built-in dark (rename the file to keep both)`]);
    expect(set.replaced.has('dark')).toBe(true);
    expect(set.order.filter((n) => n === 'dark')).toHaveLength(1);
    expect(themeListNote(set)).toBe('dark is yours (replaces the built-in)');
    expect(themeListNote(loadThemes([builtin]))).toBe('');
  });

  it("a name a terminal cannot show is refused with the file named; dot files (editors' temporaries) are skipped", () => {
    const themes = userThemes({ 'bad\x1b[2J.json': '{}', '.mine.json': '{}', 'ok.json': '{}' });
    const set = loadThemes([builtin, themes]);
    expect([...set.themes.keys()].some((n) => n.includes('\x1b'))).toBe(false);
    expect(set.themes.has('.mine')).toBe(false);
    expect(set.themes.has('ok')).toBe(true);
    expect(set.problems).toHaveLength(1);
    expect(set.problems[0]).toContain('a theme name must be printable');
    expect(set.problems[0]).not.toContain('\x1b');
  });
});
