// Rules that answer an agent's request before a person is asked, written in
// Claude Code's own permission-rule syntax so a user's settings read the same
// here: `Bash` (every command), `Bash(npm test)` (that command),
// `Bash(npm test:*)` or `Bash(git log *)` (a prefix, or `*` anywhere),
// `Read(src/**)`, `Edit(/docs/*.md)`, `Write(//tmp/x)`, `WebFetch(domain:example.com)`,
// `mcp__server` / `mcp__server__tool`. Every agent's request reaches them
// in that vocabulary (an Ask: its tool and what the tool acts on), whatever
// the agent speaks. Pure: paths are resolved against the run's folder and the
// home folder given, never read from the machine.

/** A request as rules read it. */
export interface AskSubject {
  /** The tool in Claude Code's names: Bash, Read, Edit, Write, WebFetch, WebSearch, AskUserQuestion, mcp__server__tool… */
  tool: string;
  /** What it acts on: a Bash command, a file's absolute path, a URL; null when the tool names none. */
  subject: string | null;
}

export interface Rule {
  /** As written, for the record of who decided. */
  text: string;
  tool: string;
  /** Inside the parentheses, or null for the whole tool. */
  specifier: string | null;
}

/** Tools whose specifier is a path, and the tools each stands for (Claude Code: an Edit rule covers every tool that edits). */
const PATH_TOOLS: Readonly<Record<string, readonly string[]>> = {
  Read: ['Read', 'Grep', 'Glob', 'LS', 'NotebookRead'],
  Edit: ['Edit', 'MultiEdit', 'Write', 'NotebookEdit'],
  Write: ['Write'],
};

const TOOL_NAME = /^[A-Za-z][A-Za-z0-9_-]*$/;
/** `mcp__server__*`: every tool of a server, as Claude Code writes it too. */
const MCP_WILDCARD = /^mcp__[A-Za-z0-9_-]+__\*$/;
const MAX_RULE = 1000;

/** A rule read from its text, or why it is not one (for a usage error or a refused config edit). */
export function parseRule(text: string): Rule | { error: string } {
  if (text.length === 0) return { error: 'is empty' };
  if (text.length > MAX_RULE) return { error: `is longer than ${MAX_RULE} characters` };
  if (text !== text.trim()) return { error: 'has spaces around it' };
  const open = text.indexOf('(');
  if (open === -1) {
    if (!TOOL_NAME.test(text) && !MCP_WILDCARD.test(text))
      return { error: 'is not a tool name (Bash, Read, Edit, WebFetch, mcp__server__tool…) or TOOL(SPECIFIER)' };
    return { text, tool: text, specifier: null };
  }
  const tool = text.slice(0, open);
  if (!TOOL_NAME.test(tool)) return { error: `names no tool before "(" (Bash(…), Read(…), Edit(…), WebFetch(…))` };
  if (!text.endsWith(')')) return { error: 'has no closing ")"' };
  const specifier = text.slice(open + 1, -1);
  if (specifier.length === 0) return { error: `has nothing between the parentheses (write ${tool} for every use of it)` };
  if (/[\u0000-\u001f\u007f]/.test(specifier)) return { error: 'holds a control character' };
  if (tool === 'WebFetch' && !specifier.startsWith('domain:')) return { error: 'WebFetch takes domain:HOST (WebFetch(domain:example.com))' };
  if (tool === 'WebFetch' && specifier.length === 'domain:'.length) return { error: 'names no host after domain:' };
  return { text, tool, specifier };
}

/** Every rule of a list read, or the first that is not one, named. */
export function parseRules(texts: readonly string[]): Rule[] | { error: string } {
  const out: Rule[] = [];
  for (const t of texts) {
    const r = parseRule(t);
    if ('error' in r) return { error: `rule ${JSON.stringify(t).slice(0, 120)} ${r.error}` };
    out.push(r);
  }
  return out;
}

/** Where relative paths in rules and requests are read from. */
export interface RuleContext {
  /** The run's folder (absolute). */
  cwd: string;
  /** The user's home folder, for `~/` in a rule. */
  home: string;
}

/**
 * `reach`: how much of a chained command a rule must cover — an allow rule
 * all of its parts, a deny or ask rule any one of them.
 */
export function ruleMatches(rule: Rule, ask: AskSubject, ctx: RuleContext, reach: 'all' | 'any' = 'all'): boolean {
  if (rule.tool.startsWith('mcp__')) return mcpMatches(rule, ask.tool);
  const tools = PATH_TOOLS[rule.tool] ?? [rule.tool];
  if (!tools.includes(ask.tool)) return false;
  if (rule.specifier === null) return true;
  if (ask.subject === null) return false;
  if (rule.tool === 'Bash') return reach === 'all' ? commandMatches(rule.specifier, ask.subject) : commandPartMatches(rule.specifier, ask.subject);
  if (rule.tool === 'WebFetch') return domainMatches(rule.specifier.slice('domain:'.length), ask.subject);
  if (Object.hasOwn(PATH_TOOLS, rule.tool)) return pathMatches(rule.specifier, ask.subject, ctx);
  return globMatches(rule.specifier, ask.subject);
}

