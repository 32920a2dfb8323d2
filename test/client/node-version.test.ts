// An old Node.js gets one line and exit 1 from each entry point, before any
// dependency loads (Ink 7 and better-sqlite3 13 would fail on 20 with a stack
// trace or worse); the SDK, a library, throws instead (its importer owns the
// process). The real Node 20 is used where the machine has one (Debian's
// /usr/bin/node here); everywhere, the same entry points are also run with
// process.versions.node set to an old version before they are imported.

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { MIN_NODE_MAJOR, nodeTooOld } from '../../src/client/node-version.js';
import { itWhen } from '../support/skip.js';
import { ROOT } from '../support/harness.js';

const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { engines: { node: string } };
const CLI = path.join(ROOT, 'dist/src/cli/main.js');
const TUI = path.join(ROOT, 'dist/src/tui/main.js');
const SDK = path.join(ROOT, 'dist/src/sdk/index.js');

describe('nodeTooOld', () => {
  it('names the program, the line it needs and the version it got', () => {
    expect(nodeTooOld('20.20.2')).toBe('orcr needs Node.js 22 or newer; this is 20.20.2');
    expect(nodeTooOld('v18.0.0', 'orcr-tui')).toBe('orcr-tui needs Node.js 22 or newer; this is 18.0.0');
    expect(nodeTooOld('21.99.99')).not.toBeNull();
  });
  it('lets the maintained lines and later ones through', () => {
    for (const v of ['22.0.0', '22.20.7', '24.21.0', 'v26.1.0', '100.0.0']) expect(nodeTooOld(v)).toBeNull();
  });
  it('refuses what it cannot read rather than guessing', () => {
    for (const v of ['', 'x', 'abc.1.2']) expect(nodeTooOld(v)).toMatch(/needs Node\.js 22 or newer/);
  });
  it("says what package.json's engines says", () => {
    expect(pkg.engines.node).toBe(`>=${MIN_NODE_MAJOR}`);
  });
});

/** Runs an entry point as if on Node `version`: the check reads process.versions.node, set before the import. */
function asIfOn(version: string, entry: string, args: string[] = []) {
  const code = `Object.defineProperty(process.versions, 'node', { value: ${JSON.stringify(version)} }); process.argv.splice(1, 0, ${JSON.stringify(entry)}); await import(${JSON.stringify(entry)});`;
  return spawnSync(process.execPath, ['--input-type=module', '-e', code, '--', ...args], {
    encoding: 'utf8',
    timeout: 30_000,
    env: { ...process.env, ORCR_HOME: '/nonexistent/orcr-node-check' },
  });
}

describe('an entry point on a Node.js that is too old', () => {
  it.each([
    ['orcr', CLI, ['ps']],
    ['orcr-tui', TUI, ['--demo']],
  ])('%s says it in one line and exits 1, having touched nothing', (name, entry, args) => {
    const r = asIfOn('20.20.2', entry, args);
    expect(r.stderr).toBe(`${name} needs Node.js 22 or newer; this is 20.20.2\n`);
    expect(r.stdout).toBe('');
    expect(r.status).toBe(1);
    expect(fs.existsSync('/nonexistent/orcr-node-check')).toBe(false);
  });
  it('on a supported one, the same entry runs', () => {
    const r = asIfOn('22.0.0', CLI, ['--version']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout.trim()).toMatch(/^orcr \d+\.\d+\.\d+$/);
  });

  const old = ['/usr/bin/node', '/usr/local/bin/node'].find((p) => {
    const v = spawnSync(p, ['-p', 'process.versions.node'], { encoding: 'utf8' });
    return v.status === 0 && nodeTooOld(v.stdout.trim()) !== null;
  });
  itWhen({ reason: old ? null : 'no Node.js older than 22 on this machine', optional: true }, "on a real old Node.js (Debian's 20 here): the same line", () => {
    const version = spawnSync(old!, ['-p', 'process.versions.node'], { encoding: 'utf8' }).stdout.trim();
    for (const [name, entry] of [
      ['orcr', CLI],
      ['orcr-tui', TUI],
    ] as const) {
      const r = spawnSync(old!, [entry, '--help'], { encoding: 'utf8', timeout: 30_000 });
      expect(r.stderr).toBe(`${name} needs Node.js 22 or newer; this is ${version}\n`);
      expect(r.status).toBe(1);
    }
  });
});

