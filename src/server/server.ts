// The supervisor process: single instance per home, a Unix socket speaking
// NDJSON, request/response verbs and a snapshot-then-subscribe event stream.

import fs from 'node:fs';
import net from 'node:net';
import chokidar from 'chokidar';
import { z } from 'zod';
import { ensureHome, homePaths, type Home } from '../config/home.js';
import { loadConfig, type Config } from '../config/load.js';
import type { Run } from '../core/types.js';
import type { RunEvent } from '../core/events.js';
import { checkRunSpecs } from '../config/run-spec.js';
import { Supervisor } from './supervisor.js';
import { JournalUnavailable } from '../journal/journal.js';
import { lockFile } from '../journal/home-lock.js';
import { MAX_DURATION_MS } from '../config/duration.js';
import { MAX_FRAME_BYTES, PROTOCOL_VERSION, socketPathLimit } from '../protocol/wire.js';
import { RemoteError } from '../protocol/errors.js';
import { LineSplitter, leadingId, MAX_NESTING, nestedDeeperThan } from './frames.js';
import type { PublicRun } from '../protocol/views.js';
import { quote } from '../text/json-text.js';

export class AlreadyRunning extends Error {}

/** Methods that change state: refused while the journal cannot be written. */
const WRITES = new Set(['cluster.forget', 'run.enqueue', 'run.kill', 'run.send', 'provider.resume', 'gc', 'run.rerun', 'queue.pause', 'run.takeover', 'worktree.finish', 'worktree.prune', 'loop.create', 'loop.pause', 'loop.remove', 'loop.start', 'loop.stop']);

/**
 * The single-instance lock: `server.lock` in the home, locked with a POSIX
 * record lock (journal/home-lock.ts). The kernel releases it when the process
 * dies, however it dies, so a crashed supervisor never leaves a stale lock
 * behind, and two racing starters cannot both win. It used to be a Linux
 * abstract socket named from a hash of the home's path: any local user could
 * compute the name (abstract names are also listed to everyone in
 * /proc/net/unix) and bind it first, keeping the owner's supervisor from
 * starting. A 0600 file in the owner-only home cannot be opened, let alone
 * locked, by anyone else.
 */
async function acquireLock(home: Home): Promise<{ close(): void }> {
  const lock = lockFile(home.lock);
  if (lock === null) throw new AlreadyRunning(`a supervisor is already running for ${home.dir}`);
  // A supervisor of an older orcr holds the old lock, not this one: its socket answering says it runs.
  const answers = await new Promise<boolean>((resolve) => {
    const probe = net.connect(home.socket);
    const done = (v: boolean): void => {
      probe.destroy();
      resolve(v);
    };
    probe.once('connect', () => done(true));
    probe.once('error', () => done(false));
    probe.setTimeout(2_000, () => done(false));
  });
  if (answers) {
    lock.close();
    throw new AlreadyRunning(`a supervisor is already running for ${home.dir} (it answers on ${home.socket})`);
  }
  return lock;
}

const refs = z.array(z.string()).min(1);

/** The most runs or events one reply carries: every listing is paged. */
const PAGE = 10_000;

interface Conn {
  socket: net.Socket;
  greeted: boolean;
  subscribed: boolean;
  /** Subscribed with `rows`: also told of rows that changed without an event. */
  rows: boolean;
  /** Aborted when the client goes away: its waits are dropped with it. */
  gone: AbortController;
}

export interface ServerHandle {
  supervisor: Supervisor;
  close(): Promise<void>;
}

/**
 * `killAgents`: start draining (nothing is admitted, no loop fires), kill the
 * agents re-adopted from the journal and stop — what `server stop
 * --kill-agents` asks of a home whose supervisor is not running. The client
 * that started it sends that stop; if it never does, the supervisor does it
 * itself a little later.
 */
export interface ServerOptions {
  killAgents?: boolean;
  /**
   * Called once the server has stopped of its own accord (`server stop`, a
   * drain that finished): `orcr serve` exits there; a test that started the
   * server in its own process just goes on. Not called by `close()`.
   */
  onStopped?: () => void;
}

