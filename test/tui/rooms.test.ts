// The rooms' rules, read from the imports themselves (TypeScript's parser, so
// a type-only import is told from one that loads code): clients reach run
// state only through the server, the TUI never borrows the CLI, components
// see only the view model, and inside src/tui the pure rooms stay pure: the
// store never reads the view (what both need is in src/tui/model, below both).

import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { parseSource, readSource, sourceFiles } from '../support/house.js';

interface Import {
  /** Repository path of the importing file. */
  file: string;
  spec: string;
  /** Repository path the import resolves to (no extension), or the package name. */
  target: string;
  typeOnly: boolean;
}

/** Every module the file's text imports or re-exports, statically or with import(). */
export function importsOf(file: string, text: string): Import[] {
  const sf = parseSource(file, text);
  const out: Import[] = [];
  const add = (spec: string, typeOnly: boolean): void => {
    const target = spec.startsWith('.') ? path.posix.join(path.posix.dirname(file), spec).replace(/\.jsx?$/, '') : spec;
    out.push({ file, spec, target, typeOnly });
  };
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const c = node.importClause;
      // `import type {…}`, or `import {type A, type B}` with no value at all: erased at build.
      const named = c?.namedBindings && ts.isNamedImports(c.namedBindings) ? c.namedBindings.elements : null;
      const typeOnly = !!c && (c.isTypeOnly || (!c.name && named !== null && named.length > 0 && named.every((e) => e.isTypeOnly)));
      add(node.moduleSpecifier.text, typeOnly);
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      add(node.moduleSpecifier.text, node.isTypeOnly);
    } else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] &&
      ts.isStringLiteral(node.arguments[0])
    ) {
      add(node.arguments[0].text, false);
    } else if (
      ts.isImportEqualsDeclaration(node) &&
      ts.isExternalModuleReference(node.moduleReference) &&
      ts.isStringLiteral(node.moduleReference.expression)
    ) {
      add(node.moduleReference.expression.text, node.isTypeOnly);
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return out;
}

const under = (p: string, room: string): boolean => p === room || p.startsWith(room + '/');

interface Rule {
  /** Files the rule is about. */
  from: string[];
  /** What they may not import. */
  forbid: string[];
  /** A type-only import is allowed (it is erased at build: no code runs). */
  types?: boolean;
  why: string;
}

const RULES: Rule[] = [
  { from: ['src/cli', 'src/tui', 'components'], forbid: ['src/journal', 'src/runtime'], why: 'clients reach run state only through the server' },
  {
    from: ['src/sdk', 'src/mcp'],
    forbid: ['src/journal', 'src/runtime', 'src/cli', 'src/tui'],
    why: 'the SDK and orcr mcp are clients: run state through the server, shared code through src/client',
  },
  { from: ['src/tui', 'components'], forbid: ['src/cli'], why: 'the TUI shares with the CLI only through src/client' },
  {
    from: ['src/tui/state', 'src/tui/view'],
    forbid: ['src/tui/connection', 'src/tui/ink', 'src/tui/input/router', 'src/client', 'src/server'],
    types: true,
    why: 'state and view are pure: they never reach the connection',
  },
  { from: ['src/tui/input'], forbid: ['src/tui/connection', 'src/client'], types: true, why: 'a key reaches the world only through Actions' },
  // Type-only imports too: a type of the view's in the store means the store cannot be read, or changed, without the view model.
  {
    from: ['src/tui/state'],
    forbid: ['src/tui/view', 'src/tui/input', 'components'],
    why: 'the store is read without the view model: what both need is below both (src/tui/model, src/text)',
  },
  {
    from: ['src/tui/model'],
    forbid: ['src/tui/state', 'src/tui/view', 'src/tui/input', 'src/tui/connection', 'src/tui/ink', 'components', 'src/client', 'src/server'],
    why: 'the model is below the store and the view: it imports neither',
  },
];

/**
 * `orcr serve` runs the supervisor in its own process: the server's front
 * door, filed under src/cli for the verb. It is the one file of src/cli that is
 * not a client (it degrades on JournalUnavailable), until it moves to src/server.
 */
/** What components may import: the view model (view/ and the model below it), the store's types, their siblings, and the libraries they render with. */
const COMPONENT_PACKAGES = new Set(['react', 'ink', 'zustand', 'zustand/react/shallow']);

export function componentProblem(i: Import): string | null {
  if (!i.spec.startsWith('.')) return COMPONENT_PACKAGES.has(i.spec) ? null : `${i.file} imports the package ${i.spec}`;
  if (under(i.target, 'components')) return null;
  if (under(i.target, 'src/tui/view') || under(i.target, 'src/tui/model')) return null;
  if (under(i.target, 'src/tui/state') && i.typeOnly) return null;
  return `${i.file} imports ${i.spec}: components import only src/tui/view, src/tui/model and the store's types (import type from src/tui/state)`;
}

