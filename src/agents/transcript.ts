// A run's output read as a conversation: the prompt and each input, what the
// assistant said, each tool call and its result, turn ends with their usage
// and cost, errors and holds. Built line by line, so a follower feeds new
// lines as they come and a 50,000-line run is parsed once, never per scroll.
//
// The protocol adapters give the signals (text, tool, usage, result,
// blocked); tool RESULTS are not signals (the reducer has no use for them),
// so each protocol's record reads them from the same line, in its shape
// (its `transcript`): claude `user` messages with `tool_result` blocks,
// codex's completed `command_execution` items, gemini's `tool_result`
// events. Pure: no I/O.

import { bounded, summarize } from '../core/approval-summary.js';
import type { Protocol } from '../core/types.js';
import { createDetectingAdapter, type DetectingAdapter } from './detecting.js';
import type { TranscriptExtra } from './protocol.js';
import { agentProtocol, AGENT_PROTOCOLS, createAdapter } from './registry.js';
import type { Adapter, Signal } from './signals.js';
import { isObject, parseObject, str } from './util.js';

type EntryKind = 'prompt' | 'input' | 'text' | 'tool' | 'tool_result' | 'turn' | 'error' | 'hold' | 'approval' | 'decision' | 'raw';

export interface Entry {
  kind: EntryKind;
  /** What is shown (as the agent wrote it: the renderer makes it safe). */
  text: string;
  /** The output line it came from (0-based), or -1 for an input record. */
  line: number;
  /** A failed tool result, a failed turn, a denied request. */
  failed?: boolean;
}

/** How a request was decided, as the supervisor records it beside the inputs (who in words). */
export interface DecisionRecord {
  ref: string;
  verdict: 'allow' | 'deny';
  by: string;
  message: string | null;
  answers: string[] | null;
}

/**
 * An input the supervisor recorded (its text), or a request's decision,
 * with the size of the output file when it was written: it is shown before
 * the line that starts there (a decision, right after the request its
 * agent waited on).
 */
export type InputRecord = { text: string; out_bytes: number } | { decision: DecisionRecord; out_bytes: number };

export interface TranscriptBuilder {
  /** One output line (without its newline): the entries it adds. */
  line(line: string): Entry[];
  /** The process exited: anything pending. */
  end(): Entry[];
  /** The inputs as recorded now (the record only grows: a send adds one while the run works). */
  setInputs(inputs: readonly InputRecord[]): void;
}

export interface TranscriptOptions {
  /** Recorded inputs (the prompt first), in order. */
  inputs?: readonly InputRecord[];
}

/** The line types a protocol's transcript reading looks at (tool results, echoed user messages, errors, plans): a cheap test before a second parse. */
const EXTRA_TYPE_NAMES = [...new Set(AGENT_PROTOCOLS.flatMap((p) => p.transcript?.types ?? []))];
const escaped = (t: string): string => t.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
// A line's type: its `type` (the stream protocols), a JSON-RPC notification's `method`, or an ACP update's `sessionUpdate`.
const EXTRAS_TYPES = new RegExp(`"(?:type|method|sessionUpdate)"\\s*:\\s*"(?:${EXTRA_TYPE_NAMES.map(escaped).join('|')})"`);

export function createTranscript(protocol: Protocol | null, options: TranscriptOptions = {}): TranscriptBuilder {
  const detecting: DetectingAdapter | null = protocol === null ? createDetectingAdapter() : null;
  const adapter: Adapter = detecting ?? createAdapter(protocol!);
  const inputs = createInputs(options.inputs ?? []);
  const reader = createSignalReader(inputs);
  let index = 0;
  let bytes = 0;
  const proto = (): Protocol | null => protocol ?? detecting?.protocol() ?? null;

  return {
    line(raw: string): Entry[] {
      const at = index++;
      const out: Entry[] = [];
      inputs.place(bytes, out);
      bytes += Buffer.byteLength(raw) + 1;
      const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
      for (const s of adapter.line(line)) reader.signal(s, at, out);
      // Parsed a second time only when it may carry what the signals leave out (most lines do not).
      const obj = line.startsWith('{') && EXTRAS_TYPES.test(line) ? parseObject(line) : null;
      if (obj) for (const x of agentProtocol(proto())?.transcript?.read(obj) ?? []) reader.extra(x, at, out);
      return out;
    },
    setInputs(next: readonly InputRecord[]): void {
      inputs.set(next);
    },
    end(): Entry[] {
      const out: Entry[] = [];
      for (const s of adapter.end?.() ?? []) reader.signal(s, index, out);
      inputs.place(Infinity, out);
      return out;
    },
  };
}

