// Runs once, before any test file: the suite spawns the built CLI, TUI and
// mock agent from dist/, so dist/ must be current before the first test and
// must not change until the last. `npm install` builds (prepare); `npm test`
// and a direct `npx vitest run` after an edit get a build here, once, while
// no test is running, when a source is newer than dist/ (not a second tsc
// run of 20 s CPU when nothing changed). No test file may build: a rebuild under running tests
// hands some of them a half-written dist/ (a module missing an export).

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** What tsconfig.json compiles. */
const SOURCES = ['src', 'components', 'bench'];
// tsc -p tsconfig.json is incremental: it rewrites only the outputs that change,
// and its build info on every build that changed anything.
const STAMP = path.join(ROOT, 'dist/.tsbuildinfo');

function newestSource(dir: string): number {
  let newest = 0;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) newest = Math.max(newest, newestSource(p));
    else if (/\.(ts|tsx|mts|json)$/.test(e.name)) newest = Math.max(newest, fs.statSync(p).mtimeMs);
  }
  return newest;
}

export default function setup(): void {
  const built = fs.existsSync(STAMP) ? fs.statSync(STAMP).mtimeMs : 0;
  const newest = Math.max(...SOURCES.map((d) => newestSource(path.join(ROOT, d))));
  if (built >= newest) return;
  const r = spawnSync('npm', ['run', 'build'], { cwd: ROOT, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`dist/ is older than the sources and \`npm run build\` failed:\n${r.stdout}${r.stderr}`);
}
