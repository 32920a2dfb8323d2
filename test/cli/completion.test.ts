// orcr completion bash|zsh|fish, tried in the shells themselves: bash's
// completion function driven with COMP_WORDS and COMP_CWORD (and once by a
// Tab on a real terminal), zsh's candidates and a Tab in a zsh whose fpath
// holds the script, fish's own `complete -C`. What each offers is checked
// against the verbs' grammar, node by node; run and loop names come from a
// real supervisor, through `orcr __complete`, which never starts one.

import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { shownVerbs, spec, VERBS, type Command, type VerbName } from '../../src/cli/grammar.js';
import { CLI, NODE, TestHome, until } from '../support/harness.js';
import { useLiveHomes } from '../support/in-process.js';
import { itWhen } from '../support/skip.js';
import { PtyScreen } from '../support/terminal.js';

const home = useLiveHomes();

const has = (shell: string): boolean => spawnSync(shell, ['-c', 'exit 0']).status === 0;
const ZSH = has('zsh') ? null : 'zsh is not installed (apt-get install zsh)';
const FISH = has('fish') ? null : 'fish is not installed (apt-get install fish)';

/** A folder on PATH whose `orcr` is the built CLI, as `npm link` leaves one; Node first on PATH for its #! line. */
const BIN = fs.mkdtempSync(path.join(os.tmpdir(), 'orcr-bin-'));
fs.symlinkSync(CLI, path.join(BIN, 'orcr'));
/** Files and folders to complete: a folder, a file, a name with a space. */
const FILES = fs.mkdtempSync(path.join(os.tmpdir(), 'orcr-files-'));
fs.mkdirSync(path.join(FILES, 'sub dir'));
fs.writeFileSync(path.join(FILES, 'file.txt'), '');
afterAll(() => {
  for (const d of [BIN, FILES]) fs.rmSync(d, { recursive: true, force: true });
});

/** A home where no supervisor ever runs. */
const NOWHERE = path.join(os.tmpdir(), `orcr-completion-never-${process.pid}`);
const envFor = (dir: string): NodeJS.ProcessEnv => ({
  ...process.env,
  ORCR_HOME: dir,
  NO_COLOR: '1',
  PATH: `${BIN}:${path.dirname(NODE)}:${process.env.PATH ?? ''}`,
});

const script = (shell: string): string => {
  const r = spawnSync(NODE, [CLI, 'completion', shell], { encoding: 'utf8', env: envFor(NOWHERE) });
  expect(r.status, r.stderr).toBe(0);
  return r.stdout;
};

