// `orcr serve`: the supervisor in the foreground.

import { ensureHome, homeDir, HomeError } from '../config/home.js';
import { ServerLog } from '../server/server-log.js';
import { ConfigError } from '../config/errors.js';
import { AlreadyRunning, startServer } from '../server/server.js';

export async function serve(): Promise<number> {
  // Resolved once, here: the log, the lock, the socket and the runs are all at the real path.
  const home = ensureHome(homeDir());
  const dir = home.dir;
  // Started by a client that found no supervisor: losing the start race to
  // another such client is expected, not worth a line in server.log.
  const autoStarted = process.env.ORCR_AUTOSTARTED === '1';
  delete process.env.ORCR_AUTOSTARTED;
  // Started by `server stop --kill-agents` on a stopped home: admit nothing, kill what is alive, stop.
  const killAgents = process.env.ORCR_START_KILL_AGENTS === '1';
  delete process.env.ORCR_START_KILL_AGENTS;
  // Started by a client, the supervisor keeps its own bounded server.log (its
  // stderr, which the client pointed there too, only catches a crash's last
  // words); in the foreground it writes to the terminal.
  const file = autoStarted ? new ServerLog(home.log) : null;
  const log = (m: string): void => {
    const line = `${new Date().toISOString()} ${m}\n`;
    if (file) file.write(line);
    else process.stderr.write(line);
  };
  let handle;
  try {
    handle = await startServer(dir, log, { killAgents, onStopped: () => process.exit(0) });
  } catch (e) {
    if (e instanceof AlreadyRunning) {
      if (!autoStarted) log(e.message);
      return 7;
    }
    throw e;
  }
  log(`orcr supervisor ready: pid ${process.pid}, home ${dir}`);
  const stop = (sig: string): void => {
    log(`${sig}: stopping; agents keep running`);
    void handle.close().then(() => process.exit(0));
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGHUP', () => undefined);
  process.on('uncaughtException', (e) => {
    // A journal that cannot be written is a state to wait out, not a crash.
    if (handle.uncaught(e)) return;
    // Anything else: the journal is the truth and the next start reconciles, so
    // crash rather than run on inconsistent memory.
    log(`uncaught: ${e.stack ?? e}`);
    process.exit(1);
  });
  return new Promise<number>(() => undefined);
}

/** `orcr serve` as the process's whole job: its exit code, or a one-line reason (exit 2 for a bad home or config). */
export async function serveMain(): Promise<void> {
  try {
    process.exitCode = await serve();
  } catch (e) {
    // A cluster that refuses this machine (caps differ, bad URL, credentials) is a config problem too.
    const usage = e instanceof HomeError || e instanceof ConfigError || ['ClusterConflict', 'ClusterRefused'].includes((e as Error)?.name);
    process.stderr.write(`orcr: ${usage ? (e as Error).message : ((e as Error)?.stack ?? String(e))}\n`);
    process.exit(usage ? 2 : 1);
  }
}
