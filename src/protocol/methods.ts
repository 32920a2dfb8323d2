// Every method the socket serves, once: its parameters (a zod schema the
// server parses them with), whether it writes (refused while the journal
// cannot be written), a line of what it does, its result type, and whether
// orcr mcp offers it as a tool. The server's dispatch and its list of writes
// derive from this table, and so do the clients' types (ParamsOf / ResultOf)
// and the tools it offers (src/mcp/tools.ts).
//
// A new method goes here, then in a handler module (src/server/handlers/),
// whose index fails to compile until it has one.

import { z } from 'zod';
import { MAX_DURATION_MS } from '../config/duration.js';
import { checkRunSpecs, runSpecSchema } from '../config/run-spec.js';
import type { RunEvent } from '../core/events.js';
import { RUN_STATUSES } from '../core/types.js';
import { RemoteError } from './errors.js';
import type {
  ClusterForgotten,
  ClusterStatus,
  Diff,
  EventsPage,
  FireOutcome,
  GcResult,
  Hello,
  KillResult,
  LetGo,
  LoopRemoved,
  QueuePaused,
  RunPage,
  RunResolved,
  RunSelected,
  ServerStatus,
  Settled,
  SpendReply,
  Stats,
  Stopping,
  SubscribeResult,
  WorktreeFinished,
} from './results.js';
import { PAGE } from './wire.js';
import type { PublicLoop, PublicLoopRun, PublicRun } from './views.js';

/**
 * A method offered as a tool of orcr mcp: its name and description for a
 * model, the SDK function it calls (its path on a connected Orcr: `show`,
 * `server.status`), and which params it takes under which names — `args`
 * passed to that function first, in their order, then `options` as one
 * object, each under its name in camelCase: `kill(runs, { force })`. The
 * arguments' schemas are the params' own.
 */
export interface ToolSpec<K extends string = string> {
  readonly name: string;
  readonly description: string;
  readonly sdk: string;
  /** Tool argument → the param it is. */
  readonly args?: Readonly<Record<string, K>>;
  readonly options?: Readonly<Record<string, K>>;
}

export interface MethodSpec<P extends z.ZodType = z.ZodType, R = unknown> {
  params: P;
  /** Changes state: refused while the journal cannot be written. */
  writes: boolean;
  doc: string;
  /** The result's type, for the types only (never set). */
  readonly result?: R;
  /** Parses the parameters instead of `params` where the answer must say more than zod's first issue (run.enqueue). */
  parse?: (raw: Record<string, unknown>) => z.output<P>;
  tool?: ToolSpec;
}

/** A method with result type R: `method<R>()({ params, writes, doc })`. */
const method =
  <R>() =>
  <P extends z.ZodType>(spec: {
    params: P;
    writes: boolean;
    doc: string;
    parse?: (raw: Record<string, unknown>) => z.output<P>;
    tool?: ToolSpec<keyof z.output<P> & string>;
  }): MethodSpec<P, R> =>
    spec;

// Each field's refusal is worded to follow its name (`"status" must be one
// of …`, `status: must be one of …`), and its description is what orcr mcp's
// tools tell a model: their input schemas are these fields (src/mcp/tools.ts).
// An empty ref is not refused here: it names no run, and the answer says so.
const runRef = z
  .string({ error: "must be a string: a run's uuid, a unique uuid prefix or its name" })
  .describe('a run: its uuid, a unique uuid prefix (4+ characters), or its name');
const NON_EMPTY_REFS = 'must be a non-empty array of run names or uuids';
const refs = z.array(runRef, { error: NON_EMPTY_REFS }).min(1, { error: NON_EMPTY_REFS });
const status = z.enum(RUN_STATUSES, { error: `must be one of ${RUN_STATUSES.join(', ')}` });
const flag = z.boolean({ error: 'must be true or false' });
const name = z.object({ name: z.string() });
const ref = z.object({ ref: runRef });
const env = z.record(z.string(), z.string());
const none = z.object({});

