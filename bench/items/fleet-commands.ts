// F. Commands across machines (issue 43): two supervisors (two homes) in one
// cluster of a throw-away PostgreSQL server. A run works on machine m2; from
// m1, `run.kill` of `m2:NAME` (what `orcr kill m2:NAME` sends) travels as an
// orcr_command row to m2's supervisor, which signals the agent. Figures: from
// sending the call on m1 to the agent's own record of its SIGTERM (a perl
// agent writes the time it got the signal), and to the call's answer on m1 —
// directly (NOTIFY wakes m2) and through PgBouncer in transaction mode
// (notifications dropped: m2 finds the command by its 250 ms poll).

import fs from 'node:fs';
import path from 'node:path';
import { fig, median, pct, type ItemResult } from '../lib/figures.js';
import type { Ctx, Item } from '../lib/context.js';
import { connect, makeHome, startSupervisor, type Home, type Supervisor } from '../lib/orcr.js';
import { PgServer, pgSource, pgUnavailable } from '../lib/pg-server.js';
import { PgBouncer, pgBouncerUnavailable } from '../lib/pgbouncer.js';
import { sleep } from '../lib/proc.js';

const I = 'F';

/** An agent that writes the wall-clock ms at which it got SIGTERM to FILE, then exits. */
const AGENT = `$SIG{TERM} = sub { open(my $f, '>', "$ARGV[0].tmp"); printf $f "%.3f", Time::HiRes::time() * 1000; close $f; rename("$ARGV[0].tmp", $ARGV[0]); exit 0 }; select(undef, undef, undef, 0.05) while 1;`;

interface Machine {
  home: Home;
  sup: Supervisor;
}

async function pair(url: string, name: string): Promise<Machine[]> {
  const out: Machine[] = [];
  for (const host of ['m1', 'm2']) {
    const home = makeHome({ concurrency: { max: 8 }, timings: { kill_grace: '5s' }, cluster: { url, name, host, lease_ttl: '30s' } }, 'orcr-bench-commands-');
    out.push({ home, sup: await startSupervisor(home.dir) });
  }
  return out;
}

const wallNow = (): number => performance.timeOrigin + performance.now();

async function untilValue<T>(fn: () => T | null | Promise<T | null>, what: string, timeoutMs = 30_000): Promise<T> {
  const end = performance.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v !== null) return v;
    if (performance.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(2);
  }
}

/** n remote kills, one at a time: ms from the call to the agent's SIGTERM, and to the call's answer. */
async function remoteKills(ctx: Ctx, url: string, name: string, n: number): Promise<{ signalled: number[]; answered: number[] }> {
  const [a, b] = await pair(url, name);
  const signalled: number[] = [];
  const answered: number[] = [];
  try {
    const ca = await connect(a!.home.dir);
    const cb = await connect(b!.home.dir);
    // The first command also finds m2 in m1's list of machines; measured from the second on.
    for (let i = -1; i < n; i++) {
      const mark = path.join(b!.home.dir, `sig-${i + 1}`);
      const runName = `k${i + 1}`;
      await cb.call('run.enqueue', { specs: [{ name: runName, cwd: '/', command: ['perl', '-MTime::HiRes', '-e', AGENT, mark] }] });
      await untilValue(async () => {
        const r = (await cb.call('run.get', { ref: runName })) as { run: { status: string; pid: number | null } };
        return r.run.status === 'working' && r.run.pid !== null ? true : null;
      }, `${runName} working on m2`);
      // Its process has set its handler: perl reads the script before the first loop.
      await sleep(30);
      const t0 = wallNow();
      await ca.call('run.kill', { refs: [`m2:${runName}`] });
      const replied = wallNow();
      const at = await untilValue(() => (fs.existsSync(mark) ? Number(fs.readFileSync(mark, 'utf8')) : null), `${runName}'s SIGTERM`);
      if (i >= 0) {
        signalled.push(at - t0);
        answered.push(replied - t0);
      }
    }
    ca.close();
    cb.close();
    ctx.log(
      `  ${name}: remote kill → SIGTERM p50 ${median(signalled).toFixed(1)} ms, p99 ${pct(signalled, 99).toFixed(1)} ms; answered p50 ${median(answered).toFixed(1)} ms`,
    );
  } finally {
    for (const m of [a!, b!]) {
      await m.sup.stop();
      m.home.remove();
    }
  }
  return { signalled, answered };
}

async function run(ctx: Ctx): Promise<ItemResult> {
  const why = pgUnavailable();
  if (why) return { figures: [], skipped: [{ item: I, name: 'commands across machines', reason: why }] };
  const server = await PgServer.start();
  ctx.log(`  on ${pgSource()?.label ?? 'PostgreSQL'}`);
  const whyPooler = pgBouncerUnavailable();
  const bouncer = whyPooler ? null : await PgBouncer.start(server);
  try {
    const n = ctx.quick ? 20 : 100;
    const direct = await remoteKills(ctx, server.url, 'direct', n);
    const pooled = bouncer ? await remoteKills(ctx, bouncer.url, 'pooled', n) : null;
    const figures = [
      fig(I, 'remote kill (kill m2:RUN from m1) → agent got SIGTERM (median)', 'ms', [median(direct.signalled)], {
        target: '< 100 ms',
        meets: (m) => m < 100,
        ceiling: 1000,
      }),
      fig(I, '  same, p99', 'ms', [pct(direct.signalled, 99)], { target: '< 500 ms', meets: (m) => m < 500, ceiling: 5000 }),
      fig(I, '  the call answered on m1 (median)', 'ms', [median(direct.answered)]),
    ];
    if (pooled) {
      figures.push(
        fig(I, 'through PgBouncer (transaction mode): remote kill → SIGTERM (median)', 'ms', [median(pooled.signalled)], {
          target: '< 500 ms',
          meets: (m) => m < 500,
          ceiling: 5000,
          note: 'notifications do not pass the pooler: found by the 250 ms poll',
        }),
        fig(I, '  same, p99', 'ms', [pct(pooled.signalled, 99)], { target: '< 1000 ms', meets: (m) => m < 1000 }),
      );
    }
    return { figures, skipped: whyPooler ? [{ item: I, name: 'commands through PgBouncer', reason: whyPooler }] : [] };
  } finally {
    await bouncer?.stop();
    await server.destroy();
  }
}

export const fleetCommands: Item = { key: 'commands', item: I, title: 'commands across machines (PostgreSQL)', run };
