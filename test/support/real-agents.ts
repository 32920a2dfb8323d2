// Test support for test/real/: the real agent CLIs (installed by
// `npm run agents:install`), a scripted model server, and an orcr home whose
// runs are pointed at that server with nothing of the user's own agent
// configuration leaking in.

import { afterEach } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { CLI, NODE, TestHome, until, type CliResult, type Truthy } from './harness.js';
import { ModelServer, type ModelServerOptions } from './model-server.js';
import type { PublicRun } from '../../src/protocol/views.js';
// Plain JS, shared with the installer so the pins live in one place.
import { AGENTS, agentBin, cacheDir, isInstalled, type AgentName } from './install-agents.mjs';
import type { Need } from './skip.js';

export type { AgentName };

const installed: Record<AgentName, boolean> = {
  claude: isInstalled('claude'),
  codex: isInstalled('codex'),
  gemini: isInstalled('gemini'),
};

/** Why a real-agent test cannot run here (null: it can); optional, as the live suite is behind its own command. */
export function needAgent(agent: AgentName): Need {
  if (installed[agent]) return { reason: null };
  const a = AGENTS[agent];
  return { reason: `${a.pkg}@${a.version} is not installed (npm run agents:install)`, optional: true };
}

/**
 * A probe of an agent CLI's protocol (what it sends and takes, recorded as
 * the fixtures test/agents reads): run when a pin moves, with ORCR_PROBE=1,
 * not on every live run — the suites through orcr (codex-app, acp) show what
 * orcr does with the same CLI.
 */
export function needProbe(agent: AgentName): Need {
  if (process.env.ORCR_PROBE !== '1') return { reason: `a probe of ${agent}'s protocol: ORCR_PROBE=1 runs it (when its pin moves)`, optional: true };
  return needAgent(agent);
}

/** Say clearly, once per file, why a real-agent suite is skipped. */
export function announce(agent: AgentName): void {
  if (installed[agent]) return;
  const a = AGENTS[agent];
  console.warn(
    `[test/real] SKIPPED: ${a.pkg}@${a.version} is not installed in ${cacheDir()} — run \`npm run agents:install\` to test orcr against the real ${agent} CLI.`,
  );
}

const WALL_CLOCK = fileURLToPath(new URL('./wall-clock.mjs', import.meta.url));

/** Variables that would point an agent at a real account or a real config. */
const LEAKY = /^(ANTHROPIC_|CLAUDE|OPENAI_|CODEX_|GEMINI_|GOOGLE_|VERTEX|AWS_BEARER|XDG_)/;

/** A TestHome whose supervisor (and so every agent) starts from a clean environment. */
export class RealHome extends TestHome {
  /** More for every process of the home: its clients, the supervisor, the agents it starts. */
  extraEnv: Record<string, string> = {};

  override get env(): NodeJS.ProcessEnv {
    const env: NodeJS.ProcessEnv = {};
    for (const [k, v] of Object.entries(process.env)) if (!LEAKY.test(k)) env[k] = v;
    return { ...env, ORCR_HOME: this.dir, NO_COLOR: '1', ...this.extraEnv };
  }
}

/** Gemini CLI's `~/.gemini/settings.json` for the rig; `allowed: []` leaves every tool to be approved (ACP asks the client). */
export function geminiSettings(opts: { allowed?: string[] } = {}): Record<string, unknown> {
  return {
    // GOOGLE_GEMINI_BASE_URL alone selects the "gateway" auth type, which
    // headless mode refuses (exit 41): name the API-key method.
    security: { auth: { selectedType: 'gemini-api-key' } },
    // A fixed model skips the routing classifier's extra model calls.
    model: { name: 'gemini-2.5-flash' },
    // Headless, tools that need approval are not even offered.
    tools: { allowed: opts.allowed ?? ['run_shell_command'] },
    // Fewer silent retries of 429s (each is a stderr line only).
    general: { maxAttempts: 2, disableAutoUpdate: true, disableUpdateNag: true },
    privacy: { usageStatisticsEnabled: false },
  };
}

