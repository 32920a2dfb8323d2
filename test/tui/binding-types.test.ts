// A binding's type is the rule that every key has a handler and a
// description, and that only a dangerous key's handler is given what its
// question named: snippets that break each are compiled beside
// src/tui/input/binding.ts with the project's own compiler options, and
// must not compile (one that keeps the rules must).

import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { ROOT } from './home.js';

/** Each snippet compiled as a module beside binding.ts (one program for all): its errors, one line each. */
function errorsOf(snippets: Record<string, string>): Record<string, string[]> {
  const cfg = ts.parseJsonConfigFileContent(ts.readConfigFile(path.join(ROOT, 'tsconfig.json'), ts.sys.readFile).config, ts.sys, ROOT);
  const options = { ...cfg.options, noEmit: true, incremental: false };
  const files = new Map(Object.entries(snippets).map(([name, text]) => [path.join(ROOT, `src/tui/input/__probe-${name}.ts`), text]));
  const host = ts.createCompilerHost(options);
  const read = host.getSourceFile.bind(host);
  host.getSourceFile = (name, lang, ...rest) => {
    const text = files.get(path.resolve(name));
    return text !== undefined ? ts.createSourceFile(name, text, lang) : read(name, lang, ...rest);
  };
  const diagnostics = ts.getPreEmitDiagnostics(ts.createProgram([...files.keys()], options, host));
  const out: Record<string, string[]> = {};
  for (const [file] of files) {
    const name = path.basename(file, '.ts').slice('__probe-'.length);
    out[name] = diagnostics.filter((d) => d.file?.fileName === file).map((d) => ts.flattenDiagnosticMessageText(d.messageText, ' '));
  }
  return out;
}

const binding = (fields: string): string =>
  `import type { Binding } from './binding.js';\nexport const b: Binding = { id: 'probe', keys: [{ input: 'Z' }], label: 'Z', contexts: ['list'], ${fields} };\n`;

describe('a binding that lacks what a key needs does not compile', () => {
  it('without a handler, without a description, in no context there is, or with a subject it is not given: each an error; whole ones compile', () => {
    const errors = errorsOf({
      whole: binding(`description: 'probe', handler: (c) => c.say('zap')`),
      dangerous: binding(`description: 'probe', dangerous: { verb: 'zap', subject: () => ({ uuid: 'u', name: 'n' }) }, handler: (c, q) => c.say(q.name)`),
      noHandler: binding(`description: 'probe'`),
      noDescription: binding(`handler: () => undefined`),
      nowhere: binding(`description: 'probe', handler: () => undefined`).replace("contexts: ['list']", "contexts: ['nowhere']"),
      // Only a question names a subject: a key that does not ask has none to act on.
      subjectUnasked: binding(`description: 'probe', handler: (c: unknown, q: { uuid: string }) => void q.uuid`),
    });
    expect(errors.whole).toEqual([]);
    expect(errors.dangerous).toEqual([]);
    expect(errors.noHandler!.join('\n')).toMatch(/handler/);
    expect(errors.noDescription!.join('\n')).toMatch(/description/);
    expect(errors.nowhere!.join('\n')).toMatch(/nowhere/);
    expect(errors.subjectUnasked!.length).toBeGreaterThan(0);
    // A whole type-check of the TUI's bindings: ~10 s on a quiet 2-core machine, past 60 s at load 18.
  }, 180_000);
});
