// A vitest reporter that ends the run with one plain line, "N passed, N
// failed, N skipped", which any CI reader understands; then every skip's
// reason with how many tests it skipped (test/support/skip.ts gives each
// skip its reason), and which PostgreSQL the cluster suites ran against.
// With CI=true a skip that is not marked optional fails the run: the README
// says those suites run everywhere, so in CI a skip there is a defect. The
// live suite of the genuine agent CLIs (test/real, behind `npm run
// test:real`) may skip, and says why.

import path from 'node:path';
import type { Reporter, TestModule } from 'vitest/node';
import { pgSource } from '../../bench/lib/pg-server.js';
import { OPTIONAL } from './skip.js';

const NO_REASON = 'no reason given (a plain .skip or .skipIf: give it one with test/support/skip.ts)';

export default class PlainSummary implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    const reasons = new Map<string, { n: number; files: Set<string>; exempt: boolean }>();
    let pgSuites = false;
    for (const m of modules) {
      const file = path.relative(process.cwd(), m.moduleId);
      if (/test\/(cluster\/|limiter\/pg)/.test(file)) pgSuites = true;
      for (const t of m.children.allTests()) {
        const r = t.result();
        if (r.state === 'passed') passed++;
        else if (r.state === 'failed') failed++;
        else {
          skipped++;
          const note = (r.state === 'skipped' && r.note) || (t.options.mode === 'todo' ? 'todo' : NO_REASON);
          const e = reasons.get(note) ?? { n: 0, files: new Set<string>(), exempt: file.startsWith('test/real/') };
          e.n++;
          e.files.add(file);
          reasons.set(note, e);
        }
      }
    }
    const out: string[] = [`\n${passed} passed, ${failed} failed, ${skipped} skipped`];
    if (pgSuites) out.push(`PostgreSQL: ${pgSource()?.label ?? 'none here'}`);
    const refused: string[] = [];
    if (reasons.size > 0) {
      out.push('skipped, by reason:');
      for (const [note, e] of [...reasons].sort((a, b) => b[1].n - a[1].n)) {
        out.push(`  ${String(e.n).padStart(4)}  ${note}  [${[...e.files].join(', ')}]`);
        if (!note.startsWith(OPTIONAL) && !e.exempt) refused.push(note);
      }
    }
    if (process.env.CI === 'true' && refused.length > 0) {
      out.push(`CI=true: ${refused.length} reason(s) above skip suites that the README says run everywhere; this run fails.`);
      process.exitCode = 1;
    }
    process.stdout.write(out.join('\n') + '\n');
  }
}