export interface RigOptions {
  config?: unknown;
  server?: ModelServerOptions;
  /**
   * Every process of the rig (orcr's clients, the supervisor, the agents)
   * reads the wall clock through test/support/wall-clock.mjs, moved by
   * `moveClock`: for what depends on the minute (Gemini's session files).
   */
  movableClock?: boolean;
}

/**
 * One test's world: an orcr home, a model server, a HOME for the agents
 * (their settings written there), and a working directory for the runs.
 */
export class Rig {
  readonly home: RealHome;
  readonly server: ModelServer;
  /** HOME for the agent CLIs. */
  readonly agentHome: string;
  /** The runs' working directory. */
  readonly work: string;
  /** `orcr` clients still running (a timed-out test leaves its `wait` behind). */
  private readonly inflight = new Set<import('node:child_process').ChildProcess>();
  /** The offset file of a movable clock (RigOptions.movableClock). */
  private readonly clockFile: string;

  private constructor(home: RealHome, server: ModelServer, movableClock: boolean) {
    this.home = home;
    this.server = server;
    const base = fs.mkdtempSync(path.join(os.tmpdir(), 'orcr-real-'));
    this.agentHome = path.join(base, 'home');
    this.work = path.join(base, 'work');
    for (const d of [this.agentHome, this.work, path.join(this.agentHome, 'tmp')]) fs.mkdirSync(d, { recursive: true });
    this.clockFile = path.join(base, 'clock');
    if (movableClock) {
      fs.writeFileSync(this.clockFile, '0');
      // NODE_OPTIONS reaches every node process, Gemini's relaunched child too.
      home.extraEnv = { NODE_OPTIONS: `--import=${pathToFileURL(WALL_CLOCK).href}`, ORCR_TEST_WALL_CLOCK_FILE: this.clockFile };
    }
  }

  static async create(opts: RigOptions = {}): Promise<Rig> {
    const server = await new ModelServer(opts.server).start();
    const rig = new Rig(new RealHome(opts.config), server, opts.movableClock === true);
    rig.configureAgents();
    return rig;
  }

  /** Move the wall clock of every process of the rig to `offsetS` seconds from the real one (RigOptions.movableClock). */
  moveClock(offsetS: number): void {
    if (!fs.existsSync(this.clockFile)) throw new Error('this rig has no movable clock (RigOptions.movableClock)');
    fs.writeFileSync(this.clockFile, String(offsetS));
  }

  /** Settings files for each CLI: the model server, permissions, no telemetry. */
  configureAgents(codexProvider: { baseUrl?: string } = {}): void {
    const claude = path.join(this.agentHome, '.claude');
    fs.mkdirSync(claude, { recursive: true });
    // The built-in preset passes no permission flags (root may not use
    // --dangerously-skip-permissions); the user's settings allow the tools.
    fs.writeFileSync(path.join(claude, 'settings.json'), JSON.stringify({ permissions: { allow: ['Bash', 'Read', 'Write', 'Edit'] } }, null, 2));

    const codex = path.join(this.agentHome, '.codex');
    fs.mkdirSync(codex, { recursive: true });
    fs.writeFileSync(
      path.join(codex, 'config.toml'),
      [
        'model = "mock-model"',
        'model_provider = "mock"',
        'approval_policy = "never"',
        'sandbox_mode = "danger-full-access"',
        'check_for_update_on_startup = false',
        '',
        '[analytics]',
        'enabled = false',
        '',
        '[model_providers.mock]',
        'name = "mock"',
        `base_url = "${codexProvider.baseUrl ?? `${this.server.url}/v1`}"`,
        'wire_api = "responses"',
        'env_key = "MOCK_API_KEY"',
        'request_max_retries = 0',
        'stream_max_retries = 0',
        '',
      ].join('\n'),
    );

    const gemini = path.join(this.agentHome, '.gemini');
    fs.mkdirSync(gemini, { recursive: true });
    fs.writeFileSync(path.join(gemini, 'settings.json'), JSON.stringify(geminiSettings(), null, 2));
  }

