// Names people read and type back (`kill NAME`): one visible line each. A
// name with an invisible character, a line separator or combining marks with
// nothing to sit on is refused, whichever way it comes (a flag, a --from
// line, the socket), and the refused name is shown escaped, never stripped.

import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { until, useHomes } from '../support/harness.js';
import { useLiveHomes } from '../support/in-process.js';
import { parseRunArgs } from '../../src/client/run-args.js';

/** Homes no supervisor starts on (a bad name is refused before any is needed). */
const home = useHomes();
/** Homes whose supervisor runs in this process. */
const live = useLiveHomes();

/** What `orcr run ARGS` says before it sends anything (the CLI prints `orcr: ` and this). */
function refusal(args: string[]): string {
  try {
    parseRunArgs(args, process.cwd());
  } catch (e) {
    return (e as Error).message;
  }
  return '(accepted)';
}

const CONTROLS = 'must not contain control characters (newline, tab, escape, …)';
const INVISIBLE = 'must not contain invisible or line-separating characters (zero-width space, soft hyphen, U+FEFF, U+2028, …)';
const BASELESS = 'must not start with a combining mark, or put one after a space';
const STACKED = 'must not stack more than 2 combining marks on one character';

/** Each bad name, why it is refused, and how the message shows it (after `got `). */
const BAD: { name: string; why: string; shown: string }[] = [
  { name: 'evil\u001b[31mexe.txt', why: CONTROLS, shown: '"evil\\u001b[31mexe.txt"' },
  // A right-to-left override: `evil<RLO>txt.exe` reads as `evilexe.txt`; shown, not stripped.
  { name: 'evil\u202etxt.exe', why: CONTROLS, shown: '"evil\\u202etxt.exe"' },
  { name: 'a\u200bb', why: INVISIBLE, shown: '"a\\u200bb"' },
  { name: '\ufeffbuild', why: INVISIBLE, shown: '"\\ufeffbuild"' },
  { name: 'line\u2028two', why: INVISIBLE, shown: '"line\\u2028two"' },
  { name: 'para\u2029two', why: INVISIBLE, shown: '"para\\u2029two"' },
  { name: 'soft\u00adhyphen', why: INVISIBLE, shown: '"soft\\u00adhyphen"' },
  { name: 'cgj\u034fx', why: INVISIBLE, shown: '"cgj\\u034fx"' },
  { name: 'word\u2060joiner', why: INVISIBLE, shown: '"word\\u2060joiner"' },
  { name: 'hangul\u3164filler', why: INVISIBLE, shown: '"hangul\\u3164filler"' },
  // A tag character (astral): escaped as its UTF-16 pair.
  { name: 'tag\u{e0041}', why: INVISIBLE, shown: '"tag\\udb40\\udc41"' },
  { name: '\u0301accent', why: BASELESS, shown: '"\\u0301accent"' },
  { name: 'a \u0301b', why: BASELESS, shown: '"a \\u0301b"' },
  { name: 'z\u0335\u0336\u0337algo', why: STACKED, shown: '"z\\u0335\\u0336\\u0337algo"' },
];

/** Names that look like what they are: accents (composed or not), two marks on one letter, CJK, emoji. */
const GOOD = ['café', 'cafe\u0301', 'Vie\u0323\u0302t', 'ภาษาไทย', 'हिन्दी', '世界-1', 'deploy 🚀'];

/** One run.enqueue on a raw socket, as any client could send it; the reply's error message. */
async function enqueueError(h: { dir: string }, spec: Record<string, unknown>): Promise<string> {
  const socket = net.createConnection(path.join(h.dir, 'orcr.sock'));
  let got = '';
  socket.setEncoding('utf8');
  socket.on('data', (d: string) => (got += d));
  socket.write(JSON.stringify({ id: 1, method: 'hello', params: { version: 1 } }) + '\n');
  socket.write(JSON.stringify({ id: 2, method: 'run.enqueue', params: { specs: [{ command: ['true'], cwd: h.dir, ...spec }] } }) + '\n');
  try {
    await until(() => got.split('\n').length >= 3, 'the replies to hello and run.enqueue', 10_000, 10);
  } finally {
    socket.destroy();
  }
  return (JSON.parse(got.split('\n')[1]!) as { error: { message: string } }).error.message;
}

