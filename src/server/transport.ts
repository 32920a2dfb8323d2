// The socket: NDJSON frames in (frames.ts cuts and bounds them), one request
// each, dispatched by the method table (protocol/methods.ts) to its handler
// (handlers/): parameters parsed with the method's schema, writes refused
// while the journal cannot be written, failures answered with their code.
// Subscribers are sent every committed event, and rows that changed without
// one, coalesced, with the queue positions that moved (positions-feed.ts).
// Knows no method by name but `hello`.

import fs from 'node:fs';
import net from 'node:net';
import { z } from 'zod';
import type { Home } from '../config/home.js';
import type { RunEvent } from '../core/events.js';
import type { Run } from '../core/types.js';
import { RemoteError, type ErrorBody } from '../protocol/errors.js';
import { isMethodName, parseParams, WRITES, type MethodName } from '../protocol/methods.js';
import type { PublicRun } from '../protocol/views.js';
import { MAX_FRAME_BYTES, MAX_NESTING, type EventMessage, type RowsMessage, type StoppingMessage } from '../protocol/wire.js';
import { Connection, defaultLimits, openFileLimit, type ConnectionLimits } from './connection.js';
import { leadingId } from './frames.js';
import { nestedDeeperThan } from '../text/json-depth.js';
import { PositionsFeed } from './positions-feed.js';
import type { Handler, HandlerContext, Handlers, Rooms } from './handlers/index.js';
import type { Lifecycle } from './lifecycle.js';
import type { Queries } from './queries.js';
import type { Reads } from './reads.js';

/** Rows that changed without an event are sent at most this often. */
const ROWS_EVERY_MS = 250;
/** Queue positions that moved are sent this soon after the change that moved them, and at most this often. */
const POSITIONS_EVERY_MS = 50;
/** And looked at this often whatever happened: a cluster's queue moves with other machines' runs. */
const POSITIONS_POLL_MS = 1000;
/** The events after which a queued run's place may have moved: a run came into the queue or left it, the priorities or the limiter changed. */
const QUEUE_EVENTS: ReadonlySet<string> = new Set([
  'queued',
  'starting',
  'ended',
  'adopted',
  'lease_lost',
  'config_reloaded',
  'supervisor_started',
  'cluster_joined',
  'cluster_available',
  'cluster_unavailable',
]);

interface Conn {
  socket: net.Socket;
  /** Its flow: requests read and handled within limits, replies and events queued within limits. */
  flow: Connection;
  subscribed: boolean;
  /** Subscribed with `rows`: also told of rows that changed without an event, and of queue positions. */
  rows: boolean;
  /** Subscribed with `rows` since the last positions were sent: to be sent all of them. */
  positionsDue: boolean;
  /** Aborted when the client goes away: its waits are dropped with it. */
  gone: AbortController;
}

/** What the socket reads for itself: each committed event with its row, rows changed without one, the queue's places, the mode. */
export interface Feed {
  reads: Pick<Reads, 'onEvent' | 'getRun' | 'live' | 'onQuietChange' | 'lastSeq'>;
  queries: Pick<Queries, 'view' | 'positions'>;
  lifecycle: Pick<Lifecycle, 'degraded'>;
  /** A journal that cannot be written, as thrown: the supervisor degrades, and it was absorbed; anything else is not. */
  absorbs(e: unknown): e is Error;
}

export interface TransportDeps {
  home: Home;
  /** What each handler is given (handlers/context.ts). */
  rooms: Rooms;
  feed: Feed;
  handlers: Handlers;
  log: (m: string) => void;
  /** `server.stop` asked for a stop; it happens after the reply is written. */
  stop: HandlerContext['server']['stop'];
  /** Bounds on each connection and on their number (connection.ts); defaults from the process's file limit. */
  limits?: Partial<ConnectionLimits>;
}

/** The connections as they stand: how many, what is queued for them, how many are not being read. */
export interface ConnectionStats {
  count: number;
  queuedBytes: number;
  notReading: number;
}

export interface Transport {
  clients(): number;
  connections(): ConnectionStats;
  /** Tell every client the stop is meant, close the socket and its connections. */
  close(): Promise<void>;
}

