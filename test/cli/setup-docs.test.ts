// Set-up as the README says it, and the README and --help standing alone:
// built bins are executable, `npx orcr` works from the repository, every
// config key and --from field is documented, no reference leaves the repo.

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { configSchema } from '../../src/config/schema.js';
import { LINE_FIELDS } from '../../src/config/run-spec.js';
import { mainUsage, VERB_USAGE } from '../../src/cli/usage.js';
import { CLI, NODE, ROOT, TestHome, useHomes } from '../support/harness.js';

const home = useHomes();

const README = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { bin: Record<string, string> };

/** The text of a README section, from its heading to the next heading of the same or a higher level. */
function section(heading: string): string {
  const start = README.indexOf(heading);
  expect(start, heading).toBeGreaterThanOrEqual(0);
  const level = heading.match(/^#+/)![0];
  const rest = README.slice(start + heading.length);
  const end = rest.search(new RegExp(`\\n#{1,${level.length}} `));
  return end < 0 ? rest : rest.slice(0, end);
}

/** Every key path config.json accepts, with NAME for a record's keys (`providers.NAME.price.input_per_mtok`). */
function configKeys(schema: unknown, prefix = ''): string[] {
  let s = schema as { _zod: { def: Record<string, any> } };
  for (;;) {
    const def = s._zod.def;
    if (['default', 'optional', 'nullable', 'prefault', 'readonly'].includes(def.type)) s = def.innerType;
    else if (def.type === 'pipe') s = def.in;
    else break;
  }
  const def = s._zod.def;
  if (def.type === 'object') return Object.entries(def.shape as Record<string, unknown>).flatMap(([k, v]) => configKeys(v, prefix ? `${prefix}.${k}` : k));
  if (def.type === 'record') return configKeys(def.valueType, `${prefix}.NAME`);
  return [prefix];
}

describe('set-up as the README says', () => {
  it('the built bins are executable, and run as the README shows', () => {
    for (const [name, file] of Object.entries(pkg.bin)) {
      const mode = fs.statSync(path.join(ROOT, file)).mode;
      expect(mode & 0o111, `${file} (bin ${name}) is not executable: build with npm run build`).toBe(0o111);
      // orcr-tui carries its Node flag on its first line (env -S splits it): see src/tui/main.tsx.
      expect(fs.readFileSync(path.join(ROOT, file), 'utf8').split('\n', 1)[0], file).toMatch(/^#!\/usr\/bin\/env (node|-S node( --[a-z-]+=\w+)+)$/);
    }
    const direct = spawnSync(path.join(ROOT, 'dist/src/cli/main.js'), ['--help'], { encoding: 'utf8' });
    expect(direct.status, direct.stderr).toBe(0);
    expect(direct.stdout).toMatch(/^orcr — a supervisor for fleets of AI coding agents/);
  });

  it('npx orcr --help and npx orcr-tui --help work from the repository, with nothing downloaded', () => {
    for (const [bin, first] of [
      ['orcr', /^orcr — /],
      ['orcr-tui', /^usage: orcr-tui /],
    ] as const) {
      const r = spawnSync('npx', ['--no-install', bin, '--help'], {
        cwd: ROOT,
        encoding: 'utf8',
        timeout: 60_000,
        env: { ...process.env, npm_config_update_notifier: 'false' },
      });
      expect(r.status, `${bin}: ${r.stderr}`).toBe(0);
      expect(r.stdout).toMatch(first);
    }
  });

  it('orcr demo --home refuses a folder that is not empty, naming it; a missing or empty one is fine', () => {
    const parent = fs.mkdtempSync(path.join(os.tmpdir(), 'orcr-demo-t-'));
    try {
      const full = path.join(parent, 'full');
      fs.mkdirSync(full);
      fs.writeFileSync(path.join(full, 'notes.txt'), 'mine');
      const r = spawnSync(NODE, [CLI, 'demo', '--home', full], { encoding: 'utf8' });
      expect(r.status).toBe(2);
      expect(r.stderr).toContain(`orcr: --home ${JSON.stringify(full)} is not empty: give a new or empty folder`);
      expect(fs.readdirSync(full)).toEqual(['notes.txt']);
      const file = path.join(parent, 'file');
      fs.writeFileSync(file, '');
      expect(spawnSync(NODE, [CLI, 'demo', '--home', file], { encoding: 'utf8' }).stderr).toContain('is not a folder');

      for (const dir of [path.join(parent, 'missing'), fs.mkdtempSync(path.join(parent, 'empty-'))]) {
        const ok = spawnSync(NODE, [CLI, 'demo', '--home', dir, '--json'], { encoding: 'utf8', env: { ...process.env, ORCR_HOME: dir } });
        const h = Object.assign(Object.create(TestHome.prototype) as TestHome, { dir });
        try {
          expect(ok.status, ok.stderr).toBe(0);
          expect(JSON.parse(ok.stdout).home).toBe(dir);
        } finally {
          h.cleanup();
        }
      }
    } finally {
      fs.rmSync(parent, { recursive: true, force: true });
    }
  });
});

/** The first ```sh block after `marker` in the README. */
function shBlock(marker: string): string[] {
  const at = README.indexOf(marker);
  expect(at, marker).toBeGreaterThanOrEqual(0);
  return README.slice(at)
    .match(/```sh\n([\s\S]*?)```/)![1]!
    .trim()
    .split('\n');
}

describe('what the README tells a newcomer to try', () => {
  it('a run of the mock agent, waited on and read, works as written from the repository', () => {
    const h = home();
    const lines = shBlock('To try a run of your own without an agent CLI');
    expect(lines).toHaveLength(3);
    const results = lines.map((line) => {
      const [cmd, comment] = line.split(/\s+# /);
      const argv = cmd!.trim().split(/\s+/);
      expect(argv.slice(0, 2), line).toEqual(['npx', 'orcr']);
      const r = spawnSync(NODE, [CLI, ...argv.slice(2)], { cwd: ROOT, env: h.env, encoding: 'utf8', timeout: 60_000 });
      expect(r.status, `${line}: ${r.stderr}`).toBe(0);
      return { out: r.stdout, comment };
    });
    expect(results[0]!.out).toMatch(/^try-me [0-9a-f-]{36}\n$/);
    expect(results[1]!.out.trim()).toBe(results[1]!.comment);
    expect(h.json<{ protocol: string; turns: number }>(['show', 'try-me'])).toMatchObject({ protocol: 'claude', turns: 3 });
    expect(results[2]!.out.split('\n').filter((l) => l.startsWith('{"type":"assistant"')).length).toBeGreaterThan(0);
  });

  it('another project imports the SDK through a linked or path dependency (node_modules/orcr → the repository)', () => {
    const h = home();
    const project = fs.mkdtempSync(path.join(os.tmpdir(), 'orcr-consumer-'));
    try {
      fs.writeFileSync(
        path.join(project, 'package.json'),
        JSON.stringify({ name: 'consumer', version: '1.0.0', type: 'module', dependencies: { orcr: `file:${ROOT}` } }),
      );
      // What `npm install /path/to/orcr` and `npm link orcr` both leave: a link to the folder.
      fs.mkdirSync(path.join(project, 'node_modules'));
      fs.symlinkSync(ROOT, path.join(project, 'node_modules', 'orcr'));
      fs.writeFileSync(
        path.join(project, 'main.mjs'),
        "import { connect } from 'orcr';\nconst orcr = await connect();\nconsole.log(JSON.stringify(await orcr.list({ all: true })));\norcr.close();\n",
      );
      const r = spawnSync(NODE, ['main.mjs'], { cwd: project, env: h.env, encoding: 'utf8', timeout: 60_000 });
      expect(r.status, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout)).toEqual([]);
    } finally {
      fs.rmSync(project, { recursive: true, force: true });
    }
  });
});

describe('the README and --help stand alone', () => {
  it('documents every key config.json accepts', () => {
    const keys = configKeys(configSchema);
    expect(keys).toContain('providers.NAME.interactive_input');
    expect(keys.length).toBeGreaterThan(25);
    const config = section('## Configuration');
    const missing = keys.filter((k) => !config.includes(`\`${k}\``));
    expect(missing, 'config keys missing from the README').toEqual([]);
  });

  it('documents every field of a --from line, the prompt and input forms, and the exit codes', () => {
    const fanOut = section('### Fan-out lines');
    expect(
      LINE_FIELDS.filter((f) => !fanOut.includes(`\`${f}\``)),
      'fan-out fields missing from the README',
    ).toEqual([]);
    for (const text of ['-p @FILE', '-p -', '-p @@', 'orcr send RUN -', 'orcr send <run> -']) expect(README).toContain(text);
    for (const code of [0, 1, 2, 3, 4, 5, 6, 7]) expect(README).toMatch(new RegExp(`^\\| ${code} \\| \\S`, 'm'));
    // The verbs' list names the exit codes; each verb's own help has its forms.
    expect(mainUsage()).toContain('Exit codes');
    for (const text of ['-p @FILE', '-p -', '@@']) expect(VERB_USAGE.run).toContain(text);
    expect(VERB_USAGE.send).toContain('send <run> -');
  });

  it('points at nothing outside the repository', () => {
    const outside = /\.\.\/|\/work\/|shared\/|CONTRACT\.md|PITFALLS\.md|ARCHITECTURE\.md|STYLE\.md/;
    expect(README).not.toMatch(outside);
    expect(mainUsage()).not.toMatch(outside);
    for (const [verb, text] of Object.entries(VERB_USAGE)) expect(text, verb).not.toMatch(outside);
    // Files the README names are in the repository.
    for (const [, file] of README.matchAll(/`((?:[\w.-]+\/)+[\w.-]+\.(?:md|ts))`/g)) {
      expect(fs.existsSync(path.join(ROOT, file!)), file).toBe(true);
    }
  });
});
