// `!` with a real supervisor and agents that ask (test/support/asking-agent.ts,
// Claude Code's control messages): the header counts what waits, the queue
// lists it oldest first across the fleet; y allows, n denies with words the
// agent is told, A allows for the rest of the run with the rule the agent
// offers, enter reads the whole input in the pager; space tags several alike
// and y answers them all; a question's options are numbered and a digit (a
// multi-select's, toggled and sent with enter) is the answer the agent gets.
// An answer someone else gave first is said in words.

import './no-ci.js';
import { afterEach, describe, expect, it } from 'vitest';
import { Client } from '../../src/client/client.js';
import { ensureHome } from '../../src/config/home.js';
import type { PublicApproval } from '../../src/protocol/views.js';
import { askingAgent, type Asking } from '../support/asking-agent.js';
import { until as waitFor } from '../support/harness.js';
import { KEY } from './helpers.js';
import { Home } from './home.js';
import { liveApp, type LiveApp } from './live-app.js';

let home: Home | null = null;
let app: LiveApp | null = null;
/** The test's own connection to the supervisor: what it checks is read through the socket, not a CLI process per look. */
let rpc: Client | null = null;

afterEach(() => {
  app?.close();
  app = null;
  rpc?.close();
  rpc = null;
  home?.cleanup();
  home = null;
});

const NPM_TEST_RULE = [{ type: 'addRules', rules: [{ toolName: 'Bash', ruleContent: 'npm test' }], behavior: 'allow', destination: 'localSettings' }];

/** A run of a stand-in agent that asks `asks` in turn. */
function asker(h: Home, name: string, asks: Asking[]): ReturnType<typeof askingAgent> {
  const a = askingAgent(h, name, { asks });
  h.run(['-n', name, '--protocol', 'claude', '-p', 'go', '--', ...a.argv]);
  return a;
}

async function client(h: Home): Promise<Client> {
  rpc ??= await Client.connect(ensureHome(h.dir));
  return rpc;
}

/** The requests of the run `name` (every one, with `all`), oldest first, as the supervisor has them. */
async function requests(h: Home, name: string | null, all = false): Promise<PublicApproval[]> {
  const c = await client(h);
  return (await c.call('approval.list', { ...(name ? { run: name } : {}), ...(all ? { all: true } : {}) })).approvals;
}
const approvals = (h: Home, name: string): Promise<PublicApproval[]> => requests(h, name, true);
const pendingOf = (h: Home, name: string): Promise<PublicApproval> =>
  waitFor(async () => (await requests(h, null)).find((a) => a.name === name) ?? null, `${name}'s request to be pending`, 30_000, 100);
const ended = (h: Home, name: string): Promise<unknown> =>
  waitFor(async () => ((await (await client(h)).call('run.get', { ref: name })).run.status === 'ended' ? true : null), `${name} to end`, 30_000, 100);
const line = (f: string, text: string): string => f.split('\n').find((l) => l.includes(text)) ?? '';

