// What a person types is taken as typed, and what cannot be taken is told
// precisely: a name with a leading space is that name (in --after as in
// `show`), a number with spaces around it is no number, a --from line nested
// thousands of levels deep is a usage error naming its line, and two lines
// of one file with the same name are named both.

import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../support/harness.js';
import { useLiveHomes } from '../support/in-process.js';

const home = useLiveHomes();

function file(text: string): string {
  const f = path.join(tempDir('orcr-from-'), 'runs.jsonl');
  fs.writeFileSync(f, text);
  return f;
}

describe('input as typed', () => {
  it('--after " tgt" waits for the run named " tgt", as show finds it, not for "tgt"', async () => {
    const h = await home({});
    await h.run(['-n', 'tgt', '--', 'sleep', '300']);
    await h.run(['-n', ' tgt', '--', 'true']);
    const dep = await h.run(['-n', 'dep', '--after', ' tgt', '--', 'true']);
    expect((await h.show(' tgt')).name).toBe(' tgt');
    const input = await h.show(' tgt');
    expect(dep.after).toEqual([input.uuid]);
    expect(await h.wait('dep')).toBe('dep completed');
  });

  it('--retries, --max-turns and friends refuse a number with spaces around it (exit 2), as they refuse any other text', async () => {
    const h = await home({});
    for (const [flag, value] of [
      ['--retries', ' 3'],
      ['--retries', '3 '],
      ['--max-turns', ' 2'],
      ['--max-continues', '1 '],
    ]) {
      const r = await h.cli(['run', flag!, value!, '--', 'true']);
      expect(r.code, `${flag} ${JSON.stringify(value)}`).toBe(2);
      expect(r.stderr).toContain(flag!.slice(2));
      expect(r.stderr).toContain(JSON.stringify(value));
    }
    const tail = await h.cli(['logs', 'x', '--tail', ' 3']);
    expect(tail.code).toBe(2);
    expect(tail.stderr).toContain('--tail');
    expect((await h.ps({ all: true })).length).toBe(0);
  });

  it('a --from line nested 5,000 (or 100,000) levels deep is a usage error naming its line, not a crash; nothing is queued', async () => {
    const h = await home({});
    for (const n of [5_000, 100_000]) {
      const deep = JSON.stringify({ name: 'ok', command: ['true'] }) + '\n' + `{"name":"x","command":["true"],"env":${'['.repeat(n)}${']'.repeat(n)}}\n`;
      const r = await h.cli(['run', '--from', file(deep)]);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toMatch(/runs\.jsonl:2: nested more than 100 levels deep/);
      expect(r.stderr).not.toMatch(/RangeError|at /);
    }
    // A value that is merely deep-ish is shown short, however deep it goes.
    const r = await h.cli(['run', '--from', file(`{"name":"x","command":["true"],"env":${'['.repeat(90)}${']'.repeat(90)}}\n`)]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/"env" must map variable names .*, got \[\[\[\[/);
    expect((await h.ps({ all: true })).length).toBe(0);
  });

  it('two lines of one --from file with the same name are named both, not blamed on an active run', async () => {
    const h = await home({});
    const lines = ['{"name":"a","command":["true"]}', '{"name":"d","command":["true"]}', '{"name":"b","command":["true"]}', '{"name":"d","command":["true"]}'];
    const f = file(lines.join('\n') + '\n');
    const r = await h.cli(['run', '--from', f]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${f}:2 and ${f}:4 both name a run "d"`);
    expect(r.stderr).not.toMatch(/active run/);
    expect((await h.ps({ all: true })).length).toBe(0);
    // A client other than the CLI is told which specs clash, by number.
    await expect(h.call('run.enqueue', { specs: lines.map((l) => ({ ...JSON.parse(l), cwd: h.dir })) })).rejects.toMatchObject({
      code: 'usage',
      message: expect.stringContaining('specs 2 and 4 of this call both name a run "d"'),
    });
  });
});