/** A shell program run to its end without blocking this event loop (a supervisor here answers what it asks). */
function shell(file: string, args: string[], env: NodeJS.ProcessEnv, cwd = FILES): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { env, cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

const sq = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

/**
 * bash's replies for each command line (its words, the last one under the
 * cursor), from _orcr as bash calls it: COMP_WORDS, COMP_CWORD, COMPREPLY.
 */
async function bashReplies(lines: string[][], env: NodeJS.ProcessEnv = envFor(NOWHERE)): Promise<string[][]> {
  const file = path.join(FILES, '..', `orcr-completion-${process.pid}.bash`);
  fs.writeFileSync(file, script('bash'));
  const driver = [
    `source ${sq(file)}`,
    `t() { COMP_WORDS=("$@"); COMP_CWORD=$((\${#COMP_WORDS[@]} - 1)); COMPREPLY=(); _orcr; printf '%s\\x1f' "\${COMPREPLY[@]}"; printf '\\x1e'; }`,
    ...lines.map((words) => `t ${words.map(sq).join(' ')}`),
  ].join('\n');
  const r = await shell('bash', ['--norc', '--noprofile', '-c', driver], env);
  fs.rmSync(file, { force: true });
  expect(r.stderr).toBe('');
  return r.stdout
    .split('\x1e')
    .slice(0, -1)
    .map((l) => l.split('\x1f').filter((w) => w !== ''));
}

/** Every command of the grammar (a verb, a subcommand), with the words that lead to it. */
function commands(): { words: string[]; verb: VerbName; c: Command }[] {
  const out: { words: string[]; verb: VerbName; c: Command }[] = [];
  const walk = (words: string[], verb: VerbName, c: Command): void => {
    out.push({ words, verb, c });
    for (const [w, s] of Object.entries(c.subcommands ?? {})) walk([...words, w], verb, s);
  };
  for (const v of shownVerbs()) walk([v], v, spec(v));
  return out;
}

/** The long flags that count at a command: its own and its verb's (parsed anywhere on the line), --json where the verb has it, --help. */
function longFlags(words: string[], verb: VerbName): string[] {
  const flags: string[] = [];
  let c: Command = spec(verb);
  for (let i = 0; ; i++) {
    flags.push(
      ...Object.keys(c.flags ?? {})
        .filter((f) => f !== 'json')
        .map((f) => `--${f}`),
    );
    if (i === words.length - 1) break;
    c = c.subcommands![words[i + 1]!]!;
  }
  return [...flags, ...(spec(verb).json ? ['--json'] : []), '--help'];
}

describe('orcr completion', () => {
  it('prints each shell a script it reads without a syntax error, made by this orcr', async () => {
    expect(script('bash')).toMatch(/^# orcr's completion for bash .*\n# Load it from ~\/.bashrc: {2}source <\(orcr completion bash\)\n/);
    expect(script('zsh')).toMatch(/^#compdef orcr\n/);
    expect(script('fish')).toMatch(/^# orcr's completion for fish/);
    // Each shell reads its script without running it (-n): no syntax error.
    for (const [sh, flag, reason] of [
      ['bash', '-n', null],
      ['zsh', '-n', ZSH],
      ['fish', '--no-execute', FISH],
    ] as const) {
      if (reason) continue;
      const file = path.join(FILES, '..', `orcr-completion-${process.pid}.${sh}`);
      fs.writeFileSync(file, script(sh));
      const r = spawnSync(sh, [flag, file], { encoding: 'utf8' });
      fs.rmSync(file);
      expect({ status: r.status, stderr: r.stderr }, sh).toEqual({ status: 0, stderr: '' });
    }
  });

  it('is a usage error without a shell, for one it does not know (any case), for two, and with --json', () => {
    const h = Object.assign(Object.create(TestHome.prototype) as TestHome, { dir: NOWHERE });
    const cases: [string[], RegExp][] = [
      [['completion'], /^orcr: completion needs a shell: bash, zsh or fish$/m],
      [['completion', 'BASH'], /^orcr: unknown shell "BASH"; did you mean "bash"\? \(completion takes bash, zsh or fish\)$/m],
      [['completion', 'tcsh'], /^orcr: unknown shell "tcsh" \(completion takes bash, zsh or fish\)$/m],
      [['completion', 'ba\x1b[2Jsh'], /^orcr: unknown shell "ba\\u001b\[2Jsh" /m],
      [['completion', ''], /^orcr: unknown shell "" /m],
      [['completion', 'x'.repeat(5000)], /^orcr: unknown shell "x{60}…" \(5000 characters\) /m],
      [['completion', 'bash', 'zsh'], /^orcr: completion takes one shell \(bash, zsh or fish\), got 2 words$/m],
      [['completion', '--frob'], /^orcr: unknown flag "--frob"$/m],
      [['completion', '--\x07bash'], /^orcr: unknown flag "--\\u0007bash"$/m],
    ];
    for (const [args, message] of cases) {
      const r = h.cli(args, { env: envFor(NOWHERE) });
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(message);
      expect(r.stderr).toMatch(/^usage: orcr completion bash\|zsh\|fish/m);
      expect(r.stderr).not.toContain('\x1b');
    }
    const json = h.cli(['completion', 'bash', '--json'], { env: envFor(NOWHERE) });
    expect(json.code).toBe(2);
    expect(JSON.parse(json.stdout)).toEqual({ error: { code: 'usage', message: 'completion prints a shell script: --json does not go with it' } });
    expect(fs.existsSync(NOWHERE)).toBe(false);
  });
});

describe('bash', () => {
  it('offers the verbs (not the hidden one), then what each verb and subcommand takes: its subcommands, its flags', async () => {
    const all = commands();
    const lines = [
      ['orcr', ''],
      ['orcr', 'sh'],
      ['orcr', 'help', 'lo'],
      ['orcr', '-'],
      ...all.flatMap(({ words }) => [
        ['orcr', ...words, ''],
        ['orcr', ...words, '--'],
      ]),
    ];
    const replies = await bashReplies(lines);
    expect(replies[0]).toEqual(shownVerbs());
    expect(replies[1]).toEqual(['show']);
    expect(replies[2]).toEqual(['logs', 'loop']);
    expect(replies[3]).toEqual(['--help', '-h', '--version']);
    all.forEach(({ words, verb, c }, i) => {
      const [next, flags] = [replies[4 + 2 * i]!, replies[5 + 2 * i]!];
      const line = `orcr ${words.join(' ')}`;
      if (c.subcommands) expect(next, line).toEqual(Object.keys(c.subcommands));
      else if (!c.operands || typeof c.operands.kind === 'string') expect(next, line).toEqual(c.operands?.kind === 'verb' ? shownVerbs() : []);
      else expect(next, line).toEqual([...c.operands.kind]);
      expect(flags, line).toEqual(longFlags(words, verb));
    });
  });

  it("offers a flag's values after it, after its = (bash splits there) and in one word with it; a short flag's too", async () => {
    const lines = [
      ['orcr', 'kill', '--status', ''],
      ['orcr', 'ps', '--status', '=', 'q'],
      ['orcr', 'ps', '--status=q'],
      ['orcr', 'run', '--protocol', 'c'],
      ['orcr', 'run', '-n', 'x', '--loop', ''],
      ['orcr', 'loop', 'create', '--overlap', ''],
      ['orcr', 'run', '--cwd', ''],
      ['orcr', 'run', '--env-from', ''],
      ['orcr', 'demo', '--home', 's'],
      // A value is never taken for a verb or a subcommand: `orcr ps -a run` is ps, and `--name show` is a name.
      ['orcr', 'ps', '-a', 'run', '--'],
      ['orcr', 'kill', '--name', 'show', '--st'],
      ['orcr', 'run', '-p', 'text', ''],
    ];
    const r = await bashReplies(lines);
    expect(r[0]).toEqual(['queued', 'starting', 'working', 'idle', 'blocked']);
    expect(r[1]).toEqual(['queued']);
    expect(r[2]).toEqual(['--status=queued']);
    expect(r[3]).toEqual(['claude', 'codex', 'codex-app']);
    expect(r[4]).toEqual(['warn', 'terminate', 'off']);
    expect(r[5]).toEqual(['queue', 'skip']);
    expect(r[6]).toEqual(['sub dir']);
    expect(r[7]!.sort()).toEqual(['file.txt', 'sub dir']);
    expect(r[8]).toEqual(['sub dir']);
    expect(r[9]).toEqual(['--all', '--status', '--provider', '--tree', '--cluster', '--host', '--json', '--help']);
    expect(r[10]).toEqual(['--status']);
    expect(r[11]).toEqual([]);
  });

  it('after --, a command, then its arguments as files', async () => {
    const r = await bashReplies([
      ['orcr', 'run', '-n', 'x', '--', 'ech'],
      ['orcr', 'run', '--', 'echo', 'fi'],
      ['orcr', 'loop', 'create', 'n', '* * * * *', '--', 'printf', 'su'],
      ['orcr', 'run', '--', 'sh', '--'],
    ]);
    expect(r[0]).toEqual(['echo']);
    expect(r[1]).toEqual(['file.txt']);
    expect(r[2]).toEqual(['sub dir']);
    expect(r[3]).toEqual([]);
  });

  it('offers no run names where no supervisor runs, and starts none', async () => {
    const r = await bashReplies([
      ['orcr', 'show', ''],
      ['orcr', 'kill', 'a', ''],
      ['orcr', 'run', '--after', ''],
    ]);
    expect(r).toEqual([[], [], []]);
    expect(fs.existsSync(NOWHERE)).toBe(false);
  });
});

describe('run and loop names, from the running supervisor', () => {
  it('are offered where a run or a loop goes, quoted for the shell; a name is never run as a command', async () => {
    const h = await home();
    const mark = path.join(h.dir, 'pwned');
    for (const name of ['alpha', 'with space', `dollar$(touch ${mark})`, "it's"]) await h.run(['-n', name, '--', 'sleep', '300']);
    await h.run(['-n', 'done-1', '--', 'true']);
    expect(await h.waitCode('done-1')).toBe(0);
    await h.cli(['loop', 'create', 'nightly', '0 3 * * *', '--', 'true']);
    const env = envFor(h.dir);
    const names = ['alpha', 'with\\ space', `dollar\\$\\(touch\\ ${mark.replace(/([^\w/.-])/g, '\\$1')}\\)`, "it\\'s", 'done-1'];
    const r = await bashReplies(
      [
        ['orcr', 'show', ''],
        ['orcr', 'kill', 'alpha', ''],
        ['orcr', 'wait', '--all', '--timeout', '1s', 'w'],
        ['orcr', 'send', 'alpha', ''],
        ['orcr', 'run', '--after', 'd'],
        ['orcr', 'worktree', 'finish', 'a'],
        ['orcr', 'loop', 'pause', ''],
        ['orcr', 'loop', 'run', 'start', 'n'],
        ['orcr', 'kill', '--after', 'it'],
      ],
      env,
    );
    expect(r[0]).toEqual(names);
    expect(r[1]).toEqual(names);
    expect(r[2]).toEqual(['with\\ space']);
    expect(r[3]).toEqual([]);
    expect(r[4]).toEqual([names[2], 'done-1']);
    expect(r[5]).toEqual(['alpha']);
    expect(r[6]).toEqual(['nightly']);
    expect(r[7]).toEqual(['nightly']);
    expect(r[8]).toEqual(["it\\'s"]);
    expect(fs.existsSync(mark)).toBe(false);
    // What the scripts read: active runs first, then the newest ended ones, one a line.
    const listed = await h.cli(['__complete', 'runs']);
    expect(listed).toEqual({ code: 0, stdout: `alpha\nwith space\ndollar$(touch ${mark})\nit's\ndone-1\n`, stderr: '' });
    expect((await h.cli(['__complete', 'loops'])).stdout).toBe('nightly\n');
    expect(JSON.parse((await h.cli(['__complete', 'runs', '--json'])).stdout)).toEqual(['alpha', 'with space', `dollar$(touch ${mark})`, "it's", 'done-1']);
  });

  it('a Tab on a real terminal in bash completes a verb, and a name with a space, escaped', async () => {
    const h = await home();
    await h.run(['-n', 'with space', '--', 'sleep', '300']);
    const term = new PtyScreen('bash', ['--norc', '--noprofile', '-i'], { env: { ...envFor(h.dir), PS1: '$ ', TERM: 'xterm' }, cwd: FILES });
    try {
      // Each line typed at a prompt: typed ahead, bash's terminal echoes it before readline reads it.
      await term.waitFor((s) => /^\$ $/m.test(s), 'the prompt');
      term.type('source <(orcr completion bash)\r');
      await term.waitFor((s) => /^\$ source .*\n\$ $/m.test(s), 'the prompt after source');
      term.type('orcr sho\t');
      await term.waitFor((s) => /^\$ orcr show $/m.test(s), 'the verb completed');
      term.type('wi\t');
      await term.waitFor((s) => /^\$ orcr show with\\ space $/m.test(s), 'the name completed, its space escaped');
    } finally {
      term.kill();
    }
  });

  it('__complete prints nothing and exits 0 where no supervisor runs, makes no home, starts nothing, and tells a stranger what it takes', async () => {
    const h = Object.assign(Object.create(TestHome.prototype) as TestHome, { dir: NOWHERE });
    expect(h.cli(['__complete', 'runs'], { env: envFor(NOWHERE) })).toEqual({ code: 0, stdout: '', stderr: '' });
    expect(fs.existsSync(NOWHERE)).toBe(false);
    // A socket left by a supervisor that is gone: nothing either, and no supervisor comes up.
    const stale = await home();
    await stale.startSupervisor();
    await stale.stopSupervisor();
    fs.writeFileSync(path.join(stale.dir, 'orcr.sock'), '');
    expect(await stale.cli(['__complete', 'runs'])).toEqual({ code: 0, stdout: '', stderr: '' });
    expect(stale.running).toBe(false);
    expect(h.cli(['__complete', 'runs'], { env: envFor(stale.dir) })).toEqual({ code: 0, stdout: '', stderr: '' });
    expect(h.cli(['__complete', 'runs', '--json'], { env: envFor(NOWHERE) })).toEqual({ code: 0, stdout: '[]\n', stderr: '' });
    // What a stranger could type at it: a usage error, the word shown escaped.
    const cases: [string[], RegExp][] = [
      [['__complete'], /^orcr: __complete needs a kind of name: runs or loops$/m],
      [['__complete', 'files'], /^orcr: unknown kind of name "files" \(__complete takes runs or loops\)$/m],
      [['__complete', 'RUNS'], /^orcr: unknown kind of name "RUNS"; did you mean "runs"\? /m],
      [['__complete', ''], /^orcr: unknown kind of name "" /m],
      [['__complete', 'r\nuns\x1b[0m'], /^orcr: unknown kind of name "r\\nuns\\u001b\[0m" /m],
      [['__complete', 'z'.repeat(3000)], /^orcr: unknown kind of name "z{60}…" \(3000 characters\) /m],
      [['__complete', 'runs', 'loops'], /^orcr: __complete takes one kind of name \(runs or loops\), got 2 words$/m],
    ];
    for (const [args, message] of cases) {
      const r = h.cli(args, { env: envFor(NOWHERE) });
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(message);
      expect(r.stderr.split('\n')[0]).not.toMatch(/[\x00-\x1f]/);
    }
    expect(fs.existsSync(NOWHERE)).toBe(false);
  });

  it('__complete gives up at once on a supervisor that does not answer: a Tab never hangs', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'orcr-t-'));
    fs.chmodSync(dir, 0o700);
    const held: net.Socket[] = [];
    const server = net.createServer((s) => void held.push(s));
    await new Promise<void>((resolve) => server.listen(path.join(dir, 'orcr.sock'), resolve));
    try {
      const started = Date.now();
      const r = await shell(NODE, [CLI, '__complete', 'runs'], envFor(dir));
      expect({ code: r.code, stdout: r.stdout }).toEqual({ code: 0, stdout: '' });
      expect(Date.now() - started).toBeLessThan(10_000);
      await until(() => held.length > 0, 'the connection it made');
    } finally {
      for (const s of held) s.destroy();
      server.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('zsh', () => {
  /** What __orcr_candidates says to offer for each line: how, then the words (zsh's compadd filters them). */
  async function zshOffers(lines: string[][], env: NodeJS.ProcessEnv = envFor(NOWHERE)): Promise<string[][]> {
    const driver = [
      'source <(orcr completion zsh)',
      't() { words=("$@"); CURRENT=$#words; __orcr_candidates; print -rn -- "$__orcr_offer"; for w in $reply; do print -rn -- $\'\\x1f\'"$w"; done; print -rn $\'\\x1e\'; }',
      ...lines.map((words) => `t ${words.map(sq).join(' ')}`),
    ].join('\n');
    const r = await shell('zsh', ['-f', '-c', driver], env);
    expect(r.stderr).toBe('');
    return r.stdout
      .split('\x1e')
      .slice(0, -1)
      .map((l) => l.split('\x1f'));
  }

  itWhen(
    { reason: ZSH, optional: true },
    'says what to offer: verbs with their summaries, subcommands, flags, values, files, the command after --',
    async () => {
      const r = await zshOffers([
        ['orcr', ''],
        ['orcr', 'loop', 'run', ''],
        ['orcr', 'server', 'stop', '-'],
        ['orcr', 'kill', '--status', ''],
        ['orcr', 'ps', '--status=q'],
        ['orcr', 'run', '--cwd', ''],
        ['orcr', 'run', '-n', 'x', '--', 'ech'],
        ['orcr', 'show', ''],
      ]);
      expect(r[0]).toEqual(['described', ...shownVerbs().map((v) => `${v}:${spec(v).summary}`)]);
      expect(r[1]).toEqual(['described', 'start', 'stop', 'ls']);
      expect(r[2]).toEqual(['words', '--drain', '--kill-agents', '--json', '--help', '-h']);
      expect(r[3]).toEqual(['words', 'queued', 'starting', 'working', 'idle', 'blocked']);
      expect(r[4]).toEqual(['words', ...VERBS.ps.flags.status.value]);
      expect(r[5]).toEqual(['dirs']);
      expect(r[6]).toEqual(['command']);
      expect(r[7]).toEqual(['words']);
    },
  );

  itWhen({ reason: ZSH, optional: true }, "installed on fpath as the README says, a Tab completes a verb, a flag's value and a run name", async () => {
    const h = await home();
    await h.run(['-n', 'with space', '--', 'sleep', '300']);
    const zfunc = path.join(h.dir, 'zfunc');
    fs.mkdirSync(zfunc);
    fs.writeFileSync(path.join(zfunc, '_orcr'), script('zsh'));
    const term = new PtyScreen('zsh', ['-f', '-i'], { env: { ...envFor(h.dir), PS1: '%% ', TERM: 'xterm' }, cwd: FILES });
    try {
      await term.waitFor((s) => /^% $/m.test(s), 'the prompt');
      term.type(`fpath=(${zfunc} $fpath); autoload -U compinit && compinit -u -D\r`);
      await term.waitFor((s) => /^% fpath=.*\n% $/m.test(s), 'the prompt after compinit');
      term.type('orcr sho\t');
      await term.waitFor((s) => /^% orcr show $/m.test(s), 'the verb completed');
      term.type('wi\t');
      await term.waitFor((s) => /^% orcr show with\\ space $/m.test(s), 'the run name completed, its space quoted');
      term.keys('C-u');
      term.type('orcr kill --status q\t');
      await term.waitFor((s) => /^% orcr kill --status queued $/m.test(s), "the flag's value completed");
    } finally {
      term.kill();
    }
  });
});

describe('fish', () => {
  /** fish's own completions for a command line (word, then its description if any). */
  async function fishCompletes(lines: string[], env: NodeJS.ProcessEnv = envFor(NOWHERE)): Promise<string[][]> {
    const driver = ['orcr completion fish | source', ...lines.map((l) => `complete -C ${sq(l)}; printf '\\x1e'`)].join('\n');
    const r = await shell('fish', ['--no-config', '-c', driver], env);
    expect(r.stderr).toBe('');
    return r.stdout
      .split('\x1e')
      .slice(0, -1)
      .map((l) => l.split('\n').filter((x) => x !== ''));
  }

  itWhen({ reason: FISH, optional: true }, 'completes verbs with their summaries, subcommands, flags, values, files and the command after --', async () => {
    const r = await fishCompletes([
      'orcr sh',
      'orcr loop run ',
      'orcr server stop --',
      'orcr kill --status ',
      'orcr ps --status=q',
      'orcr run --cwd s',
      'orcr run -- ech',
      'orcr show ',
    ]);
    expect(r[0]).toEqual([`show\t${VERBS.show.summary}`]);
    expect(r[1]!.sort()).toEqual(['ls', 'start', 'stop']);
    expect(r[2]!.sort()).toEqual(['--drain', '--help', '--json', '--kill-agents']);
    expect(r[3]!.sort()).toEqual([...VERBS.kill.flags.status.value].sort());
    expect(r[4]).toEqual(['--status=queued']);
    expect(r[5]).toEqual(['sub dir/\tDirectory']);
    expect(r[6]!.map((l) => l.split('\t')[0])).toContain('echo');
    expect(r[7]).toEqual([]);
  });

  itWhen({ reason: FISH, optional: true }, 'completes run names from the running supervisor', async () => {
    const h = await home();
    for (const name of ['alpha', 'with space']) await h.run(['-n', name, '--', 'sleep', '300']);
    const r = await fishCompletes(['orcr show ', 'orcr logs w', 'orcr run --after=a'], envFor(h.dir));
    expect(r).toEqual([['alpha', 'with space'], ['with space'], ['--after=alpha']]);
  });
});
