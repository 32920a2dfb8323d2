// A run's output read as a conversation: the prompt and each input, what the
// assistant said, each tool call and its result, turn ends with their usage
// and cost, errors and holds. Built line by line, so a follower feeds new
// lines as they come and a 50,000-line run is parsed once, never per scroll.
//
// The protocol adapters give the signals (text, tool, usage, result,
// blocked); tool RESULTS are not signals (the reducer has no use for them),
// so they are read here from the same line, in each protocol's shape:
// claude `user` messages with `tool_result` blocks, codex's completed
// `command_execution` items, gemini's `tool_result` events. Pure: no I/O.

import type { Protocol } from '../core/types.js';
import { createDetectingAdapter, type DetectingAdapter } from './detecting.js';
import { createAdapter } from './registry.js';
import type { Adapter, Signal } from './signals.js';
import { isObject, parseObject, str, type JsonObject } from './util.js';

export type EntryKind = 'prompt' | 'input' | 'text' | 'tool' | 'tool_result' | 'turn' | 'error' | 'hold' | 'raw';

export interface Entry {
  kind: EntryKind;
  /** What is shown (as the agent wrote it: the renderer makes it safe). */
  text: string;
  /** The output line it came from (0-based), or -1 for an input record. */
  line: number;
  /** A failed tool result, a failed turn. */
  failed?: boolean;
}

/** An input the supervisor recorded: its text and the size of the output file when it was written. */
export interface InputRecord {
  text: string;
  /** Output bytes written before this input: it is shown before the line that starts there. */
  out_bytes: number;
}

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

/** The line types extras() reads (tool results, echoed user messages, errors): a cheap test before a second parse. */
const EXTRAS_TYPES = /"type"\s*:\s*"(?:user|item\.completed|error|tool_result|message)"/;

