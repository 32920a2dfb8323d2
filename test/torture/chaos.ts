// The chaos driver: a steady stream of short and long agents across providers
// and workloads under tight caps — some that stop on a usage limit and are
// continued, some that fail for a passing reason and are retried, some that
// wait for another run of their burst (`after`) — kills from the user, and
// SIGKILLs of the supervisor at random moments (including right inside bursts
// of enqueues and promotions). Then it checks that nothing was lost, started
// more often than its attempts, or oversubscribed, against an independent
// /proc monitor.

import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { createRng } from '../../src/agents/mock/rng.js';
import { Client } from '../../src/client/client.js';
import { homePaths } from '../../src/config/home.js';
import { RemoteError } from '../../src/protocol/errors.js';
import type { PublicRun } from '../../src/protocol/views.js';
import { CLI, NODE, TestHome, alive, script, until } from '../support/harness.js';

const CHAOS_CONFIG = {
  concurrency: {
    max: 6,
    providers: { alpha: 2, beta: 2, gamma: 3, delta: 2 },
    workloads: { bulk: { max: 3, priority: 0 }, urgent: { reserved: 1, priority: 5 } },
  },
  timings: { kill_grace: '300ms' },
  // delta's runs stop on limits that reset in a second, over and over: paced
  // at the default 5 s, its every start would wait for the last one's, and
  // the fleet would take minutes to drain. Paced still, but briefly.
  providers: { delta: { resume_pace: '150ms' } },
};
const PROVIDERS = ['alpha', 'beta', 'gamma'];
/** What a run does: its agent speaks jsonl and exits with its code, or speaks Claude Code's stream-json and its first attempt stops on a usage limit (continued) or an overloaded API (retried). */
type Kind = 'plain' | 'limit' | 'overloaded';
/** Within chaos.test.ts's allowance past the churn (240 s), so a stuck drain fails with a reason. */
const DRAIN_TIMEOUT_MS = 200_000;
const WORKLOADS = ['default', 'bulk', 'urgent'];

export interface ChaosResult {
  seconds: number;
  enqueued: number;
  uncertain: number;
  crashes: number;
  userKills: number;
  reasons: Record<string, number>;
  maxObserved: Record<string, number>;
  limits: Record<string, number>;
  monitorSamples: number;
  events: number;
  walBytes: number;
  problems: string[];
}

/** A small seeded PRNG (the mock agent's mulberry32), so a failing run can be replayed with its seed. */
const rng = (seed: number): (() => number) => createRng(seed).next;

interface Planned {
  name: string;
  provider: string;
  workload: string;
  code: number;
  kind: Kind;
  /** The run of the same burst it waits for (`after`), if any. */
  after: string | null;
  uuid: string | null;
  userKilled: boolean;
  /** How long a plain run works, in seconds (its agent's argument). */
  secs: string;
}

