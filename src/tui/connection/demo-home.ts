// `orcr-tui --demo`: a throw-away home with the demo fleet (the same one as
// `orcr demo`), created quietly so the TUI can open on it, and taken down
// when the TUI quits: its agents, its supervisor and its folder. Someone
// trying the demo twice must not find two fleets left running.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '../../client/client.js';
import { DEMO_CONFIG, demoSpecs } from '../../client/demo-fleet.js';
import { ensureHome, homePaths } from '../../config/home.js';

export interface DemoHome {
  dir: string;
  runs: number;
}

export async function createDemoHome(): Promise<DemoHome> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'orcr-demo-'));
  try {
    fs.chmodSync(dir, 0o700);
    const home = ensureHome(dir);
    fs.writeFileSync(home.config, JSON.stringify(DEMO_CONFIG, null, 2) + '\n', { mode: 0o600 });
    const c = await Client.connect(home);
    try {
      const res = await c.call('run.enqueue', { specs: demoSpecs(dir) });
      return { dir, runs: res.runs.length };
    } finally {
      c.close();
    }
  } catch (e) {
    await removeDemoHome(dir).catch(() => undefined);
    throw e;
  }
}

export interface Removal {
  /** Runs that were still queued or going. */
  stopped: number;
  /** Processes of the home still there after the supervisor stopped, killed here. */
  strays: number;
  removed: boolean;
}

/**
 * Stop every run of the demo home (force: they are simulated), stop its
 * supervisor, kill any process of the home still left, remove the folder.
 * A supervisor that is gone is started again first: it re-adopts the
 * agents it left behind, which only it can end in order.
 */
export async function removeDemoHome(dir: string, timeoutMs = 15_000): Promise<Removal> {
  const deadline = Date.now() + timeoutMs;
  const home = homePaths(dir);
  let stopped = 0;
  let pid: number | null = null;
  if (fs.existsSync(home.config)) {
    let c: Client | null = null;
    try {
      c = await Client.connect(home, { autoStart: true, timeoutMs: Math.min(5000, timeoutMs) });
      pid = c.server?.pid ?? null;
      // Killing a run frees its slot only when it has ended, and queued runs are canceled in the same call: nothing new starts.
      for (let round = 0; round < 3 && Date.now() < deadline; round++) {
        const { runs } = await c.call('run.list', {});
        const live = runs.filter((r) => r.status !== 'ended').map((r) => r.uuid);
        if (live.length === 0) break;
        stopped = Math.max(stopped, live.length);
        await c.call('run.kill', { refs: live, force: true });
        await c.call('run.wait', { refs: live, timeout_ms: Math.max(0, Math.min(5000, deadline - Date.now())) }).catch(() => undefined);
      }
      await c.call('server.stop').catch(() => undefined);
    } catch {
      /* no supervisor to ask: what is left is found below */
    } finally {
      c?.close();
    }
  }
  if (pid !== null) await untilGone([pid], deadline);
  const strays = processesOfHome(dir);
  for (const p of strays) kill(p, 'SIGKILL');
  await untilGone(strays, Math.max(deadline, Date.now() + 1000));
  fs.rmSync(dir, { recursive: true, force: true });
  return { stopped, strays: strays.length, removed: !fs.existsSync(dir) };
}

/**
 * Processes orcr started for this home: its supervisor and spawn helper
 * (ORCR_HOME in their environment, and their own command line), the runs'
 * wrappers and agents (ORCR_HOME and ORCR_RUN). Not any process that only
 * has ORCR_HOME set — a shell someone pointed at the demo must survive it.
 * Linux only (/proc); elsewhere none are found.
 */
function processesOfHome(dir: string): number[] {
  const mark = `ORCR_HOME=${dir}`;
  const out: number[] = [];
  let entries: string[];
  try {
    entries = fs.readdirSync('/proc');
  } catch {
    return out;
  }
  for (const e of entries) {
    if (!/^\d+$/.test(e)) continue;
    const pid = Number(e);
    if (pid === process.pid) continue;
    try {
      const env = fs.readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0');
      if (!env.includes(mark)) continue;
      if (env.some((v) => v.startsWith('ORCR_RUN='))) out.push(pid);
      else {
        const argv = fs.readFileSync(`/proc/${pid}/cmdline`, 'latin1').split('\0');
        const supervisor = argv.includes('serve') && argv.some((a) => a.endsWith('/cli/main.js'));
        if (supervisor || argv.some((a) => a.endsWith('/spawn-helper.js'))) out.push(pid);
      }
    } catch {
      /* gone, or not ours to read */
    }
  }
  return out;
}

function kill(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch {
    /* already gone */
  }
}

/** Running (a zombie has ended; only its parent's wait is missing). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return true;
  }
}

async function untilGone(pids: readonly number[], deadline: number): Promise<void> {
  let left = pids.filter(alive);
  while (left.length > 0 && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 25));
    left = left.filter(alive);
  }
  // Past the deadline: no more asking.
  for (const p of left) kill(p, 'SIGKILL');
}
