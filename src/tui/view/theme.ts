// Themes: a palette mapped to semantic tokens. Components ask for a token
// (`status.working`, `meter.full`…) and never name a colour. Theme files are
// JSON under themes/ (shipped) and <ORCR_HOME>/themes/ (the user's own), so a
// new theme is a file, not a build.

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { hasControls, safeLine } from '../../text/terminal-text.js';
import { TOKENS, type Token } from '../model/tokens.js';

export interface Theme {
  name: string;
  description: string;
  colors: Readonly<Partial<Record<Token, string>>>;
}

/** What a token turns into on a <Text>: a colour, or a colourless stand-in. */
export interface TokenStyle {
  color?: string;
  dimColor?: boolean;
  bold?: boolean;
}

// Without a colour, these still need to look secondary (dim) or stand out (bold).
const DIM_WITHOUT_COLOR: ReadonlySet<Token> = new Set(['text.muted', 'border', 'status.queued', 'status.ended', 'meter.empty', 'event.system']);
const BOLD_WITHOUT_COLOR: ReadonlySet<Token> = new Set(['focus', 'status.blocked', 'reason.bad', 'meter.full', 'notice.error', 'event.error']);

export function tokenStyle(theme: Theme, token: Token): TokenStyle {
  const color = theme.colors[token];
  if (color !== undefined) return { color };
  if (DIM_WITHOUT_COLOR.has(token)) return { dimColor: true };
  if (BOLD_WITHOUT_COLOR.has(token)) return { bold: true };
  return {};
}

export const NO_COLOR_THEME: Theme = { name: 'no-color', description: 'No colours at all.', colors: {} };

const ANSI_NAMES = new Set([
  'black',
  'red',
  'green',
  'yellow',
  'blue',
  'magenta',
  'cyan',
  'white',
  'gray',
  'grey',
  'blackBright',
  'redBright',
  'greenBright',
  'yellowBright',
  'blueBright',
  'magentaBright',
  'cyanBright',
  'whiteBright',
]);

function isColor(v: string): boolean {
  return ANSI_NAMES.has(v) || /^#([0-9a-f]{3}|[0-9a-f]{6})$/i.test(v);
}

/**
 * Parse one theme file's JSON: `{description?, palette: {name: colour},
 * tokens: {token: paletteName | colour | null}}`. The theme's name is given:
 * it is its file's (a `name` field inside is not read, so a copy of dark.json
 * saved as mine.json is "mine"). Unknown tokens and bad colours are
 * reported, not fatal: a half-right user theme still loads.
 */
export function parseTheme(json: unknown, name: string): { theme: Theme; problems: string[] } {
  const problems: string[] = [];
  const obj = (json && typeof json === 'object' && !Array.isArray(json) ? json : {}) as Record<string, unknown>;
  const palette = (obj.palette && typeof obj.palette === 'object' ? obj.palette : {}) as Record<string, unknown>;
  const tokens = (obj.tokens && typeof obj.tokens === 'object' ? obj.tokens : {}) as Record<string, unknown>;
  const colors: Partial<Record<Token, string>> = {};
  for (const [k, v] of Object.entries(tokens)) {
    if (!(TOKENS as readonly string[]).includes(k)) {
      problems.push(`${name}: unknown token "${k}"`);
      continue;
    }
    if (v === null || v === undefined) continue;
    if (typeof v !== 'string') {
      problems.push(`${name}: token "${k}" must be a palette name, a colour or null`);
      continue;
    }
    const resolved = Object.hasOwn(palette, v) ? palette[v] : v;
    if (typeof resolved === 'string' && isColor(resolved)) colors[k as Token] = resolved;
    else problems.push(`${name}: token "${k}": "${v}" is neither a palette entry nor a colour`);
  }
  return { theme: { name, description: typeof obj.description === 'string' ? obj.description : '', colors }, problems };
}

/** The shipped themes/ folder: from dist/src/tui/view (built) or src/tui/view (tests), walk up to the package root. */
export function builtinThemeDir(): string | null {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 5; i++) {
    const candidate = path.join(dir, 'themes');
    if (fs.existsSync(path.join(candidate, 'dark.json'))) return candidate;
    dir = path.dirname(dir);
  }
  return null;
}

export interface ThemeSet {
  themes: Map<string, Theme>;
  /** Names in cycling order: the shipped ones first, then the user's. */
  order: string[];
  problems: string[];
  /** What a person should know but is not wrong: a user file that replaces a built-in theme. */
  notices: string[];
  /** Built-in themes a user file replaces (the user's wins). */
  replaced: Set<string>;
  /** The file each theme came from (none for the built-in no-color one). */
  files: Map<string, string>;
}

const PREFERRED_ORDER = ['dark', 'light', 'high-contrast', 'ansi', 'no-color'];