/** A program that imports the SDK (`from`: a path, or the package's name), catches what the import throws, prints it as JSON and goes on. */
const importer = (from: string): string => `let got = null;
try {
  const sdk = await import(${JSON.stringify(from)});
  got = { imported: typeof sdk.connect };
} catch (e) {
  got = { name: e.name, message: e.message, found: e.found, needed: e.needed, code: e.code, isError: e instanceof Error };
}
console.log(JSON.stringify(got));
console.log('went on');`;

describe('the SDK on a Node.js that is too old', () => {
  it('its import throws an Error naming the version found and the one needed; the importing program goes on (no exit)', () => {
    const code = `Object.defineProperty(process.versions, 'node', { value: '20.20.2' });\n${importer(SDK)}`;
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', code], { encoding: 'utf8', timeout: 30_000 });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const [got, after] = r.stdout.trim().split('\n');
    expect(JSON.parse(got!)).toEqual({
      name: 'NodeTooOld',
      message: 'the orcr SDK needs Node.js 22 or newer; this is 20.20.2',
      found: '20.20.2',
      needed: `>=${MIN_NODE_MAJOR}`,
      code: 'ERR_ORCR_NODE_VERSION',
      isError: true,
    });
    expect(after).toBe('went on');
  });

  it('on a supported one it imports', () => {
    const code = `Object.defineProperty(process.versions, 'node', { value: '22.0.0' });\n${importer(SDK)}`;
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', code], { encoding: 'utf8', timeout: 30_000 });
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout.split('\n')[0]!)).toEqual({ imported: 'function' });
  });

  const old = ['/usr/bin/node', '/usr/local/bin/node'].find((p) => {
    const v = spawnSync(p, ['-p', 'process.versions.node'], { encoding: 'utf8' });
    return v.status === 0 && nodeTooOld(v.stdout.trim()) !== null;
  });
  itWhen(
    { reason: old ? null : 'no Node.js older than 22 on this machine', optional: true },
    "on a real old Node.js (Debian's 20 here): `import … from 'orcr'` in a project of its own throws the same Error",
    () => {
      const version = spawnSync(old!, ['-p', 'process.versions.node'], { encoding: 'utf8' }).stdout.trim();
      const project = fs.mkdtempSync(path.join(os.tmpdir(), 'orcr-old-node-'));
      try {
        // What `npm install /path/to/orcr` leaves: node_modules/orcr, a link to the package.
        fs.mkdirSync(path.join(project, 'node_modules'));
        fs.symlinkSync(ROOT, path.join(project, 'node_modules', 'orcr'));
        fs.writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'consumer', type: 'module' }));
        fs.writeFileSync(path.join(project, 'main.mjs'), importer('orcr'));
        const r = spawnSync(old!, ['main.mjs'], {
          cwd: project,
          encoding: 'utf8',
          timeout: 30_000,
          env: { ...process.env, ORCR_HOME: '/nonexistent/orcr-node-check' },
        });
        expect(r.stderr).toBe('');
        expect(r.status).toBe(0);
        const [got, after] = r.stdout.trim().split('\n');
        expect(JSON.parse(got!)).toMatchObject({
          name: 'NodeTooOld',
          message: `the orcr SDK needs Node.js 22 or newer; this is ${version}`,
          found: version,
          isError: true,
        });
        expect(after).toBe('went on');
        expect(fs.existsSync('/nonexistent/orcr-node-check')).toBe(false);
      } finally {
        fs.rmSync(project, { recursive: true, force: true });
      }
    },
  );
});
