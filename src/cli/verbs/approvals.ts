// `orcr approvals`, `orcr approve`, `orcr deny`: the requests agents make
// before they use a tool, listed and answered. Each target (a request id, or
// a run: each request it has waiting) is answered on its own, so each gets
// its line and its exit code, and the command exits with the highest. The
// answer records who gave it: the CLI, this terminal (or this process), and
// the run it is given from (ORCR_RUN), which the supervisor refuses for that
// run's own requests and those of the runs above it.

import fs from 'node:fs';
import path from 'node:path';
import tty from 'node:tty';
import type { ApprovalAnswered, PublicApproval } from '../../client/methods.js';
import type { Orcr } from '../../sdk/client.js';
import { exitCodeOf, type ErrorCode } from '../../protocol/errors.js';
import { OrcrError } from '../../sdk/errors.js';
import type { Answerer } from '../../sdk/families.js';
import { quote } from '../../text/json-text.js';
import { safeLine } from '../../text/terminal-text.js';
import { chosenAnswers } from '../answer-choice.js';
import { approvalsTable, approvalText } from '../approval-text.js';
import type { Shell, Verb } from '../shell.js';
import { UsageError } from '../usage-error.js';

type Verdict = 'allow' | 'deny';

/** What one request, or one target, came to: its result as --json gives it, its line, its exit code. */
interface Outcome {
  result: ApprovalAnswered;
  line: string;
  code: number;
}

/** The terminal this command was typed at (`pts/3`), from stdin or stdout; else this process. */
function cliAnswerer(): Answerer {
  for (const fd of [0, 1]) {
    if (!tty.isatty(fd)) continue;
    try {
      const dev = fs.readlinkSync(`/proc/self/fd/${fd}`);
      if (dev.startsWith('/dev/')) return { via: 'cli', who: dev.slice('/dev/'.length) };
    } catch {
      // No /proc: the process will do.
    }
  }
  return { via: 'cli', who: `pid ${process.pid}` };
}

/** A request's id as typed, or null for a word that is not one (a run). */
function idOf(word: string, verb: string): number | null {
  if (!/^\d+$/.test(word)) return null;
  const id = Number(word);
  if (!Number.isSafeInteger(id) || id < 1)
    throw new UsageError(`${quote(word)} is no request id: they are whole numbers from 1 (orcr approvals lists them)`, verb);
  return id;
}

async function list(verb: string, rest: string[], sh: Shell): Promise<number> {
  const { values, positionals } = sh.parse(verb, rest);
  const all = values.all === true;
  const run = values.run as string | undefined;
  if (positionals.length > 1) throw new UsageError('approvals takes one request id, to show it whole', verb);
  if (positionals.length === 1) {
    if (all || run !== undefined) throw new UsageError('approvals ID shows one request; --all and --run go with the list', verb);
    const id = idOf(positionals[0]!, verb);
    if (id === null) throw new UsageError(`${quote(positionals[0]!)} is no request id: approvals takes a number (--run RUN lists a run's)`, verb);
    const got = await sh.withSdk((o) => o.approvals.get(id));
    if (sh.json) sh.printJson(got);
    else sh.out(approvalText(got, Date.now(), path.join(sh.home().runs, got.approval.run, 'approvals', `${id}.json`)));
    return 0;
  }
  if (run !== undefined && run.trim() === '') throw new UsageError('--run needs a run (name or uuid)', verb);
  const shown = await sh.withSdk((o) => o.approvals.list({ run, all }));
  if (sh.json) sh.printJson(shown);
  else if (shown.length > 0) sh.out(approvalsTable(shown, Date.now(), all));
  else if (all) sh.out(run === undefined ? 'no requests' : 'no requests of this run');
  else sh.out(run === undefined ? 'no request waits for an answer' : 'no request of this run waits for an answer');
  return 0;
}

/** A flag of the other verb, named with where it goes, before the parser calls it unknown. */
function otherVerbsFlag(verb: string, rest: readonly string[]): void {
  if (verb === 'approve' && rest.some((a) => a === '-m' || /^-m./.test(a) || /^--message(=|$)/.test(a)))
    throw new UsageError('-m goes with deny: it is what a refused agent is told', verb);
  if (verb === 'deny' && rest.some((a) => /^--(always|answer)(=|$)/.test(a))) throw new UsageError('--always and --answer go with approve', verb);
}

/** What the answer says: allow with a question's answers and "always", or deny with the agent's message. */
interface Given {
  verdict: Verdict;
  always: boolean;
  answers: string[];
  message: string | undefined;
}

