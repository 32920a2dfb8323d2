// No function in src/ or components/ runs past 80 lines: a function that long
// does more than one job, and each job gets its own function, named for it.
// Read with the TypeScript compiler from every file; a function counts from
// its first line to its last (nested functions inside it included), whatever
// its form: a declaration, a method, a constructor, an accessor, a function
// expression or an arrow. The checker is shown to fail on a synthetic source.

import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { houseFiles, parseSource, readSource } from '../support/house.js';

const MAX_LINES = 80;

/** Functions let off, as `file name`, each with its reason. */
const LET_OFF: Readonly<Record<string, string>> = {};

/** What a function is called where it is written: its own name, or the name it is bound to. */
function nameOf(fn: ts.SignatureDeclaration, sf: ts.SourceFile): string {
  if (ts.isConstructorDeclaration(fn)) return 'constructor';
  if (fn.name) return fn.name.getText(sf);
  const p = fn.parent;
  if ((ts.isVariableDeclaration(p) || ts.isPropertyAssignment(p) || ts.isPropertyDeclaration(p)) && p.name) return p.name.getText(sf);
  return '<anonymous>';
}

/** `file:line name (N lines)` for each function in the source longer than `max` lines. */
export function longFunctions(file: string, text: string, max = MAX_LINES): string[] {
  const sf = parseSource(file, text);
  const out: string[] = [];
  const visit = (n: ts.Node): void => {
    if (ts.isFunctionLike(n) && 'body' in n && n.body) {
      const first = sf.getLineAndCharacterOfPosition(n.getStart(sf)).line + 1;
      const last = sf.getLineAndCharacterOfPosition(n.getEnd()).line + 1;
      const lines = last - first + 1;
      if (lines > max) out.push(`${file}:${first} ${nameOf(n, sf)} (${lines} lines)`);
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return out;
}

/** A finding as the let-off list names it: `file name`. */
const letOffKey = (finding: string): string => finding.replace(/^(\S+):\d+ (\S+) .*$/, '$1 $2');

describe('function length', () => {
  const files = houseFiles();
  const long = files.flatMap((f) => longFunctions(f, readSource(f)));

  it('has read the house', () => {
    expect(files.length).toBeGreaterThan(100);
    expect(files).toContain('src/server/transport.ts');
  });

  it(`has no function over ${MAX_LINES} lines in src/ or components/ (one past it does more than one job)`, () => {
    expect(long.filter((x) => !(letOffKey(x) in LET_OFF))).toEqual([]);
  });

  it('lets off only functions still over the limit (one brought under it leaves the list)', () => {
    const found = new Set(long.map(letOffKey));
    expect(Object.keys(LET_OFF).filter((k) => !found.has(k))).toEqual([]);
  });

  it('the check can fail: a synthetic source with long functions of every form is caught (at most 3 lines here)', () => {
    const text = [
      'export function long(): void {', // 1
      '  one();',
      '  two();',
      '}',
      'function short(): void {', // 5: 3 lines, allowed
      '  one();',
      '}',
      'const arrow = (): void => {', // 8
      '  one();',
      '  two();',
      '};',
      'class C {',
      '  constructor() {', // 13
      '    one();',
      '    two();',
      '  }',
      '  get value(): number {', // 17
      '    one();',
      '    return 2;',
      '  }',
      '}',
      'const o = { f: function (): void {', // 22
      '  one();',
      '  two();',
      '} };',
      '[1].map(() => {', // 26
      '  one();',
      '  two();',
      '});',
    ].join('\n');
    expect(longFunctions('src/x.ts', text, 3)).toEqual([
      'src/x.ts:1 long (4 lines)',
      'src/x.ts:8 arrow (4 lines)',
      'src/x.ts:13 constructor (4 lines)',
      'src/x.ts:17 value (4 lines)',
      'src/x.ts:22 f (4 lines)',
      'src/x.ts:26 <anonymous> (4 lines)',
    ]);
    expect(longFunctions('src/x.ts', text, 4)).toEqual([]);
  });
});
