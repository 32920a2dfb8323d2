// orcr --help as git, kubectl and pueue print theirs: the verbs, one line
// each, grouped, made from the verbs' grammar; orcr help VERB as orcr VERB
// --help; and what a stranger types where a verb goes — nothing, a typo, an
// empty word, a line break, an escape sequence, a huge word — each a usage
// error (exit 2) that shows the word escaped and never creates a home.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { GROUPS, shownVerbs, spec, VERBS, type Command } from '../../src/cli/grammar.js';
import { VERB_USAGE } from '../../src/cli/usage.js';
import { closest } from '../../src/cli/words.js';
import { CLI, NODE, TestHome } from '../support/harness.js';
import { spawnSync } from 'node:child_process';

/** A home that is never made: none of these verbs may create it. */
const NOWHERE = path.join(os.tmpdir(), `orcr-help-never-${process.pid}`);
const env = { ...process.env, ORCR_HOME: NOWHERE, NO_COLOR: '1' };
const h = Object.assign(Object.create(TestHome.prototype) as TestHome, { dir: NOWHERE });
const orcr = (args: string[], opts: { process?: boolean; env?: NodeJS.ProcessEnv } = {}) => h.cli(args, { env: opts.env ?? env, process: opts.process });

/** Every flag a command declares, below it too, each as its spellings (`--name`, `-n`). */
function flagsOf(c: Command): string[][] {
  return [
    ...Object.entries(c.flags ?? {}).map(([name, f]) => [`--${name}`, ...(f.short ? [`-${f.short}`] : [])]),
    ...Object.values(c.subcommands ?? {}).flatMap(flagsOf),
  ];
}
const spellings = (c: Command): string[] => flagsOf(c).flat();

describe('orcr --help', () => {
  it('lists every verb once, one line each under its group, with a line on where the detail is', () => {
    const r = orcr(['--help']);
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines.length).toBeLessThan(60);
    for (const l of lines) expect(l.length, l).toBeLessThanOrEqual(80);
    for (const v of shownVerbs()) {
      const listed = lines.filter((l) => l.trim().split(/\s+/)[0] === v && l.startsWith('  '));
      expect(listed, v).toEqual([`  ${v.padEnd(12)}${spec(v).summary}`]);
      // Under its group's title: the nearest unindented line above it.
      const at = lines.indexOf(listed[0]!);
      const title = lines
        .slice(0, at)
        .reverse()
        .find((l) => l !== '' && !l.startsWith(' '));
      expect(title, v).toBe(GROUPS[spec(v).group]);
    }
    expect(r.stdout).not.toMatch(/__complete/);
    expect(r.stdout).toMatch(/^orcr help VERB \(or orcr VERB --help\): a verb's flags and what they do\.$/m);
    expect(r.stdout).toMatch(/^Exit codes: 0 ok/m);
  });

  it('orcr help, orcr -h and orcr --help print the same; orcr alone prints it too, as a usage error', () => {
    const help = orcr(['--help']).stdout;
    for (const args of [['help'], ['-h']]) expect(orcr(args)).toEqual({ code: 0, stdout: help, stderr: '' });
    expect(orcr([])).toEqual({ code: 2, stdout: help, stderr: '' });
  });

  it('orcr help VERB prints what orcr VERB --help prints, for every verb', () => {
    for (const v of Object.keys(VERBS) as (keyof typeof VERBS)[]) {
      const viaHelp = orcr(['help', v]);
      expect(viaHelp.code, v).toBe(0);
      expect(viaHelp.stdout).toBe(`usage: ${VERB_USAGE[v]}\n`);
      expect(orcr([v, '--help']).stdout, v).toBe(viaHelp.stdout);
    }
    expect(orcr(['help', 'loop', 'run', 'start']).stdout).toBe(`usage: ${VERB_USAGE.loop}\n`);
    expect(orcr(['--help', 'kill']).stdout).toBe(`usage: ${VERB_USAGE.kill}\n`);
  });

  it('--json: the verbs with their group and summary; one verb with its usage, flags and subcommands', () => {
    const all = JSON.parse(orcr(['help', '--json']).stdout) as { verbs: { verb: string; group: string; summary: string }[] };
    expect(all.verbs.map((v) => v.verb)).toEqual(shownVerbs());
    expect(all.verbs.find((v) => v.verb === 'kill')).toEqual({ verb: 'kill', group: GROUPS.act, summary: VERBS.kill.summary });
    const loop = JSON.parse(orcr(['help', 'loop', '--json']).stdout);
    expect(loop.usage).toBe(VERB_USAGE.loop);
    expect(loop.subcommands.map((s: { subcommand: string }) => s.subcommand)).toEqual(Object.keys(VERBS.loop.subcommands));
    const create = loop.subcommands.find((s: { subcommand: string }) => s.subcommand === 'create');
    expect(create.flags).toContainEqual({ flag: '--once-at', short: null, takes_value: true });
    const ps = JSON.parse(orcr(['help', 'ps', '--json']).stdout);
    expect(ps.flags).toContainEqual({ flag: '--provider', short: '-a', takes_value: true });
  });
});

