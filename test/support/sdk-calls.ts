// Which socket methods each function of the SDK makes, read from the source
// with the TypeScript compiler. From each public function of the SDK — those
// of a connected Orcr (`list`), of its families (`loops.create`), Orcr's own
// (`Orcr.open`) and the module's (`connect`) — every call is followed into the
// house's code (src/client's paging, waits, follow, the session and its
// connection), and a `call('m', …)` or `callThenGone('m', …)` naming a method
// of the table is one that function makes. No list is kept by hand: an SDK
// function is found where it is written, making what its code makes.

import path from 'node:path';
import ts from 'typescript';
import { METHOD_NAMES, type MethodName } from '../../src/protocol/methods.js';
import { ROOT } from './harness.js';

const INDEX = path.join(ROOT, 'src/sdk/index.ts');
const CALLS = new Set(['call', 'callThenGone']);
const METHODS: ReadonlySet<string> = new Set(METHOD_NAMES);

/** The house's code, where a call is followed: src/, declaration files aside. */
function inHouse(node: ts.Node): boolean {
  const file = path.relative(ROOT, node.getSourceFile().fileName);
  return file.startsWith('src/') && !file.endsWith('.d.ts');
}

/** The body of a declaration that has one: a function, a method, an arrow bound to a name, a class's constructor. */
function bodiesOf(decl: ts.Declaration): ts.Node[] {
  if (ts.isFunctionLike(decl) && 'body' in decl && decl.body) return [decl.body];
  if (ts.isVariableDeclaration(decl) && decl.initializer && ts.isFunctionLike(decl.initializer)) return [decl.initializer];
  if (ts.isClassDeclaration(decl)) return decl.members.filter(ts.isConstructorDeclaration).flatMap(bodiesOf);
  return [];
}

const isPublic = (m: ts.ClassElement): boolean => (ts.getCombinedModifierFlags(m) & (ts.ModifierFlags.Private | ts.ModifierFlags.Protected)) === 0;
const isStatic = (m: ts.ClassElement): boolean => (ts.getCombinedModifierFlags(m) & ts.ModifierFlags.Static) !== 0;

class Reader {
  private readonly checker: ts.TypeChecker;
  /** What each body makes, once read (a body still being read counts as making nothing, so a cycle ends). */
  private readonly made = new Map<ts.Node, Set<MethodName>>();

  constructor(private readonly program: ts.Program) {
    this.checker = program.getTypeChecker();
  }

  /** The methods a body makes: its own calls, and those of the house's functions it calls. */
  methodsOf(body: ts.Node): ReadonlySet<MethodName> {
    const known = this.made.get(body);
    if (known) return known;
    const out = new Set<MethodName>();
    this.made.set(body, out);
    const visit = (n: ts.Node): void => {
      if (ts.isCallExpression(n) || ts.isNewExpression(n)) {
        const named = this.named(n);
        if (named !== null) out.add(named);
        for (const m of this.reached(n)) out.add(m);
      }
      ts.forEachChild(n, visit);
    };
    visit(body);
    return out;
  }

  /** `x.call('run.get', …)`: the method it names. */
  private named(n: ts.CallExpression | ts.NewExpression): MethodName | null {
    const callee = ts.isPropertyAccessExpression(n.expression) ? n.expression.name.text : null;
    const first = n.arguments?.[0];
    if (callee === null || !CALLS.has(callee) || !first || !ts.isStringLiteralLike(first) || !METHODS.has(first.text)) return null;
    return first.text as MethodName;
  }

  /** What the function a call reaches makes, when it is the house's. */
  private reached(n: ts.CallExpression | ts.NewExpression): MethodName[] {
    const symbol = this.symbolAt(ts.isPropertyAccessExpression(n.expression) ? n.expression.name : n.expression);
    return (symbol?.declarations ?? [])
      .filter(inHouse)
      .flatMap(bodiesOf)
      .flatMap((b) => [...this.methodsOf(b)]);
  }

  private symbolAt(node: ts.Node): ts.Symbol | undefined {
    const symbol = this.checker.getSymbolAtLocation(node);
    return symbol && symbol.flags & ts.SymbolFlags.Alias ? this.checker.getAliasedSymbol(symbol) : symbol;
  }

  /** The declarations the SDK's module exports, by name. */
  exports(): Map<string, ts.Declaration> {
    const module = this.symbolAt(this.program.getSourceFile(INDEX)!)!;
    const out = new Map<string, ts.Declaration>();
    for (const s of this.checker.getExportsOfModule(module)) {
      const decl = (s.flags & ts.SymbolFlags.Alias ? this.checker.getAliasedSymbol(s) : s).declarations?.[0];
      if (decl) out.set(s.name, decl);
    }
    return out;
  }

  /** A class's public methods, each with its body, and its public properties that are classes of the house (the SDK's families). */
  members(cls: ts.ClassDeclaration): { methods: [string, ts.Node, boolean][]; families: [string, ts.ClassDeclaration][] } {
    const methods: [string, ts.Node, boolean][] = [];
    const families: [string, ts.ClassDeclaration][] = [];
    for (const m of cls.members.filter(isPublic)) {
      if (!m.name || !ts.isIdentifier(m.name)) continue;
      if (ts.isMethodDeclaration(m) && m.body) methods.push([m.name.text, m.body, isStatic(m)]);
      const family = ts.isPropertyDeclaration(m) ? this.checker.getTypeAtLocation(m).getSymbol()?.declarations?.find(ts.isClassDeclaration) : undefined;
      if (family && inHouse(family)) families.push([m.name.text, family]);
    }
    return { methods, families };
  }
}

/** The SDK's public functions by path (`list`, `loops.create`, `Orcr.open`, `connect`), each with its body. */
function surface(reader: Reader): Map<string, ts.Node> {
  const out = new Map<string, ts.Node>();
  for (const [name, decl] of reader.exports()) {
    if (ts.isFunctionDeclaration(decl) && decl.body) out.set(name, decl.body);
    if (name !== 'Orcr' || !ts.isClassDeclaration(decl)) continue;
    const orcr = reader.members(decl);
    for (const [fn, body, own] of orcr.methods) out.set(own ? `Orcr.${fn}` : fn, body);
    for (const [family, cls] of orcr.families) for (const [fn, body] of reader.members(cls).methods) out.set(`${family}.${fn}`, body);
  }
  return out;
}

/** Each method of the table, with the SDK functions that make it, by path. */
export function sdkCalls(): Map<MethodName, string[]> {
  const { config } = ts.readConfigFile(path.join(ROOT, 'tsconfig.json'), ts.sys.readFile);
  const { options } = ts.parseJsonConfigFileContent(config, ts.sys, ROOT);
  // No @types of the environment: only the house's own declarations are looked up, and the program is built faster.
  const reader = new Reader(ts.createProgram([INDEX], { ...options, noEmit: true, incremental: false, types: [] }));
  const made = new Map<MethodName, string[]>(METHOD_NAMES.map((m) => [m, []]));
  for (const [fn, body] of surface(reader)) for (const m of reader.methodsOf(body)) made.get(m)!.push(fn);
  return made;
}
