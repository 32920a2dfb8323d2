// The verbs' --cluster forms: every machine's runs as each published them
// into the cluster's database, read by this machine's supervisor
// (cluster.runs, cluster.run). Outside a cluster the supervisor refuses
// (usage, exit 2) and says why.

import { RUN_STATUSES, isRunStatus } from '../core/types.js';
import { OrcrError } from '../sdk/errors.js';
import type { ClusterRun } from '../protocol/views.js';
import {
  fleetChange,
  fleetChangeLine,
  fleetCounts,
  fleetCountsText,
  fleetRequests,
  fleetRequestsText,
  fleetRunText,
  fleetSpend,
  fleetSpendText,
  fleetTable,
} from './fleet-format.js';
import { showRun } from './format.js';
import type { Shell } from './shell.js';
import { UsageError } from './usage-error.js';

/** `ps --cluster [--host HOST] [--all] [--status S] [-a PROVIDER]`. */
export async function psCluster(verb: string, values: Record<string, unknown>, sh: Shell): Promise<number> {
  if (values.tree) throw new UsageError("--tree lists this machine's runs; --cluster lists every machine's (a run's children are on its own machine)", verb);
  const status = values.status as string | undefined;
  if (status && !isRunStatus(status)) throw new UsageError(`--status must be one of ${RUN_STATUSES.join(', ')}`, verb);
  const host = values.host as string | undefined;
  if (host !== undefined && host.trim() === '') throw new UsageError('--host names a machine of the cluster, not an empty word', verb);
  const v = await sh.withSdk((o) =>
    o.cluster.runs({
      all: values.all === true,
      ...(status && isRunStatus(status) ? { status } : {}),
      ...(values.provider !== undefined ? { provider: values.provider as string } : {}),
      ...(host !== undefined ? { host } : {}),
    }),
  );
  // As `show zz:fix` and `queue pause --host zz` say it: a machine the cluster does not have is not found (exit 6).
  if (host !== undefined && !v.machines.some((m) => m.host === host) && v.runs.length === 0 && v.stale_since === null)
    throw new OrcrError(
      'not_found',
      `no machine ${JSON.stringify(host)} in cluster ${JSON.stringify(v.cluster)} (${v.machines.map((m) => m.host).join(', ') || 'none'})`,
    );
  if (sh.json) sh.printJson(v);
  else sh.out(fleetTable(v));
  return 0;
}

/**
 * `show REF`: a local run as ever; `HOST:RUN` of another machine (or a bare
 * name this machine has not and one other has) from the fleet view. A
 * supervisor in no cluster answers every ref itself.
 */
export async function showAnywhere(verb: string, ref: string, values: Record<string, unknown>, sh: Shell): Promise<number> {
  const local = async (): Promise<number> => {
    const { env, ...run } = await sh.withSdk((o) => o.show(ref, { env: values.env === true }));
    if (sh.json) sh.printJson(env ? { ...run, env } : run);
    else sh.out(showRun(run, Date.now(), env));
    return 0;
  };
  // A plain ref is this machine's first; a HOST: ref (or --cluster) is the fleet's first.
  if (!ref.includes(':') && values.cluster !== true) {
    try {
      return await local();
    } catch (e) {
      if (!(e instanceof OrcrError && e.code === 'not_found')) throw e;
      const found = await fleetRun(ref, sh);
      if (found === null) throw e;
      return found;
    }
  }
  try {
    const r = await sh.withSdk((o) => o.cluster.run(ref));
    if (r.run.local) return await local();
    if (values.env === true) throw new UsageError("--env shows a run's variables on its own machine only: they stay there", verb);
    if (sh.json) sh.printJson(r);
    else sh.out(fleetRunText(r));
    return 0;
  } catch (e) {
    // Not in a cluster: the ref is this machine's (run names may hold a colon).
    if (e instanceof OrcrError && e.code === 'usage' && values.cluster !== true) return local();
    throw e;
  }
}