describe('names', () => {
  it('refuses invisible, line-separating and baseless or stacked combining characters, showing the name escaped', async () => {
    const h = home();
    // The CLI's words for each (its parser's), and what it prints for two of them.
    for (const b of BAD) expect(refusal(['-n', b.name, '--', 'true']), JSON.stringify(b.name)).toBe(`-n ${b.why}, got ${b.shown}`);
    for (const b of [BAD[0]!, BAD[1]!]) {
      const r = h.cli(['run', '-n', b.name, '--', 'true']);
      expect(r.code, JSON.stringify(b.name)).toBe(2);
      expect(r.stderr).toBe(`orcr: -n ${b.why}, got ${b.shown}\n`);
    }
    // Provider and workload names are names too.
    expect(h.cli(['run', '-a', BAD[2]!.name, '--', 'true']).stderr).toBe(`orcr: -a ${INVISIBLE}, got "a\\u200bb"\n`);
    expect(refusal(['-w', BAD[2]!.name, '--', 'true'])).toBe(`-w ${INVISIBLE}, got "a\\u200bb"`);
    // --from: every bad name in every name field, each line named.
    const fields = ['name', 'provider', 'workload'];
    const lines = BAD.flatMap((b) => fields.map((f) => JSON.stringify({ command: ['true'], [f]: b.name })));
    const r = h.cli(['run', '--from', '-'], { input: lines.join('\n') + '\n' });
    expect(r.code).toBe(2);
    const errs = r.stderr.trimEnd().split('\n');
    BAD.forEach((b, i) =>
      fields.forEach((f, k) => expect(errs[i * fields.length + k]).toBe(`orcr: stdin:${i * fields.length + k + 1}: "${f}" ${b.why}, got ${b.shown}`)),
    );
    expect(fs.existsSync(path.join(h.dir, 'orcr.db')), 'a bad name starts no supervisor').toBe(false);
    // --json says the same, as JSON.
    const j = h.cli(['run', '-n', 'a\u200bb', '--json', '--', 'true']);
    expect(JSON.parse(j.stdout)).toEqual({ error: { code: 'usage', message: `-n ${INVISIBLE}, got "a\\u200bb"` } });
    // The server checks with the same words.
    const s = await live();
    await s.startSupervisor();
    for (const b of BAD) expect(await enqueueError(s, { name: b.name })).toBe(`spec 1: "name" ${b.why}, got ${b.shown}`);
    expect(await s.ps({ all: true })).toEqual([]);
  });

  it('takes names in any script, with accents composed or combining, and emoji', async () => {
    const h = await live();
    for (const name of GOOD) expect(refusal(['-n', name, '--', 'true']), name).toBe('(accepted)');
    // The spawned CLI takes two of them by flag, the rest from --from, without a word.
    for (const name of GOOD.slice(0, 2)) {
      const r = await h.cli(['run', '-n', name, '--', 'true']);
      expect(r.stderr, name).toBe('');
      expect(r.code).toBe(0);
    }
    const r = await h.cli(['run', '--from', '-'], {
      input: GOOD.slice(2)
        .map((name) => JSON.stringify({ name, command: ['true'] }))
        .join('\n'),
    });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(await h.waitCode('--all')).toBe(0);
    expect((await h.ps({ all: true })).map((r) => r.name).sort()).toEqual([...GOOD].sort());
  });

  it("a provider name taken from the command's file name is checked as a name; -a gives one instead", async () => {
    const h = await live();
    const program = path.join(h.dir, 'a\u200bb');
    fs.copyFileSync('/bin/true', program);
    fs.chmodSync(program, 0o755);
    const r = await h.cli(['run', '--', program]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`orcr: the provider name taken from the command, "a\\u200bb", ${INVISIBLE}: give one with -a NAME\n`);
    const ok = await h.cli(['run', '-a', 'tool', '-n', 'fine', '--', program]);
    expect(ok.stderr).toBe('');
    expect((await h.cli(['wait', 'fine'])).stdout).toBe('fine completed\n');
  });

  it('a reference that names no run is shown escaped too', async () => {
    const h = await live();
    const r = await h.cli(['show', 'ghost\u202e\u200b']);
    expect(r.code).toBe(6);
    expect(r.stderr).toBe('orcr: no run "ghost\\u202e\\u200b"\n');
  });
});