describe("each verb's flags are declared once, and its help names them", () => {
  it("every flag the grammar declares is in the verb's usage, and every flag the usage names is declared", () => {
    for (const v of Object.keys(VERBS) as (keyof typeof VERBS)[]) {
      const declared = new Set([...spellings(spec(v)), '--json', '--help', '-h']);
      const usage = VERB_USAGE[v];
      for (const f of flagsOf(spec(v))) {
        const named = f.some((s) => new RegExp(`(^|[\\s\\[(|])${s}(?![\\w-])`).test(usage));
        expect(named, `${v}: ${f.join(', ')} is declared but not in its usage`).toBe(true);
      }
      // A flag named in the usage (`--flag` or `-x` at a word's start), unless it is another verb's (`run --after`).
      const named = [...usage.matchAll(/(?<=^|[\s[(|])(--[a-z][\w-]*|-[a-zA-Z])(?![\w-])/g)].map((m) => m[1]!);
      const others = [...usage.matchAll(/\b(?:orcr )?(run|loop create|server stop|show|gc|kill) (--[a-z][\w-]*)/g)].map((m) => m[2]!);
      // Words that name another verb's flag without that verb before it.
      others.push(...(({ show: ['-e'] } as Record<string, string[]>)[v] ?? []));
      for (const n of named) if (!others.includes(n)) expect(declared.has(n), `${v}: its usage names ${n}, which it does not declare`).toBe(true);
    }
  });

  it('every command, each subcommand too, has a usage line: `orcr PATH WORD`, or alike ones as `orcr PATH A|B`', () => {
    const leaves = (path: string[], c: Command): string[][] =>
      c.subcommands ? Object.entries(c.subcommands).flatMap(([w, sub]) => leaves([...path, w], sub)) : [path];
    for (const v of Object.keys(VERBS) as (keyof typeof VERBS)[]) {
      const lines = VERB_USAGE[v].split('\n');
      for (const path of leaves([v], spec(v))) {
        const [word, parents] = [path.at(-1)!, path.slice(0, -1)];
        const line = new RegExp(`^orcr ${[...parents, ''].join(' ')}([\\w-]+\\|)*${word}(\\|[\\w-]+)*( |$)`);
        expect(
          lines.some((l) => line.test(l)),
          `${path.join(' ')} in ${JSON.stringify(VERB_USAGE[v])}`,
        ).toBe(true);
      }
    }
  });

  it('a verb refuses a flag it does not declare, naming it, and takes every one it does', () => {
    const r = orcr(['ps', '--frob']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^orcr: unknown flag "--frob"$/m);
    expect(orcr(['ps', '--stauts', 'queued']).stderr).toMatch(/^orcr: unknown flag "--stauts"; did you mean "--status"\?$/m);
    expect(orcr(['ps', '--\x1b[31mred']).stderr).toMatch(/^orcr: unknown flag "--\\u001b\[31mred"$/m);
    expect(orcr(['stats', 'now']).stderr).toMatch(/^orcr: unexpected argument "now": it takes none there$/m);
    expect(r.stderr).toContain(`usage: ${VERB_USAGE.ps}`);
    // --help wins over whatever else the line holds: each declared flag is taken (no "unknown flag").
    for (const s of spellings(VERBS.kill)) expect(orcr(['kill', s, '--help']).code, s).toBe(0);
  });
});

describe('what a stranger types where a verb goes', () => {
  const cases: [string, string[], RegExp][] = [
    ['a typo', ['stauts'], /^orcr: unknown verb "stauts"; did you mean "stats"\? \(orcr --help lists the verbs\)$/],
    ['a swap', ['help', 'lgos'], /^orcr: unknown verb "lgos"; did you mean "logs"\? /],
    ['a start of one', ['comp'], /^orcr: unknown verb "comp"; did you mean "completion"\? /],
    ['nothing like one', ['help', 'frobnicate'], /^orcr: unknown verb "frobnicate" \(orcr --help lists the verbs\)$/],
    ['an empty word', ['help', ''], /^orcr: unknown verb "" \(orcr --help lists the verbs\)$/],
    ['an empty verb', [''], /^orcr: unknown verb "" /],
    ['a line break', ['help', 'a\nb'], /^orcr: unknown verb "a\\nb" /],
    ['an escape sequence', ['\x1b[31mred\x1b[0m'], /^orcr: unknown verb "\\u001b\[31mred\\u001b\[0m" /],
    ['a bell and a DEL', ['help', '\x07x\x7f'], /^orcr: unknown verb "\\u0007x\\u007f" /],
    ['a bidi override', ['help', 'ab\u202ecd'], /^orcr: unknown verb "ab\\u202ecd" /],
    ['an option', ['--frob'], /^orcr: unknown option "--frob": before a verb orcr takes only --help or --version/],
    ['a subcommand that is none', ['help', 'loop', 'frob'], /^orcr: loop has no subcommand "frob" \(it has create, ls, logs, pause, resume, rm, run\)$/],
    ['a subcommand of a verb with none', ['help', 'ps', 'x'], /^orcr: ps has no subcommands, got "x" \(orcr help ps\)$/],
  ];
  it.each(cases)('%s: a usage error (exit 2) showing it escaped, on stderr only; --json gives it as JSON', (_what, args, message) => {
    const r = orcr(args);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.split('\n')[0]).toMatch(message);
    expect(r.stderr).not.toMatch(/[\x00-\x09\x0b-\x1f\x7f\u202e]/);
    const json = orcr([...args, '--json']);
    expect(json.code).toBe(2);
    const err = JSON.parse(json.stdout) as { error: { code: string; message: string } };
    expect(err.error.code).toBe('usage');
    expect(`orcr: ${err.error.message}`).toMatch(message);
    expect(fs.existsSync(NOWHERE)).toBe(false);
  });

  it('a huge word (100,000 characters) is cut in the message, with its length; in a process of its own, as a shell runs it', () => {
    const huge = 'a'.repeat(100_000);
    for (const args of [[huge], ['help', huge]]) {
      const r = orcr(args, { process: true });
      expect(r.code).toBe(2);
      expect(r.stderr).toBe(`orcr: unknown verb "${'a'.repeat(60)}…" (100000 characters) (orcr --help lists the verbs)\n`);
    }
  });

  it("with NO_COLOR, and with colour forced, no escape sequence in the list, a verb's help or an error", () => {
    for (const e of [env, { ...env, NO_COLOR: undefined, FORCE_COLOR: '1' }]) {
      for (const args of [['--help'], ['help', 'run'], ['help', 'nope'], ['nope']]) {
        const r = orcr(args, { env: e });
        expect(r.stdout + r.stderr).not.toContain('\x1b');
      }
    }
  });

  it('orcr --version is unchanged, and no verb here made the home', () => {
    const r = spawnSync(NODE, [CLI, '--version'], { env, encoding: 'utf8' });
    expect(r.stdout).toMatch(/^orcr \d+\.\d+\.\d+\n$/);
    expect(fs.existsSync(NOWHERE)).toBe(false);
  });
});

describe('closest', () => {
  it('finds the verb a typo meant, and none for a word like no verb', () => {
    const verbs = shownVerbs();
    expect(closest('stat', verbs)).toEqual(['stats']);
    expect(closest('kil', verbs)).toEqual(['kill']);
    expect(closest('SHOW', verbs)).toEqual(['show']);
    expect(closest('worktre', verbs)).toEqual(['worktree']);
    expect(closest('zzzz', verbs)).toEqual([]);
    expect(closest('x'.repeat(10_000), verbs)).toEqual([]);
  });
});