export const METHODS = {
  hello: method<Hello>()({
    params: z.object({ version: z.unknown() }),
    writes: false,
    doc: 'The first request of a connection: the client speaks this protocol version.',
  }),

  // ---------- runs ----------
  'run.enqueue': method<{ runs: PublicRun[]; warnings?: string[] }>()({
    // `uuids`: the client's names for the runs, one per spec, so that a request sent again after a
    // dropped connection answers with the runs it made instead of queueing them twice.
    params: z.object({ specs: z.array(runSpecSchema).min(1), caller_env: env.optional(), uuids: z.array(z.uuid()).optional() }),
    writes: true,
    doc: 'Queue runs (all or none); caller_env is the environment they start with; uuids (one per spec) make a repeat answer with the runs already queued.',
    // Every bad spec is named, with its number, in one answer.
    parse: (raw) => {
      const checked = checkRunSpecs(raw.specs, raw.caller_env);
      if (checked.problem !== null) throw new RemoteError('usage', checked.problem);
      const uuids = z.array(z.uuid()).optional().parse(raw.uuids);
      if (uuids !== undefined && uuids.length !== checked.specs.length) {
        throw new RemoteError(
          'usage',
          `uuids: one per spec: ${checked.specs.length} ${checked.specs.length === 1 ? 'spec' : 'specs'}, ${uuids.length} ${uuids.length === 1 ? 'uuid' : 'uuids'}`,
        );
      }
      const seen = new Set<string>();
      const twice = uuids?.find((u) => seen.size === seen.add(u).size);
      if (twice !== undefined) throw new RemoteError('usage', `uuids: ${twice} is given twice; one distinct uuid per spec`);
      return uuids === undefined ? { specs: checked.specs } : { specs: checked.specs, uuids };
    },
  }),
  'run.list': method<RunPage>()({
    params: z.object({
      all: flag.describe('ended runs too (default: active runs only)').optional(),
      status: status.describe('only runs in this status').optional(),
      provider: z.string({ error: 'must be a string' }).describe('only runs of this provider').optional(),
      limit: z.number().int().positive().optional(),
      before: z.number().int().optional(),
    }),
    writes: false,
    doc: 'A page of runs, newest first (active ones; all with `all`); `before` pages back.',
    tool: {
      name: 'ps',
      description:
        'The runs of this home, oldest first, as `orcr ps --json` lists them: the active ones (queued, starting, working, idle, blocked) by default; "all" adds ended ones. Filter by "status" or "provider".',
      sdk: 'list',
      options: { all: 'all', status: 'status', provider: 'provider' },
    },
  }),
  'run.get': method<{ run: PublicRun; env?: Record<string, string> }>()({
    params: z.object({ ref: runRef, env: z.boolean().optional() }),
    writes: false,
    doc: 'One run by uuid, uuid prefix or name; `env` adds the values of its -e variables.',
    tool: { name: 'show', description: 'A run: status, exit reason, turns, tokens, cost, budgets, its last text and tool.', sdk: 'show', args: { run: 'ref' } },
  }),
  'run.kill': method<{ results: KillResult[] }>()({
    params: z.object({
      refs,
      force: flag.describe('KILL at once, without TERM and the grace period first').optional(),
      keep_children: z.boolean().optional(),
      keep_dependents: z.boolean().optional(),
    }),
    writes: true,
    doc: 'Kill runs (and their descendants unless keep_children); a queued one is canceled. What waits for a killed run (run --after) is canceled with it, unless keep_dependents: then it waits for its other inputs only.',
    tool: {
      name: 'kill',
      description: 'Stop runs: a queued one is canceled, a live one gets TERM, then KILL after the grace period (at once with force).',
      sdk: 'kill',
      args: { runs: 'refs' },
      options: { force: 'force' },
    },
  }),
  'run.send': method<{ run: PublicRun }>()({
    params: z.object({ ref: runRef, text: z.string({ error: 'must be a string' }).describe('the input: the next turn') }),
    writes: true,
    doc: 'Input to an idle run.',
    tool: { name: 'send', description: 'Send input to an idle interactive run: it starts a new turn on it.', sdk: 'send', args: { run: 'ref', text: 'text' } },
  }),
  'run.wait': method<{ settled: Settled[] }>()({
    params: z.object({
      refs: refs.optional(),
      all: z.boolean().optional(),
      timeout_ms: z.number().min(0).max(MAX_DURATION_MS, 'must be at most a year').nullable().optional(),
      // The waiting client's environment; only ORCR_RUN is read: a run waiting on its own descendants lends them its slot.
      caller_env: env.optional(),
    }),
    writes: false,
    doc: 'Until each run settles (idle, blocked or ended), or the timeout.',
  }),
  'run.resolve': method<RunResolved>()({ params: ref, writes: false, doc: "A run's uuid, name, directory, protocol and status." }),
  'run.select': method<{ runs: RunSelected[] }>()({
    params: z.object({
      all: z.boolean().optional(),
      status: status.optional(),
      provider: z.string().optional(),
      workload: z.string().optional(),
      name: z.string().optional(),
      after: runRef.min(1).optional(),
    }),
    writes: false,
    doc: 'The active runs a filter matches (kill --all/--status/-a/-w/--name GLOB/--after RUN: the runs waiting for RUN).',
  }),
  'run.takeover': method<{ run: PublicRun }>()({
    params: z.object({ ref: runRef.min(1), now: z.boolean().optional() }),
    writes: true,
    doc: 'Stop supervising a run so a person can take its session over.',
  }),
  'run.rerun': method<{ run: PublicRun }>()({ params: ref, writes: true, doc: 'Queue a run again, as it was asked for.' }),
  'run.diff': method<Diff>()({
    params: z.object({ ref: runRef, stat: z.boolean().optional() }),
    writes: false,
    doc: "A worktree run's changes against its base.",
  }),

  // ---------- events ----------
  events: method<EventsPage>()({
    params: z.object({ since: z.number().int().min(0).optional(), limit: z.number().int().positive().optional() }),
    writes: false,
    doc: `The events after seq \`since\`, at most a page (${PAGE}).`,
  }),
  subscribe: method<SubscribeResult>()({
    params: z.object({
      since: z.number().int().min(0).optional(),
      snapshot: z.boolean().optional(),
      rows: z.boolean().optional(),
      ended: z.number().int().min(0).max(1_000_000).optional(),
    }),
    writes: false,
    doc: 'Live events from now on (with `rows`, rows that changed without one), after an optional snapshot (every active run and the newest ended ones: at most `ended` of them, and 5,000 runs in all) and replay from `since`.',
  }),

  // ---------- the fleet ----------
  stats: method<Stats>()({ params: none, writes: false, doc: 'Caps, holds, the fleet budget and the queue.' }),
  spend: method<SpendReply>()({ params: none, writes: false, doc: 'Usage by provider and workload over the fleet window.' }),
  'provider.resume': method<{ resumed: boolean }>()({
    params: z.object({ provider: z.string().min(1) }),
    writes: true,
    doc: "Lift a provider's usage-limit hold.",
  }),
  'queue.pause': method<QueuePaused>()({
    params: z.object({ paused: z.boolean() }),
    writes: true,
    doc: 'Pause (or resume) admission: nothing starts while paused.',
  }),
  gc: method<GcResult & { worktrees: LetGo[] }>()({
    params: z.object({
      older_than_ms: z.number().int().min(0).max(MAX_DURATION_MS).optional(),
      dry_run: z.boolean().optional(),
      force: z.boolean().optional(),
      branches: z.boolean().optional(),
    }),
    writes: true,
    doc: 'Remove ended runs older than the retention (and their let-go worktrees).',
  }),

  // ---------- worktrees ----------
  'worktree.finish': method<WorktreeFinished>()({
    params: z.object({ ref: runRef, mode: z.enum(['merge', 'keep_branch', 'discard']) }),
    writes: true,
    doc: "Merge, keep or drop an ended run's worktree branch, and remove the worktree.",
  }),
  'worktree.prune': method<{ worktrees: LetGo[] }>()({
    params: z.object({ force: z.boolean().optional(), dry_run: z.boolean().optional() }),
    writes: true,
    doc: 'Remove the worktrees of ended runs.',
  }),

  // ---------- the supervisor and the cluster ----------
  'server.status': method<ServerStatus>()({ params: none, writes: false, doc: 'The supervisor: pid, home, runs, clients, config and cluster.' }),
  'server.stop': method<Stopping>()({
    params: z.object({ mode: z.enum(['leave', 'drain', 'kill_agents']).optional() }),
    writes: false,
    doc: 'Stop the supervisor (agents keep running), after a drain, or killing them.',
  }),
  'cluster.status': method<ClusterStatus>()({ params: none, writes: false, doc: "The cluster's machines, as its database tells." }),
  'cluster.forget': method<ClusterForgotten>()({ params: z.object({ host: z.string().min(1) }), writes: true, doc: 'Forget a machine that left the cluster.' }),

  // ---------- loops ----------
  'loop.create': method<{ loop: PublicLoop }>()({
    params: z.object({
      name: z.string().min(1),
      cron: z.string().optional(),
      once_at: z.string().optional(),
      tz: z.string().min(1),
      max_concurrency: z.number().int().min(1).max(10_000).optional(),
      overlap: z.enum(['queue', 'skip']).optional(),
      timeout_ms: z.number().int().min(1).max(MAX_DURATION_MS).nullable().optional(),
      command: z.array(z.string()).min(1, 'a loop needs a command'),
      cwd: z.string().min(1),
      caller_env: env.optional(),
    }),
    writes: true,
    doc: 'A durable schedule (cron or once) for a command.',
  }),
  'loop.list': method<{ loops: PublicLoop[] }>()({ params: none, writes: false, doc: 'Every loop.' }),
  'loop.get': method<{ loop: PublicLoop }>()({ params: name, writes: false, doc: 'One loop.' }),
  'loop.pause': method<{ loop: PublicLoop }>()({ params: z.object({ name: z.string(), paused: z.boolean() }), writes: true, doc: 'Pause (or resume) a loop.' }),
  'loop.remove': method<LoopRemoved>()({
    params: z.object({ name: z.string(), kill_active: z.boolean().optional() }),
    writes: true,
    doc: 'Remove a loop (killing its active runs with kill_active).',
  }),
  'loop.events': method<{ events: RunEvent[] }>()({
    params: z.object({ name: z.string(), limit: z.number().int().positive().max(PAGE).optional() }),
    writes: false,
    doc: "The loop's newest events.",
  }),
  'loop.start': method<FireOutcome>()({ params: name, writes: true, doc: 'Fire a loop by hand.' }),
  'loop.stop': method<{ stopped: string[] }>()({ params: name, writes: true, doc: "Stop a loop's active runs." }),
  'loop.runs': method<{ runs: PublicLoopRun[] }>()({
    params: z.object({ name: z.string(), limit: z.number().int().positive().max(PAGE).optional() }),
    writes: false,
    doc: "The loop's runs, newest first.",
  }),
} as const;

export type Methods = typeof METHODS;
export type MethodName = keyof Methods;
/** The parameters a client sends. */
export type ParamsOf<M extends MethodName> = z.input<Methods[M]['params']>;
/** The parameters a handler gets, parsed. */
export type ParsedParamsOf<M extends MethodName> = z.output<Methods[M]['params']>;
export type ResultOf<M extends MethodName> = NonNullable<Methods[M]['result']>;

export const METHOD_NAMES = Object.keys(METHODS) as MethodName[];

export function isMethodName(m: string): m is MethodName {
  return Object.hasOwn(METHODS, m);
}

/** Methods that change state: refused while the journal cannot be written. */
export const WRITES: ReadonlySet<MethodName> = new Set(METHOD_NAMES.filter((m) => METHODS[m].writes));

/** The parameters parsed as the method's table entry says (a zod error or a RemoteError on bad ones). */
export function parseParams<M extends MethodName>(m: M, raw: Record<string, unknown>): ParsedParamsOf<M> {
  const spec: MethodSpec = METHODS[m];
  return (spec.parse ? spec.parse(raw) : spec.params.parse(raw)) as ParsedParamsOf<M>;
}
