// What a packed orcr holds and what installing it runs: the built program, its
// sources, themes, README and docs, and none of the tests or benches; no
// install script of orcr's own (nothing to run in the install of someone who
// depends on the package for its SDK), and no dependency patched. `npm pack
// --dry-run` lists what `npm publish` would send, without writing a tarball.

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../support/harness.js';

const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
  scripts: Record<string, string>;
  bin: Record<string, string>;
  main: string;
  files: string[];
};

describe('the package', () => {
  it('packs the program, its themes and docs, and not the tests or benches', () => {
    const r = spawnSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: ROOT, encoding: 'utf8', maxBuffer: 64 << 20 });
    expect(r.status, r.stderr).toBe(0);
    const files = (JSON.parse(r.stdout) as { files: { path: string }[] }[])[0]!.files.map((f) => f.path);
    for (const bin of Object.values(pkg.bin)) expect(files).toContain(bin);
    expect(files).toContain(pkg.main);
    expect(files).toContain('package.json');
    expect(files).toContain('README.md');
    expect(files).toContain('docs/architecture.md');
    expect(files.some((f) => f.startsWith('themes/') && f.endsWith('.json'))).toBe(true);
    expect(files.some((f) => f.startsWith('components/'))).toBe(true);
    const stray = files.filter((f) => /^(test|bench|dist\/bench|dist\/test|\.ci|examples|node_modules)\//.test(f) || f.endsWith('.map'));
    expect(stray, 'tests, benches, CI and source maps are not for users').toEqual([]);
  });

  it('runs nothing of its own at install, and patches no dependency', () => {
    for (const hook of ['preinstall', 'install', 'postinstall']) expect(pkg.scripts[hook], hook).toBeUndefined();
    expect(fs.existsSync(path.join(ROOT, 'src/tui/ink/patch')), 'a patch of Ink').toBe(false);
    expect(Object.values(pkg.scripts).join('\n')).not.toMatch(/patch-package|\bpatch\b/);
  });

  it("npm start builds a stale dist/ itself, so an install with --ignore-scripts (no prepare) starts the same TUI, with the bin's Node flags", () => {
    const first = fs.readFileSync(path.join(ROOT, 'src/tui/main.tsx'), 'utf8').split('\n', 1)[0]!;
    const flags = /^#!\/usr\/bin\/env -S node( --[a-z-]+=\w+)+$/.exec(first);
    expect(flags, first).not.toBeNull();
    expect(pkg.scripts.start).toBe(`npm run build && node${first.slice('#!/usr/bin/env -S node'.length)} dist/src/tui/main.js --demo`);
  });

  it("the TUI's bin runs by its first line (env -S splits the flags from node)", () => {
    const bin = path.join(ROOT, pkg.bin['orcr-tui']!);
    expect(fs.readFileSync(bin, 'utf8').split('\n', 1)[0]).toMatch(/^#!\/usr\/bin\/env -S node --max-semi-space-size=\d+$/);
    // The bin itself, not `node bin`: the kernel reads its first line; the node found is the one on PATH, as for a user.
    const r = spawnSync(bin, ['--help'], { encoding: 'utf8', env: { ...process.env, PATH: `${path.dirname(process.execPath)}:${process.env.PATH ?? ''}` } });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/orcr-tui/);
  });
});