  /** The environment a run needs: the CLIs on PATH, HOME, the server's address, keys. */
  agentEnv(extra: Record<string, string> = {}): Record<string, string> {
    const binDir = path.dirname(agentBin('claude'));
    return {
      PATH: [binDir, path.dirname(process.execPath), '/usr/local/bin', '/usr/bin', '/bin'].join(':'),
      HOME: this.agentHome,
      // Gemini writes error reports to the temp dir: keep them in the rig.
      TMPDIR: path.join(this.agentHome, 'tmp'),
      ANTHROPIC_BASE_URL: this.server.url,
      ANTHROPIC_API_KEY: 'test',
      DISABLE_AUTOUPDATER: '1',
      GEMINI_API_KEY: 'test',
      GOOGLE_GEMINI_BASE_URL: this.server.url,
      MOCK_API_KEY: 'test',
      ...extra,
    };
  }

  /** `-e K=V` arguments for `orcr run`. */
  envArgs(extra: Record<string, string> = {}, drop: string[] = []): string[] {
    const env = this.agentEnv(extra);
    for (const k of drop) delete env[k];
    return Object.entries(env).flatMap(([k, v]) => ['-e', `${k}=${v}`]);
  }

  /**
   * Run `orcr ARGS` WITHOUT blocking this process: the model server lives in
   * the test's own event loop, so a synchronous CLI call (TestHome.cli) would
   * freeze the very server the agent is waiting on.
   */
  cli(args: string[], input?: string): Promise<CliResult> {
    return new Promise((resolve, reject) => {
      const child = spawn(NODE, [CLI, ...args], { env: this.home.env, stdio: ['pipe', 'pipe', 'pipe'] });
      this.inflight.add(child);
      child.on('close', () => this.inflight.delete(child));
      let stdout = '';
      let stderr = '';
      child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
      child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
      child.on('error', reject);
      child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
      // The CLI may exit (or be killed by cleanup) before it reads its input.
      child.stdin.on('error', () => undefined);
      child.stdin.end(input ?? '');
    });
  }

  /** `orcr ARGS --json`, parsed; throws with the output on an unexpected exit code. */
  async json<T = any>(args: string[], allowCodes: number[] = [0]): Promise<T> {
    const dd = args.indexOf('--');
    const r = await this.cli(dd < 0 ? [...args, '--json'] : [...args.slice(0, dd), '--json', ...args.slice(dd)]);
    if (!allowCodes.includes(r.code)) throw new Error(`orcr ${args.join(' ')} exited ${r.code}: ${r.stderr}${r.stdout}`);
    return JSON.parse(r.stdout) as T;
  }

  /** `orcr run -a PRESET -n NAME -p PROMPT --cwd WORK -e … [ARGS]`, returning the run (PRESET a built-in one: `codex` is Codex's app-server, `codex-exec` its exec stream, `gemini-acp` Gemini CLI over ACP). */
  run(
    agent: Exclude<AgentName, 'codex'> | 'codex' | 'codex-exec' | 'gemini-acp',
    name: string,
    prompt: string,
    args: string[] = [],
    env: Record<string, string> = {},
    drop: string[] = [],
  ): Promise<PublicRun> {
    return this.json<PublicRun>(['run', '-a', agent, '-n', name, '-p', prompt, '--cwd', this.work, ...this.envArgs(env, drop), ...args]);
  }

  show(name: string): Promise<PublicRun> {
    return this.json<PublicRun>(['show', name]);
  }

  /** `orcr wait NAME` → its token (e.g. `completed`, `turn_complete`). */
  async wait(name: string, timeout = '120s'): Promise<{ token: string; code: number }> {
    const r = await this.cli(['wait', name, '--timeout', timeout]);
    return { token: r.stdout.trim().split(/\s+/).pop() ?? '', code: r.code };
  }

  /** Poll `orcr show` until the run satisfies pred. */
  async waitFor(name: string, pred: (r: PublicRun) => boolean, what: string, ms = 60_000): Promise<PublicRun> {
    return until(
      async () => {
        const r = await this.show(name);
        return pred(r) ? r : null;
      },
      `${name}: ${what}`,
      ms,
      200,
    );
  }

  /** Poll fn; on timeout, fail with the run's diagnostics. */
  async until<T>(fn: () => T | Promise<T>, what: string, uuid: string, ms = 60_000): Promise<Truthy<T>> {
    try {
      return await until(fn, what, ms, 100);
    } catch (e) {
      throw new Error(`${(e as Error).message}${this.describe(uuid)}`);
    }
  }

