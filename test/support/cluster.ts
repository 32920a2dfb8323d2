// Test support for the cluster suites: machines are homes joined to one
// cluster of a real PostgreSQL server (or a PgBouncer in front of it); what
// runs is read from /proc, never from orcr itself.

import fs from 'node:fs';
import type { PublicRun } from '../../src/protocol/views.js';
import type { TestHome } from './harness.js';

/** Every process started for these homes' runs, by run uuid (ORCR_RUN in its environment). */
function liveRuns(dirs: string[]): Set<string> {
  const out = new Set<string>();
  for (const e of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(e)) continue;
    try {
      // The agents, not their wrappers: a wrapper that has written its agent's exit lives a moment longer,
      // while the supervisor, having read that exit, already starts the next run in the freed slot.
      if (fs.readFileSync(`/proc/${e}/cmdline`, 'latin1').includes('dir=$1; fifo=$2')) continue;
      const env = fs.readFileSync(`/proc/${e}/environ`, 'latin1').split('\0');
      const h = env.find((v) => v.startsWith('ORCR_HOME='))?.slice(10);
      const run = env.find((v) => v.startsWith('ORCR_RUN='))?.slice(9);
      if (h && run && dirs.includes(h)) out.add(run);
    } catch {
      /* gone */
    }
  }
  return out;
}

/** Sample /proc every 50 ms until stopped: the most runs alive at once, overall and per provider. */
export function monitor(dirs: string[], providerOf: Map<string, string>): { stop: () => { max: number; byProvider: Record<string, number> } } {
  let max = 0;
  const byProvider: Record<string, number> = {};
  const timer = setInterval(() => {
    const live = liveRuns(dirs);
    max = Math.max(max, live.size);
    const counts: Record<string, number> = {};
    for (const u of live) {
      const p = providerOf.get(u) ?? '?';
      counts[p] = (counts[p] ?? 0) + 1;
    }
    for (const [p, n] of Object.entries(counts)) byProvider[p] = Math.max(byProvider[p] ?? 0, n);
  }, 50);
  return {
    stop: () => {
      clearInterval(timer);
      return { max, byProvider };
    },
  };
}

/** How many times each run of this machine was promoted to starting. */
export function startsOf(h: TestHome): Map<string, number> {
  const m = new Map<string, number>();
  for (const e of h.json<{ type: string; run: string | null }[]>(['events'])) if (e.type === 'starting' && e.run) m.set(e.run, (m.get(e.run) ?? 0) + 1);
  return m;
}

/** `orcr ARGS` on one machine, awaited without blocking the event loop; its exit code, stdout and stderr. */
export function cliAsync(h: TestHome, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const child = h.spawn(args);
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (c: string) => (stdout += c));
  child.stderr!.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr })));
}

/** Queue runs from fan-out lines on one machine; their views. */
export function fanOut(h: TestHome, specs: Record<string, unknown>[]): PublicRun[] {
  const r = h.cli(['run', '--from', '-', '--json'], { input: specs.map((x) => JSON.stringify(x)).join('\n') + '\n' });
  if (r.code !== 0) throw new Error(`run --from exited ${r.code}: ${r.stderr}${r.stdout}`);
  return JSON.parse(r.stdout) as PublicRun[];
}
