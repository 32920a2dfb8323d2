// A JSON-RPC 2.0 client for an ACP agent (`gemini --acp`) that records every
// line both ways: the probe behind test/real/gemini-acp*.test.ts and the
// transcripts in test/fixtures/acp/. Not orcr's protocol module: a recorder
// that lets a test script a conversation and see exactly what the agent said.

import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach } from 'vitest';
import { ROOT, until } from '../support/harness.js';
import { agentBin } from '../support/install-agents.mjs';
import { ModelServer, type RecordedRequest } from '../support/model-server.js';
import { geminiSettings } from '../support/real-agents.js';

/** One recorded line: `in` went to the agent's stdin, `out` came from its stdout (`raw` when not JSON). */
export interface Recorded {
  dir: 'in' | 'out';
  line?: any;
  raw?: string;
}

/** What a handler answers an agent's request with: a result, an error, or nothing (the test answers later, or never). */
export type Answer = { result: unknown } | { error: { code: number; message: string; data?: unknown } } | null;

export class AcpProbe {
  readonly lines: Recorded[] = [];
  stderr = '';
  exit: { code: number | null; signal: NodeJS.Signals | null } | null = null;
  /** Answers the agent's requests (session/request_permission, fs/…); null leaves one unanswered. */
  onRequest: (req: { id: number | string; method: string; params: any }) => Answer = () => null;
  private readonly child: ChildProcessWithoutNullStreams;
  private buf = '';
  private nextId = 1;

  constructor(file: string, args: string[], opts: { cwd: string; env: Record<string, string> }) {
    // A process group of its own: gemini relaunches itself as a child node process (the parent ignores
    // SIGINT/TERM/HUP), so only the group reaches the process that speaks ACP.
    this.child = spawn(file, args, { cwd: opts.cwd, env: opts.env, stdio: ['pipe', 'pipe', 'pipe'], detached: true });
    this.child.stdout.setEncoding('utf8').on('data', (c: string) => this.read(c));
    this.child.stderr.setEncoding('utf8').on('data', (c: string) => (this.stderr += c));
    this.child.stdin.on('error', () => undefined);
    this.child.on('exit', (code, signal) => (this.exit = { code, signal }));
  }

  get pid(): number {
    return this.child.pid!;
  }

  private read(chunk: string): void {
    this.buf += chunk;
    for (let nl = this.buf.indexOf('\n'); nl >= 0; nl = this.buf.indexOf('\n')) {
      const raw = this.buf.slice(0, nl);
      this.buf = this.buf.slice(nl + 1);
      if (raw.trim() === '') continue;
      let line: any;
      try {
        line = JSON.parse(raw);
      } catch {
        this.lines.push({ dir: 'out', raw });
        continue;
      }
      this.lines.push({ dir: 'out', line });
      if (typeof line?.method === 'string' && 'id' in line) {
        const answer = this.onRequest(line);
        if (answer) this.send({ jsonrpc: '2.0', id: line.id, ...answer });
      }
    }
  }

  /** Write one object as a line. */
  send(obj: unknown): void {
    this.lines.push({ dir: 'in', line: obj });
    this.child.stdin.write(JSON.stringify(obj) + '\n');
  }

  /** Write raw text (a malformed line), recorded as `raw`. */
  sendRaw(text: string): void {
    this.lines.push({ dir: 'in', raw: text.replace(/\n$/, '') });
    this.child.stdin.write(text);
  }

  /** Send a request without waiting; its id. */
  request(method: string, params: unknown, id: string | number = this.nextId++): string | number {
    this.send({ jsonrpc: '2.0', id, method, params });
    return id;
  }

  /** Send a request and wait for its response (the whole line: result or error). */
  async call(method: string, params: unknown, id?: string | number, ms?: number): Promise<any> {
    return this.answer(this.request(method, params, id), ms);
  }

  notify(method: string, params: unknown): void {
    this.send({ jsonrpc: '2.0', method, params });
  }

  /** The agent's response to request `id`, if it came. */
  response(id: string | number): any {
    return this.outLines().find((l) => l.id === id && !('method' in l));
  }

  async answer(id: string | number, ms = 60_000): Promise<any> {
    return until(
      () => this.response(id),
      () => `response ${JSON.stringify(id)}\n${this.tail()}`,
      ms,
    );
  }

  /** Wait for an output line matching pred. */
  async waitOut(pred: (line: any) => boolean, what: string, ms = 60_000): Promise<any> {
    return until(
      () => this.outLines().find(pred),
      () => `${what}\n${this.tail()}`,
      ms,
    );
  }

  outLines(): any[] {
    return this.lines.filter((l) => l.dir === 'out' && l.line !== undefined).map((l) => l.line);
  }

  /** Output that was not JSON. */
  rawOut(): string[] {
    return this.lines.filter((l) => l.dir === 'out' && l.raw !== undefined).map((l) => l.raw!);
  }

