// `orcr approvals`, `orcr approve`, `orcr deny`: the requests agents make
// before they use a tool, listed and answered. Each target (a request id, or
// a run: each request it has waiting) is answered on its own, so each gets
// its line and its exit code, and the command exits with the highest. The
// answer records who gave it: the CLI, this terminal (or this process), and
// the run it is given from (ORCR_RUN), which the supervisor refuses for that
// run's own requests and those of the runs above it.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import tty from 'node:tty';
import type { ApprovalAnswered, PublicApproval } from '../../client/methods.js';
import type { Orcr } from '../../sdk/client.js';
import { MESSAGE_CONTROL, MESSAGE_MAX } from '../../core/approval-answers.js';
import { exitCodeOf, type ErrorCode } from '../../protocol/errors.js';
import { OrcrError } from '../../sdk/errors.js';
import type { Answerer } from '../../sdk/families.js';
import { quote } from '../../text/json-text.js';
import { safeLine } from '../../text/terminal-text.js';
import { chosenAnswers } from '../answer-choice.js';
import { approvalsCluster } from '../fleet.js';
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

/** Who typed this command: the user, and the terminal (`alice, pts/3`) from stdin or stdout, else this process. */
function cliAnswerer(): Answerer {
  const user = userName();
  for (const fd of [0, 1]) {
    if (!tty.isatty(fd)) continue;
    try {
      const dev = fs.readlinkSync(`/proc/self/fd/${fd}`);
      if (dev.startsWith('/dev/')) return { via: 'cli', who: `${user}, ${dev.slice('/dev/'.length)}` };
    } catch {
      // No /proc: the process will do.
    }
  }
  return { via: 'cli', who: `${user}, pid ${process.pid}` };
}

/** The login name, when it is a plain one; else the uid (a container's user may have no name). */
function userName(): string {
  try {
    const { username } = os.userInfo();
    if (/^[\w.@+-]{1,64}$/.test(username)) return username;
  } catch {
    // No passwd entry for this uid.
  }
  return `uid ${process.getuid?.() ?? '?'}`;
}

/** Digits as a message shows them: the first 40, and how many there were past that. */
const digits = (word: string): string => (word.length <= 40 ? quote(word) : `${quote(word.slice(0, 40))}… (${word.length} digits)`);

/** A request's id as typed, or null for a word that is not one (a run). */
/** `b:12`: a request of machine b (in a cluster; a local run named so is answered as a run). */
const REMOTE_ID = /^[^:]+:\d+$/;

/** A request as the user types it: its id, or HOST:ID for another machine's. */
function label(a: PublicApproval): string {
  return a.host !== undefined ? `${a.host}:${a.id}` : String(a.id);
}

function idOf(word: string, verb: string): number | null {
  if (!/^\d+$/.test(word)) return null;
  const id = Number(word);
  if (id < 1) throw new UsageError(`${digits(word)} is no request id: they are whole numbers from 1 (orcr approvals lists them)`, verb);
  if (!Number.isSafeInteger(id))
    throw new UsageError(`${digits(word)} is no request id: it is past the largest one (${Number.MAX_SAFE_INTEGER}); orcr approvals lists them`, verb);
  return id;
}

/** `-1` where an id goes: said to be no id, before the parser takes it for a flag it does not know. */
function negativeId(verb: string, rest: readonly string[]): void {
  const end = rest.indexOf('--');
  for (const [i, a] of (end < 0 ? rest : rest.slice(0, end)).entries()) {
    const flagValue = i > 0 && /^(-m|--message|--answer)$/.test(rest[i - 1]!);
    if (/^-\d+$/.test(a) && !flagValue) throw new UsageError(`${digits(a)} is no request id: they are whole numbers from 1 (orcr approvals lists them)`, verb);
  }
}

async function list(verb: string, rest: string[], sh: Shell): Promise<number> {
  negativeId(verb, rest);
  const { values, positionals } = sh.parse(verb, rest);
  if (values.cluster === true) return approvalsCluster(verb, values, positionals, sh);
  const all = values.all === true;
  if (positionals.length > 1) throw new UsageError('approvals takes one run (its requests), or one request id (shown whole)', verb);
  const word = positionals[0];
  if (word !== undefined && word.trim() === '') throw new UsageError("an empty word names no run: give a run's name or uuid, or a request's id", verb);
  const id = word === undefined ? null : idOf(word, verb);
  if (id !== null) {
    if (all) throw new UsageError('approvals ID shows one request whole; --all goes with the list', verb);
    const got = await sh.withSdk((o) => o.approvals.get(id));
    if (sh.json) sh.printJson(got);
    else sh.out(approvalText(got, Date.now(), path.join(sh.home().runs, got.approval.run, 'approvals', `${id}.json`)));
    return 0;
  }
  const run = word;
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

/** -m: words the agent reads, within the supervisor's bound, with no control character but a newline or a tab. */
function checkMessage(message: string, verb: string): void {
  if (message.trim() === '') throw new UsageError('-m needs the words the agent is told', verb);
  if (message.length > MESSAGE_MAX) throw new UsageError(`-m is ${message.length} characters long: at most ${MESSAGE_MAX} (say why, in a few lines)`, verb);
  const at = message.search(MESSAGE_CONTROL);
  if (at >= 0)
    throw new UsageError(
      `-m holds a control character (${quote(message.charAt(at))} at character ${at + 1}): the agent is told plain text, newlines and tabs aside`,
      verb,
    );
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
  negativeId(verb, rest);
  const { values, positionals } = sh.parse(verb, rest);
  if (positionals.length === 0) throw new UsageError(`${verb} needs request ids, or runs (each request a run has waiting): orcr approvals lists them`, verb);
  for (const t of positionals) {
    if (t.trim() === '') throw new UsageError(`an empty target names no request: give an id, or a run's name or uuid`, verb);
    idOf(t, verb);
  }
  const message = values.message as string | undefined;
  if (message !== undefined) checkMessage(message, verb);
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
  // Another machine's request by id (HOST:ID): answered there, where its question and summary are.
  if (id === null && REMOTE_ID.test(target)) return [await send(orcr, target, null, given, given.answers)];
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
  const to = a === null ? target : label(a);
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
  const id = r.host !== undefined && r.id !== null ? `${r.host}:${r.id}` : (r.id ?? r.target);
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
  const who = a === null ? target : label(a);
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
