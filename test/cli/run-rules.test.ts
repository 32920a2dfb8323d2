// A run's own approval rules (`run --allow/--deny`, "allow"/"deny" in a
// --from line, the SDK's and the MCP run tool's spec): kept on the run, shown
// by `show`, and a rule that does not parse refused before anything is queued,
// named as written, wherever it came from.

import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { PublicRun } from '../../src/protocol/views.js';
import { useHomes } from '../support/harness.js';

const home = useHomes();

describe('run rules', () => {
  it('flags and lines give the run its allow and deny lists, which show lists', () => {
    const h = home();
    const run = h.json<PublicRun>([
      'run',
      '-n',
      'f',
      '--allow',
      'Bash(npm test:*)',
      '--allow',
      'Read',
      '--deny',
      'Bash(rm:*)',
      '--allow',
      'Bash(a,b)',
      '--',
      'sleep',
      '5',
    ]);
    expect(run.rules).toEqual({ allow: ['Bash(npm test:*)', 'Read', 'Bash(a,b)'], deny: ['Bash(rm:*)'] });
    const file = path.join(h.dir, 'runs.jsonl');
    fs.writeFileSync(file, JSON.stringify({ name: 'l', command: ['sleep', '5'], allow: ['Edit(src/**)'], deny: ['WebFetch(domain:example.com)'] }) + '\n');
    expect(h.cli(['run', '--from', file]).code).toBe(0);
    expect(h.json<PublicRun>(['show', 'l']).rules).toEqual({ allow: ['Edit(src/**)'], deny: ['WebFetch(domain:example.com)'] });
    const shown = h.cli(['show', 'f']).stdout;
    expect(shown).toMatch(/^rules +allow Bash\(npm test:\*\), allow Read, allow Bash\(a,b\), deny Bash\(rm:\*\)$/m);
    // None given: none kept, and show says nothing of them.
    const plain = h.json<PublicRun>(['run', '-n', 'p', '--', 'sleep', '5']);
    expect(plain.rules).toEqual({ allow: [], deny: [] });
    expect(h.cli(['show', 'p']).stdout).not.toMatch(/^rules/m);
    h.cli(['kill', 'f', 'l', 'p']);
  });

  it('a rule that does not parse is refused, named, before anything is queued: from a flag or a line', () => {
    const h = home();
    const flag = h.cli(['run', '--allow', 'Read', '--deny', 'Bash(rm', '--', 'true']);
    expect(flag.code).toBe(2);
    expect(flag.stderr).toMatch(/--deny .*rule "Bash\(rm" has no closing "\)"/);
    expect(fs.existsSync(path.join(h.dir, 'orcr.db')), 'a bad flag starts no supervisor').toBe(false);
    const esc = h.cli(['run', '--allow', 'Bash(a\u001b[2Jb)', '--', 'true']);
    expect(esc.code).toBe(2);
    expect(esc.stderr).toContain('\\u001b[2J');
    expect(esc.stderr).not.toContain('\u001b');
    const file = path.join(h.dir, 'runs.jsonl');
    fs.writeFileSync(
      file,
      [JSON.stringify({ name: 'ok', command: ['true'] }), JSON.stringify({ command: ['true'], allow: ['WebFetch(example.com)'] })].join('\n') + '\n',
    );
    const line = h.cli(['run', '--from', file]);
    expect(line.code).toBe(2);
    expect(line.stderr).toContain(`${file}:2: "allow"`);
    expect(line.stderr).toMatch(/WebFetch takes domain:HOST/);
    const many = h.cli(['run', ...Array.from({ length: 101 }, () => ['--allow', 'Read']).flat(), '--', 'true']);
    expect(many.code).toBe(2);
    expect(many.stderr).toMatch(/at most 100 rules/);
    expect(h.json<unknown[]>(['ps', '--all'])).toEqual([]);
  });
});