interface Inputs {
  /** The recorded inputs written before output byte `upTo`, as entries. */
  place(upTo: number, out: Entry[]): void;
  /** A user message the agent printed back: shown unless it is the input just recorded. */
  echoed(text: string, at: number, out: Entry[]): void;
  set(next: readonly InputRecord[]): void;
}

function createInputs(initial: readonly InputRecord[]): Inputs {
  let inputs = initial;
  let nextInput = 0;
  let lastInput: string | null = null;
  let promptShown = false;
  return {
    place(upTo, out) {
      while (nextInput < inputs.length && inputs[nextInput]!.out_bytes <= upTo) {
        const rec = inputs[nextInput]!;
        nextInput++;
        if ('decision' in rec) {
          out.push(decisionEntry(rec.decision));
          continue;
        }
        out.push({ kind: promptShown ? 'input' : 'prompt', text: rec.text, line: -1 });
        lastInput = rec.text;
        promptShown = true;
      }
    },
    echoed(text, at, out) {
      if (text === lastInput) {
        lastInput = null;
        return;
      }
      out.push({ kind: promptShown ? 'input' : 'prompt', text, line: at });
      promptShown = true;
    },
    set(next) {
      inputs = next;
    },
  };
}

interface SignalReader {
  signal(s: Signal, at: number, out: Entry[]): void;
  /** What the signals leave out, read from the line by its protocol. */
  extra(x: TranscriptExtra, at: number, out: Entry[]): void;
}

function createSignalReader(inputs: Inputs): SignalReader {
  const turns = createTurnLog();
  let resultInTurn = false;
  // The last hold or error said: agents repeat one failure in several lines (a notice, a hold, the result).
  let lastProblem: string | null = null;

  /** A hold or error, unless it says what the last one said. */
  function problem(kind: 'hold' | 'error', text: string, shown: string, at: number, out: Entry[]): void {
    if (text === lastProblem) return;
    lastProblem = text;
    out.push({ kind, text: shown, line: at });
  }

  return {
    signal(s, at, out) {
      switch (s.kind) {
        case 'text':
          out.push({ kind: 'text', text: s.text, line: at });
          return;
        case 'tool':
          out.push({ kind: 'tool', text: toolLine(s.name, s.input), line: at });
          return;
        case 'usage':
          turns.usage(s);
          return;
        case 'result':
          if (!s.ok) problem('error', s.text ?? s.detail ?? 'the turn failed', s.text ?? s.detail ?? 'the turn failed', at, out);
          lastProblem = null;
          out.push(turns.entry(at, s.ok, s.ok ? undefined : s.detail));
          resultInTurn = true;
          return;
        case 'turn_end':
          // orcr's jsonl ends a turn without a result: the boundary is still worth a line.
          if (!resultInTurn) out.push(turns.entry(at, true, undefined));
          resultInTurn = false;
          return;
        case 'turn_start':
          resultInTurn = false;
          return;
        case 'blocked':
          problem(
            'hold',
            s.message ?? s.blocked,
            `${s.blocked}${s.message ? `: ${s.message}` : ''}${s.retry_after_s !== undefined ? ` (retry in ${Math.round(s.retry_after_s)}s)` : ''}`,
            at,
            out,
          );
          return;
        case 'approval':
          // The agent waits on it; its decision (recorded beside the inputs) follows it.
          out.push({ kind: 'approval', text: `asks: ${summarize(s.ask, null)}`, line: at });
          return;
        case 'denied':
          out.push({ kind: 'decision', text: `${bounded(s.tool, 60)} refused by the agent CLI's own settings: ${s.message}`, line: at, failed: true });
          return;
        case 'output':
          out.push({ kind: 'raw', text: s.line, line: at });
          return;
        default:
          return; // alive: nothing to read
      }
    },
    extra(x, at, out) {
      if (x.kind === 'tool_result') out.push({ kind: 'tool_result', text: x.text, line: at, ...(x.failed ? { failed: true } : {}) });
      else if (x.kind === 'echo') inputs.echoed(x.text, at, out);
      else {
        if (x.replacesOutput) {
          const last = out[out.length - 1];
          if (last?.kind === 'raw' && last.line === at) out.pop();
        }
        problem('error', x.text, x.text, at, out);
      }
    },
  };
}