/** Another machine's run by a bare ref, or null (then the local not_found stands). */
async function fleetRun(ref: string, sh: Shell): Promise<number | null> {
  try {
    const r = await sh.withSdk((o) => o.cluster.run(ref));
    if (r.run.local) return null;
    if (sh.json) sh.printJson(r);
    else sh.out(fleetRunText(r));
    return 0;
  } catch (e) {
    // Ambiguous across machines is an answer: refused, naming each.
    if (e instanceof OrcrError && e.code === 'ambiguous') throw e;
    return null;
  }
}

/** `approvals --cluster`: every machine's pending requests, ids as HOST:ID. */
export async function approvalsCluster(verb: string, values: Record<string, unknown>, positionals: string[], sh: Shell): Promise<number> {
  if (positionals.length > 0 || values.all === true)
    throw new UsageError("approvals --cluster lists the fleet's pending requests; a run's or one request's: orcr approvals RUN|ID on its machine", verb);
  const v = await sh.withSdk((o) => o.cluster.runs({}));
  if (sh.json) sh.printJson({ approvals: fleetRequests(v), as_of: v.as_of, stale_since: v.stale_since });
  else sh.out(fleetRequestsText(v));
  return 0;
}

/** `stats --cluster` and `spend --cluster`. */
export async function fleetTotals(verb: 'stats' | 'spend', sh: Shell): Promise<number> {
  const v = await sh.withSdk((o) => o.cluster.runs({ all: verb === 'spend' }));
  const fresh = { as_of: v.as_of, stale_since: v.stale_since, machines: v.machines };
  if (verb === 'spend') {
    if (sh.json) sh.printJson({ ...fleetSpend(v), ...fresh });
    else sh.out(fleetSpendText(v));
  } else if (sh.json) sh.printJson({ machines: fleetCounts(v), as_of: v.as_of, stale_since: v.stale_since });
  else sh.out(fleetCountsText(v));
  return 0;
}

/** How often `events --cluster --follow` asks its supervisor for the fleet (it reads the database each time). */
const FOLLOW_MS = 250;

function printChange(sh: Shell, r: ClusterRun, from: string | null): void {
  sh.out(sh.json ? JSON.stringify(fleetChange(r, from)) : fleetChangeLine(r, from));
}

/**
 * `events --cluster [--follow]`: the fleet's status changes. Each run's last
 * change as published (oldest first); with --follow, then each change from
 * now on, seen by asking every 250 ms (a change and back within that is not seen).
 */
export async function eventsCluster(verb: string, values: Record<string, unknown>, sh: Shell): Promise<number> {
  if (values.since !== undefined) throw new UsageError("--since is a seq of this machine's journal; events --cluster has none (use --follow)", verb);
  const orcr = await sh.sdk({ now: true });
  try {
    const last = new Map<string, string>();
    const first = await orcr.cluster.runs({ all: true });
    const runs = [...first.runs].sort((a, b) => a.status_at.localeCompare(b.status_at));
    for (const r of first.runs) last.set(r.uuid, r.status);
    if (!values.follow) {
      if (sh.json) sh.printJson(runs.map((r) => fleetChange(r, null)));
      else for (const r of runs) printChange(sh, r, null);
      return 0;
    }
    for (const r of runs) printChange(sh, r, null);
    let staleSaid = false;
    for (;;) {
      await new Promise((r) => setTimeout(r, FOLLOW_MS));
      const v = await orcr.cluster.runs({ all: true });
      if (v.stale_since && !staleSaid) sh.say(`the cluster database does not answer (${v.error ?? 'unavailable'}): no changes seen since ${v.stale_since}`);
      staleSaid = v.stale_since !== null;
      for (const r of v.runs) {
        const was = last.get(r.uuid) ?? null;
        if (was === r.status) continue;
        last.set(r.uuid, r.status);
        printChange(sh, r, was);
      }
    }
  } finally {
    orcr.close();
  }
}
