// The suite's own rules, read from the test files: the built dist/ that the
// tests spawn is made once before any test runs (test/support/global-setup.ts)
// and never rebuilt by a test, since a build under running tests hands the
// others a half-written dist/ (seen: a CLI spawned mid-build failed with
// "does not provide an export named 'waitExitCode'").

import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from './support/harness.js';

function files(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return e.name === 'fixtures' || e.name === 'transcripts' ? [] : files(p);
    return /\.(ts|tsx|mts|mjs|js)$/.test(e.name) ? [p] : [];
  });
}

/** This file, which names the patterns it looks for. */
const SELF = path.join(ROOT, 'test/suite-rules.test.ts');
/** A call that compiles the project: tsc itself, or the build script. */
const BUILDS = [/typescript\/bin\/tsc/, /\btsc['"`]/, /['"]run['"],\s*['"]build['"]/, /(?:exec|spawn)\w*\(\s*['"`]npm run (?:build|pretest|prepare)/];

describe('the test suite', () => {
  it('builds dist/ only in its global setup, before any test: no test file compiles the project', () => {
    const setup = path.join(ROOT, 'test/support/global-setup.ts');
    const offenders = files(path.join(ROOT, 'test'))
      .filter((f) => f !== setup && f !== SELF)
      .filter((f) => BUILDS.some((re) => re.test(fs.readFileSync(f, 'utf8'))))
      .map((f) => path.relative(ROOT, f));
    expect(offenders, 'test files that build the project while others run').toEqual([]);
    expect(
      BUILDS.some((re) => re.test(fs.readFileSync(setup, 'utf8'))),
      'the global setup builds a stale dist/',
    ).toBe(true);
  });
});