export async function startServer(dir: string, log: (m: string) => void, opts: ServerOptions = {}): Promise<ServerHandle> {
  const stopped = (): void => opts.onStopped?.();
  const home = ensureHome(dir);
  const config: Config = loadConfig(home.config);
  for (const w of config.warnings) log(`warning: ${w}`);
  if (Buffer.byteLength(home.socket) > socketPathLimit) {
    throw new Error(`the socket path ${home.socket} is too long for a Unix socket; use a shorter ORCR_HOME`);
  }
  const lock = await acquireLock(home);
  const supervisor = new Supervisor(home, config, log);
  try {
    await supervisor.joinCluster();
  } catch (e) {
    lock.close();
    throw e;
  }
  supervisor.start({ draining: opts.killAgents === true });

  const conns = new Set<Conn>();
  const broadcast = (event: RunEvent, written: Run | null): void => {
    let line: string | null = null;
    for (const c of conns) {
      if (!c.subscribed) continue;
      if (line === null) {
        // The row written with the event is the state it explains; otherwise the run as it is now.
        const run = written ?? (event.run ? (supervisor.getLive(event.run) ?? supervisor.journal.getRun(event.run)) : null);
        line = JSON.stringify({ type: 'event', event, run: run ? supervisor.view(run) : null }) + '\n';
      }
      // A subscriber that cannot keep up is cut off; it resumes from its last seq.
      if (c.socket.writableLength > 16 * 1024 * 1024) c.socket.destroy();
      else c.socket.write(line);
    }
  };
  supervisor.journal.onEvent(broadcast);

  // A row that changed without an event (the agent's last words or tool, its
  // output offset) reaches the clients that show rows live, coalesced: a run
  // printing without pause costs one message per 250 ms, not one per line.
  // `seq` is the last event sent before it, so a client that has applied a
  // later event knows this row is older than the one it holds.
  const quiet = new Set<string>();
  let quietTimer: NodeJS.Timeout | null = null;
  const flushQuiet = (): void => {
    quietTimer = null;
    const runs: PublicRun[] = [];
    for (const uuid of quiet) {
      const run = supervisor.getLive(uuid);
      if (run) runs.push(supervisor.view(run));
    }
    quiet.clear();
    if (runs.length === 0) return;
    const line = JSON.stringify({ type: 'rows', seq: supervisor.journal.lastSeq(), runs }) + '\n';
    for (const c of conns) {
      if (!c.subscribed || !c.rows) continue;
      if (c.socket.writableLength > 16 * 1024 * 1024) c.socket.destroy();
      else c.socket.write(line);
    }
  };
  supervisor.onQuietChange((uuid) => {
    let wanted = false;
    for (const c of conns) wanted ||= c.rows;
    if (!wanted) return;
    quiet.add(uuid);
    if (quietTimer === null) {
      quietTimer = setTimeout(flushQuiet, 250);
      quietTimer.unref();
    }
  });

  try {
    fs.unlinkSync(home.socket); // stale: we hold the lock, so no live server owns it
  } catch {
    /* none */
  }
  const server = net.createServer((socket) => handleConnection(socket));
  const oldUmask = process.umask(0o177);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(home.socket, () => resolve());
  });
  process.umask(oldUmask);
  fs.chmodSync(home.socket, 0o600);

  // Reload config.json when it changes; a bad edit keeps the old config and
  // says why. chokidar follows editors that save by writing a temporary file
  // and renaming it over this one (vim, VS Code), and waits for a write to
  // finish before the file is read.
  const reload = (): void => {
    try {
      const next = loadConfig(home.config);
      const refusal = supervisor.refusalOf(next);
      if (refusal) throw new Error(refusal);
      supervisor.setConfig(next);
      supervisor.journal.appendEvent(null, { type: 'config_reloaded', data: { warnings: next.warnings } });
    } catch (e) {
      supervisor.rejectConfig((e as Error).message);
      log(`config rejected, the previous config stays in force: ${(e as Error).message}`);
      supervisor.journal.appendEvent(null, { type: 'config_rejected', data: { error: (e as Error).message } });
    }
  };
  const watcher = chokidar.watch(home.config, { ignoreInitial: true, persistent: false, atomic: 50, awaitWriteFinish: { stabilityThreshold: 60, pollInterval: 20 } });
  watcher.on('add', reload).on('change', reload).on('unlink', reload).on('error', () => undefined);

  let closed = false;
  const close = async (): Promise<void> => {
    if (closed) return;
    closed = true;
    await watcher.close();
    // Tell every client this stop is meant: a waiting client reports it and
    // exits instead of starting a new supervisor behind the user's back.
    for (const c of conns) c.socket.end(JSON.stringify({ type: 'stopping' }) + '\n');
    // A client that does not close its end (or a backlogged subscriber) must not hold the stop up.
    const cut = setTimeout(() => {
      for (const c of conns) c.socket.destroy();
    }, 1000);
    await new Promise<void>((r) => server.close(() => r()));
    clearTimeout(cut);
    supervisor.stop();
    lock.close();
    try {
      fs.unlinkSync(home.socket);
    } catch {
      /* gone */
    }
  };

  const drainThenExit = (kill: boolean): void => {
    void supervisor.drain(kill).then(() => close().then(stopped));
  };
  if (opts.killAgents) setTimeout(() => drainThenExit(true), 30_000).unref();

  function handleConnection(socket: net.Socket): void {
    const conn: Conn = { socket, greeted: false, subscribed: false, rows: false, gone: new AbortController() };
    conns.add(conn);
    const lines = new LineSplitter();
    let refused = false;
    socket.on('data', (chunk: Buffer) => {
      if (refused) return;
      const got = lines.push(chunk);
      for (const line of got.lines) if (line.trim() !== '') void handleLine(conn, line);
      if (got.tooLarge) {
        refused = true;
        reply(socket, null, { code: 'usage', message: `frame larger than ${MAX_FRAME_BYTES} bytes` });
        socket.end();
        socket.destroy();
      }
    });
    socket.on('error', () => undefined);
    socket.on('close', () => {
      conns.delete(conn);
      conn.gone.abort();
    });
  }

  async function handleLine(conn: Conn, line: string): Promise<void> {
    let msg: { id?: unknown; method?: unknown; params?: unknown };
    if (nestedDeeperThan(line)) {
      // Refused before parsing: the parser, zod and every reader after them recurse.
      reply(conn.socket, leadingId(line), { code: 'usage', message: `the request is nested more than ${MAX_NESTING} levels deep` });
      return;
    }
    try {
      msg = JSON.parse(line);
    } catch {
      reply(conn.socket, null, { code: 'usage', message: 'not JSON' });
      return;
    }
    const id = typeof msg?.id === 'number' ? msg.id : null;
    if (!msg || typeof msg !== 'object' || typeof msg.method !== 'string') {
      reply(conn.socket, id, { code: 'usage', message: 'a request needs "id" and "method"' });
      return;
    }
    const params = (msg.params && typeof msg.params === 'object' ? msg.params : {}) as Record<string, unknown>;
    try {
      if (msg.method === 'hello') {
        if (params.version !== PROTOCOL_VERSION) {
          throw new RemoteError('version', `protocol version ${String(params.version)} is not spoken here (server speaks ${PROTOCOL_VERSION})`);
        }
        conn.greeted = true;
        reply(conn.socket, id, null, { version: PROTOCOL_VERSION, pid: process.pid, home: home.dir, started_at: supervisor.startedAt });
        return;
      }
      if (!conn.greeted) throw new RemoteError('version', 'say hello first');
      if (supervisor.degraded !== null && WRITES.has(msg.method)) {
        throw new RemoteError('unavailable', `the journal cannot be written (${supervisor.degraded}); orcr starts and changes nothing until it can`);
      }
      const result = await dispatch(conn, msg.method, params);
      reply(conn.socket, id, null, result);
    } catch (e) {
      if (e instanceof JournalUnavailable) {
        supervisor.degrade(e.message);
        reply(conn.socket, id, { code: 'unavailable', message: `the journal cannot be written (${e.message}); nothing was changed` });
      } else if (e instanceof RemoteError) reply(conn.socket, id, { code: e.code, message: e.message });
      else if (e instanceof z.ZodError) {
        const issue = e.issues[0]!;
        reply(conn.socket, id, { code: 'usage', message: `${issue.path.join('.') || 'params'}: ${issue.message}` });
      } else {
        log(`internal error in ${String(msg.method)}: ${(e as Error).stack}`);
        reply(conn.socket, id, { code: 'internal', message: (e as Error).message });
      }
    }
  }

  async function dispatch(conn: Conn, method: string, params: Record<string, unknown>): Promise<unknown> {
    const s = supervisor;
    switch (method) {
      case 'run.enqueue': {
        const checked = checkRunSpecs(params.specs, params.caller_env);
        if (checked.problem !== null) throw new RemoteError('usage', checked.problem);
        const warnings: string[] = [];
        const runs = s.enqueue(checked.specs, warnings).map((r) => s.view(r));
        return warnings.length > 0 ? { runs, warnings } : { runs };
      }
      case 'run.list': {
        // A page at most (the newest first): a home of months holds a million runs; `before` pages back.
        const q = z
          .object({ all: z.boolean().optional(), status: z.string().optional(), provider: z.string().optional(), limit: z.number().int().positive().optional(), before: z.number().int().optional() })
          .parse(params);
        const limit = Math.min(q.limit ?? PAGE, PAGE);
        const rows = s.journal.listRuns({ ...q, limit: limit + 1 });
        const more = rows.length > limit;
        const runs = (more ? rows.slice(1) : rows).map((r) => s.view(s.getLive(r.uuid) ?? r));
        return { runs, next: more ? runs[0]!.queue_seq : null };
      }
      case 'run.get': {
        const { ref, env } = z.object({ ref: z.string(), env: z.boolean().optional() }).parse(params);
        const run = s.resolve(ref);
        // Values of -e only on request (show --env): they may be secrets.
        return env ? { run: s.view(run), env: run.env } : { run: s.view(run) };
      }
      case 'run.kill': {
        const p = z.object({ refs, force: z.boolean().optional(), keep_children: z.boolean().optional() }).parse(params);
        // Ref by ref: an unknown one is reported and the others are still acted on
        // (an ambiguous one refuses the whole call before anything is killed).
        const found = p.refs.map((ref) => {
          try {
            return { ref, run: s.resolve(ref) };
          } catch (e) {
            if (e instanceof RemoteError && e.code === 'not_found') return { ref, run: null };
            throw e;
          }
        });
        if (found.every((f) => f.run === null)) throw new RemoteError('not_found', `no run ${p.refs.map(quote).join(', ')}`);
        const results = found.map(({ ref, run }) => {
          if (!run) return { ref, name: null, uuid: null, action: 'not_found', status: null, exit_reason: null };
          const descendants = run.status === 'ended' || p.keep_children ? [] : s.activeDescendants(run.uuid).map((d) => d.uuid);
          const after = run.status === 'ended' ? run : s.kill([run.uuid], p.force ?? false, p.keep_children ?? false)[0]!;
          const action = run.status === 'ended' ? 'already_ended' : after.status === 'ended' ? 'canceled' : 'killing';
          // `descendants` only when there were some: the shape of a kill without children stays as it was.
          return { ref, name: after.name, uuid: after.uuid, action, status: after.status, exit_reason: after.exit_reason, ...(descendants.length > 0 ? { descendants } : {}) };
        });
        return { results };
      }
      case 'run.send': {
        const p = z.object({ ref: z.string(), text: z.string() }).parse(params);
        return { run: s.view(s.send(s.resolve(p.ref).uuid, p.text)) };
      }
      case 'run.wait': {
        const p = z
          .object({
            refs: refs.optional(),
            all: z.boolean().optional(),
            timeout_ms: z.number().min(0).max(MAX_DURATION_MS, 'must be at most a year').nullable().optional(),
            // The waiting client's environment; only ORCR_RUN is read: a run waiting on its own descendants lends them its slot.
            caller_env: z.record(z.string(), z.string()).optional(),
          })
          .parse(params);
        const uuids = p.all ? s.waitAllTargets(p.caller_env?.ORCR_RUN) : (p.refs ?? []).map((r) => s.resolve(r).uuid);
        if (uuids.length === 0 && !p.all) throw new RemoteError('usage', 'wait needs at least one run or --all');
        return { settled: await s.wait(uuids, p.timeout_ms ?? null, conn.gone.signal, p.caller_env?.ORCR_RUN) };
      }
      case 'run.resolve': {
        const { ref } = z.object({ ref: z.string() }).parse(params);
        const r = s.resolve(ref);
        return { uuid: r.uuid, name: r.name, dir: `${home.runs}/${r.uuid}`, protocol: r.protocol, status: r.status };
      }
      case 'stats':
        return s.stats();
      case 'spend':
        return s.spend();
      case 'provider.resume': {
        const p = z.object({ provider: z.string().min(1) }).parse(params);
        return { resumed: s.resumeProvider(p.provider) };
      }
      case 'events': {
        const p = z.object({ since: z.number().int().min(0).optional(), limit: z.number().int().positive().optional() }).parse(params);
        const events = s.journal.eventsSince(p.since ?? 0, Math.min(p.limit ?? PAGE, PAGE));
        return { events, names: s.eventNames(events) };
      }
      case 'subscribe': {
        // Snapshot and replay are computed synchronously, and the journal only
        // commits on this same thread, so no event can fall between them.
        const p = z.object({ since: z.number().int().min(0).optional(), snapshot: z.boolean().optional(), rows: z.boolean().optional() }).parse(params);
        const seq = s.journal.lastSeq();
        const out: { seq: number; runs?: PublicRun[]; total?: number; truncated?: boolean; events?: RunEvent[]; names?: Record<string, string>; more?: boolean; pruned?: { first_seq: number } } = { seq };
        if (p.snapshot) {
          // Every active run (a run that started long ago and still works must not be missing),
          // then the newest ended ones up to a bound: a home of months sends a page, not its history.
          const limit = 5000;
          const active = s.journal.listRuns({ limit: 50_000 });
          const ended = s.journal.listRuns({ status: 'ended', limit: Math.max(0, limit - active.length) });
          out.runs = [...ended, ...active].sort((a, b) => a.queue_seq - b.queue_seq).map((r) => s.view(s.getLive(r.uuid) ?? r));
          out.total = s.journal.countRuns();
          out.truncated = out.total > out.runs.length;
        }
        if (p.since !== undefined) {
          // At most a page: a client that gets a full one reads the rest with `events` (and holds live ones meanwhile).
          out.events = s.journal.eventsSince(p.since, PAGE);
          out.more = out.events.length === PAGE;
          out.names = s.eventNames(out.events);
          // Retention removed what came after `since`: say so, so the client takes the snapshot instead of a history with a hole.
          const first = s.journal.firstSeq();
          if (first > p.since + 1) out.pruned = { first_seq: first };
        }
        conn.subscribed = true;
        conn.rows = p.rows === true;
        return out;
      }
      case 'server.status': {
        // As stats counts: active runs hold a slot, queued ones wait for one.
        const live = s.activeUuids();
        const queued = live.filter((u) => s.getLive(u)?.status === 'queued').length;
        return {
          pid: process.pid,
          home: home.dir,
          started_at: s.startedAt,
          active: live.length - queued,
          queued,
          seq: s.journal.lastSeq(),
          degraded: s.degraded,
          clients: conns.size,
          warnings: s.stats().warnings,
          config_error: s.configError,
          cluster: s.cluster(),
          paused: s.stats().paused,
          draining: s.stats().draining,
        };
      }
      case 'cluster.status': {
        const machines = await s.clusterMachines();
        if (machines === null) throw new RemoteError('usage', 'this supervisor is not in a cluster (config.json has no "cluster")');
        return { ...s.cluster()!, machines };
      }
      case 'cluster.forget': {
        const { host } = z.object({ host: z.string().min(1) }).parse(params);
        const r = await s.forgetMachine(host);
        if (r === null) throw new RemoteError('usage', 'this supervisor is not in a cluster (config.json has no "cluster")');
        if (!r.forgotten) {
          throw new RemoteError(
            r.alive ? 'refused' : 'not_found',
            r.alive
              ? `${JSON.stringify(host)} is ${host === s.cluster()?.host ? 'this machine' : 'a live machine (its heartbeat is within lease_ttl)'}: only a machine that left can be forgotten`
              : `no machine ${JSON.stringify(host)} in cluster ${JSON.stringify(s.cluster()?.name)}`,
          );
        }
        return { host, ...r };
      }
      case 'gc': {
        const q = z
          .object({ older_than_ms: z.number().int().min(0).max(MAX_DURATION_MS).optional(), dry_run: z.boolean().optional(), force: z.boolean().optional(), branches: z.boolean().optional() })
          .parse(params);
        const keep = s.retentionMs();
        const olderThan = q.older_than_ms ?? keep;
        if (olderThan === null) throw new RemoteError('usage', 'retention.ended is "never": say how old with --older-than DUR');
        // Worktrees first: a run whose worktree stays keeps its row (the row says whose it is).
        const worktrees = await s.gcWorktrees({ force: q.force ?? false, branches: q.branches ?? false, dryRun: q.dry_run ?? false });
        return { ...(await s.gc(olderThan, q.dry_run ?? false)), worktrees };
      }
      case 'run.diff': {
        const q = z.object({ ref: z.string(), stat: z.boolean().optional() }).parse(params);
        return await s.diff(s.resolve(q.ref).uuid, q.stat ?? false);
      }
      case 'worktree.finish': {
        const q = z.object({ ref: z.string(), mode: z.enum(['merge', 'keep_branch', 'discard']) }).parse(params);
        const r = await s.finishWorktree(s.resolve(q.ref).uuid, q.mode);
        return { ...r, run: s.view(r.run) };
      }
      case 'worktree.prune': {
        const q = z.object({ force: z.boolean().optional(), dry_run: z.boolean().optional() }).parse(params);
        return { worktrees: await s.pruneWorktrees({ force: q.force ?? false, dryRun: q.dry_run ?? false }) };
      }
      case 'server.stop': {
        const { mode } = z.object({ mode: z.enum(['leave', 'drain', 'kill_agents']).optional() }).parse(params);
        // Queued runs stay in the journal whatever the mode: the next supervisor starts them (unless the queue is paused).
        const queued = s.queuedCount();
        const { paused } = s.stats();
        if (mode === 'drain' || mode === 'kill_agents') {
          const waiting = s.runningCount();
          drainThenExit(mode === 'kill_agents');
          return { stopping: true, waiting_for: waiting, queued, paused };
        }
        setImmediate(() => void close().then(stopped));
        return { stopping: true, queued, paused };
      }
      case 'run.select': {
        const f = z.object({ all: z.boolean().optional(), status: z.string().optional(), provider: z.string().optional(), workload: z.string().optional(), name: z.string().optional() }).parse(params);
        return { runs: s.select(f).map((r) => ({ uuid: r.uuid, name: r.name, status: r.status })) };
      }
      case 'run.takeover': {
        const p = z.object({ ref: z.string().min(1), now: z.boolean().optional() }).parse(params);
        return { run: s.view(s.takeover(s.resolve(p.ref).uuid, p.now ?? false)) };
      }
      case 'run.rerun': {
        const { ref } = z.object({ ref: z.string() }).parse(params);
        return { run: s.view(s.rerun(s.resolve(ref).uuid)) };
      }
      case 'queue.pause': {
        const { paused } = z.object({ paused: z.boolean() }).parse(params);
        return s.setPaused(paused);
      }
      case 'loop.create': {
        const q = z
          .object({
            name: z.string().min(1),
            cron: z.string().optional(),
            once_at: z.string().optional(),
            tz: z.string().min(1),
            max_concurrency: z.number().int().min(1).max(10_000).optional(),
            overlap: z.enum(['queue', 'skip']).optional(),
            timeout_ms: z.number().int().min(1).max(MAX_DURATION_MS).nullable().optional(),
            command: z.array(z.string()).min(1, 'a loop needs a command'),
            cwd: z.string().min(1),
            caller_env: z.record(z.string(), z.string()).optional(),
          })
          .parse(params);
        return {
          loop: s.loops.create({ ...q, max_concurrency: q.max_concurrency ?? 1, overlap: q.overlap ?? 'queue', timeout_ms: q.timeout_ms ?? null, env: q.caller_env ?? null }),
        };
      }
      case 'loop.list':
        return { loops: s.loops.list() };
      case 'loop.get':
        return { loop: s.loops.show(z.object({ name: z.string() }).parse(params).name) };
      case 'loop.pause': {
        const q = z.object({ name: z.string(), paused: z.boolean() }).parse(params);
        return { loop: s.loops.setPaused(q.name, q.paused) };
      }
      case 'loop.remove': {
        const q = z.object({ name: z.string(), kill_active: z.boolean().optional() }).parse(params);
        return s.loops.remove(q.name, q.kill_active ?? false);
      }
      case 'loop.events': {
        const q = z.object({ name: z.string(), limit: z.number().int().positive().max(PAGE).optional() }).parse(params);
        return { events: s.loops.events(q.name, q.limit ?? 200) };
      }
      case 'loop.start':
        return s.loops.fire(z.object({ name: z.string() }).parse(params).name, 'hand', null);
      case 'loop.stop':
        return { stopped: s.loops.stopRuns(z.object({ name: z.string() }).parse(params).name) };
      case 'loop.runs': {
        const q = z.object({ name: z.string(), limit: z.number().int().positive().max(PAGE).optional() }).parse(params);
        return { runs: s.loops.runs(q.name, q.limit ?? 100) };
      }
      default:
        throw new RemoteError('usage', `unknown method "${method}"`);
    }
  }

  return { supervisor, close };
}

function reply(socket: net.Socket, id: number | null, error: { code: string; message: string } | null, result?: unknown): void {
  if (socket.destroyed) return;
  socket.write(JSON.stringify(error ? { id, error } : { id, result }) + '\n');
}

export { homePaths };
