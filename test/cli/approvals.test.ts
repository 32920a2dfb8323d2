// `orcr approvals`, `orcr approve`, `orcr deny` through the real CLI and a
// real supervisor, the built mock agent asking as Claude Code does: what
// waits listed and shown whole, answered by id and by run, a denial's words
// reaching the agent, "always", a question answered by label and by number,
// and each refusal with its line and exit code — an unknown id, a second
// answer (naming who gave the first), an answer from inside the asking run.

import { describe, expect, it } from 'vitest';
import { askingAgent } from '../support/asking-agent.js';
import { askingMock, nextRequest, request, requests, toolResults } from '../support/approvals.js';
import { until } from '../support/harness.js';
import { useLiveHomes, type LiveHome } from '../support/in-process.js';

const home = useLiveHomes();

/** Who answered through the CLI: the user (or uid), then the terminal or the process. */
const WHO = /^(?:[\w.@+-]+|uid \d+), (?:pid \d+|pts\/\d+|tty\w*)$/;

const escaped = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Answer each request of the run with `orcr ARGS RUN` as it comes, until the run has ended. */
async function answerUntilEnded(h: LiveHome, run: string, args: string[]): Promise<void> {
  await until(
    async () => {
      if ((await requests(h, run)).length > 0) {
        const r = await h.cli([...args, run]);
        expect(r.code, r.stderr).toBe(0);
      }
      return (await h.show(run)).status === 'ended';
    },
    `${run} to end, its requests answered`,
    30_000,
  );
}