  /** Wait until the run has ended (a plain `wait` also settles on blocked). */
  async ended(name: string, ms = 90_000): Promise<PublicRun> {
    const uuid = (await this.show(name)).uuid;
    return this.until(
      async () => {
        const r = await this.show(name);
        return r.status === 'ended' ? r : null;
      },
      `${name} to end`,
      uuid,
      ms,
    );
  }

  async events(uuid?: string): Promise<{ seq: number; run: string | null; type: string; data: Record<string, any> }[]> {
    const all = await this.json<{ seq: number; run: string | null; type: string; data: Record<string, any> }[]>(['events']);
    return uuid === undefined ? all : all.filter((e) => e.run === uuid);
  }

  /** The agent's own stdout, as JSON objects (non-JSON lines skipped). */
  outLines(uuid: string): any[] {
    const file = path.join(this.home.runDir(uuid), 'out');
    return fs
      .readFileSync(file, 'utf8')
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .flatMap((l) => {
        try {
          return [JSON.parse(l)];
        } catch {
          return [];
        }
      });
  }

  stderr(uuid: string): string {
    try {
      return fs.readFileSync(path.join(this.home.runDir(uuid), 'err'), 'utf8');
    } catch {
      return '';
    }
  }

  /** Processes (pids) whose environment carries ORCR_RUN=uuid: the agent and anything it started. */
  processesOf(uuid: string): number[] {
    const needle = `ORCR_RUN=${uuid}`;
    const out: number[] = [];
    for (const d of fs.readdirSync('/proc')) {
      if (!/^\d+$/.test(d)) continue;
      try {
        const env = fs.readFileSync(`/proc/${d}/environ`, 'latin1');
        if (env.split('\0').includes(needle)) {
          const stat = fs.readFileSync(`/proc/${d}/stat`, 'utf8');
          if (stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z') out.push(Number(d));
        }
      } catch {
        /* gone, or not ours to read */
      }
    }
    return out;
  }

  /** A diagnostic for failed assertions: the run's events and output, the server's requests. */
  describe(uuid: string): string {
    let events = '';
    try {
      // Synchronous on purpose (failure path only): the journal's view of the run.
      const r = this.home.cli(['events', '--json']);
      events = (JSON.parse(r.stdout) as { run: string | null; type: string; data: unknown }[])
        .filter((e) => e.run === uuid)
        .map((e) => `${e.type} ${JSON.stringify(e.data)}`)
        .join('\n');
    } catch {
      /* no supervisor */
    }
    let out = '';
    try {
      out = fs.readFileSync(path.join(this.home.runDir(uuid), 'out'), 'utf8').slice(-4000);
    } catch {
      /* none */
    }
    const reqs = this.server.requests.map((r) => `${r.seq} ${r.api} ${r.method} ${r.path} main=${r.main} step=${r.step?.kind ?? '-'}`).join('\n');
    return `\n--- events\n${events}\n--- out (tail)\n${out}\n--- err (tail)\n${this.stderr(uuid).slice(-2000)}\n--- requests\n${reqs}`;
  }

  async cleanup(): Promise<void> {
    // Kill stragglers by run (never by name): everything carrying one of our run ids.
    const runs = path.join(this.home.dir, 'runs');
    const uuids = fs.existsSync(runs) ? fs.readdirSync(runs) : [];
    // A client left running would auto-start a new supervisor once this one stops.
    for (const child of this.inflight) child.kill('SIGKILL');
    this.inflight.clear();
    await this.cli(['server', 'stop']);
    this.home.cleanup();
    for (const u of uuids)
      for (const pid of this.processesOf(u)) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          /* gone */
        }
      }
    await this.server.stop();
    fs.rmSync(path.dirname(this.agentHome), { recursive: true, force: true });
  }
}

/** A factory of rigs, each cleaned up after its test. */
export function useRigs(): (opts?: RigOptions) => Promise<Rig> {
  let rigs: Rig[] = [];
  afterEach(async () => {
    for (const r of rigs) await r.cleanup();
    rigs = [];
  });
  return async (opts: RigOptions = {}) => {
    const r = await Rig.create(opts);
    rigs.push(r);
    return r;
  };
}