export async function runChaos(opts: { seconds: number; seed?: number; minConfirmed?: number; log?: (s: string) => void }): Promise<ChaosResult> {
  const seed = opts.seed ?? Date.now() % 1_000_000;
  const rand = rng(seed);
  const log = opts.log ?? (() => undefined);
  log(`chaos seed ${seed}`);
  const h = new TestHome(CHAOS_CONFIG);
  const home = homePaths(h.dir);
  // The agent: marks its start, speaks jsonl, works a while, exits with the asked code.
  const agent = script(
    h,
    'chaos-agent.sh',
    `#!/bin/sh
# args: PROVIDER WORKLOAD SECONDS CODE
echo "$ORCR_RUN" >> "${h.dir}/starts"
echo '{"type":"ready"}'
echo '{"type":"turn_start"}'
echo '{"type":"usage","input_tokens":5,"output_tokens":1}'
sleep "$3"
echo '{"type":"turn_end"}'
exit "$4"
`,
  );
  // Claude Code's stand-in (agent-formats: stream-json): a first attempt stops on its KIND (a usage limit that
  // resets in a second, or an overloaded API); `--resume ID` finishes the work on the same session.
  const claude = script(
    h,
    'chaos-claude.sh',
    `#!/bin/sh
# args: KIND (first attempt) or --resume ID KIND (the next)
echo "$ORCR_RUN" >> "${h.dir}/starts"
read -r line
s="s-$ORCR_RUN"
echo '{"type":"system","subtype":"init","session_id":"'"$s"'"}'
echo '{"type":"assistant","message":{"id":"m1","content":[{"type":"text","text":"working"}],"usage":{"input_tokens":5,"output_tokens":1}},"session_id":"'"$s"'"}'
sleep 0.05
# resumed: claude --resume ID KIND (the session right after the program)
if [ "$1" != "--resume" ]; then
  if [ "$1" = limit ]; then echo '{"type":"result","subtype":"success","is_error":true,"api_error_status":429,"result":"You have hit your limit, resets in 1s","session_id":"'"$s"'"}'; exit 1; fi
  echo '{"type":"result","subtype":"success","is_error":true,"api_error_status":529,"result":"API Error: 529 Overloaded","session_id":"'"$s"'"}'; exit 1
fi
echo '{"type":"result","subtype":"success","is_error":false,"result":"done","session_id":"'"$s"'"}'
`,
  );
  const monitorOut = path.join(h.dir, 'monitor.json');
  const monitor = spawn(NODE, [path.join(path.dirname(new URL(import.meta.url).pathname), 'monitor.mjs'), agent, monitorOut, claude], { stdio: 'ignore' });
  const planned: Planned[] = [];
  const result: ChaosResult = {
    seconds: opts.seconds,
    enqueued: 0,
    uncertain: 0,
    crashes: 0,
    userKills: 0,
    reasons: {},
    maxObserved: {},
    limits: {},
    monitorSamples: 0,
    events: 0,
    walBytes: 0,
    problems: [],
  };
  let client: Client | null = null;
  const connect = async (): Promise<Client> => {
    if (client) return client;
    const c = await Client.connect(home, { timeoutMs: 20_000 });
    c.onClose(() => {
      if (client === c) client = null;
    });
    client = c;
    return c;
  };
  let counter = 0;
  const deadline = Date.now() + opts.seconds * 1000;
  // On a loaded machine each restart takes seconds, and a run of fixed length
  // could end having tried only a handful of runs and no crash: go on past the
  // deadline until the churn has been real (bounded at three times as long).
  const minConfirmed = opts.minConfirmed ?? 0;
  const hardDeadline = Date.now() + opts.seconds * 3000;
  const churnDone = (): boolean => planned.filter((p) => p.uuid !== null).length >= minConfirmed && result.crashes > 0;
  let nextCrash = Date.now() + 300 + rand() * 1200;
  try {
    while (Date.now() < deadline || (!churnDone() && Date.now() < hardDeadline)) {
      const c = await connect();
      // Keep the queue at a depth the fleet can drain (a long run would
      // otherwise pile up thousands of waiters and spend its end draining them).
      const depth = await c.call('stats').then(
        (st) => st.queued,
        () => 0,
      );
      if (depth > 60) {
        await new Promise((r) => setTimeout(r, 100));
        continue;
      }
      // A burst of 1–6 runs, one transaction.
      const burst: Planned[] = [];
      const n = 1 + Math.floor(rand() * 6);
      for (let i = 0; i < n; i++) {
        const long = rand() < 0.25;
        const k = rand();
        const kind: Kind = k < 0.12 ? 'limit' : k < 0.24 ? 'overloaded' : 'plain';
        burst.push({
          name: `r${++counter}`,
          provider: kind === 'plain' ? PROVIDERS[Math.floor(rand() * PROVIDERS.length)]! : 'delta',
          workload: WORKLOADS[Math.floor(rand() * WORKLOADS.length)]!,
          code: kind === 'plain' && rand() < 0.2 ? 3 : 0,
          kind,
          // Now and then a run waits for an earlier one of its burst (a chain, or a fan-in on the first).
          after: i > 0 && rand() < 0.3 ? burst[Math.floor(rand() * i)]!.name : null,
          uuid: null,
          userKilled: false,
          secs: long ? (0.6 + rand() * 1.2).toFixed(2) : (0.02 + rand() * 0.2).toFixed(2),
        });
      }
      planned.push(...burst);
      const crashNow = Date.now() >= nextCrash;
      const pid = c.server?.pid ?? null;
      const enqueue = c
        .call('run.enqueue', {
          specs: burst.map((p) => ({
            name: p.name,
            provider: p.provider,
            workload: p.workload === 'default' ? undefined : p.workload,
            cwd: h.dir,
            ...(p.after !== null ? { after: [p.after] } : {}),
            ...(p.kind === 'plain'
              ? { protocol: 'jsonl', command: [agent, p.provider, p.workload, p.secs, String(p.code)] }
              : {
                  protocol: 'claude',
                  command: [claude, p.kind],
                  prompt: 'go',
                  env: { ORCR_CHAOS: `${p.provider} ${p.workload}` },
                  ...(p.kind === 'overloaded' ? { retries: 1 } : {}),
                }),
          })),
        })
        .then((res) => {
          for (const r of res.runs) burst.find((p) => p.name === r.name)!.uuid = r.uuid;
        })
        .catch((e: unknown) => {
          if (!(e instanceof RemoteError && e.code === 'unavailable')) throw e;
        });
      if (crashNow && pid !== null) {
        // Kill it while it is busy: right after the enqueue was sent, mid-transaction or mid-spawn.
        await new Promise((r) => setTimeout(r, rand() * 3));
        try {
          process.kill(pid, 'SIGKILL');
          result.crashes++;
        } catch {
          /* already gone */
        }
        await until(() => !alive(pid), 'the supervisor to die', 10_000, 5);
        nextCrash = Date.now() + 300 + rand() * 1500;
      }
      await enqueue;
      // Now and then the user kills a random run (queued or live).
      if (rand() < 0.15) {
        const known = planned.filter((p) => p.uuid && !p.userKilled);
        const target = known[Math.floor(rand() * known.length)];
        if (target) {
          try {
            const c2 = await connect();
            await c2.call('run.kill', { refs: [target.uuid!] });
            target.userKilled = true;
            result.userKills++;
          } catch (e) {
            if (!(e instanceof RemoteError && e.code === 'unavailable')) throw e;
          }
        }
      }
      await new Promise((r) => setTimeout(r, 20 + rand() * 120));
    }

    result.seconds = Math.round((Date.now() - (deadline - opts.seconds * 1000)) / 1000);
    // Let the fleet drain under a live supervisor, then read everything back.
    // Each try blocks in run.wait until every run has settled (or 2 minutes).
    await until(
      async () => {
        const c = await connect();
        await c.call('run.wait', { all: true, timeout_ms: 120_000 });
        const st = await c.call('stats');
        return st.active === 0 && st.queued === 0;
      },
      'the fleet to drain',
      DRAIN_TIMEOUT_MS,
    ).catch((e: unknown) => {
      // Name what did not drain, with its WHY, so a stuck run reads as one.
      const stuck = cliOut(h, ['ps']).trim().split('\n').slice(0, 40).join('\n');
      if (process.env.ORCR_TORTURE_DEBUG) fs.cpSync(h.dir, '/tmp/chaos-home', { recursive: true });
      throw new Error(`${e instanceof Error ? e.message : String(e)}; not ended (orcr ps):\n${stuck}`);
    });
    monitor.kill('SIGTERM');
    await new Promise((r) => monitor.once('exit', r));
    const mon = JSON.parse(fs.readFileSync(monitorOut, 'utf8')) as { max: Record<string, number>; samples: number; worst: unknown };
    if (process.env.ORCR_TORTURE_DEBUG) {
      fs.writeFileSync('/tmp/chaos-worst.json', JSON.stringify(mon.worst, null, 2));
      fs.copyFileSync(home.db, '/tmp/chaos.db');
    }
    result.maxObserved = mon.max;
    result.monitorSamples = mon.samples;
    result.limits = {
      global: CHAOS_CONFIG.concurrency.max,
      ...Object.fromEntries(Object.entries(CHAOS_CONFIG.concurrency.providers).map(([k, v]) => [`provider:${k}`, v])),
      'workload:bulk': CHAOS_CONFIG.concurrency.workloads.bulk.max,
    };
    for (const [cap, limit] of Object.entries(result.limits)) {
      if ((mon.max[cap] ?? 0) > limit) result.problems.push(`${cap}: ${mon.max[cap]} live agents seen, limit ${limit}`);
    }

    const runs = JSON.parse(cliOut(h, ['ps', '--all', '--json'])) as PublicRun[];
    const byName = new Map(runs.map((r) => [r.name, r]));
    const starts = fs.existsSync(path.join(h.dir, 'starts')) ? fs.readFileSync(path.join(h.dir, 'starts'), 'utf8').trim().split('\n').filter(Boolean) : [];
    const startCount = new Map<string, number>();
    for (const u of starts) startCount.set(u, (startCount.get(u) ?? 0) + 1);
    const byUuid = new Map(runs.map((r) => [r.uuid, r]));
    for (const [u, n] of startCount) {
      const attempts = (byUuid.get(u)?.attempts ?? []).length + 1;
      if (n > attempts) result.problems.push(`run ${u} started ${n} times in ${attempts} attempts`);
    }
    for (const p of planned) {
      const r = byName.get(p.name);
      if (!r) {
        if (p.uuid) result.problems.push(`${p.name} (${p.uuid}) was confirmed queued but is missing`);
        else result.uncertain++;
        continue;
      }
      result.enqueued++;
      if (p.uuid && p.uuid !== r.uuid) result.problems.push(`${p.name}: uuid changed`);
      // Not ended: counted (and reported below) as "null".
      const reason = String(r.exit_reason);
      result.reasons[reason] = (result.reasons[reason] ?? 0) + 1;
      if (p.kind !== 'plain') result.reasons[`${p.kind} → ${reason}`] = (result.reasons[`${p.kind} → ${reason}`] ?? 0) + 1;
      if (p.after !== null) result.reasons[`after → ${reason}`] = (result.reasons[`after → ${reason}`] ?? 0) + 1;
      if (r.status !== 'ended') result.problems.push(`${p.name} is ${r.status}, not ended`);
      const started = startCount.get(r.uuid) ?? 0;
      // A continued or retried run starts once per attempt: its first, then the one that resumes its session.
      const attempts = (r.attempts ?? []).length;
      const input = p.after !== null ? byName.get(p.after) : undefined;
      // An input that ended other than completed cancels what waits for it, before it ever starts.
      const inputFailed = input !== undefined && input.exit_reason !== 'completed';
      const expected = inputFailed ? 'canceled' : p.code === 0 ? 'completed' : 'errored';
      if (p.userKilled || (inputFailed && input.exit_reason === 'canceled')) {
        const ok = ['canceled', 'killed', expected].includes(reason);
        if (!ok) result.problems.push(`${p.name}: user-killed (or its input) but ended ${reason}`);
        if (started > attempts + 1) result.problems.push(`${p.name}: started ${started} times in ${attempts + 1} attempts`);
      } else {
        if (reason !== expected)
          result.problems.push(
            `${p.name}: ended ${reason} (${r.exit_detail ?? 'no detail'}, code ${r.exit_code}), expected ${expected}${p.kind !== 'plain' ? ` (${p.kind} first)` : ''}${input ? ` (after ${input.name}: ${input.exit_reason})` : ''}`,
          );
        else if (!inputFailed && r.exit_code !== p.code) result.problems.push(`${p.name}: exit code ${r.exit_code}, expected ${p.code}`);
        const want = inputFailed ? 0 : p.kind === 'plain' ? 1 : 2;
        if (started !== want || (!inputFailed && attempts !== want - 1))
          result.problems.push(
            `${p.name}: started ${started} times in ${attempts + 1} attempts, expected ${want}${p.kind !== 'plain' ? ` (${p.kind} first)` : ''}`,
          );
      }
    }
    const events = JSON.parse(cliOut(h, ['events', '--json'])) as { seq: number }[];
    result.events = events.length;
    events.forEach((e, i) => {
      if (e.seq !== i + 1) result.problems.push(`event seq ${e.seq} at position ${i + 1}: a gap or a duplicate`);
    });
    try {
      result.walBytes = fs.statSync(`${home.db}-wal`).size;
    } catch {
      result.walBytes = 0;
    }
    // Nothing may be left running: no agent, no wrapper.
    await until(() => leftovers(h.dir).length === 0, 'no process left', 10_000).catch(() => {
      result.problems.push(`processes left running: ${leftovers(h.dir).join('; ')}`);
    });
    return result;
  } finally {
    (client as Client | null)?.close(); // assigned in connect(), which TypeScript does not follow
    monitor.kill('SIGKILL');
    h.cleanup();
  }
}