describe('orcr approvals', () => {
  it('lists what waits (ID, RUN, AGE, DEADLINE, WHAT), --json as the method gives it; approve ID allows it, recorded as the CLI', async () => {
    const h = await home();
    const r = await h.run(['-n', 'asks', '--protocol', 'claude', '-p', 'go', '--', ...askingMock('ask')]);
    const first = await nextRequest(h, 'a request');
    const listed = await h.cli(['approvals']);
    expect(listed).toMatchObject({ code: 0, stderr: '' });
    const [head, row, ...more] = listed.stdout.trimEnd().split('\n');
    expect(head).toMatch(/^ID\s+RUN\s+AGE\s+DEADLINE\s+WHAT$/);
    expect(row).toMatch(new RegExp(`^${first.id}\\s+asks\\s+\\S+\\s+deny in (1h|59m\\d\\ds)\\s+${escaped(first.summary)}$`));
    expect(more).toEqual([]);
    expect(await h.json(['approvals'])).toEqual(await requests(h));
    expect(await h.json(['approvals', 'asks'])).toEqual(await requests(h));

    const ok = await h.cli(['approve', String(first.id)]);
    expect(ok).toEqual({ code: 0, stdout: `${first.id} allowed (${first.summary})\n`, stderr: '' });
    const decided = await request(h, first.id);
    expect(decided).toMatchObject({ state: 'allowed', by: { kind: 'person', via: 'cli' } });
    // The user, and the terminal it was typed at, or (none here) the process.
    expect(decided.by!.who).toMatch(WHO);

    // The rest by the run's name: each request it has waiting.
    await answerUntilEnded(h, 'asks', ['approve']);
    expect(await h.show('asks')).toMatchObject({ status: 'ended', exit_reason: 'completed' });
    expect(toolResults(h.runDir(r.uuid)).every((t) => !t.is_error)).toBe(true);
    expect(await h.cli(['approvals'])).toEqual({ code: 0, stdout: 'no request waits for an answer\n', stderr: '' });
    const all = await h.cli(['approvals', '--all']);
    expect(all.stdout.split('\n')[0]).toMatch(/^ID\s+RUN\s+AGE\s+STATE\s+WHAT$/);
    expect(all.stdout).toMatch(
      new RegExp(`^${first.id}\\s+asks\\s+\\S+\\s+allowed by the CLI \\(${WHO.source.slice(1, -1)}\\)\\s+${escaped(first.summary)}$`, 'm'),
    );
  });

  it('deny RUN -m TEXT: each request it has waiting is denied, and the agent is told the words', async () => {
    const h = await home();
    const r = await h.run(['-n', 'no', '--protocol', 'claude', '-p', 'go', '--', ...askingMock('ask', 3)]);
    const a = await nextRequest(h, 'a request', 'no');
    const words = 'not now: run the tests first';
    const res = await h.cli(['deny', 'no', '-m', words]);
    expect(res).toEqual({ code: 0, stdout: `${a.id} denied (${a.summary})\n`, stderr: '' });
    await answerUntilEnded(h, 'no', ['deny', '-m', words]);
    expect(await request(h, a.id)).toMatchObject({ state: 'denied', message: words, by: { kind: 'person', via: 'cli' } });
    const told = toolResults(h.runDir(r.uuid)).filter((t) => t.is_error);
    expect(told.length).toBeGreaterThanOrEqual(1);
    expect(told.every((t) => t.content === words)).toBe(true);
    expect(await h.show('no')).toMatchObject({ status: 'ended', exit_reason: 'completed' });
  });

  it('refused: from inside the asking run (7, and it still waits); no such request (6); a bad id or -m with approve (2); a second answer names who gave the first (4)', async () => {
    const h = await home();
    const r = await h.run(['-n', 'asks', '--protocol', 'claude', '-p', 'go', '--', ...askingMock('ask')]);
    const a = await nextRequest(h, 'a request');
    const id = String(a.id);

    const inside = await h.cli(['approve', id], { env: { ...h.env, ORCR_RUN: r.uuid } });
    expect(inside.code).toBe(7);
    expect(inside.stdout).toBe('');
    expect(inside.stderr).toBe(
      `orcr: ${id} refused: a run cannot answer its own requests (request ${id} is run asks's); it was given from run ${r.uuid} (this environment's ORCR_RUN): answer from outside it\n`,
    );
    expect((await request(h, a.id)).state).toBe('pending');

    expect(await h.cli(['approve', '999999'])).toEqual({ code: 6, stdout: '', stderr: 'orcr: no request 999999\n' });
    expect(await h.cli(['deny', 'nosuchrun'])).toMatchObject({ code: 6, stderr: 'orcr: no run "nosuchrun"\n' });
    const zero = await h.cli(['approve', '0']);
    expect(zero.code).toBe(2);
    expect(zero.stderr).toMatch(/^orcr: "0" is no request id: they are whole numbers from 1/);
    const m = await h.cli(['approve', id, '-m', 'why']);
    expect(m.code).toBe(2);
    expect(m.stderr).toMatch(/^orcr: -m goes with deny/);
    expect((await h.cli(['deny', id, '--always'])).code).toBe(2);
    expect((await h.cli(['approve'])).code).toBe(2);
    expect((await request(h, a.id)).state).toBe('pending');

    // Two answers at once: one wins, the other is told who gave it.
    const [allow, deny] = await Promise.all([h.cli(['approve', id]), h.cli(['deny', id])]);
    const won = allow.code === 0 ? allow : deny;
    const lost = allow.code === 0 ? deny : allow;
    expect(won.code).toBe(0);
    expect(lost.code).toBe(4);
    const state = (await request(h, a.id)).state;
    expect(lost.stderr).toMatch(new RegExp(`^orcr: ${id} refused: request ${id} was already ${state} by the CLI \\(${WHO.source.slice(1, -1)}\\)\\n$`));

    // Each target its line; the exit code the highest of theirs.
    const mixed = await h.cli(['approve', id, '999999']);
    expect(mixed.code).toBe(6);
    expect(mixed.stderr.split('\n').filter(Boolean)).toEqual([
      expect.stringMatching(`^orcr: ${id} refused: request ${id} was already ${state} by the CLI`),
      'orcr: no request 999999',
    ]);
    const json = await h.json<{ target: string; id: number | null; state: string | null; error?: { code: string } }[]>(['approve', id], [4]);
    expect(json).toEqual([{ target: id, id: a.id, run: r.uuid, state, error: { code: 'conflict', message: expect.stringMatching(/already/) } }]);
  });

  it('the worst input is a usage error (2) saying what is wrong, escaped, before anything is asked; a run named with a newline is none (6)', async () => {
    const h = await home();
    const cases: [string[], RegExp][] = [
      [['approve', '99999999999999999999'], /^orcr: "99999999999999999999" is no request id: it is past the largest one \(9007199254740991\)/],
      [['approvals', '99999999999999999999'], /^orcr: "99999999999999999999" is no request id: it is past the largest one/],
      [['deny', '-1'], /^orcr: "-1" is no request id: they are whole numbers from 1/],
      [['approvals', '-1'], /^orcr: "-1" is no request id/],
      [['approve', ''], /^orcr: an empty target names no request: give an id, or a run's name or uuid$/],
      [['approvals', ''], /^orcr: an empty word names no run/],
      [['deny', '1', '-m', 'x'.repeat(1024 * 1024)], /^orcr: -m is 1048576 characters long: at most 2000/],
      [['deny', '1', '-m', 'stop\x1b[2J\x07 now'], /^orcr: -m holds a control character \("\\u001b" at character 5\)/],
      [['deny', '1', '-m', ' '], /^orcr: -m needs the words the agent is told$/],
      [['approvals', '1', '2'], /^orcr: approvals takes one run/],
    ];
    for (const [args, message] of cases) {
      const r = await h.cli(args);
      expect(r.code, args.join(' ').slice(0, 80)).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr.split('\n')[0]).toMatch(message);
      expect(r.stderr).not.toMatch(/[\x00-\x09\x0b-\x1f\x7f-\x9f]/);
    }
    expect(await h.cli(['deny', 'a\nb'])).toEqual({ code: 6, stdout: '', stderr: 'orcr: no run "a\\nb"\n' });
    expect(await h.cli(['approvals', 'a\nb'])).toEqual({ code: 6, stdout: '', stderr: 'orcr: no run "a\\nb"\n' });
  });

  it('a question: approve without --answer lists its options (2), an unknown label (2); answered by number, and by label', async () => {
    const h = await home({ approvals: { allow: ['Bash', 'Write', 'Edit'] } });
    const r = await h.run(['-n', 'q1', '--protocol', 'claude', '-p', 'go', '--', ...askingMock('ask-question')]);
    const q = await nextRequest(h, 'the question', 'q1');
    const labels = q.questions![0]!.options.map((o) => o.label);
    const listed = await h.cli(['approvals']);
    // Its options numbered under its row, at the WHAT column.
    const column = listed.stdout.indexOf('WHAT');
    expect(listed.stdout).toContain(`\n${' '.repeat(column + 2)}${q.questions![0]!.multi ? 'one or more of ' : ''}1 ${labels[0]} · 2 ${labels[1]}`);

    const none = await h.cli(['approve', String(q.id)]);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain(`orcr: ${q.id} not answered: request ${q.id} asks a question: ${q.questions![0]!.question} — `);
    expect(none.stderr).toContain(`1 ${labels[0]} · 2 ${labels[1]}`);
    expect(none.stderr).toContain('--answer LABEL');
    const wrong = await h.cli(['approve', String(q.id), '--answer', 'No such option']);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain(`"No such option" is not an option of the question "${q.questions![0]!.question}": `);
    // A megabyte of it is shown cut.
    const huge = await h.cli(['approve', String(q.id), '--answer', 'x'.repeat(1024 * 1024)]);
    expect(huge.code).toBe(2);
    expect(huge.stderr).toMatch(/^orcr: \d+ not answered: "x{78}… is not an option of the question/);
    expect(huge.stderr.length).toBeLessThan(3000);
    const tooFar = await h.cli(['approve', String(q.id), '--answer', String(labels.length + 1)]);
    expect(tooFar.code).toBe(2);
    expect((await request(h, q.id)).state).toBe('pending');

    const byNumber = await h.cli(['approve', String(q.id), '--answer', '2']);
    expect(byNumber).toEqual({ code: 0, stdout: `${q.id} answered: ${labels[1]} (${q.summary})\n`, stderr: '' });
    await until(async () => (await h.show('q1')).status === 'ended', 'q1 to end');
    expect(await request(h, q.id)).toMatchObject({ state: 'allowed', answers: [labels[1]] });
    const told = toolResults(h.runDir(r.uuid)).map((t) => t.content);
    expect(
      told.some((t) => t.includes(`"${q.questions![0]!.question}"="${labels[1]}"`)),
      told.join('\n'),
    ).toBe(true);

    // By label, and by the run: its question.
    const r2 = await h.run(['-n', 'q2', '--protocol', 'claude', '-p', 'go', '--', ...askingMock('ask-question', 8)]);
    const q2 = await nextRequest(h, 'the second question', 'q2');
    const label = q2.questions![0]!.options[0]!.label;
    const byLabel = await h.cli(['approve', 'q2', '--answer', label]);
    expect(byLabel).toEqual({ code: 0, stdout: `${q2.id} answered: ${label} (${q2.summary})\n`, stderr: '' });
    await until(async () => (await h.show('q2')).status === 'ended', 'q2 to end');
    expect(await request(h, q2.id)).toMatchObject({ state: 'allowed', answers: [label] });
    expect(r2.uuid).toBeTruthy();
  });

  it('--always adds the rule the request offers to the run, and the like of it is allowed without asking', async () => {
    const h = await home();
    const offers = [{ type: 'addRules', rules: [{ toolName: 'Bash', ruleContent: 'npm test' }], behavior: 'allow', destination: 'localSettings' }];
    const a = askingAgent(h, 'twice', { asks: [1, 2].map(() => ({ tool: 'Bash', input: { command: 'npm test' }, offers })) });
    await h.run(['-n', 'rules', '--protocol', 'claude', '-p', 'go', '--', ...a.argv]);
    const first = await nextRequest(h, 'the first request');
    expect(first).toMatchObject({ summary: 'Bash: npm test', always: 'Bash(npm test)' });
    const shown = await h.cli(['approvals', String(first.id)]);
    expect(shown.stdout).toMatch(/^always {6}Bash\(npm test\) {3}\(orcr approve \d+ --always: allowed from now on in the run\)$/m);
    const res = await h.cli(['approve', 'rules', '--always']);
    expect(res).toEqual({ code: 0, stdout: `${first.id} allowed, and Bash(npm test) from now on in run rules (Bash: npm test)\n`, stderr: '' });
    await until(async () => (await h.show('rules')).status === 'ended', 'the run to end');
    const all = await requests(h, 'rules', true);
    expect(all).toHaveLength(2);
    expect(all[1]).toMatchObject({ state: 'allowed', by: { kind: 'rule', rule: 'Bash(npm test)' } });
  });

  it('control characters in what an agent asks are shown escaped: in the table, and in the request shown whole', async () => {
    const h = await home();
    const command = 'echo \x1b[31mred\x07 \u009b2J done';
    const a = askingAgent(h, 'ctl', { asks: [{ tool: 'Bash', input: { command, description: 'x\u202eevil' } }] });
    await h.run(['-n', 'ctl', '--protocol', 'claude', '-p', 'go', '--', ...a.argv]);
    const req = await nextRequest(h, 'the request');
    const listed = await h.cli(['approvals']);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain('Bash: echo \\x1b[31mred\\x07 \\u009b2J done');
    const shown = await h.cli(['approvals', String(req.id)]);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain('"command": "echo \\u001b[31mred\\u0007 \\u009b2J done"');
    expect(shown.stdout).toContain('"description": "x\\u202eevil"');
    for (const out of [listed.stdout, shown.stdout]) expect(out).not.toMatch(/[\x00-\x09\x0b-\x1f\x7f-\x9f\u202e]/);
    expect(await h.json(['approvals', String(req.id)])).toMatchObject({ approval: { id: req.id }, input: { command, description: 'x\u202eevil' } });
    expect(await h.cli(['approvals', 'nope'])).toMatchObject({ code: 6, stderr: 'orcr: no run "nope"\n' });
    expect((await h.cli(['approvals', '999999'])).code).toBe(6);
  });
});