  /** The agent's requests to the client. */
  agentRequests(): any[] {
    return this.outLines().filter((l) => typeof l.method === 'string' && 'id' in l);
  }

  /** session/update notifications' `update` objects, in order (optionally only those after the request with id `after`). */
  updates(after?: string | number): any[] {
    const lines = this.lines.filter((l) => l.line !== undefined).map((l) => l.line);
    const from = after === undefined ? 0 : lines.findIndex((l) => l.id === after && 'method' in l);
    return lines
      .slice(from)
      .filter((l) => l.method === 'session/update')
      .map((l) => l.params.update);
  }

  closeStdin(): void {
    this.child.stdin.end();
  }

  /** Signal the whole group (the CLI, its relaunched child, their tools). */
  killGroup(signal: NodeJS.Signals = 'SIGKILL'): void {
    try {
      process.kill(-this.pid, signal);
    } catch {
      /* gone */
    }
  }

  async exited(ms = 30_000): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    return until(
      () => this.exit,
      () => `the agent to exit\n${this.tail()}`,
      ms,
    );
  }

  /** The last lines and stderr, for a failure's message. */
  tail(n = 15): string {
    const out = this.lines.slice(-n).map((l) => `${l.dir} ${l.raw ?? JSON.stringify(l.line)}`.slice(0, 600));
    return `--- lines\n${out.join('\n')}\n--- stderr\n${this.stderr.slice(-1500)}`;
  }

  /** JSONL of the recording (`{"dir","line"}` or `{"dir","raw"}`), with stand-ins replacing temp paths and ports. */
  jsonl(replace: [string | RegExp, string][] = []): string {
    const lines = this.lines.map((l) => {
      let s = JSON.stringify(l.raw !== undefined ? { dir: l.dir, raw: l.raw } : { dir: l.dir, line: l.line });
      for (const [a, b] of replace) s = typeof a === 'string' ? s.split(a).join(b) : s.replace(a, b);
      return s;
    });
    return lines.join('\n') + '\n';
  }
}

/** What orcr will declare: no file system, no terminal; the agent does both itself. */
const CLIENT_CAPABILITIES = { fs: { readTextFile: false, writeTextFile: false }, terminal: false };

export const INITIALIZE = { protocolVersion: 1, clientCapabilities: CLIENT_CAPABILITIES };

/** session/prompt's params for one text block. */
export const prompt = (sessionId: string, text: string) => ({ sessionId, prompt: [{ type: 'text', text }] });

/**
 * One probe's world, as the rig sets Gemini up (test/support/real-agents.ts):
 * a model server, a HOME with ~/.gemini/settings.json, a work dir, and the
 * environment `gemini --acp` is started with.
 */
export class AcpWorld {
  readonly base: string;
  readonly home: string;
  readonly work: string;
  readonly probes: AcpProbe[] = [];

  constructor(
    readonly server: ModelServer,
    settings: Record<string, unknown>,
  ) {
    this.base = fs.mkdtempSync(path.join(os.tmpdir(), 'orcr-acp-'));
    this.home = path.join(this.base, 'home');
    this.work = path.join(this.base, 'work');
    for (const d of [this.work, path.join(this.home, 'tmp'), path.join(this.home, '.gemini')]) fs.mkdirSync(d, { recursive: true });
    fs.writeFileSync(path.join(this.home, '.gemini', 'settings.json'), JSON.stringify(settings, null, 2));
  }

  /** The rig's environment for Gemini (Rig.agentEnv), nothing of this machine's own. */
  env(extra: Record<string, string> = {}, drop: string[] = []): Record<string, string> {
    const env: Record<string, string> = {
      PATH: [path.dirname(agentBin('gemini')), path.dirname(process.execPath), '/usr/local/bin', '/usr/bin', '/bin'].join(':'),
      HOME: this.home,
      TMPDIR: path.join(this.home, 'tmp'),
      GEMINI_API_KEY: 'test',
      GOOGLE_GEMINI_BASE_URL: this.server.url,
      ...extra,
    };
    for (const k of drop) delete env[k];
    return env;
  }

  /** `gemini --acp` (or other args), recorded. */
  spawn(args: string[] = ['--acp'], env: Record<string, string> = this.env()): AcpProbe {
    const p = new AcpProbe(agentBin('gemini'), args, { cwd: this.work, env });
    this.probes.push(p);
    return p;
  }

  /** initialize and session/new written back to back (not waiting), string ids; the session's id. */
  async open(p: AcpProbe): Promise<string> {
    const init = p.request('initialize', INITIALIZE, 'orcr:init');
    const open = p.request('session/new', { cwd: this.work, mcpServers: [] }, 'orcr:open');
    const res = await p.answer(open);
    await p.answer(init);
    if (!res.result?.sessionId) throw new Error(`session/new failed: ${JSON.stringify(res)}\n${p.tail()}`);
    return res.result.sessionId as string;
  }

