// The supervisor process, composed: the home and its config, the
// single-instance lock, the supervisor, and the socket in front of it
// (transport.ts, dispatching to handlers/ with the supervisor's rooms); the
// watches of config.json (config-watch.ts: reloaded when it changes) and of
// the home (home-watch.ts).

import fs from 'node:fs';
import net from 'node:net';
import { ensureHome, type Home } from '../config/home.js';
import { loadConfig, type Config } from '../config/load.js';
import { lockFile } from '../journal/home-lock.js';
import { JournalUnavailable } from '../journal/journal.js';
import { socketPathLimit } from '../protocol/wire.js';
import { HANDLERS } from './handlers/index.js';
import type { WallClock } from './clock.js';
import { watchConfig } from './config-watch.js';
import { watchHome } from './home-watch.js';
import { Supervisor } from './supervisor.js';
import type { ConnectionLimits } from './connection.js';
import { listen, type ConnectionStats } from './transport.js';

export class AlreadyRunning extends Error {}

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

export interface ServerHandle {
  supervisor: Supervisor;
  /** Stop serving (agents keep running); a second call waits for nothing and does nothing. */
  close(): Promise<void>;
  /**
   * An error that reached the process's top: a journal that cannot be
   * written is a state to wait out (the supervisor degrades; true), anything
   * else is not this handle's to absorb (false).
   */
  uncaught(e: unknown): boolean;
  /** The socket's connections as they stand (count, bytes queued for them, how many are not being read). */
  connections(): ConnectionStats;
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
  /** The wall clock the loops' schedules are read by (default: the system's; clock.ts). */
  loopClock?: WallClock;
  /** Bounds on connections (tests make them small); otherwise from the process's file limit. */
  limits?: Partial<ConnectionLimits>;
}

/** The home made ready and its config read; a socket path too long for a Unix socket is refused. */
function openHome(dir: string, log: (m: string) => void): { home: Home; config: Config } {
  const home = ensureHome(dir);
  const config: Config = loadConfig(home.config);
  for (const w of config.warnings) log(`warning: ${w}`);
  if (Buffer.byteLength(home.socket) > socketPathLimit) {
    throw new Error(`the socket path ${home.socket} is too long for a Unix socket; use a shorter ORCR_HOME`);
  }
  return { home, config };
}

/**
 * Start supervising. A journal that cannot be written from the start (a full disk) is the degraded
 * state a supervisor already knows from a disk that fills while it runs: reads are served, nothing
 * starts, and it resumes once a write succeeds — instead of exiting 1 and leaving even `orcr ps`
 * without an answer.
 */
function bringUp(supervisor: Supervisor, draining: boolean): void {
  const unwritable = supervisor.unwritableAtOpen;
  if (unwritable !== null) {
    supervisor.degrade(unwritable);
    return;
  }
  try {
    supervisor.start({ draining });
  } catch (e) {
    if (!(e instanceof JournalUnavailable)) throw e;
    supervisor.degrade(e.message);
  }
}

/** Commands between machines (cluster-commands.ts), loaded only in a cluster, as the link is; a home that joined nothing refuses to act. */
async function clusterCommandsOf(supervisor: Supervisor, cfg: NonNullable<Config['cluster']>, home: Home, log: (m: string) => void) {
  const { clusterCommands, notAMember, localRun } = await import('./cluster-commands.js');
  const link = supervisor.clusterLink;
  if (!link) return notAMember(cfg.name, localRun(supervisor.rooms));
  return clusterCommands(link, cfg, { rooms: supervisor.rooms, feed: supervisor.feed, handlers: HANDLERS, home, log, dependencies: supervisor.remoteInputs });
}

export async function startServer(dir: string, log: (m: string) => void, opts: ServerOptions = {}): Promise<ServerHandle> {
  const stopped = (): void => opts.onStopped?.();
  const { home, config } = openHome(dir, log);
  const lock = await acquireLock(home);
  const supervisor = new Supervisor(home, config, log, opts.loopClock);
  try {
    await supervisor.joinCluster();
  } catch (e) {
    lock.close();
    throw e;
  }
  bringUp(supervisor, opts.killAgents === true);
  // Commands between machines: loaded only in a cluster, as the link is.
  const commands = config.cluster ? await clusterCommandsOf(supervisor, config.cluster, home, log) : null;

  const drainThenExit = (kill: boolean): void => {
    void supervisor.drain(kill).then(() => close().then(stopped));
  };
  const transport = await listen({
    home,
    rooms: supervisor.rooms,
    feed: supervisor.feed,
    handlers: HANDLERS,
    log,
    limits: opts.limits,
    ...(commands ? { forward: commands.forward } : {}),
    stop: (mode) => {
      if (mode === 'leave') setImmediate(() => void close().then(stopped));
      else drainThenExit(mode === 'kill_agents');
    },
  });
  // A bad edit keeps the old config and says why.
  const configWatch = await watchConfig(home.config, () => supervisor.reloadConfig(() => loadConfig(home.config)));

  // The home deleted or replaced under us: this supervisor no longer owns it (a new one may start for a
  // recreated home). Nothing more is admitted; it stops, and its agents are left to whoever owns them now.
  const homeWatch = watchHome(home, (why) => {
    log(`${why}: stopping (nothing more is admitted; the agents keep running)`);
    void close()
      .catch((e: unknown) => log(`while stopping: ${(e as Error)?.message ?? String(e)}`))
      .finally(stopped);
  });

  let closing: Promise<void> | null = null;
  const close = (): Promise<void> => {
    closing ??= (async () => {
      homeWatch.close();
      await configWatch.close();
      await transport.close();
      commands?.close();
      supervisor.stop();
      lock.close();
      try {
        fs.unlinkSync(home.socket);
      } catch {
        /* gone */
      }
    })();
    return closing;
  };
  if (opts.killAgents) setTimeout(() => drainThenExit(true), 30_000).unref();

  return { supervisor, close, uncaught: (e) => supervisor.absorbs(e), connections: () => transport.connections() };
}
