// The socket: NDJSON frames in (frames.ts cuts and bounds them), one request
// each, answered by requests.ts; subscribers fed by subscriber-feed.ts. Here:
// the socket bound (owner only), connections accepted within their number's
// limit, and the stop told to every client before the socket closes.

import fs from 'node:fs';
import net from 'node:net';
import type { Home } from '../config/home.js';
import { MAX_FRAME_BYTES, type StoppingMessage } from '../protocol/wire.js';
import { reply, type Conn } from './conn.js';
import { Connection, defaultLimits, openFileLimit, type ConnectionLimits } from './connection.js';
import type { HandlerContext, Handlers, Rooms } from './handlers/index.js';
import { handleRequest, type RequestDeps } from './requests.js';
import { SubscriberFeed, type Feed } from './subscriber-feed.js';

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
  /** In a cluster: calls on other machines' runs carried there (cluster-calls.ts). */
  forward?: RequestDeps['forward'];
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
  const t = new SocketTransport(deps);
  await t.bind();
  return t;
}

class SocketTransport implements Transport {
  private readonly conns = new Set<Conn>();
  private readonly limits: ConnectionLimits;
  private readonly feed: SubscriberFeed;
  private readonly requests: RequestDeps;
  private readonly server: net.Server;
  private refusedAt = -Infinity;

  constructor(private readonly deps: TransportDeps) {
    this.limits = { ...defaultLimits(openFileLimit(() => fs.readFileSync('/proc/self/limits', 'utf8'))), ...deps.limits };
    this.feed = new SubscriberFeed(deps.feed, this.conns);
    const server: HandlerContext['server'] = { clients: () => this.conns.size, stop: deps.stop };
    this.requests = {
      feed: deps.feed,
      handlers: deps.handlers,
      log: deps.log,
      contextOf: (conn) => ({ ...deps.rooms, home: deps.home, conn: this.connContext(conn), server }),
      ...(deps.forward ? { forward: deps.forward } : {}),
    };
    this.server = net.createServer((socket) => this.accept(socket));
  }

  async bind(): Promise<void> {
    const { home, log } = this.deps;
    try {
      fs.unlinkSync(home.socket); // stale: we hold the lock, so no live server owns it
    } catch {
      /* none */
    }
    // The umask is the process's: set only around listen(), which binds the
    // socket synchronously, so nothing else this process makes meanwhile (a test
    // hosting several supervisors, a run directory) gets it.
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      const oldUmask = process.umask(0o177);
      try {
        this.server.listen(home.socket, () => resolve());
      } finally {
        process.umask(oldUmask);
      }
    });
    fs.chmodSync(home.socket, 0o600);
    // Out of descriptors, accept() fails (libuv closes the waiting connection):
    // an `error` on the server, which must not reach the process's top. Said
    // once a minute at most: a client retries while the flood lasts.
    let acceptFailedAt = -Infinity;
    this.server.on('error', (e: NodeJS.ErrnoException) => {
      if (Date.now() - acceptFailedAt < 60_000) return;
      acceptFailedAt = Date.now();
      log(`a connection could not be accepted (${e.code ?? e.message}); serving those already connected`);
    });
  }

  private accept(socket: net.Socket): void {
    socket.on('error', () => undefined);
    if (this.conns.size >= this.limits.maxConnections) {
      this.refuse(socket);
      return;
    }
    const conn = {} as Conn;
    const flow = new Connection(
      socket,
      this.limits,
      (line) => handleRequest(this.requests, conn, line),
      () => {
        reply(conn, null, { code: 'usage', message: `frame larger than ${MAX_FRAME_BYTES} bytes` });
        socket.end();
        socket.destroy();
      },
    );
    Object.assign(conn, { socket, flow, subscribed: false, rows: false, positionsDue: false, gone: new AbortController() } satisfies Conn);
    this.conns.add(conn);
    socket.on('close', () => {
      this.conns.delete(conn);
      conn.gone.abort();
    });
  }

  // Told, not just cut: a client says why instead of "the supervisor went away".
  private refuse(socket: net.Socket): void {
    const n = this.conns.size;
    socket.end(
      JSON.stringify({
        id: null,
        error: { code: 'unavailable', message: `the supervisor has ${n} connections, its most; try again when some close` },
      }) + '\n',
    );
    setTimeout(() => socket.destroy(), 1000).unref();
    if (Date.now() - this.refusedAt > 60_000) this.deps.log(`a connection refused: ${n} connections, the most allowed`);
    this.refusedAt = Date.now();
  }

  private connContext(conn: Conn): HandlerContext['conn'] {
    return {
      signal: conn.gone.signal,
      subscribe: (rows) => {
        conn.subscribed = true;
        conn.rows = rows;
        conn.positionsDue = rows;
        this.feed.subscribed();
      },
    };
  }

  clients(): number {
    return this.conns.size;
  }

  connections(): ConnectionStats {
    let queuedBytes = 0;
    let notReading = 0;
    for (const c of this.conns) {
      queuedBytes += c.flow.queued;
      if (!c.flow.reading) notReading++;
    }
    return { count: this.conns.size, queuedBytes, notReading };
  }

  async close(): Promise<void> {
    this.feed.close();
    // Tell every client this stop is meant: a waiting client reports it and
    // exits instead of starting a new supervisor behind the user's back.
    const stopping: StoppingMessage = { type: 'stopping' };
    for (const c of this.conns) c.socket.end(JSON.stringify(stopping) + '\n');
    // A client that does not close its end (or a backlogged subscriber) must not hold the stop up.
    const cut = setTimeout(() => {
      for (const c of this.conns) c.socket.destroy();
    }, 1000);
    await new Promise<void>((r) => this.server.close(() => r()));
    clearTimeout(cut);
    this.feed.cancelPending();
  }
}