export function ruleProblems(i: Import): string[] {
  const out: string[] = [];
  for (const r of RULES) {
    if (!r.from.some((room) => under(i.file, room))) continue;
    if (r.types && i.typeOnly) continue;
    const hit = r.forbid.find((room) => under(i.target, room));
    if (hit) out.push(`${i.file} imports ${i.spec} (${hit}): ${r.why}`);
  }
  return out;
}

const all = (dirs: string[]): Import[] => dirs.flatMap((d) => sourceFiles(d)).flatMap((f) => importsOf(f, readSource(f)));

describe("rooms' import rules", () => {
  it('the checks catch what they are meant to (a rule that cannot fail proves nothing)', () => {
    const c = (file: string, text: string): Import[] => importsOf(file, text);
    expect(c('components/X.tsx', "import { Controller } from '../src/tui/connection/controller.js';").map(componentProblem)[0]).toMatch(
      /components import only/,
    );
    expect(c('components/X.tsx', "import { createTuiStore } from '../src/tui/state/store.js';").map(componentProblem)[0]).toMatch(/components import only/);
    expect(c('components/X.tsx', "import { type TuiState } from '../src/tui/state/store.js';").map(componentProblem)[0]).toBeNull();
    expect(c('components/X.tsx', "import { fit } from '../src/tui/view/format.js';").map(componentProblem)[0]).toBeNull();
    expect(c('components/X.tsx', "import { clock } from '../src/tui/model/numbers.js';").map(componentProblem)[0]).toBeNull();
    expect(c('components/X.tsx', "const m = await import('../src/client/client.js');").map(componentProblem)[0]).toMatch(/components import only/);
    expect(c('components/X.tsx', "import net from 'node:net';").map(componentProblem)[0]).toMatch(/package node:net/);
    expect(c('src/cli/x.ts', "import { Tailer } from '../runtime/tailer.js';").flatMap(ruleProblems)[0]).toMatch(/through the server/);
    expect(c('src/tui/a/x.ts', "export { Journal } from '../../journal/journal.js';").flatMap(ruleProblems)[0]).toMatch(/through the server/);
    expect(c('src/tui/a/x.ts', "import type { Run } from '../../journal/journal.js';").flatMap(ruleProblems)[0]).toMatch(/through the server/);
    expect(c('src/tui/x.ts', "import { parseRunArgs } from '../cli/run-args.js';").flatMap(ruleProblems)[0]).toMatch(/only through src\/client/);
    expect(c('src/tui/view/x.ts', "import { Session } from '../connection/session.js';").flatMap(ruleProblems)[0]).toMatch(/pure/);
    expect(c('src/tui/state/x.ts', "import { clock } from '../view/format.js';").flatMap(ruleProblems)[0]).toMatch(/without the view model/);
    expect(c('src/tui/state/x.ts', "import type { Token } from '../view/theme.js';").flatMap(ruleProblems)[0]).toMatch(/without the view model/);
    expect(c('src/tui/state/x.ts', "import { clock } from '../model/numbers.js';").flatMap(ruleProblems)).toEqual([]);
    expect(c('src/tui/model/x.ts', "import type { TuiState } from '../state/store.js';").flatMap(ruleProblems)[0]).toMatch(/below the store/);
  });

  it('src/tui/state imports nothing of src/tui/view (type-only imports included), and src/tui/model neither of them', () => {
    const imports = all(['src/tui/state', 'src/tui/model']);
    expect(imports.length).toBeGreaterThan(50);
    const problems = imports.flatMap(ruleProblems).filter((p) => /view model|below the store/.test(p));
    expect(problems).toEqual([]);
  });

  it('src/cli and src/tui never import src/journal or src/runtime, and src/tui never imports src/cli', () => {
    const imports = all(['src/cli', 'src/tui', 'components']);
    expect(imports.length).toBeGreaterThan(100);
    expect(imports.flatMap(ruleProblems)).toEqual([]);
  });

  it('components import only the view model and the store types', () => {
    const imports = all(['components']);
    expect(imports.length).toBeGreaterThan(20);
    expect(imports.map(componentProblem).filter((p) => p !== null)).toEqual([]);
  });

  it('src/tui/app.tsx is the one place that composes components', () => {
    const users = all(['src', 'bench'])
      .filter((i) => under(i.target, 'components'))
      .map((i) => i.file);
    expect([...new Set(users)]).toEqual(['src/tui/app.tsx']);
  });
});
