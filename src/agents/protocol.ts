// What orcr knows of one agent protocol, in one record: how its output is
// recognized and read, how input is written to its agent, how it is answered
// when it asks before it acts, how its sessions are carried on and taken
// over, which login it runs under, whether it reports its own cost, the agent
// CLI preset that speaks it, and how the mock agent speaks it. Each protocol's module holds its record; registry.ts lists
// them once, and every list of protocols (names, presets, the zod enums, the
// messages that name them) is derived from there.

import type { Verdict } from '../core/approvals.js';
import type { ResumeArgv } from '../core/attempts.js';
import type { Renderer } from './mock/render.js';
import type { Rng } from './mock/rng.js';
import type { AdapterOptions, ExtendedAdapter } from './signals.js';
import type { JsonObject } from './util.js';

/**
 * How surely the first JSON object an agent prints says it speaks a protocol.
 * Protocols share type names (`result`, `error`, `init`), so the surest claim
 * wins: `own`, fields or types only this protocol writes (Claude's
 * session_id stamps, Codex's dotted types); `shape`, this protocol's shape
 * of a shared type name (Gemini's timestamped events); `generic`, generic
 * type names (orcr's jsonl: `text`, `tool`, `usage`); `fallback`, only
 * when nothing else claims the line (Codex's bare `error` notice).
 */
export const CERTAINTY = { own: 3, shape: 2, generic: 1, fallback: 0 } as const;
type Certainty = (typeof CERTAINTY)[keyof typeof CERTAINTY];

/** Where an input goes: the run's session (a two-way protocol's thread), and the input's number in the run (1: its prompt). */
export interface InputContext {
  session: string | null;
  seq: number;
}

/** What a protocol's agent reads on stdin after its prompt (a multi-turn session). */
interface AgentInput {
  /** One input, as the line the agent reads. */
  line(text: string, ctx: InputContext): string;
  /** It prints a line before its first input (orcr jsonl's `ready`); others say nothing until they get one. */
  announcesFirst?: boolean;
}

/** The built-in provider preset of the agent CLI that speaks the protocol (config.json's providers.NAME refines it). */
interface Preset {
  /**
   * The provider's name, where it is not the protocol's: `codex` runs
   * Codex's app-server (protocol codex-app), `codex-exec` its `exec --json`
   * stream (protocol codex), whose name old journals and configs keep.
   */
  name?: string;
  /** Without `{prompt}`: the prompt goes to stdin. */
  command: readonly string[];
  /** The prompt is the first input line (formatted for the protocol), later input comes with `send`. */
  interactive_input?: boolean;
  /**
   * Taking a run over (`o`): the arguments that open the run's session in the
   * CLI's own interactive mode, the CLI being the preset's program; `title`
   * names it to a person.
   */
  takeover?: { title: string; args: (session: string) => string[] };
}

/**
 * A two-way protocol (JSON-RPC: Codex's app-server, ACP) where orcr, the
 * client, opens the agent's session and starts each of its turns. The
 * opening is written by the run's wrapper before anything else (on disk
 * before the launch, so exactly once whoever dies); the agent's answer to it
 * is the `opened` signal, and orcr then sends the attempt's prompt as the
 * first turn (input.line, with the session).
 */
interface Conversation {
  /** The opening lines: a new session, or, given one, the same session resumed (a continuation, a retry that resumes). */
  opening(ctx: { cwd: string; session: string | null }): string;
}

/** A tool result or user message a line carries that the signals leave out, read for the transcript. */
export type TranscriptExtra =
  | { kind: 'tool_result'; text: string; failed: boolean }
  /** A user message the agent printed back. */
  | { kind: 'echo'; text: string }
  /** `replacesOutput`: the adapter kept the line as output; the error says what it is instead. */
  | { kind: 'error'; text: string; replacesOutput?: boolean };

/** orcr's answer to an agent's request, as decided (core/approvals.ts). */
export interface AgentAnswer {
  verdict: Verdict;
  /** A denial's words to the model; null: the protocol's default. */
  message: string | null;
  /** A question's answers, one per question in its order (a multi-select's labels already joined); null when none were chosen. */
  answers: string[] | null;
  /** Allow the like of it for the rest of the session too (the agent's own offer, when it made one). */
  always: boolean;
}

/** How a protocol's agent asks orcr before it acts, and takes the answer on its stdin. */
interface ApprovalChannel {
  /** The whole line to write to the agent's stdin, newline included; `asked` is what the request carried (its approval signal's input and offers). */
  answer(ref: string, answer: AgentAnswer, asked: { input: unknown; offers: unknown }): string;
  /**
   * A line that carries a request, known from its first bytes: it is read
   * whole even past the output's line limit, as a request's input may be a
   * whole file (a 10 MB Write) and the agent waits for the answer to it.
   */
  carriesRequest(head: string): boolean;
}

interface TranscriptReading {
  /** The line types `read` looks at (its `type`, a JSON-RPC `method`, an ACP `sessionUpdate`): a cheap test before a line is parsed a second time. */
  types: readonly string[];
  read(obj: JsonObject): TranscriptExtra[];
}

export interface AgentProtocol<N extends string = string> {
  /** `--protocol NAME`, a run's `protocol`; a preset of the protocol has this name too. */
  readonly name: N;
  /** Detection from the first JSON object of an agent's output (its `type`, and the object): how surely it is this protocol, or null. Without it, never detected. */
  readonly detect?: (type: string, first: JsonObject) => Certainty | null;
  /** A new reader of one run's output lines. */
  readonly adapter: (options: AdapterOptions) => ExtendedAdapter;
  /** The agent asks orcr before it uses a tool and takes the answer on its input (absent: it never asks). */
  readonly approvals?: ApprovalChannel;
  /** Absent: the agent takes no input after its prompt (one-shot). */
  readonly input?: AgentInput;
  /** Present: orcr opens the agent's session and starts its turns (a JSON-RPC protocol); its `input` writes each turn. */
  readonly conversation?: Conversation;
  /** The command that carries a session on, from the run's first command (core/attempts.ts asks). Absent: its sessions are not resumed. */
  readonly resume?: ResumeArgv;
  /** The environment variable whose folder holds the agent's login (and its usage windows). */
  readonly accountEnv?: string;
  /** Its agents report their own cost; others are metered as tokens × a configured price. */
  readonly reportsCost: boolean;
  readonly preset?: Preset;
  /** How orcr-mock-agent speaks it (`--format NAME`): its renderer, loaded by the mock agent only. */
  readonly mock?: () => Promise<(rng: Rng) => Renderer>;
  readonly transcript?: TranscriptReading;
}

/** A record, its name kept as a literal type (so the names derive as a union). */
export function defineProtocol<const N extends string>(record: AgentProtocol<N>): AgentProtocol<N> {
  return record;
}
