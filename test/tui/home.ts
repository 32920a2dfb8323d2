// A throw-away ORCR_HOME (mode 0700) driven through the real `orcr` CLI, and
// a poll-until helper (no fixed sleeps). cleanup() stops the supervisor and
// kills every process group a run left behind.

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { PublicRun } from '../../src/server/view.js';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const CLI = path.join(ROOT, 'dist/src/cli/main.js');
export const TUI = path.join(ROOT, 'dist/src/tui/main.js');
export const MOCK_AGENT = path.join(ROOT, 'dist/src/agents/mock-agent.js');

export class Home {
  readonly dir: string;

  constructor(config?: unknown) {
    this.dir = fs.mkdtempSync(path.join(os.tmpdir(), 'orcr-tui-'));
    fs.chmodSync(this.dir, 0o700);
    if (config !== undefined) fs.writeFileSync(path.join(this.dir, 'config.json'), JSON.stringify(config));
  }

  get env(): NodeJS.ProcessEnv {
    const env: NodeJS.ProcessEnv = { ...process.env, ORCR_HOME: this.dir, NO_COLOR: '1' };
    delete env.CI;
    return env;
  }

  cli(args: string[]): { code: number; stdout: string; stderr: string } {
    const r = spawnSync(process.execPath, [CLI, ...args], { env: this.env, encoding: 'utf8', timeout: 60_000 });
    return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
  }

  /** `orcr run … --json` → the run. */
  run(args: string[]): PublicRun {
    const dd = args.indexOf('--');
    const withJson = dd < 0 ? [...args, '--json'] : [...args.slice(0, dd), '--json', ...args.slice(dd)];
    const r = this.cli(['run', ...withJson]);
    if (r.code !== 0) throw new Error(`orcr run ${args.join(' ')} exited ${r.code}: ${r.stderr}${r.stdout}`);
    const out = JSON.parse(r.stdout) as PublicRun | { run: PublicRun } | { runs: PublicRun[] };
    if ('uuid' in out) return out;
    if ('run' in out) return out.run;
    return out.runs[0]!;
  }

  ps(): PublicRun[] {
    const r = this.cli(['ps', '--all', '--json']);
    if (r.code !== 0) throw new Error(`orcr ps exited ${r.code}: ${r.stderr}`);
    const out = JSON.parse(r.stdout) as PublicRun[] | { runs: PublicRun[] };
    return Array.isArray(out) ? out : out.runs;
  }

  cleanup(): void {
    try {
      const active = this.ps().filter((r) => r.status !== 'ended').map((r) => r.uuid);
      if (active.length > 0) this.cli(['kill', '--force', ...active]);
    } catch {
      /* no supervisor: the pid files below still find the groups */
    }
    this.cli(['server', 'stop']);
    const runs = path.join(this.dir, 'runs');
    if (fs.existsSync(runs)) {
      for (const d of fs.readdirSync(runs)) {
        try {
          const pid = Number(fs.readFileSync(path.join(runs, d, 'pid'), 'utf8'));
          if (pid > 0) process.kill(-pid, 'SIGKILL');
        } catch {
          /* gone */
        }
      }
    }
    fs.rmSync(this.dir, { recursive: true, force: true });
  }
}

export async function waitFor<T>(fn: () => T | Promise<T>, what: string, timeoutMs = 30_000, everyMs = 50): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v) return v as NonNullable<T>;
    } catch (e) {
      last = e;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ''}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
