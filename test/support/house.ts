// The house's own sources as the architecture tests read them: every .ts and
// .tsx under a folder (declaration files aside), by repository path, and
// each one parsed by the TypeScript compiler as what its name says it is.

import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { ROOT } from './harness.js';

/** The repository paths of the sources under `dir` (a repository path), folders walked in the order the file system lists them. */
export function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const e of fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
    const rel = path.posix.join(dir, e.name);
    if (e.isDirectory()) out.push(...sourceFiles(rel));
    else if (/\.tsx?$/.test(e.name) && !e.name.endsWith('.d.ts')) out.push(rel);
  }
  return out;
}

/** Every source of src/ and components/: the house the rules speak of. */
export const houseFiles = (): string[] => [...sourceFiles('src'), ...sourceFiles('components')];

/** A source's text, by repository path. */
export const readSource = (file: string): string => fs.readFileSync(path.join(ROOT, file), 'utf8');

/** The source parsed, as TSX when its name ends in x, with each node's parent set. */
export function parseSource(file: string, text: string): ts.SourceFile {
  return ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, file.endsWith('x') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
}