function cliOut(h: TestHome, args: string[]): string {
  const r = spawnSync(NODE, [CLI, ...args], { env: h.env, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  if (r.status !== 0) throw new Error(`orcr ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

/** Processes whose argv mentions the home: agents, wrappers (the supervisor is excluded: it is stopped last). */
function leftovers(dir: string): string[] {
  const out: string[] = [];
  for (const pid of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(pid) || Number(pid) === process.pid) continue;
    try {
      const argv = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      if (stat.slice(stat.lastIndexOf(')') + 2)[0] === 'Z') continue;
      if (argv.some((a) => a.includes(dir)) && !argv.includes('serve')) out.push(`${pid}: ${argv.join(' ').slice(0, 120)}`);
    } catch {
      /* gone */
    }
  }
  return out;
}

export function summaryTable(r: ChaosResult): string {
  const rows: [string, string][] = [
    ['duration', `${r.seconds}s`],
    ['runs enqueued (confirmed or found)', String(r.enqueued)],
    ['enqueues lost with the crash (never committed)', String(r.uncertain)],
    ['supervisor crashes survived (SIGKILL)', String(r.crashes)],
    ['user kills', String(r.userKills)],
    [
      'exit reasons',
      Object.entries(r.reasons)
        .map(([k, v]) => `${k} ${v}`)
        .join(', '),
    ],
    ['events journaled (seq contiguous)', String(r.events)],
    ['WAL size at end', `${(r.walBytes / 1024).toFixed(0)} KiB`],
    ['/proc monitor samples', String(r.monitorSamples)],
    ...Object.entries(r.limits).map(([cap, limit]): [string, string] => [`max live ${cap}`, `${r.maxObserved[cap] ?? 0} / ${limit}`]),
    ['problems', r.problems.length === 0 ? 'none' : String(r.problems.length)],
  ];
  const w = Math.max(...rows.map(([k]) => k.length));
  return rows.map(([k, v]) => `${k.padEnd(w)}  ${v}`).join('\n');
}
