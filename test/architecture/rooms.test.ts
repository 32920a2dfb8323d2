// The house's rules, read from the imports of every file under src/ (and
// components/): no import cycle among files, type-only imports included; the
// core imports nothing outside the core; components never reach the client or
// the server; the CLI reaches neither the journal nor the runtime; no module
// is over 500 lines. The checker is shown to fail on a graph that breaks each rule.

import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { houseFiles, parseSource, readSource } from '../support/house.js';

/** A repository path (no extension) → the repository paths (no extension) or package names it imports. */
type Graph = Map<string, string[]>;

/** Every module a file imports or re-exports, statically or with import(), type-only ones too. */
function importsOf(file: string): string[] {
  const sf = parseSource(file, readSource(file));
  const out: string[] = [];
  const add = (spec: string): void => {
    out.push(spec.startsWith('.') ? path.posix.join(path.posix.dirname(file), spec).replace(/\.(jsx?|tsx?)$/, '') : spec);
  };
  const visit = (node: ts.Node): void => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier))
      add(node.moduleSpecifier.text);
    else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword && node.arguments[0] && ts.isStringLiteral(node.arguments[0]))
      add(node.arguments[0].text);
    else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) add(node.argument.literal.text);
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return out;
}

function houseGraph(): Graph {
  const g: Graph = new Map();
  for (const f of houseFiles()) g.set(f.replace(/\.tsx?$/, ''), importsOf(f));
  // An import of a folder's index names that file.
  for (const [file, targets] of g)
    g.set(
      file,
      targets.map((t) => (g.has(t) ? t : g.has(`${t}/index`) ? `${t}/index` : t)),
    );
  return g;
}

/** Each cycle once, as the files around it (the first file repeated at the end). */
export function cycles(g: Graph): string[][] {
  const found: string[][] = [];
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (n: string): void => {
    state.set(n, 'open');
    stack.push(n);
    for (const m of g.get(n) ?? []) {
      if (!g.has(m)) continue;
      const s = state.get(m);
      if (s === 'open') found.push([...stack.slice(stack.indexOf(m)), m]);
      else if (s === undefined) visit(m);
    }
    stack.pop();
    state.set(n, 'done');
  };
  for (const n of [...g.keys()].sort()) if (!state.has(n)) visit(n);
  return found;
}

interface Rule {
  why: string;
  from: (file: string) => boolean;
  /** A target this rule forbids (a repository path, or a package name). */
  forbids: (target: string) => boolean;
  /** Files let off, each with the reason in a comment where the rule is made. */
  except?: readonly string[];
}

const inside = (dir: string) => (p: string) => p.startsWith(dir + '/');

const RULES: Rule[] = [
  {
    why: 'src/core is pure: it imports nothing outside the core (no I/O, no other room)',
    from: inside('src/core'),
    forbids: (t) => !inside('src/core')(t),
  },
  {
    why: 'components render the view model: they never reach the client or the server',
    from: inside('components'),
    forbids: (t) => inside('src/client')(t) || inside('src/server')(t),
  },
  {
    why: 'the CLI is a client: it reaches neither the journal nor the runtime',
    from: inside('src/cli'),
    forbids: (t) => inside('src/journal')(t) || inside('src/runtime')(t),
  },
];

export function broken(g: Graph, rules: readonly Rule[]): string[] {
  const out: string[] = [];
  for (const [file, targets] of g) {
    for (const r of rules) {
      if (!r.from(file) || r.except?.includes(file)) continue;
      for (const t of targets) if (r.forbids(t)) out.push(`${file} -> ${t}: ${r.why}`);
    }
  }
  return out;
}

describe('the rooms', () => {
  const g = houseGraph();

  it('has read the house', () => {
    expect(g.size).toBeGreaterThan(100);
    expect(g.get('src/server/supervisor')).toContain('src/server/compose');
  });

  it('has no import cycle among its files, type-only imports included', () => {
    expect(cycles(g).map((c) => c.join(' -> '))).toEqual([]);
  });

  it('keeps the room rules', () => {
    expect(broken(g, RULES)).toEqual([]);
  });

  it('has no module of more than 500 lines (a room that grows past it is split by what it holds)', () => {
    const long = houseFiles()
      .map((f) => [f, readSource(f).split('\n').length - 1] as const)
      .filter(([, n]) => n > 500)
      .map(([f, n]) => `${f}: ${n} lines`);
    expect(long).toEqual([]);
  });

  it('the checks can fail: a synthetic house with a cycle and broken rules is caught', () => {
    const bad: Graph = new Map([
      ['src/server/a', ['src/server/b']],
      ['src/server/b', ['src/server/c']],
      ['src/server/c', ['src/server/a']],
      ['src/core/pure', ['node:fs', 'src/server/a']],
      ['components/Row', ['src/client/client']],
      ['src/cli/verbs', ['src/journal/journal']],
      ['src/cli/serve', ['src/journal/journal']],
    ]);
    expect(cycles(bad)).toEqual([['src/server/a', 'src/server/b', 'src/server/c', 'src/server/a']]);
    expect(broken(bad, RULES)).toEqual([
      `src/core/pure -> node:fs: ${RULES[0]!.why}`,
      `src/core/pure -> src/server/a: ${RULES[0]!.why}`,
      `components/Row -> src/client/client: ${RULES[1]!.why}`,
      `src/cli/verbs -> src/journal/journal: ${RULES[2]!.why}`,
      `src/cli/serve -> src/journal/journal: ${RULES[2]!.why}`,
    ]);
  });
});