async function answer(verb: 'approve' | 'deny', rest: string[], sh: Shell): Promise<number> {
  otherVerbsFlag(verb, rest);
  const { values, positionals } = sh.parse(verb, rest);
  if (positionals.length === 0) throw new UsageError(`${verb} needs request ids, or runs (each request a run has waiting): orcr approvals lists them`, verb);
  for (const t of positionals) {
    if (t.trim() === '') throw new UsageError(`an empty target names no request: give an id, or a run's name or uuid`, verb);
    idOf(t, verb);
  }
  const message = values.message as string | undefined;
  if (message !== undefined && message.trim() === '') throw new UsageError('-m needs the words the agent is told', verb);
  const given: Given = {
    verdict: verb === 'approve' ? 'allow' : 'deny',
    always: values.always === true,
    answers: (values.answer as string[] | undefined) ?? [],
    message,
  };
  const orcr = await sh.sdk({ answerer: cliAnswerer() });
  const outcomes: Outcome[] = [];
  try {
    for (const t of positionals) outcomes.push(...(await answerTarget(orcr, t, idOf(t, verb), given)));
  } finally {
    orcr.close();
  }
  if (sh.json) sh.printJson(outcomes.map((o) => o.result));
  else
    for (const o of outcomes) {
      // Each line quotes a summary, a run's name, a refusal: one line each, whatever they hold.
      if (o.code === 0) sh.out(safeLine(o.line));
      else sh.say(safeLine(o.line));
    }
  return Math.max(0, ...outcomes.map((o) => o.code));
}

/** One target: a request by id, or each request a run has waiting. */
async function answerTarget(orcr: Orcr, target: string, id: number | null, given: Given): Promise<Outcome[]> {
  let requests: PublicApproval[];
  try {
    requests = id !== null ? [(await orcr.approvals.get(id)).approval] : await orcr.approvals.list({ run: target });
  } catch (e) {
    return [refusal(target, null, e)];
  }
  // Nothing waits: the supervisor says so (and answers what came meanwhile).
  if (requests.length === 0) return [await send(orcr, target, null, given, [])];
  const out: Outcome[] = [];
  for (const a of requests) {
    const answers = given.verdict === 'allow' && a.question && a.state === 'pending' ? chosenAnswers(a.id, a.questions ?? [], given.answers) : given.answers;
    if ('error' in answers) out.push(failed(target, a, 'usage', answers.error, 2));
    else out.push(await send(orcr, target, a, given, answers));
  }
  return out;
}

async function send(orcr: Orcr, target: string, a: PublicApproval | null, given: Given, answers: (string | string[])[]): Promise<Outcome> {
  const to = a === null ? target : String(a.id);
  try {
    const results =
      given.verdict === 'allow'
        ? await orcr.approvals.approve(to, { always: given.always, answers: answers.length > 0 ? answers : undefined })
        : await orcr.approvals.deny(to, { message: given.message });
    const r = { ...results[0]!, target };
    if (r.error) return failed(target, a, r.error.code, r.error.message, exitCodeOf(r.error.code));
    return { result: r, line: answeredLine(r, a, given, answers), code: 0 };
  } catch (e) {
    return refusal(target, a, e);
  }
}

function answeredLine(r: ApprovalAnswered, a: PublicApproval | null, given: Given, answers: (string | string[])[]): string {
  const what = a === null ? '' : ` (${a.summary})`;
  const id = r.id ?? r.target;
  if (r.state !== 'allowed') return `${id} ${r.state ?? 'answered'}${what}`;
  if (answers.length > 0) return `${id} answered: ${answers.map((x) => (typeof x === 'string' ? x : x.join(', '))).join('; ')}${what}`;
  if (given.always && a?.always) return `${id} allowed, and ${a.always} from now on in run ${a.name}${what}`;
  return `${id} allowed${what}`;
}

function refusal(target: string, a: PublicApproval | null, e: unknown): Outcome {
  if (!(e instanceof OrcrError)) throw e;
  // The SDK's own `pruned` never comes of an answer; were it to, it is a request not found.
  return failed(target, a, e.code === 'pruned' ? 'not_found' : e.code, e.message, e.exitCode);
}

function failed(target: string, a: PublicApproval | null, code: ErrorCode, message: string, exit: number): Outcome {
  const result: ApprovalAnswered = { target, id: a?.id ?? null, run: a?.run ?? null, state: a?.state ?? null, error: { code, message } };
  const who = a === null ? target : String(a.id);
  // No such request or run, or a run with nothing waiting: the supervisor's words say it all.
  if (code === 'not_found' || (a === null && code === 'conflict')) return { result, line: message, code: exit };
  if (code === 'usage') return { result, line: `${who} not answered: ${message}`, code: exit };
  const from = process.env.ORCR_RUN;
  const inside = code === 'refused' && from ? `; it was given from run ${from} (this environment's ORCR_RUN): answer from outside it` : '';
  return { result, line: `${who} refused: ${message}${inside}`, code: exit };
}

const approvalsVerbs: Verb = async (verb, rest, sh) =>
  verb === 'approvals' ? list(verb, rest, sh) : answer(verb === 'approve' ? 'approve' : 'deny', rest, sh);
export default approvalsVerbs;