describe('the approvals queue', () => {
  it('! opens it oldest first; A allows with the rule the agent offers, enter shows the whole input, n denies with words, y allows', async () => {
    home = new Home();
    const h = home;
    const first = asker(h, 'builds', [
      { tool: 'Bash', input: { command: 'npm test', description: 'Run the tests' }, offers: NPM_TEST_RULE },
      { tool: 'Write', input: { file_path: `${h.dir}/notes.txt`, content: 'line one\nline two\n' } },
    ]);
    await pendingOf(h, 'builds');
    const second = asker(h, 'lints', [{ tool: 'Bash', input: { command: 'make lint' } }]);
    await pendingOf(h, 'lints');
    app = liveApp(h, { columns: 120, rows: 34 }, { plain: true });
    const { until, press } = app;

    await until((f) => f.includes('⚑ 2 to approve'), 'the header to count the requests');
    await press('!');
    let f = await until((x) => x.includes('Approvals · 2 waiting') && x.includes('make lint'), 'the queue');
    // Oldest first, across the fleet; the selected one's tool, subject and rule under the list.
    expect(f.indexOf('Bash: npm test')).toBeLessThan(f.indexOf('Bash: make lint'));
    expect(line(f, 'Bash: npm test')).toMatch(/^› #\d+\s+builds\s+\S+\s+deny in (?:1h|\d+m)\s+Bash: npm test/);
    expect(f).toContain('A allows Bash(npm test) for the rest of the run');

    // enter: the request's whole input in the pager; esc back to the queue.
    await press(KEY.enter);
    f = await until((x) => x.includes('Request #') && x.includes('Run the tests'), 'the whole input');
    expect(f).toMatch(/command\s.*npm test/);
    await press(KEY.esc);
    await until((x) => x.includes('Approvals · 2 waiting'), 'back to the queue');

    // A: allowed, and its rule added for the rest of the run.
    await press('A');
    f = await until((x) => x.includes('Write: ') && x.includes('notes.txt'), "builds' next request, its Write");
    expect((await approvals(h, 'builds'))[0]).toMatchObject({ state: 'allowed', always_added: true, decided_by: expect.stringMatching(/^the TUI/) });

    // The queue stays oldest first: lints' request, older than builds' new one, is selected now. y allows it.
    expect(line(f, 'make lint')).toMatch(/^›/);
    expect(f.indexOf('make lint')).toBeLessThan(f.indexOf('notes.txt'));
    await press('y');
    await ended(h, 'lints');
    expect(second.answers()[0]).toMatchObject({ response: { response: { behavior: 'allow' } } });

    // n: words asked for in the prompt line; the agent is told them.
    await until((x) => x.includes('Approvals · 1 waiting') && line(x, 'notes.txt').startsWith('›'), 'the Write selected');
    await press('n');
    await until((x) => x.includes('deny #'), 'the prompt for the denial');
    await press(...'not in the repo'.split(''), KEY.enter);
    await ended(h, 'builds');
    expect((await approvals(h, 'builds'))[1]).toMatchObject({ state: 'denied', message: 'not in the repo' });
    expect(first.answers()[1]).toMatchObject({ response: { response: { behavior: 'deny', message: 'not in the repo' } } });

    // Nothing waits: the queue says so, the header no longer counts.
    f = await until((x) => x.includes('Approvals · none waiting'), 'an empty queue');
    expect(f).toContain('nothing waits for an answer');
    expect(f).not.toContain('to approve');
    await press('!');
    await until((x) => x.includes('Runs ') && !x.includes('Approvals ·'), 'back to the runs');
  });

  it('space tags several alike and y allows them all; esc untags first', async () => {
    home = new Home();
    const h = home;
    for (const name of ['t1', 't2', 't3']) {
      asker(h, name, [{ tool: 'Bash', input: { command: 'npm test' } }]);
      await pendingOf(h, name);
    }
    app = liveApp(h, { columns: 120, rows: 30 }, { plain: true });
    const { until, press } = app;
    await until((f) => f.includes('⚑ 3 to approve'), 'three requests');
    await press('!');
    await until((x) => x.includes('Approvals · 3 waiting'), 'the queue');
    await press(' ');
    await until((x) => x.includes('1 tagged'), 'one tagged');
    await press(KEY.esc);
    await until((x) => !x.includes('tagged ·') && x.includes('Approvals · 3'), 'untagged, still in the queue');
    await press('g', ' ', ' ', ' ');
    const f = await until((x) => x.includes('3 tagged'), 'three tagged');
    expect(f).toMatch(/3 tagged: y allows them all/);
    await press('y');
    await until((x) => x.includes('Approvals · none waiting'), 'all three answered');
    for (const name of ['t1', 't2', 't3']) {
      await ended(h, name);
      expect((await approvals(h, name))[0]).toMatchObject({ state: 'allowed' });
    }
  });

  it("a question shows its options; a digit sends the one chosen, a multi-select's are toggled and sent with enter", async () => {
    home = new Home();
    const h = home;
    const single = {
      questions: [
        {
          question: 'Which database?',
          header: 'Database',
          options: [
            { label: 'Postgres', description: 'Relational' },
            { label: 'SQLite', description: 'A file' },
          ],
          multiSelect: false,
        },
      ],
    };
    const multi = {
      questions: [
        {
          question: 'Which checks to run?',
          header: 'Checks',
          options: [
            { label: 'lint', description: 'eslint' },
            { label: 'types', description: 'the type checker' },
            { label: 'tests', description: 'vitest' },
          ],
          multiSelect: true,
        },
      ],
    };
    const a = asker(h, 'asks', [
      { tool: 'AskUserQuestion', input: single },
      { tool: 'AskUserQuestion', input: multi },
    ]);
    await pendingOf(h, 'asks');
    app = liveApp(h, { columns: 120, rows: 30 }, { plain: true });
    const { until, press } = app;
    await until((f) => f.includes('⚑ 1 to approve'), 'the question counted');
    await press('!');
    let f = await until((x) => x.includes('1 Postgres — Relational') && x.includes('2 SQLite — A file'), 'the options');
    expect(f).toContain('Which database? (Database)');
    // y is no answer to a question: it says what is.
    await press('y');
    await until((x) => x.includes('is a question: 1–2 chooses its answer'), 'why y does nothing');
    await press('2');
    f = await until((x) => x.includes('Which checks to run?') && x.includes('[ ] 3 tests') === false && x.includes('tests — vitest'), 'the next question');
    await waitFor(async () => ((await approvals(h, 'asks'))[0]?.state === 'allowed' ? true : null), 'the first question answered');
    expect((await approvals(h, 'asks'))[0]).toMatchObject({ answers: ['SQLite'] });
    expect(f).toContain('one or more');
    await press('1', '3');
    f = await until((x) => x.includes('[x] lint') && x.includes('[x] tests') && x.includes('[ ] types'), 'two options toggled');
    await press(KEY.enter);
    await ended(h, 'asks');
    expect((await approvals(h, 'asks'))[1]).toMatchObject({ state: 'allowed', answers: ['lint, tests'] });
    const got = a.answers().map((x) => (x as { response: { response: { updatedInput?: { answers?: unknown } } } }).response.response.updatedInput?.answers);
    expect(got).toEqual([{ 'Which database?': 'SQLite' }, { 'Which checks to run?': 'lint, tests' }]);
  });

  it('an answer someone gave first is refused in words, not a crash', async () => {
    home = new Home();
    const h = home;
    asker(h, 'raced', [{ tool: 'Bash', input: { command: 'npm test' } }]);
    const req = await pendingOf(h, 'raced');
    app = liveApp(h, { columns: 120, rows: 30 }, { plain: true });
    const { until } = app;
    await until((f) => f.includes('⚑ 1 to approve'), 'the request');
    await (await client(h)).call('approval.answer', { targets: [String(req.id)], verdict: 'deny', message: 'no', via: 'cli' });
    // As the TUI would send it had its y crossed the CLI's answer.
    app.ctl.approvals.answer([req.id], 'allow');
    // Any frame: the run's end, right after, takes the footer's line.
    const f = await app.untilDrawn((x) => x.includes('not answered:'), 'the refusal');
    expect(line(f, 'not answered:')).toMatch(new RegExp(`not answered: request ${req.id} was already denied by the CLI`));
  });
});
