// A recording client for `codex app-server` (JSON-RPC lines over stdio),
// for test/real/codex-app-probe.test.ts: it spawns the genuine CLI with a
// rig's environment, writes lines to its stdin, and keeps every line in both
// directions (and what the model server was sent) in one time-ordered
// transcript that can be saved as a fixture (test/fixtures/codex-app/).
// Deliberately not orcr's protocol module: it parses nothing beyond JSON.

import fs from 'node:fs';
import path from 'node:path';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { until } from './harness.js';
import type { RecordedRequest } from './model-server.js';
import { agentBin } from './install-agents.mjs';
import type { Rig } from './real-agents.js';

/** One transcript line: a line written to the CLI (`in`), one it printed (`out`), a process event, or a model request. */
interface Entry {
  dir: 'in' | 'out' | 'spawn' | 'exit' | 'stderr' | 'model';
  /** ms since the scenario began. */
  t: number;
  /** The parsed JSON line (in/out). */
  line?: any;
  /** A line that is not JSON, as it was. */
  raw?: string;
  /** Which process (1, 2, …) of the scenario. */
  proc?: number;
  code?: number | null;
  signal?: string | null;
  args?: string[];
  model?: unknown;
}

/** The lines of one scenario, from one or more app-server processes. */
export class Transcript {
  readonly entries: Entry[] = [];
  readonly t0 = Date.now();
  private procs = 0;

  constructor(readonly rig: Rig) {}

  /** Start `codex app-server ARGS` in the rig's work dir with the rig's agent environment. */
  start(args: string[] = [], env: Record<string, string> = {}): AppServer {
    return this.spawn(agentBin('codex'), ['app-server', ...args], env);
  }

  /** Start any program (another codex command) the same way, its lines recorded alike. */
  spawn(file: string, argv: string[], env: Record<string, string> = {}): AppServer {
    return new AppServer(this, ++this.procs, file, argv, this.rig.agentEnv(env));
  }

  push(e: Omit<Entry, 't'>): Entry {
    const entry = { t: Date.now() - this.t0, ...e };
    this.entries.push(entry);
    return entry;
  }

  /** The transcript with the model server's requests merged in by time, temp paths and ports made stable. */
  lines(): Entry[] {
    const model = this.rig.server.requests.map((r) => ({ dir: 'model' as const, t: r.at - this.t0, model: compactRequest(r) }));
    const all = [...this.entries, ...model].sort((a, b) => a.t - b.t);
    const base = path.dirname(this.rig.work);
    return all.map(
      (e) =>
        JSON.parse(
          JSON.stringify(e)
            .split(base)
            .join('/tmp/orcr-real')
            .replace(/127\.0\.0\.1:\d+/g, '127.0.0.1:PORT'),
        ) as Entry,
    );
  }

  save(file: string): void {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(
      file,
      this.lines()
        .map((e) => JSON.stringify(e))
        .join('\n') + '\n',
    );
  }
}

/** What a model request said, shortened: the conversation items (long texts cut), no tool schemas. */
function compactRequest(r: RecordedRequest): unknown {
  const cut = (s: string, n: number): string => (s.length > n ? `${s.slice(0, n)}…(${s.length} chars)` : s);
  const items = Array.isArray(r.body?.input) ? (r.body.input as any[]) : [];
  const input = items.map((i) => {
    if (i.type === 'message') {
      const text = (i.content ?? []).map((c: { text?: string }) => c.text ?? '').join('');
      return { type: 'message', role: i.role, text: cut(text, i.role === 'developer' ? 60 : 240) };
    }
    if (i.type === 'function_call') return { type: i.type, name: i.name, call_id: i.call_id, arguments: i.arguments };
    if (i.type === 'function_call_output') return { type: i.type, call_id: i.call_id, output: i.output };
    return { type: i.type };
  });
  return { seq: r.seq, method: r.method, path: r.path, main: r.main, answered: r.step?.kind ?? null, input };
}

/** One `codex app-server` process. */
export class AppServer {
  readonly child: ChildProcessWithoutNullStreams;
  readonly exited: Promise<{ code: number | null; signal: string | null }>;
  stderr = '';
  private buf = '';

