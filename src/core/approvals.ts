// An agent's request — a tool it wants to use, a question it asks — and how
// it is decided: by rules first (deny over ask over allow), then by a person,
// then by its deadline. Pure: the shell journals the request, asks, and
// answers the agent through its own protocol with what is decided here.

import { parseRules, ruleMatches, type AskSubject, type Rule, type RuleContext } from './approval-rules.js';

export type Verdict = 'allow' | 'deny';

/** The ways a person's answer reaches orcr. */
type AnswerVia = 'tui' | 'cli' | 'sdk' | 'mcp';

/** Who decided a request. */
export type Decider =
  /** A rule of the run's, its provider's, its workload's or config's lists. */
  | { kind: 'rule'; rule: string; list: 'allow' | 'deny' }
  /** Someone who answered: through what, and who (a terminal, a process, a run) when it is known. */
  | { kind: 'person'; via: AnswerVia; who: string | null }
  /** Nobody answered in time: the policy's on_timeout. */
  | { kind: 'deadline' };

type ApprovalState = 'pending' | 'allowed' | 'denied' | 'withdrawn';

/** One question of an agent's (Claude Code's AskUserQuestion), with the options it offers. */
export interface Question {
  question: string;
  header: string | null;
  options: { label: string; description: string | null }[];
  multi: boolean;
}

/** What an agent asks, as its adapter reads it: the rules' view (tool, subject) and what a person is shown. */
export interface Ask extends AskSubject {
  /** The agent's own id for the request (Claude Code's request_id): what its answer names. */
  ref: string;
  /** The tool call it is about (Claude Code's tool_use_id), when the agent says. */
  tool_use_id: string | null;
  /** Bytes a write would put in the file; lines an edit adds and removes: for the summary. */
  size: { bytes?: number; added?: number; removed?: number } | null;
  /** The agent's questions, when it asks instead of wanting a tool. */
  questions: Question[] | null;
  /** The rule the agent offers for allowing the like of it from now on in the run (Claude Code's suggestion), as rule text. */
  always: string | null;
}

/** A request as the journal keeps it (its input, whole, is in the run's folder, never here). */
export interface Approval {
  /** Short, for people to type: `orcr approve 12`. */
  id: number;
  run: string;
  ref: string;
  tool: string;
  /** Bounded and escaped: what the TUI, `ps`, events and notifications show. */
  summary: string;
  question: boolean;
  /** The rule offered for "always" (its text), or null. */
  always: string | null;
  asked_at: number;
  deadline_at: number | null;
  on_timeout: Verdict;
  state: ApprovalState;
  decided_at: number | null;
  by: Decider | null;
  /** A denial's message to the agent (bounded). */
  message: string | null;
  /** The answers chosen for a question, in its questions' order. */
  answers: string[] | null;
  /** Allowed for the rest of the run: `always` was added to its allow list. */
  always_added: boolean;
  /** The answer was written to the agent's input (a restart writes an undelivered one again). */
  delivered: boolean;
}

/** The policy a run's requests are decided by: its own rules and those of every scope above it, merged. */
export interface ApprovalPolicy {
  allow: readonly Rule[];
  deny: readonly Rule[];
  ask: readonly Rule[];
  /** How long a person has; null: no deadline. */
  timeout_ms: number | null;
  on_timeout: Verdict;
}

/** One scope's part of a policy as written (config's approvals, a provider's, a workload's, a run's). */
export interface PolicySource {
  allow?: readonly string[];
  deny?: readonly string[];
  ask?: readonly string[];
  timeout_ms?: number | null;
  on_timeout?: Verdict;
}

/** A person has this long by default, and silence denies: an agent is never let through by nobody answering unless its policy says so. */
export const DEFAULT_APPROVAL_TIMEOUT_MS = 60 * 60_000;

/**
 * Scopes merged, widest first (config, provider, workload, run): the lists
 * add up (a deny anywhere denies), the deadline and what it decides come
 * from the narrowest scope that says. A rule that does not parse is an error
 * naming it (config and flags are checked when read; this is the last guard).
 */