export function createTranscript(protocol: Protocol | null, options: TranscriptOptions = {}): TranscriptBuilder {
  const detecting: DetectingAdapter | null = protocol === null ? createDetectingAdapter() : null;
  const adapter: Adapter = detecting ?? createAdapter(protocol!);
  let inputs = options.inputs ?? [];
  let nextInput = 0;
  let lastInput: string | null = null;
  let promptShown = false;
  let index = 0;
  let bytes = 0;
  let turn = 0;
  // Usage seen since the last turn boundary (adapters emit it just before the result).
  let usage = { input: 0, output: 0, cached: 0 };
  let usageSeen = false;
  let cost: number | undefined;
  let costAtTurn = 0;
  let resultInTurn = false;
  // The last hold or error said: agents repeat one failure in several lines (a notice, a hold, the result).
  let lastProblem: string | null = null;

  /** A hold or error, unless it says what the last one said. */
  function problem(kind: 'hold' | 'error', text: string, shown: string, at: number, out: Entry[]): void {
    if (text === lastProblem) return;
    lastProblem = text;
    out.push({ kind, text: shown, line: at });
  }

  const proto = (): Protocol | null => protocol ?? detecting?.protocol() ?? null;

  function placeInputs(upTo: number, out: Entry[]): void {
    while (nextInput < inputs.length && inputs[nextInput]!.out_bytes <= upTo) {
      const rec = inputs[nextInput]!;
      out.push({ kind: nextInput === 0 ? 'prompt' : 'input', text: rec.text, line: -1 });
      lastInput = rec.text;
      promptShown = true;
      nextInput++;
    }
  }

  function turnEntry(at: number, ok: boolean, detail: string | undefined): Entry {
    turn++;
    const parts = [`turn ${turn} ${ok ? 'done' : `failed${detail ? ` (${detail})` : ''}`}`];
    if (usageSeen) parts.push(`${usage.input} in · ${usage.output} out · ${usage.cached} cached`);
    if (cost !== undefined && cost > costAtTurn) parts.push(`$${(cost - costAtTurn).toFixed(4)}`);
    if (cost !== undefined) costAtTurn = cost;
    usage = { input: 0, output: 0, cached: 0 };
    usageSeen = false;
    return { kind: 'turn', text: parts.join(' · '), line: at, ...(ok ? {} : { failed: true }) };
  }

  function fromSignal(s: Signal, at: number, out: Entry[]): void {
    switch (s.kind) {
      case 'text':
        out.push({ kind: 'text', text: s.text, line: at });
        return;
      case 'tool':
        out.push({ kind: 'tool', text: toolLine(s.name, s.input), line: at });
        return;
      case 'usage':
        usage = { input: usage.input + s.input, output: usage.output + s.output, cached: usage.cached + s.cached };
        usageSeen = true;
        if (s.cost_usd_total !== undefined) cost = s.cost_usd_total;
        return;
      case 'result':
        if (!s.ok) problem('error', s.text ?? s.detail ?? 'the turn failed', s.text ?? s.detail ?? 'the turn failed', at, out);
        lastProblem = null;
        out.push(turnEntry(at, s.ok, s.ok ? undefined : s.detail));
        resultInTurn = true;
        return;
      case 'turn_end':
        // orcr's jsonl ends a turn without a result: the boundary is still worth a line.
        if (!resultInTurn) out.push(turnEntry(at, true, undefined));
        resultInTurn = false;
        return;
      case 'turn_start':
        resultInTurn = false;
        return;
      case 'blocked':
        problem('hold', s.message ?? s.blocked, `${s.blocked}${s.message ? `: ${s.message}` : ''}${s.retry_after_s !== undefined ? ` (retry in ${Math.round(s.retry_after_s)}s)` : ''}`, at, out);
        return;
      case 'output':
        out.push({ kind: 'raw', text: s.line, line: at });
        return;
      default:
        return; // alive: nothing to read
    }
  }

  /** What the signals leave out: tool results and echoed user messages, per protocol. */
  function extras(obj: JsonObject, at: number, out: Entry[]): void {
    const p = proto();
    if (p === 'claude' && obj.type === 'user' && isObject(obj.message)) {
      const content = obj.message.content;
      if (typeof content === 'string') echoed(content, at, out);
      else if (Array.isArray(content)) {
        for (const b of content) {
          if (!isObject(b)) continue;
          if (b.type === 'tool_result') out.push(result(contentText(b.content), b.is_error === true, at));
          else if (b.type === 'text' && typeof b.text === 'string') echoed(b.text, at, out);
        }
      }
    } else if (p === 'codex' && obj.type === 'item.completed' && isObject(obj.item)) {
      const it = obj.item;
      if (it.type === 'command_execution') {
        const code = typeof it.exit_code === 'number' ? it.exit_code : null;
        const text = (str(it.aggregated_output) ?? '').replace(/\n$/, '');
        out.push(result(text || (code !== null ? `exit ${code}` : ''), code !== null && code !== 0, at));
      } else if (it.type === 'error' && typeof it.message === 'string') {
        problem('error', it.message, it.message, at, out);
      }
    } else if (p === 'codex' && obj.type === 'error' && typeof obj.message === 'string') {
      // The adapter keeps these notices as output lines; say what they are.
      const last = out[out.length - 1];
      if (last?.kind === 'raw' && last.line === at) out.pop();
      problem('error', obj.message, obj.message, at, out);
    } else if (p === 'gemini') {
      if (obj.type === 'tool_result') {
        const err = isObject(obj.error) ? str(obj.error.message) : undefined;
        out.push(result(str(obj.output) ?? err ?? '', obj.status === 'error', at));
      } else if (obj.type === 'message' && obj.role === 'user' && typeof obj.content === 'string') echoed(obj.content, at, out);
      else if (obj.type === 'error' && typeof obj.message === 'string') problem('error', obj.message, obj.message, at, out);
    }
  }

  /** A user message the agent printed back: shown unless it is the input just recorded. */
  function echoed(text: string, at: number, out: Entry[]): void {
    if (text === lastInput) {
      lastInput = null;
      return;
    }
    out.push({ kind: promptShown ? 'input' : 'prompt', text, line: at });
    promptShown = true;
  }

  return {
    line(raw: string): Entry[] {
      const at = index++;
      const out: Entry[] = [];
      placeInputs(bytes, out);
      bytes += Buffer.byteLength(raw) + 1;
      const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
      for (const s of adapter.line(line)) fromSignal(s, at, out);
      // Parsed a second time only when it may carry what the signals leave out (most lines do not).
      const obj = line.startsWith('{') && EXTRAS_TYPES.test(line) ? parseObject(line) : null;
      if (obj) extras(obj, at, out);
      return out;
    },
    setInputs(next: readonly InputRecord[]): void {
      inputs = next;
    },
    end(): Entry[] {
      const out: Entry[] = [];
      for (const s of adapter.end?.() ?? []) fromSignal(s, index, out);
      placeInputs(Infinity, out);
      return out;
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

function result(text: string, failed: boolean, at: number): Entry {
  return { kind: 'tool_result', text, line: at, ...(failed ? { failed: true } : {}) };
}

/** A tool result's content: a string, or text blocks. */
function contentText(c: unknown): string {
  if (typeof c === 'string') return c;
  if (Array.isArray(c)) return c.map((b) => (isObject(b) && typeof b.text === 'string' ? b.text : '')).filter(Boolean).join('\n');
  return '';
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