  constructor(
    private readonly tr: Transcript,
    readonly proc: number,
    file: string,
    argv: string[],
    env: Record<string, string>,
  ) {
    tr.push({ dir: 'spawn', proc, args: [path.basename(file), ...argv] });
    this.child = spawn(file, argv, { cwd: tr.rig.work, env, stdio: ['pipe', 'pipe', 'pipe'] });
    // 'close', not 'exit': stdout and stderr are read to their end first.
    this.exited = new Promise((resolve) =>
      this.child.on('close', (code, signal) => {
        if (this.stderr) tr.push({ dir: 'stderr', proc, raw: this.stderr });
        tr.push({ dir: 'exit', proc, code, signal });
        resolve({ code, signal });
      }),
    );
    this.child.stdout.setEncoding('utf8').on('data', (c: string) => this.onData(c));
    this.child.stderr.setEncoding('utf8').on('data', (c: string) => (this.stderr += c));
    // The process may be gone before a write: what happened is in the transcript.
    this.child.stdin.on('error', () => undefined);
  }

  private onData(chunk: string): void {
    this.buf += chunk;
    for (let i = this.buf.indexOf('\n'); i >= 0; i = this.buf.indexOf('\n')) {
      const raw = this.buf.slice(0, i);
      this.buf = this.buf.slice(i + 1);
      try {
        this.tr.push({ dir: 'out', proc: this.proc, line: JSON.parse(raw) });
      } catch {
        this.tr.push({ dir: 'out', proc: this.proc, raw });
      }
    }
  }

  /** Write lines in ONE write (pipelined); a string goes as it is (a malformed line). */
  send(...msgs: (object | string)[]): void {
    const raws = msgs.map((m) => (typeof m === 'string' ? m : JSON.stringify(m)));
    for (const [n, raw] of raws.entries()) {
      const m = msgs[n]!;
      this.tr.push(typeof m === 'string' ? { dir: 'in', proc: this.proc, raw } : { dir: 'in', proc: this.proc, line: m });
    }
    this.child.stdin.write(raws.map((r) => `${r}\n`).join(''));
  }

  /** Lines this process printed, parsed. */
  out(): any[] {
    return this.tr.entries.filter((e) => e.dir === 'out' && e.proc === this.proc && e.line !== undefined).map((e) => e.line);
  }

  /** Wait for a printed line matching pred (the first one, already printed or not). */
  async line(pred: (l: any) => boolean, what: string, ms = 60_000): Promise<any> {
    return until(
      () => this.out().find(pred),
      () => `${what}\n--- stderr\n${this.stderr.slice(-2000)}`,
      ms,
      20,
    );
  }

  /** The response (result or error) to our request `id`. */
  response(id: string | number, ms?: number): Promise<any> {
    return this.line((l) => l.id === id && !('method' in l), `a response to ${JSON.stringify(id)}`, ms);
  }

  /** The n-th (from 1) notification or server request named `method`. */
  method(method: string, n = 1, ms?: number): Promise<any> {
    return this.line(
      (l) =>
        l.method === method &&
        this.out()
          .filter((o) => o.method === method)
          .indexOf(l) ===
          n - 1,
      `${method} #${n}`,
      ms,
    );
  }

  /** Request and wait for its response. */
  async call(id: string | number, method: string, params?: unknown, ms?: number): Promise<any> {
    this.send(params === undefined ? { id, method } : { id, method, params });
    return this.response(id, ms);
  }

  /** initialize (clientInfo only), initialized, and thread/start with `params`, pipelined: the thread id. */
  async open(threadParams: Record<string, unknown>): Promise<string> {
    this.send(
      { id: 'orcr:init', method: 'initialize', params: { clientInfo: { name: 'orcr', version: '0.0.0-probe' } } },
      { method: 'initialized' },
      { id: 'orcr:thread', method: 'thread/start', params: { cwd: this.tr.rig.work, ...threadParams } },
    );
    const r = await this.response('orcr:thread');
    if (!r.result) throw new Error(`thread/start failed: ${JSON.stringify(r)}`);
    return r.result.thread.id as string;
  }

  /** turn/start with one text input; resolves with the turn/completed line of THAT turn. */
  async turn(id: string, threadId: string, text: string, ms = 90_000): Promise<any> {
    const r = await this.call(id, 'turn/start', { threadId, input: [{ type: 'text', text }] });
    if (!r.result) throw new Error(`turn/start failed: ${JSON.stringify(r)}`);
    const turnId = r.result.turn.id as string;
    return this.line((l) => l.method === 'turn/completed' && l.params?.turn?.id === turnId, `turn/completed of ${turnId}`, ms);
  }

  closeStdin(): void {
    this.tr.push({ dir: 'in', proc: this.proc, raw: '<stdin closed>' });
    this.child.stdin.end();
  }

  kill(signal: NodeJS.Signals): void {
    this.tr.push({ dir: 'in', proc: this.proc, raw: `<${signal}>` });
    this.child.kill(signal);
  }
}
