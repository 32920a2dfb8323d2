// Claude Code asking before it acts (`--permission-prompt-tool stdio`): its
// requests, read from what the genuine CLI (2.1.332) printed
// (test/fixtures/claude/ask-*.jsonl, denied.jsonl: its own lines, paths
// shortened), and orcr's answers, checked against the shapes the CLI took.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AGENT_PROTOCOLS, agentProtocol, createAdapter } from '../../src/agents/index.js';
import type { AgentAnswer } from '../../src/agents/protocol.js';
import type { Signal } from '../../src/agents/signals.js';
import { feed, loadFixtures } from './helpers.js';

type Approval = Extract<Signal, { kind: 'approval' }>;

const fixture = (name: string): string[] => loadFixtures().find((f) => f.protocol === 'claude' && f.name === name)!.lines;
const signalsOf = (name: string): Signal[] => feed(createAdapter('claude'), fixture(name));
const approvals = (signals: Signal[]): Approval[] => signals.filter((s): s is Approval => s.kind === 'approval');
const read = (obj: unknown): Signal[] => createAdapter('claude').line(JSON.stringify(obj));

const answer = (ref: string, a: Partial<AgentAnswer>, asked: { input: unknown; offers: unknown }): string =>
  agentProtocol('claude')!.approvals!.answer(ref, { verdict: 'allow', message: null, answers: null, always: false, ...a }, asked);
const parsed = (line: string): { type: string; response: { subtype: string; request_id: string; response: Record<string, unknown> } } => {
  expect(line.endsWith('\n')).toBe(true);
  expect(line.indexOf('\n')).toBe(line.length - 1);
  return JSON.parse(line) as ReturnType<typeof parsed>;
};

