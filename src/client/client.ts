// The socket client: connects to the home's supervisor, starting one if none
// runs, and speaks the NDJSON protocol. Every client (CLI, TUI) goes through here.

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureHome, type Home } from '../config/home.js';
import { PROTOCOL_VERSION, type EventMessage as StreamMessage, type RowsMessage } from '../protocol/wire.js';
import { RemoteError, type ErrorCode } from '../protocol/errors.js';
import { frameProblem } from './frame.js';
import type { Caller, Method, ParamsArg, Result } from './methods.js';

/** How long a starter that lost the race waits for the winner's socket before it tries to start one itself. */
const RESTART_AFTER_LOSS_MS = 1500;

// What the supervisor pushes, as the protocol declares it (the client's name for an event message is StreamMessage).
export type { StreamMessage, RowsMessage };

interface Pending {
  resolve: (v: unknown) => void;
  reject: (e: Error) => void;
}

/**
 * The connection closed with calls unanswered: each may or may not have been
 * carried out. A call that names what it makes (run.enqueue's uuids) can be
 * sent again on a new connection (client/enqueue.ts).
 */
export class ConnectionLost extends RemoteError {
  constructor() {
    super('unavailable', 'the supervisor went away');
  }
}

export class Client implements Caller {
  private nextId = 1;
  private pending = new Map<number, Pending>();
  private buf = '';
  private listeners: ((m: StreamMessage) => void)[] = [];
  private rowListeners: ((m: RowsMessage) => void)[] = [];
  private closeListeners: ((stopped: boolean) => void)[] = [];
  server: Result<'hello'> | null = null;
  /** The supervisor said it was stopping on purpose (`orcr server stop`, SIGTERM) before it closed. */
  stopped = false;
  /** The connection is gone (a call's `unavailable` then is the connection's, not the supervisor's answer). */
  get gone(): boolean {
    return this.socket.destroyed;
  }
  /** Why the supervisor closed this connection, when it said (an error for no request: too many connections, a frame too large). */
  private refusal: RemoteError | null = null;

