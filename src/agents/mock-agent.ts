#!/usr/bin/env node
// orcr-mock-agent: a simulated coding agent that speaks Claude Code, Codex
// (exec, or its app-server), Gemini CLI, ACP or orcr's own JSONL — the two
// JSON-RPC ones as a server (mock/serve.ts) — for tests, the bench and `orcr
// demo`. Deterministic for a given --seed (timing aside). Plain Node, no
// dependencies.

import { askingTurn, emit, exitAfterFlush, fatal, sleep } from './mock/emit.js';
import { planAskTurn, planLoopTurn, planTurn, SCENARIOS, type Scenario, type TurnPlan } from './mock/plan.js';
import type { Renderer } from './mock/render.js';
import { createRng, type Rng } from './mock/rng.js';
import { serve } from './mock/serve.js';
import { readStdin, type Stdin } from './mock/stdin.js';
import { agentProtocol, MOCK_FORMATS } from './registry.js';

interface Options {
  format: string;
  scenario: Scenario;
  turns: number;
  delay: number;
  seed: number;
  prompt: string;
  /** --prompt was given: an interactive agent works on it before it waits for input. */
  promptGiven: boolean;
}

const USAGE = `usage: orcr-mock-agent --format ${MOCK_FORMATS.join('|')} [--scenario NAME]
                       [--turns N] [--delay MS] [--seed N] [--prompt TEXT]

scenarios:
  work          N turns (--turns, default 2) of 1-3 tool calls, text and usage; exit 0 (default)
  interactive   one turn for --prompt if given, then one turn per stdin input; exit 0 at stdin EOF
                (claude: {"type":"user","message":{"role":"user","content":"..."}},
                 jsonl: {"type":"input","text":"..."}, codex/gemini: any line)
  ask           as interactive, but each command, new file or edit is asked first and waits for
                the answer on stdin (claude: a can_use_tool control_request, answered by a
                {"type":"control_response","response":{"subtype":"success","request_id":"...",
                "response":{"behavior":"allow"|"deny",...}}} line; other ids are ignored, a line
                that is not JSON exits 1, a request waiting at stdin EOF is denied)
  ask-question  as ask, and the first turn first asks a question (AskUserQuestion, 2-3 options)
                and goes with the answer it gets (updatedInput.answers, keyed by the question)
  slow-start    waits --delay x 10 before its first line, then works
  never-starts  prints nothing and sleeps until killed
  crash         one turn, then exits 3 in the middle of the next
  limit         one turn, then hits a usage limit; exits 1 a while later
  loop          the same tool call with the same input, every turn, until killed
  auth          not logged in; exits 1 (gemini: 41)

codex-app and acp are JSON-RPC servers on stdin/stdout, as \`codex app-server\` and
Gemini CLI's --acp are: nothing is printed until asked; initialize, then a new session
(thread/start, session/new) or the one named (thread/resume, session/load); one turn per
turn/start or session/prompt (answered at once, or at the turn's end); before a command or
an edit a request (item/.../requestApproval with availableDecisions, a question as
item/tool/requestUserInput; session/request_permission with options) that waits for the
response with its id; exit 0 at stdin EOF, even mid-turn. --turns and --prompt are not
theirs; crash exits 3 half-way through its first turn; limit fails each turn as the CLI reports a usage
limit, auth as it reports no login (codex-app: each turn, 401; acp: the session refused),
and the server lives on; loop is one turn that never ends.
`;

function fail(message: string): never {
  process.stderr.write(`orcr-mock-agent: ${message}\n${USAGE}`);
  process.exit(2);
}

function parseArgs(argv: string[]): Options {
  const opts: Options = { format: 'jsonl', scenario: 'work', turns: 2, delay: 100, seed: 1, prompt: 'Fix the failing tests', promptGiven: false };
  let formatGiven = false;
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    if (flag === '-h' || flag === '--help') {
      process.stdout.write(USAGE);
      process.exit(0);
    }
    const eq = flag?.indexOf('=') ?? -1;
    const name = eq > 0 ? flag!.slice(0, eq) : flag;
    const value = eq > 0 ? flag!.slice(eq + 1) : argv[++i];
    if (value === undefined) fail(`${name} needs a value`);
    const int = (min: number): number => {
      const n = Number(value);
      if (!Number.isInteger(n) || n < min) fail(`${name} must be an integer >= ${min}`);
      return n;
    };
    switch (name) {
      case '--format':
        if (!(MOCK_FORMATS as readonly string[]).includes(value)) fail(`unknown format: ${value}`);
        opts.format = value;
        formatGiven = true;
        break;
      case '--scenario':
        if (!(SCENARIOS as readonly string[]).includes(value)) fail(`unknown scenario: ${value}`);
        opts.scenario = value as Scenario;
        break;
      case '--turns':
        opts.turns = int(0);
        break;
      case '--delay':
        opts.delay = int(0);
        break;
      case '--seed':
        opts.seed = int(0);
        break;
      case '--prompt':
        opts.prompt = value;
        opts.promptGiven = true;
        break;
      default:
        fail(`unknown option: ${name}`);
    }
  }
  if (!formatGiven) fail('--format is required');
  return opts;
}