describe('claude: a request is an approval', () => {
  it('Write, Edit and WebFetch: what each acts on, its size, the rule it offers; input and offers kept whole', () => {
    const [write, edit, fetch] = approvals(signalsOf('ask-write-edit-fetch'));
    expect(write).toEqual({
      kind: 'approval',
      ask: {
        ref: '845b1f09-c720-4e53-aee9-c394e568ae30',
        tool: 'Write',
        subject: '/home/dev/proj/notes.txt',
        tool_use_id: 'toolu_write_1',
        size: { bytes: 15 },
        questions: null,
        always: null,
      },
      input: { file_path: '/home/dev/proj/notes.txt', content: 'from the model\n' },
      offers: [{ type: 'setMode', mode: 'acceptEdits', destination: 'session' }],
    });
    expect(edit!.ask).toMatchObject({ tool: 'Edit', subject: '/home/dev/proj/existing.txt', size: { added: 1, removed: 1 }, always: null });
    expect(edit!.input).toEqual({ file_path: '/home/dev/proj/existing.txt', old_string: 'hello', new_string: 'goodbye', replace_all: false });
    expect(fetch!.ask).toMatchObject({
      tool: 'WebFetch',
      subject: 'https://example.com/page',
      tool_use_id: 'toolu_fetch_1',
      always: 'WebFetch(domain:example.com)',
    });
  });

  it('Bash: the command; the offered rule as rule text (exact, or the CLI’s prefix); none when it offers none', () => {
    const asks = approvals(signalsOf('ask-bash')).map((s) => [s.ask.subject, s.ask.always, s.offers === null]);
    expect(asks).toEqual([
      ['touch /home/dev/proj/m && echo one', 'Bash(touch /home/dev/proj/m && echo one)', false],
      ['touch /home/dev/proj/m && echo one', 'Bash(touch /home/dev/proj/m && echo one)', false],
      // `decision_reason_type: subcommandResults`, no permission_suggestions.
      ['rm -f /home/dev/proj/m.x; echo two > /home/dev/proj/m.2', null, true],
      ['echo three > /home/dev/proj/m.3', 'Bash(echo three *)', false],
    ]);
  });

  it('AskUserQuestion: its questions, options and whether several may be chosen', () => {
    const [db, checks] = approvals(signalsOf('ask-question'));
    expect(db!.ask).toMatchObject({ tool: 'AskUserQuestion', subject: null, size: null, always: null, tool_use_id: 'toolu_ask1' });
    expect(db!.ask.questions).toEqual([
      {
        question: 'Which database should the service use?',
        header: 'Database',
        options: [
          { label: 'Postgres', description: 'Relational, the default' },
          { label: 'SQLite', description: 'A file, no server' },
        ],
        multi: false,
      },
    ]);
    expect(checks!.ask.questions![0]).toMatchObject({ question: 'Which checks should run before merging?', multi: true });
    expect(checks!.ask.questions![0]!.options.map((o) => o.label)).toEqual(['Lint', 'Types', 'Tests']);
  });

  it('an interrupt withdraws the waiting request; orcr’s own control answers print nothing', () => {
    const signals = signalsOf('ask-cancel');
    const first = approvals(signals)[0]!.ask.ref;
    expect(signals.filter((s) => s.kind === 'approval_withdrawn')).toEqual([{ kind: 'approval_withdrawn', ref: first }]);
    expect(signals.filter((s) => s.kind === 'output')).toEqual([]);
    // The answer to `initialize`, before the init line.
    expect(signalsOf('ask-write-edit-fetch').filter((s) => s.kind === 'output')).toEqual([]);
  });

  it('a turn ended by an interrupted refusal (aborted_tools) reads as the failed result it is; the next turn is read as usual', () => {
    const results = signalsOf('ask-cancel').filter((s) => s.kind === 'result');
    expect(results).toEqual([
      { kind: 'result', ok: false, detail: 'error_during_execution' },
      { kind: 'result', ok: true, text: 'never reached?' },
    ]);
  });

  it('without a prompt tool: the CLI’s own refusals, each once (not again from the result’s permission_denials)', () => {
    const denied = signalsOf('denied').filter((s) => s.kind === 'denied');
    expect(denied).toEqual([
      {
        kind: 'denied',
        tool: 'Bash',
        tool_use_id: 'toolu_n1',
        message:
          "touch in '/home/dev/proj/x' needs approval. The path is inside the working directories for this session ('/home/dev/proj'), and Claude Code asks before a shell command creates, changes or removes files there.",
      },
      {
        kind: 'denied',
        tool: 'Write',
        tool_use_id: 'toolu_n2',
        message: "Claude requested permissions to write to /home/dev/proj/w.txt, but you haven't granted it yet.",
      },
    ]);
    // With a prompt tool, orcr's own denials are listed in permission_denials: not the CLI's refusals.
    for (const name of ['ask-write-edit-fetch', 'ask-question', 'ask-cancel']) expect(signalsOf(name).filter((s) => s.kind === 'denied')).toEqual([]);
  });

  it('tools by what they act on; Edit, MultiEdit and Write by their size', () => {
    const ask = (tool_name: string, input: Record<string, unknown>) =>
      (read({ type: 'control_request', request_id: 'r', request: { subtype: 'can_use_tool', tool_name, input, tool_use_id: 't' } })[0] as Approval).ask;
    expect(ask('Read', { file_path: '/p/a.ts' }).subject).toBe('/p/a.ts');
    expect(ask('NotebookEdit', { notebook_path: '/p/n.ipynb' }).subject).toBe('/p/n.ipynb');
    expect(ask('Grep', { pattern: 'x', path: '/p/src' }).subject).toBe('/p/src');
    expect(ask('Glob', { pattern: '*.ts' }).subject).toBeNull();
    expect(ask('WebSearch', { query: 'vitest pool' }).subject).toBe('vitest pool');
    expect(ask('mcp__db__query', { sql: 'select 1' })).toMatchObject({ subject: null, size: null, questions: null });
    expect(ask('Bash', { command: 42 }).subject).toBeNull();
    expect(ask('Write', { file_path: '/p/a', content: 'héllo\n' }).size).toEqual({ bytes: 7 });
    expect(ask('Edit', { file_path: '/p/a', old_string: 'a\nb\nc\n', new_string: '' }).size).toEqual({ added: 0, removed: 3 });
    expect(
      ask('MultiEdit', {
        file_path: '/p/a',
        edits: [{ old_string: 'a', new_string: 'b\nc' }, { old_string: 'x\ny', new_string: 'z' }, 'junk'],
      }).size,
    ).toEqual({ added: 3, removed: 3 });
    expect(ask('Edit', { file_path: '/p/a' }).size).toBeNull();
  });

  it('an offered rule orcr could not read back is no offer; rules that deny are none either', () => {
    const always = (permission_suggestions: unknown) =>
      (
        read({
          type: 'control_request',
          request_id: 'r',
          request: { subtype: 'can_use_tool', tool_name: 'Bash', input: { command: 'x' }, permission_suggestions },
        })[0] as Approval
      ).ask.always;
    const rules = (rule: Record<string, unknown>, behavior = 'allow') => [{ type: 'addRules', rules: [rule], behavior, destination: 'localSettings' }];
    expect(always(rules({ toolName: 'Bash', ruleContent: 'printf a\nprintf b' }))).toBeNull();
    expect(always(rules({ toolName: 'Bash', ruleContent: 'x'.repeat(2000) }))).toBeNull();
    expect(always(rules({ toolName: 'Bash', ruleContent: 'rm -rf /' }, 'deny'))).toBeNull();
    expect(always(rules({ toolName: 'Bash' }))).toBe('Bash');
    expect(always(rules({ ruleContent: 'ls' }))).toBeNull();
    expect(always('not a list')).toBeNull();
  });

  it('a request it cannot answer is kept as output; other requests and unknown fields are let be; nothing throws', () => {
    const req = (request: unknown, extra: Record<string, unknown> = {}) => ({ type: 'control_request', request_id: 'r1', request, ...extra });
    const asks = { subtype: 'can_use_tool', tool_name: 'Bash', input: { command: 'ls' } };
    for (const bad of [
      { type: 'control_request', request: asks },
      req(asks, { request_id: 7 }),
      req({ ...asks, tool_name: undefined }),
      req({ ...asks, input: 'ls' }),
      req({ ...asks, input: null }),
      req({ ...asks, input: ['ls'] }),
      { type: 'control_cancel_request' },
    ]) {
      expect(read(bad)).toEqual([{ kind: 'output', line: JSON.stringify(bad) }]);
    }
    expect(read(req({ subtype: 'hook_callback', callback_id: 'h' }))).toEqual([]);
    expect(read(req('nonsense'))).toEqual([]);
    expect(read({ type: 'control_response', response: { subtype: 'success', request_id: 'int_1', response: { still_queued: [] } } })).toEqual([]);
    const extra = read(
      req({ ...asks, agent_id: 'a', mcp_server: null, decision_reason: 'x', classifier_approvable: true, future: { deep: [1] } }, { also: 1 }),
    );
    expect(extra).toMatchObject([{ kind: 'approval', ask: { ref: 'r1', tool: 'Bash', subject: 'ls', tool_use_id: null } }]);
  });

  it('the records that ask: Claude Code and the two-way protocols (Codex app-server, ACP)', () => {
    expect(AGENT_PROTOCOLS.filter((p) => p.approvals).map((p) => p.name)).toEqual(['claude', 'codex-app', 'acp']);
  });
});