function mcpMatches(rule: Rule, tool: string): boolean {
  if (rule.specifier !== null) return false;
  if (rule.tool.endsWith('__*')) return tool.startsWith(rule.tool.slice(0, -1));
  // `mcp__server` is every tool of the server; `mcp__server__tool` the one.
  return tool === rule.tool || (rule.tool.split('__').length === 2 && tool.startsWith(rule.tool + '__'));
}

/**
 * A command matches when each of its parts does: `npm test && rm -rf /` is
 * not allowed by `Bash(npm test:*)`. Parts are split at `&&`, `||`, `;`, `|`
 * and newlines outside quotes — enough to keep a chained command from riding
 * on an allowed prefix, not a shell parser.
 */
function commandMatches(specifier: string, command: string): boolean {
  const parts = commandParts(command);
  return parts.length > 0 && parts.every((p) => onePartMatches(specifier, p));
}

/** A deny rule needs one part: `Bash(rm:*)` denies `cd x && rm -rf y`. */
function commandPartMatches(specifier: string, command: string): boolean {
  return commandParts(command).some((p) => onePartMatches(specifier, p));
}

function onePartMatches(specifier: string, part: string): boolean {
  // The legacy prefix form: `npm test:*` is `npm test` and anything after it.
  if (specifier.endsWith(':*')) {
    const prefix = specifier.slice(0, -2);
    return part === prefix || part.startsWith(prefix + ' ');
  }
  return globMatches(specifier, part);
}

export function commandParts(command: string): string[] {
  const parts: string[] = [];
  let cur = '';
  let quote: '"' | "'" | null = null;
  for (let i = 0; i < command.length; i++) {
    const c = command[i]!;
    if (quote !== null) {
      if (c === '\\' && quote === '"' && i + 1 < command.length) {
        cur += c + command[++i]!;
        continue;
      }
      if (c === quote) quote = null;
      cur += c;
      continue;
    }
    if (c === '"' || c === "'") {
      quote = c;
      cur += c;
      continue;
    }
    const two = command.slice(i, i + 2);
    if (two === '&&' || two === '||') {
      parts.push(cur);
      cur = '';
      i++;
      continue;
    }
    if (c === ';' || c === '|' || c === '\n' || c === '&') {
      parts.push(cur);
      cur = '';
      continue;
    }
    cur += c;
  }
  parts.push(cur);
  return parts.map((p) => p.trim()).filter((p) => p.length > 0);
}

/** `*` is any run of characters; everything else is itself. */
function globMatches(pattern: string, text: string): boolean {
  const re = new RegExp('^' + pattern.split('*').map(escapeRegExp).join('[\\s\\S]*') + '$');
  return re.test(text);
}

function domainMatches(domain: string, url: string): boolean {
  let host: string;
  try {
    host = new URL(url).hostname.toLowerCase();
  } catch {
    return false;
  }
  const d = domain.toLowerCase();
  if (d.startsWith('*.')) return host.endsWith(d.slice(1));
  return host === d;
}

/**
 * gitignore-style, as Claude Code reads them: `//abs/path` is absolute,
 * `~/path` under the home folder, `/path` and `path` under the run's folder;
 * `**` crosses folders, `*` does not; a pattern with no slash matches a file
 * of that name in any folder.
 */
export function pathMatches(pattern: string, file: string, ctx: RuleContext): boolean {
  const abs = normalize(file.startsWith('/') ? file : join(ctx.cwd, file));
  let base: string;
  let rest: string;
  if (pattern.startsWith('//')) {
    base = '/';
    rest = pattern.slice(2);
  } else if (pattern.startsWith('~/')) {
    base = ctx.home;
    rest = pattern.slice(2);
  } else if (pattern.startsWith('/')) {
    base = ctx.cwd;
    rest = pattern.slice(1);
  } else if (pattern.startsWith('./')) {
    base = ctx.cwd;
    rest = pattern.slice(2);
  } else if (!pattern.includes('/')) {
    base = ctx.cwd;
    rest = '**/' + pattern;
  } else {
    base = ctx.cwd;
    rest = pattern;
  }
  const root = normalize(base);
  const prefix = root === '/' ? '/' : root + '/';
  if (!abs.startsWith(prefix)) return false;
  return pathGlob(rest).test(abs.slice(prefix.length));
}

function pathGlob(pattern: string): RegExp {
  let re = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '*' && pattern[i + 1] === '*') {
      // `**/` is any number of folders (none too); a trailing `**` is everything below.
      if (pattern[i + 2] === '/') {
        re += '(?:[^/]*/)*';
        i += 2;
      } else {
        re += '.*';
        i += 1;
      }
    } else if (c === '*') re += '[^/]*';
    else if (c === '?') re += '[^/]';
    else re += escapeRegExp(c);
  }
  // A folder's pattern covers what is inside it.
  return new RegExp('^' + re + '(?:/.*)?$', 's');
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function join(a: string, b: string): string {
  return a.endsWith('/') ? a + b : a + '/' + b;
}

/** `.` and `..` taken out, repeated slashes folded: a request cannot climb out of a folder a rule names. */
function normalize(p: string): string {
  const out: string[] = [];
  for (const seg of p.split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') out.pop();
    else out.push(seg);
  }
  return '/' + out.join('/');
}