export function mergePolicies(scopes: readonly (PolicySource | null | undefined)[]): ApprovalPolicy | { error: string } {
  const allow: string[] = [];
  const deny: string[] = [];
  const ask: string[] = [];
  let timeout: number | null = DEFAULT_APPROVAL_TIMEOUT_MS;
  let onTimeout: Verdict = 'deny';
  for (const s of scopes) {
    if (!s) continue;
    allow.push(...(s.allow ?? []));
    deny.push(...(s.deny ?? []));
    ask.push(...(s.ask ?? []));
    if (s.timeout_ms !== undefined) timeout = s.timeout_ms;
    if (s.on_timeout !== undefined) onTimeout = s.on_timeout;
  }
  const parsed = [parseRules(allow), parseRules(deny), parseRules(ask)] as const;
  for (const p of parsed) if ('error' in p) return p;
  return { allow: parsed[0] as Rule[], deny: parsed[1] as Rule[], ask: parsed[2] as Rule[], timeout_ms: timeout, on_timeout: onTimeout };
}

/** What the rules say of a request: decided, or a person is to be asked (`rule`: the ask rule that says so, if one did). */
export type RulesSay = { verdict: Verdict; by: Extract<Decider, { kind: 'rule' }> } | { verdict: null; rule: string | null };

/**
 * Claude Code's order: a deny rule wins, then an ask rule, then an allow
 * rule. A question is for a person: allow rules never answer one, though a
 * deny rule may refuse it (no one to ask). Rules added while the run went on
 * (`always`) are the run's allow list like any other.
 */
export function decideByRules(ask: AskSubject & { question: boolean }, policy: ApprovalPolicy, ctx: RuleContext): RulesSay {
  const deny = policy.deny.find((r) => ruleMatches(r, ask, ctx, 'any'));
  if (deny) return { verdict: 'deny', by: { kind: 'rule', rule: deny.text, list: 'deny' } };
  const asks = policy.ask.find((r) => ruleMatches(r, ask, ctx, 'any'));
  if (asks) return { verdict: null, rule: asks.text };
  if (ask.question) return { verdict: null, rule: null };
  const allow = policy.allow.find((r) => ruleMatches(r, ask, ctx, 'all'));
  if (allow) return { verdict: 'allow', by: { kind: 'rule', rule: allow.text, list: 'allow' } };
  return { verdict: null, rule: null };
}

/** When a request asked at `askedAt` is decided by its deadline, or null for never. */
export function deadlineOf(policy: Pick<ApprovalPolicy, 'timeout_ms'>, askedAt: number): number | null {
  return policy.timeout_ms === null ? null : askedAt + policy.timeout_ms;
}

/** A pending request whose deadline has come: decided by it. */
export function expired(a: Pick<Approval, 'state' | 'deadline_at' | 'on_timeout'>, now: number): Verdict | null {
  return a.state === 'pending' && a.deadline_at !== null && a.deadline_at <= now ? a.on_timeout : null;
}

/**
 * Why a caller may not answer a run's request, or null: a run never answers
 * its own requests, nor do the runs below it (an agent approving itself, or
 * a helper it started doing it for it). `parentOf` walks up from the caller.
 */
export function answerRefusal(caller: string | null, asking: string, parentOf: (uuid: string) => string | null): string | null {
  const seen = new Set<string>();
  for (let at = caller; at !== null && !seen.has(at); at = parentOf(at)) {
    if (at === asking) return caller === asking ? 'a run cannot answer its own requests' : 'a run cannot answer the requests of a run above it';
    seen.add(at);
  }
  return null;
}

/** Why an answer to this request is refused (it is no longer waiting), or null. */
export function answeredAlready(a: Pick<Approval, 'state' | 'by' | 'id'>): string | null {
  if (a.state === 'pending') return null;
  if (a.state === 'withdrawn') return `request ${a.id} was withdrawn by the agent (its turn was interrupted, or the run ended)`;
  return `request ${a.id} was already ${a.state} by ${deciderText(a.by)}`;
}

/** Who decided, for people: `rule Bash(npm test:*)`, `a person at the TUI (pts/3)`, `its deadline`. */
export function deciderText(by: Decider | null): string {
  if (by === null) return 'nobody';
  switch (by.kind) {
    case 'rule':
      return `the ${by.list} rule ${by.rule}`;
    case 'deadline':
      return 'its deadline';
    case 'person': {
      const via = { tui: 'the TUI', cli: 'the CLI', sdk: 'the SDK', mcp: 'an MCP client' }[by.via];
      return by.who ? `${via} (${by.who})` : via;
    }
  }
}
