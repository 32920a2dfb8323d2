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
import { MESSAGE_MAX } from '../core/approval-answers.js';
import { ANSWER_VIAS, VERDICTS } from '../core/approvals.js';
import type { RemoteSpec } from '../core/cluster-commands.js';
import type { RunEvent } from '../core/events.js';
import { RUN_STATUSES } from '../core/types.js';
import { RemoteError } from './errors.js';
import type {
  ApprovalAnswered,
  ApprovalGot,
  ClusterForgotten,
  ClusterRunReply,
  ClusterRunsReply,
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
  RunTail,
  ServerStatus,
  Settled,
  SpendReply,
  Stats,
  Stopping,
  SubscribeResult,
  WorktreeFinished,
} from './results.js';
import { PAGE } from './wire.js';
import type { PublicApproval, PublicLoop, PublicLoopRun, PublicRun } from './views.js';

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
  /** The tool orcr mcp offers over it, or several (approve and deny over approval.answer, each its own SDK function). */
  tool?: ToolSpec | readonly ToolSpec[];
  /**
   * A call on another machine's runs travels there (issue 43): which param holds the refs (`b:fix`), or
   * names the machine (`--host b`); the supervisor forwards it (server/cluster-calls.ts) and answers as if local.
   * A method without it is this machine's only; another machine's supervisor carries out only methods with it.
   */
  remote?: RemoteSpec;
}

/** The tools a method offers: none, its one, or its several. */
export function toolsOf(spec: MethodSpec): readonly ToolSpec[] {
  return spec.tool === undefined ? [] : Array.isArray(spec.tool) ? (spec.tool as readonly ToolSpec[]) : [spec.tool as ToolSpec];
}