  /** The CLI headless (as take-over runs it), its prompt on stdin, without blocking the model server's event loop. */
  runCli(args: string[], input: string, env: Record<string, string> = this.env()): Promise<{ code: number; stdout: string; stderr: string }> {
    return new Promise((resolve, reject) => {
      const child = spawn(agentBin('gemini'), args, { cwd: this.work, env, stdio: ['pipe', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
      child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
      child.on('error', reject);
      child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
      child.stdin.end(input);
    });
  }

  /** The project's saved chat files (`session-<UTC minute>-<8 chars of the id>.jsonl`). */
  chats(): string[] {
    const dir = path.join(this.home, '.gemini/tmp/work/chats');
    return fs.existsSync(dir) ? fs.readdirSync(dir).sort() : [];
  }

  /** Keep a probe's lines as test/fixtures/acp/NAME.jsonl when recording (ORCR_RECORD_TRANSCRIPTS=1). */
  save(p: AcpProbe, name: string): void {
    if (process.env.ORCR_RECORD_TRANSCRIPTS !== '1') return;
    const replace: [string | RegExp, string][] = [
      [this.base, '/tmp/orcr-acp'],
      [/127\.0\.0\.1:\d+/g, '127.0.0.1:PORT'],
    ];
    fs.mkdirSync(FIXTURES, { recursive: true });
    fs.writeFileSync(path.join(FIXTURES, `${name}.jsonl`), p.jsonl(replace));
  }

  async cleanup(): Promise<void> {
    for (const p of this.probes) p.killGroup();
    await this.server.stop();
    // ORCR_ACP_KEEP=1 leaves HOME and the work dir behind, to look at what the CLI saved.
    if (process.env.ORCR_ACP_KEEP === '1') process.stderr.write(`[acp-probe] kept ${this.base}\n`);
    else fs.rmSync(this.base, { recursive: true, force: true });
  }
}

const FIXTURES = path.join(ROOT, 'test/fixtures/acp');

/** A factory of worlds (the rig's Gemini settings; `allowed` replaces tools.allowed, `general` is merged in), each cleaned up after its test. */
export function useWorlds(): (opts?: { allowed?: string[]; general?: Record<string, unknown> }) => Promise<AcpWorld> {
  let worlds: AcpWorld[] = [];
  afterEach(async () => {
    for (const w of worlds) await w.cleanup();
    worlds = [];
  });
  return async (opts = {}) => {
    const settings = geminiSettings(opts.allowed ? { allowed: opts.allowed } : {});
    const general = { ...(settings.general as object), ...opts.general };
    const w = new AcpWorld(await new ModelServer().start(), { ...settings, general });
    worlds.push(w);
    return w;
  };
}

const WALL_CLOCK = pathToFileURL(path.join(ROOT, 'test/support/wall-clock.mjs')).href;

/** Environment that moves the CLI's wall clock by offsetS seconds (test/support/wall-clock.mjs through NODE_OPTIONS, which the relaunched child inherits). */
export function clockEnv(offsetS: number): Record<string, string> {
  return { NODE_OPTIONS: `--import=${WALL_CLOCK}`, ORCR_TEST_WALL_CLOCK_OFFSET: String(offsetS) };
}

/** What the CLI sent the model: each part of a request's conversation as `role: text` or the call/response as JSON. */
export function conversation(req: RecordedRequest): string[] {
  return (req.body?.contents ?? []).flatMap((c: { role: string; parts?: any[] }) =>
    (c.parts ?? []).map((x) => `${c.role}: ${x.text !== undefined ? x.text.trim() : JSON.stringify(x.functionCall ?? x.functionResponse ?? x)}`),
  );
}

/** The function responses in a request's conversation. */
export function functionResponses(req: RecordedRequest): any[] {
  return (req.body?.contents ?? []).flatMap((c: { parts?: any[] }) => (c.parts ?? []).filter((x) => x.functionResponse).map((x) => x.functionResponse));
}

/** Live (non-zombie) processes whose parent is pid. */
export function childrenOf(pid: number): number[] {
  const out: number[] = [];
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${d}/stat`, 'utf8');
      const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (rest[0] !== 'Z' && Number(rest[1]) === pid) out.push(Number(d));
    } catch {
      /* gone */
    }
  }
  return out;
}

/** Every live descendant of pid. */
export function descendants(pid: number): number[] {
  const out: number[] = [];
  for (const queue = [pid]; queue.length > 0;) {
    const kids = childrenOf(queue.shift()!);
    out.push(...kids);
    queue.push(...kids);
  }
  return out;
}

export function cmdline(pid: number): string {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ');
  } catch {
    return '';
  }
}

/** Is pid alive (and not a zombie)? */
export function running(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}
