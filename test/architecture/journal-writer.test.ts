// One way to write the journal: through the run store's unit of work
// (src/server/run-store.ts, which opens the journal and holds it). Outside
// src/journal and that file no code names the Journal: no `journal` as a
// variable, a parameter, a field or a property read (`store.journal.…`,
// `const { journal } = …`), no `Journal` (an import, a type), no
// `x['journal']` or `T['journal']`. Comments and strings aside; a key or a
// type member named `journal` is let off (config.json's "journal" section is
// one). The rooms read through the store's reader (journal/reader.ts), an
// object of its own. Read from every file under src/ and components/; the
// check is shown to fail on files that break it.

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** Where the Journal may be named: its own room, and the run store that opens it and is its one writer. */
const ALLOWED = (file: string): boolean => file.startsWith('src/journal/') || file === 'src/server/run-store.ts';

const NAMES = new Set(['journal', 'Journal']);

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const e of fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
    const rel = path.posix.join(dir, e.name);
    if (e.isDirectory()) out.push(...sourceFiles(rel));
    else if (/\.tsx?$/.test(e.name) && !e.name.endsWith('.d.ts')) out.push(rel);
  }
  return out;
}

/** A key of an object or a member of a type that is called `journal`: a name, not a reference to the Journal. */
function isKeyName(n: ts.Identifier): boolean {
  const p = n.parent;
  return (ts.isPropertyAssignment(p) || ts.isPropertySignature(p)) && p.name === n;
}

/** Each place a source names the Journal: `file:line: text`. */
export function journalReferences(file: string, text: string): string[] {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, file.endsWith('x') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const out: string[] = [];
  const at = (n: ts.Node): void => {
    const line = sf.getLineAndCharacterOfPosition(n.getStart(sf)).line + 1;
    const shown = n.parent && !ts.isSourceFile(n.parent) ? n.parent.getText(sf) : n.getText(sf);
    out.push(`${file}:${line}: ${shown.length > 80 ? `${shown.slice(0, 77)}...` : shown}`);
  };
  const visit = (n: ts.Node): void => {
    if (ts.isIdentifier(n) && NAMES.has(n.text) && !isKeyName(n)) at(n);
    else if (ts.isElementAccessExpression(n) && ts.isStringLiteralLike(n.argumentExpression) && NAMES.has(n.argumentExpression.text)) at(n);
    else if (
      ts.isIndexedAccessTypeNode(n) &&
      ts.isLiteralTypeNode(n.indexType) &&
      ts.isStringLiteralLike(n.indexType.literal) &&
      NAMES.has(n.indexType.literal.text)
    )
      at(n);
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return out;
}

describe('the journal is written through the run store only', () => {
  const files = [...sourceFiles('src'), ...sourceFiles('components')];
  const read = (f: string): string => fs.readFileSync(path.join(ROOT, f), 'utf8');

  it('has read the house, and the run store holds the journal', () => {
    expect(files.length).toBeGreaterThan(100);
    // Not a check that finds nothing because it looks at nothing: where the journal is held, it is seen.
    expect(journalReferences('src/server/run-store.ts', read('src/server/run-store.ts')).length).toBeGreaterThan(3);
  });

  it('no code outside src/journal and src/server/run-store.ts names the Journal', () => {
    const found = files.filter((f) => !ALLOWED(f)).flatMap((f) => journalReferences(f, read(f)));
    expect(found).toEqual([]);
  });

  it('the check can fail: a room that reaches for the journal is caught, a comment, a string, a key and JournalUnavailable are not', () => {
    const room = [
      "import { Journal, JournalUnavailable } from '../journal/journal.js';",
      'import type { RunStore } from "./run-store.js";',
      '// a comment about journal.appendEvent is not a reference',
      'export class Room {',
      '  constructor(private readonly store: RunStore) {}',
      '  write(): void {',
      "    this.store.journal.appendEvent(null, { type: 'x', data: {} });",
      '    const { journal } = this.store as any;',
      "    (this.store as any)['journal'].setMeta('k', 1);",
      "    const said = 'journal.appendEvent in a string is not one';",
      '    const cfg = { journal: { synchronous: "normal" } };',
      '    if (said && cfg && journal) throw new JournalUnavailable("full");',
      '  }',
      "  events(): ReturnType<RunStore['journal']['loopEvents']> { return []; }",
      '}',
      'export type Held = { j: Journal };',
    ].join('\n');
    expect(journalReferences('src/server/room.ts', room)).toEqual([
      'src/server/room.ts:1: Journal',
      'src/server/room.ts:7: this.store.journal',
      'src/server/room.ts:8: journal',
      "src/server/room.ts:9: (this.store as any)['journal'].setMeta",
      'src/server/room.ts:12: said && cfg && journal',
      "src/server/room.ts:14: RunStore['journal']['loopEvents']",
      'src/server/room.ts:16: Journal',
    ]);
    // A real room put back as it was before the run store took the journal: fleet.ts appending its own event.
    const fleet = read('src/server/fleet.ts').replace("store.event(null, { type: 'budget_reset'", "store.journal.appendEvent(null, { type: 'budget_reset'");
    expect(fleet).toContain('store.journal.appendEvent');
    expect(journalReferences('src/server/fleet.ts', fleet)).toEqual([expect.stringMatching(/^src\/server\/fleet\.ts:\d+: store\.journal$/)]);
  });
});