/** A method with result type R: `method<R>()({ params, writes, doc })`. */
const method =
  <R>() =>
  <P extends z.ZodType>(spec: {
    params: P;
    writes: boolean;
    doc: string;
    parse?: (raw: Record<string, unknown>) => z.output<P>;
    tool?: ToolSpec<keyof z.output<P> & string> | readonly ToolSpec<keyof z.output<P> & string>[];
    remote?: RemoteSpec<keyof z.output<P> & string>;
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
// A request's id as a number (as approval.list gives it) or as digits, or a run: the handlers get the text.
const TARGET = "must be a request's id (12) or a run's name or uuid";
const approvalTarget = z
  .union([z.string().min(1, { error: `${TARGET}, not empty` }), z.number().int({ error: TARGET }).positive({ error: TARGET })], { error: TARGET })
  .transform(String);

// Another machine of the cluster, by its host name (cluster.host): the call is carried out there.
const onHost = z.string({ error: "must be a string: a machine's host name" }).min(1, { error: "must be a machine's host name, not empty" }).optional();

/** What run.tail gives at most. */
export const TAIL_MAX_LINES = 10_000;
export const TAIL_MAX_BYTES = 256 * 1024;

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
    // `after: ["b:fix"]`: another machine's run, resolved there to its uuid (b:UUID) before the runs are queued here.
    remote: { after: 'specs' },
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
    remote: { refs: 'refs' },
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
    remote: { refs: 'ref' },
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
    remote: { refs: 'refs', local: ['caller_env'], waits: 'timeout_ms' },
  }),
  'run.resolve': method<RunResolved>()({
    params: ref,
    writes: false,
    doc: "A run's uuid, name, directory, protocol, status and exit reason (another machine's with its `host`: its directory is there).",
    remote: { refs: 'ref' },
  }),
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
  'run.rerun': method<{ run: PublicRun }>()({ params: ref, writes: true, doc: 'Queue a run again, as it was asked for.', remote: { refs: 'ref' } }),
  'run.diff': method<Diff>()({
    params: z.object({ ref: runRef, stat: z.boolean().optional() }),
    writes: false,
    doc: "A worktree run's changes against its base.",
    remote: { refs: 'ref' },
  }),
  'run.tail': method<RunTail>()({
    params: z.object({
      ref: runRef,
      lines: z.number().int().positive().max(TAIL_MAX_LINES, `must be at most ${TAIL_MAX_LINES}`).optional(),
      stderr: z.boolean().optional(),
    }),
    writes: false,
    doc: `The last lines of a run's output (or stderr), at most ${TAIL_MAX_LINES} and ${TAIL_MAX_BYTES / 1024} KiB: \`logs HOST:RUN\` reads another machine's run this way.`,
    remote: { refs: 'ref' },
  }),

  // ---------- requests (an agent asks before it acts) ----------
  'approval.list': method<{ approvals: PublicApproval[] }>()({
    params: z.object({
      run: runRef.describe("one run's requests (default: the fleet's)").optional(),
      all: flag.describe('decided and withdrawn requests too (default: pending only)').optional(),
    }),
    writes: false,
    doc: "Requests waiting for a person, oldest first, across the fleet or of one run; `all` adds decided ones (a run's every one; the fleet's newest page).",
    remote: { refs: 'run' },
    tool: {
      name: 'approvals',
      description:
        'The requests agents of this fleet made before using a tool (or asking a question), waiting for an answer, oldest first, as `orcr approvals --json` lists them: each with its id, its run, a one-line summary (`Bash: npm test`), the rule an "always" answer would add, a question\'s options, and when its deadline decides it (on_timeout). Answer them with approve or deny; a request of your own run, or of a run above you, is not yours to answer.',
      sdk: 'approvals.list',
      options: { run: 'run', all: 'all' },
    },
  }),
  'approval.get': method<ApprovalGot>()({
    params: z.object({ id: z.number({ error: "must be a request's id, a whole number" }).int("must be a request's id, a whole number").positive() }),
    writes: false,
    doc: 'One request, and what its agent asked whole (its JSON cut at 1 MiB, with `truncated`).',
  }),
  'approval.answer': method<{ results: ApprovalAnswered[] }>()({
    params: z.object({
      targets: z
        .array(approvalTarget, { error: "must be a non-empty array of request ids or runs (a run's pending requests)" })
        .min(1, { error: "must be a non-empty array of request ids or runs (a run's pending requests)" })
        .describe("request ids (12), or runs: each of a run's pending requests"),
      verdict: z.enum(VERDICTS, { error: `must be one of ${VERDICTS.join(', ')}` }),
      message: z
        .string({ error: 'must be a string' })
        .max(MESSAGE_MAX, `must be at most ${MESSAGE_MAX} characters`)
        .describe('with deny: what the agent is told')
        .optional(),
      answers: z
        .array(z.union([z.string(), z.array(z.string())]), { error: 'must be an array: one answer per question (a list of labels for a multi-select one)' })
        .describe("a question's answers, one per question, each an option it offers")
        .optional(),
      always: flag.describe('with allow: allow the like of it for the rest of the run (the rule the agent offers)').optional(),
      via: z.enum(ANSWER_VIAS, { error: `must be one of ${ANSWER_VIAS.join(', ')}` }),
      who: z.string({ error: 'must be a string' }).max(200, 'must be at most 200 characters').optional(),
      // The answering client's ORCR_RUN: a run never answers its own requests, nor a run below it.
      caller: z.string({ error: 'must be a string' }).optional(),
    }),
    writes: true,
    doc: "Answer requests (allow or deny): by id, or a run's pending ones; refused (conflict) for one no longer waiting, and (refused) from inside the asking run or below it.",
    // Another machine's (`b:12`, `b:fix`): who answered is recorded there with the machine it came from.
    remote: { refs: 'targets', who: 'who', local: ['caller'] },
    // The verdict is the tool's, and who answers (via, who, caller) the SDK's: never the model's to say.
    tool: [
      {
        name: 'approve',
        description:
          'Allow requests an agent made before using a tool: by id ("12"), or a run\'s name or uuid (each request it has waiting). Allow only what is routine and safe for the run\'s task; leave the rest to a person (the deadline denies what nobody answers). A question is answered with "answers": one per question, in order, each an option\'s label (a list of labels for a multi-select one). "always" adds the rule the request offers to the run, so the like of it is allowed without asking. You cannot answer your own run\'s requests, nor those of a run above you: the supervisor refuses. One result per request; a request already answered is refused (conflict), naming who answered it.',
        sdk: 'approvals.approve',
        args: { targets: 'targets' },
        options: { always: 'always', answers: 'answers' },
      },
      {
        name: 'deny',
        description:
          'Deny requests an agent made before using a tool: by id ("12"), or a run\'s name or uuid (each request it has waiting). "message" is what the agent is told (say why, and what to do instead); it goes on with its turn. You cannot answer your own run\'s requests, nor those of a run above you: the supervisor refuses. One result per request; a request already answered is refused (conflict), naming who answered it.',
        sdk: 'approvals.deny',
        args: { targets: 'targets' },
        options: { message: 'message' },
      },
    ],
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
    params: z.object({ provider: z.string().min(1), host: onHost }),
    writes: true,
    doc: "Lift a provider's usage-limit hold (another machine's with `host`).",
    remote: { host: 'host' },
  }),
  'queue.pause': method<QueuePaused>()({
    params: z.object({ paused: z.boolean(), host: onHost }),
    writes: true,
    doc: 'Pause (or resume) admission: nothing starts while paused (on another machine with `host`).',
    remote: { host: 'host' },
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
  'cluster.runs': method<ClusterRunsReply>()({
    params: z.object({
      all: flag.describe('ended runs too (default: active runs only)').optional(),
      status: status.describe('only runs in this status').optional(),
      provider: z.string({ error: 'must be a string' }).describe('only runs of this provider').optional(),
      host: z.string({ error: 'must be a string' }).min(1, { error: 'must be a host name, not empty' }).describe('only runs of this machine').optional(),
    }),
    writes: false,
    doc: "Every machine's runs, as each published them into the cluster's database (the last good read, with stale_since, while it is away).",
  }),
  'cluster.run': method<ClusterRunReply>()({
    params: z.object({ ref: runRef.min(1, { error: 'must name a run: HOST:NAME, HOST:UUID-PREFIX or a name' }) }),
    writes: false,
    doc: 'One run of the fleet: HOST:NAME (or HOST:UUID-PREFIX), or a bare name another machine has (refused as ambiguous when several do).',
  }),
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