/** A request's decision, as the transcript shows it under the request. */
function decisionEntry(d: DecisionRecord): Entry {
  const said = d.message ? `: ${d.message}` : d.answers ? `: ${d.answers.join('; ')}` : '';
  return {
    kind: 'decision',
    text: `${d.verdict === 'allow' ? 'allowed' : 'denied'} by ${d.by}${said}`,
    line: -1,
    ...(d.verdict === 'deny' ? { failed: true } : {}),
  };
}

/** Turn ends with the usage and cost since the last one. */
function createTurnLog(): { usage(s: Extract<Signal, { kind: 'usage' }>): void; entry(at: number, ok: boolean, detail: string | undefined): Entry } {
  let turn = 0;
  // Usage seen since the last turn boundary (adapters emit it just before the result).
  let usage = { input: 0, output: 0, cached: 0 };
  let usageSeen = false;
  let cost: number | undefined;
  let costAtTurn = 0;
  return {
    usage(s) {
      usage = { input: usage.input + s.input, output: usage.output + s.output, cached: usage.cached + s.cached };
      usageSeen = true;
      if (s.cost_usd_total !== undefined) cost = s.cost_usd_total;
    },
    entry(at, ok, detail) {
      turn++;
      const parts = [`turn ${turn} ${ok ? 'done' : `failed${detail ? ` (${detail})` : ''}`}`];
      if (usageSeen) parts.push(`${usage.input} in · ${usage.output} out · ${usage.cached} cached`);
      if (cost !== undefined && cost > costAtTurn) parts.push(`$${(cost - costAtTurn).toFixed(4)}`);
      if (cost !== undefined) costAtTurn = cost;
      usage = { input: 0, output: 0, cached: 0 };
      usageSeen = false;
      return { kind: 'turn', text: parts.join(' · '), line: at, ...(ok ? {} : { failed: true }) };
    },
  };
}

/** Every entry of a whole output (the CLI's one-shot read). */
export function buildTranscript(lines: readonly string[], protocol: Protocol | null, options?: TranscriptOptions & { ended?: boolean }): Entry[] {
  const t = createTranscript(protocol, options);
  const out: Entry[] = [];
  for (const l of lines) out.push(...t.line(l));
  if (options?.ended !== false) out.push(...t.end());
  return out;
}

// The argument that says what a call does, in the order tools name them.
const MAIN_ARGS = ['command', 'file_path', 'absolute_path', 'path', 'notebook_path', 'pattern', 'url', 'query', 'prompt', 'description'];

/** One line for a tool call: its name and its main argument (`Edit src/a.ts`, `Bash npm test`). */
export function toolLine(name: string, input: unknown): string {
  if (!isObject(input)) return name;
  for (const k of MAIN_ARGS) {
    const v = input[k];
    if (typeof v === 'string' && v) return `${name} ${k === 'command' ? unwrapShell(v) : v}`;
    if (k === 'command' && Array.isArray(v)) return `${name} ${unwrapShell(v.map(String).join(' '))}`;
  }
  if (Array.isArray(input.changes)) {
    const paths = input.changes.map((c) => (isObject(c) ? str(c.path) : undefined)).filter((p): p is string => !!p);
    if (paths.length) return `${name} ${paths.join(' ')}`;
  }
  const first = Object.values(input).find((v) => typeof v === 'string');
  return typeof first === 'string' ? `${name} ${first}` : name;
}

/** Codex runs commands as `bash -lc '…'`: the command is what is inside. */
function unwrapShell(cmd: string): string {
  const m = /^(?:\/bin\/)?(?:ba)?sh -l?c '(.*)'$/s.exec(cmd) ?? /^(?:\/bin\/)?(?:ba)?sh -l?c "(.*)"$/s.exec(cmd);
  return m ? m[1]!.replace(/'\\''/g, "'") : cmd;
}