  private constructor(private readonly socket: net.Socket) {
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => this.onData(chunk));
    socket.on('close', () => {
      const err = this.stopped
        ? new RemoteError('stopped', 'the supervisor was stopped (orcr server stop); the runs go on')
        : (this.refusal ?? new ConnectionLost());
      for (const p of this.pending.values()) p.reject(err);
      this.pending.clear();
      for (const l of this.closeListeners) l(this.stopped);
    });
    socket.on('error', () => undefined);
  }

  /**
   * `killAgents`: a supervisor this call starts admits nothing, kills the
   * agents it re-adopts and stops (`server stop --kill-agents` on a stopped
   * home), so a queued run is never started only to be killed.
   */
  static async connect(home: Home, opts: { autoStart?: boolean; timeoutMs?: number; killAgents?: boolean } = {}): Promise<Client> {
    const autoStart = opts.autoStart ?? true;
    const deadline = Date.now() + (opts.timeoutMs ?? 15_000);
    let started: Started | null = null;
    let lostAt: number | null = null;
    let delay = 10;
    for (;;) {
      try {
        const socket = await connectOnce(home.socket);
        const client = new Client(socket);
        client.server = await client.call('hello', { version: PROTOCOL_VERSION });
        return client;
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code;
        if (e instanceof RemoteError) throw e;
        if (code !== 'ENOENT' && code !== 'ECONNREFUSED' && code !== 'ECONNRESET') throw e;
        if (!autoStart) throw new RemoteError('unavailable', `no supervisor is running for ${home.dir}`);
        if (!started) {
          // A config the supervisor would refuse is reported here, with its key, instead of as a timeout.
          // (loaded lazily: the schema and zod cost most of a CLI's start-up)
          (await import('../config/load.js')).loadConfig(home.config);
          started = startDetached(home, opts.killAgents === true);
        }
        if (started.exited !== null) {
          // Lost the start race to another starter: that one will answer shortly.
          if (started.exited !== 'already') throw new RemoteError('unavailable', `the supervisor failed to start: ${started.exited}`);
          // ...or to a supervisor on its way out (`server stop` has closed its socket but not yet let go of
          // the lock): if still no socket answers a while later, start one again rather than wait out the
          // deadline. Not at once: twenty starters that lost to one still binding its socket would each
          // start another every few milliseconds, and on a loaded machine that storm outlasts the deadline.
          lostAt ??= Date.now();
          if (Date.now() - lostAt > RESTART_AFTER_LOSS_MS) {
            started = null;
            lostAt = null;
          }
        }
        if (Date.now() > deadline) {
          if (started && started.exited === null && !started.running && started.pid !== null) {
            // Hung before running a line (Node out of threads): it would stay so, and hold a process slot, for ever.
            try {
              process.kill(started.pid, 'SIGKILL');
            } catch {
              /* gone meanwhile */
            }
            throw new RemoteError(
              'unavailable',
              `the supervisor's process (pid ${started.pid}) never began to run and was stopped: the machine may be out of processes or threads (ulimit -u, a cgroup's pids.max)`,
            );
          }
          throw new RemoteError('unavailable', `the supervisor did not come up within the timeout; see ${home.log}`);
        }
        await new Promise((r) => setTimeout(r, delay));
        delay = Math.min(delay * 2, 200);
      }
    }
  }

  /**
   * Connect again after a lost connection, without starting a supervisor:
   * only a verb a user types starts one. Waits up to `graceMs` for one to be
   * back (a restart in progress), then gives up with `unavailable`. 15 s, not
   * 5: on a busy machine (two cores, load 20) the verb that starts the next
   * supervisor and that supervisor's own start together took over 5 s, and a
   * `wait` gave up on a restart that was on its way (CI, stop 45).
   */
  static async reconnect(home: Home, graceMs = 15_000): Promise<Client> {
    const deadline = Date.now() + graceMs;
    for (;;) {
      try {
        return await Client.connect(home, { autoStart: false });
      } catch (e) {
        if (!(e instanceof RemoteError) || e.code !== 'unavailable') throw e;
        if (Date.now() > deadline) {
          throw new RemoteError(
            'unavailable',
            `the supervisor went away and none came back (see ${home.log}); the runs go on: any orcr verb starts a new supervisor, then wait again`,
          );
        }
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  }

  private onData(chunk: string): void {
    this.buf += chunk;
    let nl: number;
    while ((nl = this.buf.indexOf('\n')) >= 0) {
      const line = this.buf.slice(0, nl);
      this.buf = this.buf.slice(nl + 1);
      let msg: { id?: number | null; result?: unknown; error?: { code: string; message: string }; type?: string };
      try {
        msg = JSON.parse(line);
      } catch {
        continue;
      }
      if (msg.type === 'stopping') {
        this.stopped = true;
        continue;
      }
      if (msg.type === 'event') {
        for (const l of this.listeners) l(msg as unknown as StreamMessage);
        continue;
      }
      if (msg.type === 'rows') {
        for (const l of this.rowListeners) l(msg as unknown as RowsMessage);
        continue;
      }
      if (msg.id === null && msg.error) this.refusal = new RemoteError(msg.error.code as ErrorCode, msg.error.message);
      const p = msg.id !== undefined && msg.id !== null ? this.pending.get(msg.id) : undefined;
      if (!p) continue;
      this.pending.delete(msg.id!);
      // The code is the server's: the same protocol version declares the same codes.
      if (msg.error) p.reject(new RemoteError(msg.error.code as ErrorCode, msg.error.message));
      else p.resolve(msg.result);
    }
  }

  call<M extends Method>(method: M, ...args: ParamsArg<M>): Promise<Result<M>> {
    const params = args[0] ?? {};
    const id = this.nextId++;
    return new Promise<Result<M>>((resolve, reject) => {
      if (this.socket.destroyed) {
        reject(new ConnectionLost());
        return;
      }
      const line = JSON.stringify({ id, method, params });
      // Too large: the supervisor would drop the connection (and every call on it); refuse this one alone.
      const problem = frameProblem(line);
      if (problem) {
        reject(problem);
        return;
      }
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      this.socket.write(line + '\n');
    });
  }

  onEvent(fn: (m: StreamMessage) => void): void {
    this.listeners.push(fn);
  }

  /** Rows changed without an event; sent only to a subscription made with `rows: true`. */
  onRows(fn: (m: RowsMessage) => void): void {
    this.rowListeners.push(fn);
  }

  /** The connection is gone (closed by either side): every call on it fails. */
  get closed(): boolean {
    return this.socket.destroyed;
  }

  /** Called once the connection is gone; `stopped` when the supervisor said it stopped on purpose. */
  onClose(fn: (stopped: boolean) => void): void {
    this.closeListeners.push(fn);
  }

  close(): void {
    this.socket.end();
    this.socket.destroy();
  }
}

function connectOnce(file: string): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const s = net.createConnection(file);
    s.once('connect', () => {
      s.removeAllListeners('error');
      resolve(s);
    });
    s.once('error', reject);
  });
}