/**
 * Every theme in `dirs`, each named by its file (`NAME.json`). The first
 * folder is the shipped one; a later folder's file of the same name replaces
 * a shipped theme (the user's own wins) and is noted, never silent. With
 * `previous` (a reload after an edit), a file that no longer reads keeps the
 * theme it gave before: a half-done edit is refused, not a theme lost.
 */
export function loadThemes(dirs: (string | null)[], previous?: ThemeSet): ThemeSet {
  const themes = new Map<string, Theme>([[NO_COLOR_THEME.name, NO_COLOR_THEME]]);
  const sources = new Map<string, string>();
  const problems: string[] = [];
  const notices: string[] = [];
  const replaced = new Set<string>();
  // The built-in names: no-color (made here) and every file of the shipped folder.
  const builtin = new Set<string>([NO_COLOR_THEME.name]);
  for (const [at, dir] of dirs.entries()) {
    if (!dir) continue;
    let files: string[];
    try {
      // A dot file is an editor's or a copy's temporary, not a theme.
      files = fs
        .readdirSync(dir)
        .filter((f) => f.endsWith('.json') && f.length > 5 && !f.startsWith('.'))
        .sort();
    } catch {
      continue;
    }
    for (const f of files) {
      const file = path.join(dir, f);
      const name = f.slice(0, -5);
      // The name is drawn in the help and the footer, and typed after --theme.
      if (hasControls(name)) {
        problems.push(`${safeLine(file)}: skipped: a theme name must be printable (rename the file)`);
        continue;
      }
      try {
        const { theme, problems: p } = parseTheme(JSON.parse(fs.readFileSync(file, 'utf8')), name);
        if (at === 0) builtin.add(name);
        else if (builtin.has(name) && !replaced.has(name)) {
          replaced.add(name);
          notices.push(`theme ${name}: ${file} is used instead of the built-in ${name} (rename the file to keep both)`);
        }
        themes.set(name, theme);
        sources.set(name, file);
        problems.push(...p);
      } catch (e) {
        const kept = previous ? [...previous.files].find(([, from]) => from === file)?.[0] : undefined;
        const old = kept !== undefined ? previous!.themes.get(kept) : undefined;
        if (kept !== undefined && old) {
          themes.set(kept, old);
          sources.set(kept, file);
          if (at > 0 && builtin.has(kept)) replaced.add(kept);
          problems.push(`theme ${kept} stays as it was: ${file}: ${(e as Error).message}`);
        } else problems.push(`${file}: ${(e as Error).message}`);
      }
    }
  }
  const order = [...PREFERRED_ORDER.filter((n) => themes.has(n)), ...[...themes.keys()].filter((n) => !PREFERRED_ORDER.includes(n)).sort()];
  return { themes, order, problems, notices, replaced, files: sources };
}

/** What loading said, for the footer: the problems (an error), else the notices; null when there is nothing to say. */
export function themeMessage(set: ThemeSet, ok?: string): { kind: 'info' | 'error'; text: string } | null {
  const notices = set.notices.join('; ');
  if (set.problems.length > 0) return { kind: 'error', text: `theme problems: ${set.problems.join('; ')}${notices ? `; ${notices}` : ''}` };
  const text = [ok, notices].filter(Boolean).join('; ');
  return text ? { kind: 'info', text } : null;
}

/** For the theme list (help): which names are a user's file standing in for a built-in one; '' when none. */
export function themeListNote(set: ThemeSet): string {
  const names = [...set.replaced].sort();
  if (names.length === 0) return '';
  return names.length === 1 ? `${names[0]} is yours (replaces the built-in)` : `${names.join(', ')} are yours (replace the built-ins)`;
}

/**
 * The theme to start with: an explicit --theme wins, then NO_COLOR, then the
 * remembered choice, then a guess from COLORFGBG ("fg;bg", bg 7 or 15 = light).
 */
export function initialThemeName(opts: { flag?: string; remembered?: string; env: NodeJS.ProcessEnv; available: ThemeSet }): string {
  const has = (n: string | undefined): n is string => n !== undefined && opts.available.themes.has(n);
  if (has(opts.flag)) return opts.flag;
  if (opts.env.NO_COLOR !== undefined && opts.env.NO_COLOR !== '') return 'no-color';
  if (has(opts.remembered)) return opts.remembered;
  const bg = opts.env.COLORFGBG?.split(';').pop();
  if ((bg === '7' || bg === '15') && has('light')) return 'light';
  return has('dark') ? 'dark' : opts.available.order[0]!;
}

export function nextThemeName(set: ThemeSet, current: string): string {
  const i = set.order.indexOf(current);
  return set.order[(i + 1) % set.order.length]!;
}
