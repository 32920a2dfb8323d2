// The run methods: enqueue, list, get, kill, send, resolve, select, takeover, rerun, diff, tail.

import path from 'node:path';
import { TAIL_MAX_BYTES } from '../../protocol/methods.js';
import { PAGE } from '../../protocol/wire.js';
import { RemoteError } from '../../protocol/errors.js';
import type { KillResult } from '../../protocol/results.js';
import { quote } from '../../text/json-text.js';
import { readTail } from '../run-tail.js';
import type { HandlerFamily } from './context.js';

type RunMethod =
  'run.enqueue' | 'run.list' | 'run.get' | 'run.kill' | 'run.send' | 'run.resolve' | 'run.select' | 'run.takeover' | 'run.rerun' | 'run.diff' | 'run.tail';

export const runHandlers: HandlerFamily<RunMethod> = {
  'run.enqueue': (p, { queueing, queries }) => {
    const warnings: string[] = [];
    const runs = queueing.enqueue(p.specs, warnings, p.uuids).map((r) => queries.view(r));
    return warnings.length > 0 ? { runs, warnings } : { runs };
  },
  'run.list': (q, { reads, queries }) => {
    // A page at most (the newest first): a home of months holds a million runs; `before` pages back.
    const limit = Math.min(q.limit ?? PAGE, PAGE);
    const rows = reads.listRuns({ ...q, limit: limit + 1 });
    const more = rows.length > limit;
    const runs = (more ? rows.slice(1) : rows).map((r) => queries.view(r));
    return { runs, next: more ? runs[0]!.queue_seq : null };
  },
  'run.get': ({ ref, env }, { queries }) => {
    const run = queries.resolve(ref);
    // Values of -e only on request (show --env): they may be secrets.
    // Its requests too: show lists them.
    const view = queries.view(run, { approvals: true });
    return env ? { run: view, env: run.env } : { run: view };
  },
  'run.kill': (p, { queries, kills, tree }) => {
    // Ref by ref: an unknown one is reported and the others are still acted on
    // (an ambiguous one refuses the whole call before anything is killed).
    const found = p.refs.map((ref) => {
      try {
        return { ref, run: queries.resolve(ref) };
      } catch (e) {
        if (e instanceof RemoteError && e.code === 'not_found') return { ref, run: null };
        throw e;
      }
    });
    if (found.every((f) => f.run === null)) throw new RemoteError('not_found', `no run ${p.refs.map(quote).join(', ')}`);
    const results = found.map(({ ref, run }): KillResult => {
      if (!run) return { ref, name: null, uuid: null, action: 'not_found', status: null, exit_reason: null };
      const descendants = run.status === 'ended' || p.keep_children ? [] : tree.activeDescendants(run.uuid).map((d) => d.uuid);
      const after = run.status === 'ended' ? run : kills.kill([run.uuid], p.force ?? false, p.keep_children ?? false, p.keep_dependents ?? false)[0]!;
      const action = run.status === 'ended' ? 'already_ended' : after.status === 'ended' ? 'canceled' : 'killing';
      // `descendants` only when there were some: the shape of a kill without children stays as it was.
      return {
        ref,
        name: after.name,
        uuid: after.uuid,
        action,
        status: after.status,
        exit_reason: after.exit_reason,
        ...(descendants.length > 0 ? { descendants } : {}),
      };
    });
    return { results };
  },
  'run.send': (p, { queries, input }) => ({ run: queries.view(input.send(queries.resolve(p.ref).uuid, p.text)) }),
  'run.resolve': ({ ref }, { queries, home }) => {
    const r = queries.resolve(ref);
    return { uuid: r.uuid, name: r.name, dir: `${home.runs}/${r.uuid}`, protocol: r.protocol, status: r.status, exit_reason: r.exit_reason };
  },
  'run.select': (f, { queries }) => ({ runs: queries.select(f).map((r) => ({ uuid: r.uuid, name: r.name, status: r.status })) }),
  'run.takeover': (p, { queries, kills }) => ({ run: queries.view(kills.takeover(queries.resolve(p.ref).uuid, p.now ?? false)) }),
  'run.rerun': ({ ref }, { queries, queueing }) => ({ run: queries.view(queueing.rerun(queries.resolve(ref).uuid)) }),
  'run.tail': (q, { queries, home }) => {
    const r = queries.resolve(q.ref);
    const tail = readTail(path.join(home.runs, r.uuid, q.stderr ? 'err' : 'out'), q.lines ?? 200, TAIL_MAX_BYTES);
    return { uuid: r.uuid, name: r.name, protocol: r.protocol, ...tail };
  },
  'run.diff': async (q, { queries, worktrees }) => await worktrees.diff(queries.resolve(q.ref).uuid, q.stat ?? false),
};