/** The orcr CLI entry, for starting `orcr serve` detached. */
function cliEntry(): string {
  const here = fileURLToPath(import.meta.url);
  // Compiled: dist/src/client/client.js → dist/src/cli/main.js. Run from source
  // (tests import the .ts file): use the build beside it.
  if (here.endsWith('.js')) return path.resolve(path.dirname(here), '../cli/main.js');
  return path.resolve(path.dirname(here), '../../dist/src/cli/main.js');
}

/**
 * Node flags of the supervisor process. A small young generation: the
 * supervisor allocates steadily (a line of output is a few objects) and V8
 * otherwise grows each semi-space to 16 MB; at 2 MB its RSS with 100 busy
 * agents drops markedly (bench item 5; figures in bench/README.md) for no
 * measurable CPU.
 */
export const SUPERVISOR_NODE_ARGS: readonly string[] = ['--max-semi-space-size=2'];

/** A supervisor a client started: how it ended if it did (null: not yet), whether it began to run at all. */
interface Started {
  exited: string | null;
  running: boolean;
  pid: number | null;
}

/**
 * Start `orcr serve` in its own session with output to server.log. Racing
 * starters are fine: the supervisor's lock lets exactly one of them live.
 */
function startDetached(home: Home, killAgents = false): Started {
  ensureHome(home.dir);
  // The log names runs, paths and errors: owner-only, whatever the umask, even if an older orcr made it looser.
  const out = fs.openSync(home.log, 'a', 0o600);
  const st = fs.fstatSync(out);
  if ((st.mode & 0o077) !== 0) fs.fchmodSync(out, 0o600);
  const before = st.size;
  const child = spawn(process.execPath, [...SUPERVISOR_NODE_ARGS, cliEntry(), 'serve'], {
    detached: true,
    // fd 3: one byte once it runs (main.ts).
    stdio: ['ignore', out, out, 'pipe'],
    env: { ...process.env, ORCR_HOME: home.dir, ORCR_AUTOSTARTED: '1', ORCR_STARTED_FD: '3', ...(killAgents ? { ORCR_START_KILL_AGENTS: '1' } : {}) },
  });
  const state: Started = { exited: null, running: false, pid: child.pid ?? null };
  const started = child.stdio[3] as net.Socket | null;
  if (started) {
    started.on('data', () => (state.running = true));
    started.on('error', () => undefined);
    started.unref();
  }
  // A fork the OS refuses comes as `error`, not `exit`: unheard, it threw out of the client with a stack.
  child.on('error', (e: NodeJS.ErrnoException) => {
    const why =
      e.code === 'EAGAIN'
        ? 'the process limit is reached'
        : e.code === 'EMFILE'
          ? 'the file descriptor limit is reached'
          : e.code === 'ENFILE'
            ? "the system's file limit is reached"
            : e.message;
    state.exited = `could not start its process: ${why}${e.code && !why.includes(e.code) ? ` (${e.code})` : ''}`;
  });
  child.on('exit', (code) => {
    // Exit 7 is "another supervisor already runs": not a failure for us.
    if (code === 7) state.exited = 'already';
    else {
      let tail = '';
      try {
        tail = fs.readFileSync(home.log, 'utf8').slice(before).trim().split('\n').slice(-3).join(' ');
      } catch {
        /* no log */
      }
      state.exited = `exit code ${code}${tail ? `: ${tail}` : ''} (see ${home.log})`;
    }
  });
  child.unref();
  fs.closeSync(out);
  return state;
}