export async function listen(deps: TransportDeps): Promise<Transport> {
  const { home, log } = deps;
  const { reads, queries, lifecycle } = deps.feed;
  const conns = new Set<Conn>();
  /** Closed: the supervisor stops after this, and nothing its stop commits may reach for the journal it closes. */
  let closed = false;
  const limits: ConnectionLimits = { ...defaultLimits(openFileLimit(() => fs.readFileSync('/proc/self/limits', 'utf8'))), ...deps.limits };
  const send = (c: Conn, line: string): void => void c.flow.send(line);

  reads.onEvent((event: RunEvent, written: Run | null) => {
    let line: string | null = null;
    for (const c of conns) {
      if (!c.subscribed) continue;
      if (line === null) {
        // The row written with the event is the state it explains; otherwise the run as it is now.
        const run = written ?? (event.run ? reads.getRun(event.run) : null);
        const msg: EventMessage = { type: 'event', event, run: run ? queries.view(run) : null };
        line = JSON.stringify(msg) + '\n';
      }
      send(c, line);
    }
    // Output and meters come by the hundred a second and move no one in the queue.
    if (QUEUE_EVENTS.has(event.type)) schedulePositions();
  });

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
      const run = reads.live(uuid);
      if (run) runs.push(queries.view(run));
    }
    quiet.clear();
    if (runs.length === 0) return;
    const msg: RowsMessage = { type: 'rows', seq: reads.lastSeq(), runs };
    const line = JSON.stringify(msg) + '\n';
    for (const c of conns) if (c.subscribed && c.rows) send(c, line);
  };
  reads.onQuietChange((uuid) => {
    let wanted = false;
    for (const c of conns) wanted ||= c.rows;
    if (!wanted || closed) return;
    quiet.add(uuid);
    if (quietTimer === null) {
      quietTimer = setTimeout(flushQuiet, ROWS_EVERY_MS);
      quietTimer.unref();
    }
  });

  // A queued run's place moves with other runs' events, not its own: the
  // places that moved follow the events that moved them (after the whole
  // commit's events, and at most every 50 ms), as one rows message.
  const positions = new PositionsFeed();
  let positionsTimer: NodeJS.Timeout | null = null;
  let positionsAt = 0;
  const flushPositions = (): void => {
    positionsTimer = null;
    positionsAt = Date.now();
    let all: string | null = null;
    let changed: string | null = null;
    const current = queries.positions();
    const moved = positions.changes(current);
    const seq = reads.lastSeq();
    for (const c of conns) {
      if (!c.subscribed || !c.rows) continue;
      if (c.positionsDue) {
        c.positionsDue = false;
        all ??= JSON.stringify({ type: 'rows', seq, runs: [], positions: Object.fromEntries(current) } satisfies RowsMessage) + '\n';
        send(c, all);
      } else if (moved !== null) {
        changed ??= JSON.stringify({ type: 'rows', seq, runs: [], positions: moved } satisfies RowsMessage) + '\n';
        send(c, changed);
      }
    }
  };
  const schedulePositions = (): void => {
    if (positionsTimer !== null || closed) return;
    let wanted = false;
    for (const c of conns) wanted ||= c.rows;
    if (!wanted) return;
    positionsTimer = setTimeout(flushPositions, Math.max(0, positionsAt + POSITIONS_EVERY_MS - Date.now()));
    positionsTimer.unref();
  };
  const positionsPoll = setInterval(schedulePositions, POSITIONS_POLL_MS);
  positionsPoll.unref();

  try {
    fs.unlinkSync(home.socket); // stale: we hold the lock, so no live server owns it
  } catch {
    /* none */
  }
  const server = net.createServer((socket) => accept(socket));
  // The umask is the process's: set only around listen(), which binds the
  // socket synchronously, so nothing else this process makes meanwhile (a test
  // hosting several supervisors, a run directory) gets it.
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    const oldUmask = process.umask(0o177);
    try {
      server.listen(home.socket, () => resolve());
    } finally {
      process.umask(oldUmask);
    }
  });
  fs.chmodSync(home.socket, 0o600);
  // Out of descriptors, accept() fails (libuv closes the waiting connection):
  // an `error` on the server, which must not reach the process's top. Said
  // once a minute at most: a client retries while the flood lasts.
  let acceptFailedAt = -Infinity;
  server.on('error', (e: NodeJS.ErrnoException) => {
    if (Date.now() - acceptFailedAt < 60_000) return;
    acceptFailedAt = Date.now();
    log(`a connection could not be accepted (${e.code ?? e.message}); serving those already connected`);
  });

  let refusedAt = -Infinity;
  function accept(socket: net.Socket): void {
    socket.on('error', () => undefined);
    if (conns.size >= limits.maxConnections) {
      // Told, not just cut: a client says why instead of "the supervisor went away".
      socket.end(
        JSON.stringify({
          id: null,
          error: { code: 'unavailable', message: `the supervisor has ${conns.size} connections, its most; try again when some close` },
        }) + '\n',
      );
      setTimeout(() => socket.destroy(), 1000).unref();
      if (Date.now() - refusedAt > 60_000) log(`a connection refused: ${conns.size} connections, the most allowed`);
      refusedAt = Date.now();
      return;
    }
    const conn = {} as Conn;
    const flow = new Connection(
      socket,
      limits,
      (line) => handleLine(conn, line),
      () => {
        reply(conn, null, { code: 'usage', message: `frame larger than ${MAX_FRAME_BYTES} bytes` });
        socket.end();
        socket.destroy();
      },
    );
    Object.assign(conn, { socket, flow, subscribed: false, rows: false, positionsDue: false, gone: new AbortController() } satisfies Conn);
    conns.add(conn);
    socket.on('close', () => {
      conns.delete(conn);
      conn.gone.abort();
    });
  }

  const server_: HandlerContext['server'] = { clients: () => conns.size, stop: deps.stop };
  const contextOf = (conn: Conn): HandlerContext => ({
    ...deps.rooms,
    home,
    conn: {
      signal: conn.gone.signal,
      subscribe: (rows) => {
        conn.subscribed = true;
        conn.rows = rows;
        conn.positionsDue = rows;
        schedulePositions();
      },
    },
    server: server_,
  });

  async function handleLine(conn: Conn, line: string): Promise<void> {
    let msg: { id?: unknown; method?: unknown; params?: unknown };
    if (nestedDeeperThan(line, MAX_NESTING)) {
      // Refused before parsing: the parser, zod and every reader after them recurse.
      reply(conn, leadingId(line), { code: 'usage', message: `the request is nested more than ${MAX_NESTING} levels deep` });
      return;
    }
    try {
      msg = JSON.parse(line);
    } catch {
      reply(conn, null, { code: 'usage', message: 'not JSON' });
      return;
    }
    const id = typeof msg?.id === 'number' ? msg.id : null;
    if (!msg || typeof msg !== 'object' || typeof msg.method !== 'string') {
      reply(conn, id, { code: 'usage', message: 'a request needs "id" and "method"' });
      return;
    }
    const method = msg.method;
    const params = (msg.params && typeof msg.params === 'object' ? msg.params : {}) as Record<string, unknown>;
    try {
      if (method === 'hello') {
        // At once, not after a turn: the next request may be in the same chunk.
        const result = deps.handlers.hello(parseParams('hello', params), contextOf(conn));
        conn.flow.greet();
        reply(conn, id, null, result);
        return;
      }
      if (!conn.flow.greeted) throw new RemoteError('version', 'say hello first');
      if (!isMethodName(method)) throw new RemoteError('usage', `unknown method "${method}"`);
      if (lifecycle.degraded !== null && WRITES.has(method)) {
        throw new RemoteError('unavailable', `the journal cannot be written (${lifecycle.degraded}); orcr starts and changes nothing until it can`);
      }
      reply(conn, id, null, await dispatch(method, params, contextOf(conn)));
    } catch (e) {
      if (deps.feed.absorbs(e)) reply(conn, id, { code: 'unavailable', message: `the journal cannot be written (${e.message}); nothing was changed` });
      else if (e instanceof RemoteError) reply(conn, id, { code: e.code, message: e.message });
      else if (e instanceof z.ZodError) {
        const issue = e.issues[0]!;
        reply(conn, id, { code: 'usage', message: `${issue.path.join('.') || 'params'}: ${issue.message}` });
      } else {
        log(`internal error in ${method}: ${(e as Error).stack}`);
        reply(conn, id, { code: 'internal', message: (e as Error).message });
      }
    }
  }

  // Async even for a handler that answers at once: its answer, or its
  // refusal of bad parameters, comes a turn later, after the answers of the
  // requests before it in the same chunk, as clients that pipeline expect.
  async function dispatch<M extends MethodName>(method: M, raw: Record<string, unknown>, ctx: HandlerContext): Promise<unknown> {
    const handler = deps.handlers[method] as Handler<M>;
    return handler(parseParams(method, raw), ctx);
  }

  return {
    clients: () => conns.size,
    connections: () => {
      let queuedBytes = 0;
      let notReading = 0;
      for (const c of conns) {
        queuedBytes += c.flow.queued;
        if (!c.flow.reading) notReading++;
      }
      return { count: conns.size, queuedBytes, notReading };
    },
    close: async () => {
      closed = true;
      // Tell every client this stop is meant: a waiting client reports it and
      // exits instead of starting a new supervisor behind the user's back.
      const stopping: StoppingMessage = { type: 'stopping' };
      for (const c of conns) c.socket.end(JSON.stringify(stopping) + '\n');
      // A client that does not close its end (or a backlogged subscriber) must not hold the stop up.
      const cut = setTimeout(() => {
        for (const c of conns) c.socket.destroy();
      }, 1000);
      await new Promise<void>((r) => server.close(() => r()));
      clearTimeout(cut);
      if (quietTimer !== null) clearTimeout(quietTimer);
      if (positionsTimer !== null) clearTimeout(positionsTimer);
      clearInterval(positionsPoll);
    },
  };
}

function reply(conn: Conn, id: number | null, error: ErrorBody | null, result?: unknown): void {
  conn.flow.send(JSON.stringify(error ? { id, error } : { id, result }) + '\n');
}