async function run(opts: Options): Promise<void> {
  const rng: Rng = createRng(opts.seed);
  const r: Renderer = (await agentProtocol(opts.format)!.mock!())(rng);
  const { delay } = opts;
  let turn = 0;
  const nextPlan = (prompt: string): TurnPlan => planTurn(rng, turn++, prompt);

  if (opts.scenario === 'never-starts') {
    setInterval(() => {}, 1 << 30);
    return;
  }
  if (r.server) return serve(r, r.server, { ...opts, rng });

  switch (opts.scenario) {
    case 'slow-start':
      await sleep(delay * 10);
      await emit(r.start(), delay);
      for (let i = 0; i < opts.turns; i++) await emit(r.turn(nextPlan(opts.prompt)), delay);
      return exitAfterFlush(0);

    case 'work':
      await emit(r.start(), delay);
      for (let i = 0; i < opts.turns; i++) await emit(r.turn(nextPlan(i === 0 ? opts.prompt : 'keep going')), delay);
      return exitAfterFlush(0);

    case 'crash': {
      await emit(r.start(), delay);
      await emit(r.turn(nextPlan(opts.prompt)), delay);
      const next = r.turn(nextPlan('keep going'));
      await emit(next.slice(0, Math.max(1, Math.floor(next.length / 2))), delay);
      return exitAfterFlush(3);
    }

    case 'limit':
      await emit(r.start(), delay);
      await emit(r.turn(nextPlan(opts.prompt)), delay);
      await emit(r.limit(), delay);
      // A real CLI lingers (retrying, or waiting for input) before giving up.
      await sleep(Math.max(500, delay * 20));
      return exitAfterFlush(1);

    case 'loop':
      await emit(r.start(), delay);
      for (;;) await emit(r.turn(planLoopTurn(rng, turn++, opts.prompt)), Math.max(delay, 1));

    case 'auth': {
      const a = r.auth();
      if (a.stderr) process.stderr.write(a.stderr + '\n');
      await emit(a.lines, delay);
      return exitAfterFlush(a.code);
    }

    case 'interactive': {
      const stdin = readStdin((line) => textInput(r.parseInput(line)), fatal);
      return interactive(r, opts, stdin, (text) => emit(r.turn(nextPlan(text)), delay));
    }

    case 'ask':
    case 'ask-question': {
      const asking = r.asking;
      if (!asking) fail(`--format ${opts.format} never asks: no scenario ${opts.scenario}`);
      const stdin = readStdin(asking.read, fatal);
      const question = opts.scenario === 'ask-question';
      const plan = (text: string): TurnPlan => {
        const index = turn++;
        return planAskTurn(rng, index, text, question && index === 0);
      };
      return interactive(r, opts, stdin, (text) => askingTurn(asking, plan(text), stdin, delay));
    }
  }
}

const textInput = (text: string | null) => (text === null ? null : { kind: 'input' as const, text });

/**
 * One turn for an argv prompt (if given, as `claude "do x"` would), then one
 * per stdin input, in order; exit 0 at EOF. Without one it waits for input,
 * as Claude Code in stream-json input mode does.
 */
async function interactive(r: Renderer, opts: Options, stdin: Stdin, turn: (text: string) => Promise<void>): Promise<void> {
  await emit(r.start(), opts.delay);
  if (opts.promptGiven) await turn(opts.prompt);
  for (let text = await stdin.nextInput(); text !== null; text = await stdin.nextInput()) await turn(text);
  return exitAfterFlush(0);
}

// Exit promptly and conventionally (128 + signal number) when told to stop,
// whatever the scenario is awaiting.
for (const [signal, code] of [
  ['SIGTERM', 143],
  ['SIGINT', 130],
  ['SIGHUP', 129],
] as const) {
  process.on(signal, () => process.exit(code));
}
// A reader that went away is not an error worth a stack trace.
process.stdout.on('error', () => process.exit(0));

run(parseArgs(process.argv.slice(2))).catch((err: unknown) => {
  process.stderr.write(`orcr-mock-agent: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