describe('claude: the answer', () => {
  const bash = approvals(signalsOf('ask-bash'))[0]!;
  const write = approvals(signalsOf('ask-write-edit-fetch'))[0]!;

  it('allow: the line the CLI took, the original input sent back whole', () => {
    const line = answer(bash.ask.ref, {}, bash);
    expect(line).toBe(
      '{"type":"control_response","response":{"subtype":"success","request_id":"679fa091-6247-405e-b53d-cf5840729649","response":{"behavior":"allow","updatedInput":{"command":"touch /home/dev/proj/m && echo one","description":"one"}}}}\n',
    );
  });

  it('allow always: the offered rules, for the session only, nothing else offered', () => {
    const r = parsed(answer(bash.ask.ref, { always: true }, bash)).response.response;
    expect(r).toEqual({
      behavior: 'allow',
      updatedInput: bash.input,
      updatedPermissions: [
        { type: 'addRules', rules: [{ toolName: 'Bash', ruleContent: 'touch /home/dev/proj/m && echo one' }], behavior: 'allow', destination: 'session' },
      ],
    });
    // Write offers only a mode that would let every edit through: not sent.
    expect(parsed(answer(write.ask.ref, { always: true }, write)).response.response).toEqual({ behavior: 'allow', updatedInput: write.input });
    expect(parsed(answer('r', { always: true }, { input: { command: 'x' }, offers: null })).response.response).not.toHaveProperty('updatedPermissions');
  });

  it('deny: its message, or the default (the CLI requires one)', () => {
    expect(parsed(answer('r9', { verdict: 'deny', message: 'orcr says no edits to existing.txt' }, write))).toEqual({
      type: 'control_response',
      response: { subtype: 'success', request_id: 'r9', response: { behavior: 'deny', message: 'orcr says no edits to existing.txt' } },
    });
    expect(parsed(answer('r9', { verdict: 'deny' }, write)).response.response).toEqual({ behavior: 'deny', message: 'denied by orcr' });
    expect(parsed(answer('r9', { verdict: 'deny', message: '  ' }, write)).response.response).toEqual({ behavior: 'deny', message: 'denied by orcr' });
  });

  it('a question: the input with the answers keyed by each question’s text', () => {
    const [db, checks] = approvals(signalsOf('ask-question'));
    expect(parsed(answer(db!.ask.ref, { answers: ['SQLite'] }, db!)).response.response).toEqual({
      behavior: 'allow',
      updatedInput: { ...(db!.input as object), answers: { 'Which database should the service use?': 'SQLite' } },
    });
    const multi = parsed(answer(checks!.ask.ref, { answers: ['Lint, Tests'] }, checks!)).response.response;
    expect((multi.updatedInput as { answers: unknown }).answers).toEqual({ 'Which checks should run before merging?': 'Lint, Tests' });
    // No answers chosen: the input as asked (the model is told the questions went unanswered).
    expect(parsed(answer(db!.ask.ref, {}, db!)).response.response).toEqual({ behavior: 'allow', updatedInput: db!.input });
  });

  it('answers follow the questions that have a text; a question worded __proto__ is still a key', () => {
    const input = { questions: [{ header: 'no text' }, { question: '__proto__', options: [] }, { question: 'Second?', options: [] }] };
    const got = parsed(answer('r', { answers: ['A', 'B', 'C'] }, { input, offers: null })).response.response.updatedInput as { answers: object };
    expect(Object.entries(got.answers)).toEqual([
      ['__proto__', 'A'],
      ['Second?', 'B'],
    ]);
  });

  it('is one line of valid JSON whatever it is given', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'binary' }),
        fc.jsonValue(),
        fc.jsonValue(),
        fc.record({
          verdict: fc.constantFrom('allow' as const, 'deny' as const),
          message: fc.option(fc.string({ unit: 'binary' })),
          answers: fc.option(fc.array(fc.string({ unit: 'binary' }))),
          always: fc.boolean(),
        }),
        (ref, input, offers, a) => {
          const line = answer(ref, a, { input, offers });
          const o = parsed(line);
          expect(o.response.request_id).toBe(ref);
          expect(['allow', 'deny']).toContain(o.response.response.behavior);
          if (a.verdict === 'allow') expect(typeof o.response.response.updatedInput).toBe('object');
          else expect(typeof o.response.response.message).toBe('string');
        },
      ),
      { numRuns: 300 },
    );
    // Line breaks and unpaired surrogates are escaped: one line, however the message reads.
    const line = answer('r', { verdict: 'deny', message: 'a\u2028b\u2029c\ud800"\\\n' }, { input: {}, offers: null });
    expect(parsed(line).response.response.message).toBe('a\u2028b\u2029c\ud800"\\\n');
  });
});
