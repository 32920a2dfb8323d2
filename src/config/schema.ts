// config.json: its schema, defaults and the checks that span several keys.
// Every error names the key it is about, because a user fixing a config file
// needs the path, not a stack trace.

import { z } from 'zod';
import { checkDurationMs, DURATION_FORM, parseDuration } from './duration.js';
import { LOOP_ACTIONS, STALL_ACTIONS, type Protocol } from '../core/types.js';
import { AGENT_PROTOCOLS, PROTOCOLS } from '../agents/registry.js';
import { NOTIFY_EVENTS, isNotifyEvent, type NotifyEvent } from '../core/notify-policy.js';
import { CEILING_NAMES, RUN_CEILINGS, type ConfigCeilingKey, type ConfigCeilings } from '../core/limits.js';
import { parseRule } from '../core/approval-rules.js';
import { VERDICTS } from '../core/approvals.js';

const cap = z.number().int('must be a whole number').min(0, 'must not be negative');
const positive = z.number().min(0, 'must not be negative');
/**
 * A duration as text ("30s") or a number of milliseconds; refused in the
 * duration parser's words (`must be a duration such as …, got "30m1h"`).
 * `zero`: why 0 is refused, for keys where 0 would stop a run at once.
 */
function durationKey(zero?: string) {
  return z.union([z.string(), z.number()], { error: `${DURATION_FORM} or a number of milliseconds` }).transform((v, ctx) => {
    let ms: number;
    try {
      if (typeof v === 'number') {
        checkDurationMs(Number.isFinite(v) ? v : Number.NaN);
        ms = v;
      } else ms = parseDuration(v);
    } catch (e) {
      ctx.addIssue({ code: 'custom', message: (e as Error).message });
      return z.NEVER;
    }
    if (zero !== undefined && ms === 0) {
      ctx.addIssue({ code: 'custom', message: `${zero}, got ${JSON.stringify(v)}` });
      return z.NEVER;
    }
    return ms;
  });
}
const duration = durationKey();
/** A run ceiling: 0 would end every run at once, and null (or leaving it out) already means no limit. */
const ceiling = durationKey('must be more than 0 (0 would stop every run at once; null for no limit)');

// The value is not repeated in the message: a webhook's URL is often its secret.
const httpUrl = z.string().refine((v) => {
  try {
    const u = new URL(v);
    return u.protocol === 'http:' || u.protocol === 'https:';
  } catch {
    return false;
  }
}, 'must be an http:// or https:// URL');

const notifyEvent = z.string().transform((v, ctx): NotifyEvent => {
  if (isNotifyEvent(v)) return v;
  ctx.addIssue({ code: 'custom', message: `unknown event "${v}" (one of ${NOTIFY_EVENTS.join(', ')})` });
  return z.NEVER;
});

/** `"worktree": true` or `{ "base": "main" }`: runs of this provider or workload get a worktree. */
const worktreeChoice = z.union([z.boolean(), z.object({ base: z.string().min(1, 'must not be empty').optional() }).strict()], {
  error: 'must be true, false or {"base": "REF"}',
});

/** Exit codes after which an attempt is never retried: each from 1 to 255, at most 255 of them. */
const exitCodes = z
  .array(
    z
      .number({ error: 'must list exit codes, whole numbers from 1 to 255' })
      .int('must list exit codes, whole numbers from 1 to 255')
      .min(1, 'must list exit codes, whole numbers from 1 to 255')
      .max(255, 'must list exit codes, whole numbers from 1 to 255'),
    { error: 'must be a list of exit codes (whole numbers from 1 to 255)' },
  )
  .max(255, 'must list at most 255 exit codes');

/** A bound on attempts (retries, continuations): a whole number from 0 to 100. */
const upTo100 = z
  .number({ error: 'must be a whole number from 0 to 100' })
  .int('must be a whole number from 0 to 100')
  .min(0, 'must be a whole number from 0 to 100')
  .max(100, 'must be a whole number from 0 to 100');

/** A list of rules in Claude Code's permission syntax (`Bash(npm test:*)`, `Edit(src/**)`): a rule that does not read is named. */
const rules = z.array(z.string({ error: 'must list rules as strings (Bash(npm test:*), Read, Edit(src/**))' })).superRefine((list, ctx) => {
  for (const [i, text] of list.entries()) {
    const r = parseRule(text);
    if ('error' in r) ctx.addIssue({ code: 'custom', path: [i], message: `rule ${JSON.stringify(text).slice(0, 120)} ${r.error}` });
  }
});

const deadlineMs = durationKey('must be more than 0 (use "never" for no deadline)');
/** A request's deadline, or "never" (null): 0 would decide every request before anyone could see it. */
const deadline = z
  .union([z.string(), z.number()], { error: `must be "never", ${DURATION_FORM} or a number of milliseconds` })
  .transform((v, ctx): number | null => {
    if (v === 'never') return null;
    const ms = deadlineMs.safeParse(v);
    if (ms.success) return ms.data;
    ctx.addIssue({ code: 'custom', message: ms.error.issues[0]!.message });
    return z.NEVER;
  });

/**
 * How an agent's requests are decided (config, a provider's, a workload's):
 * the lists add up over the scopes, a deny anywhere denies; the deadline and
 * what it decides come from the narrowest scope that says.
 */
const approvals = z
  .object({
    allow: rules.optional(),
    deny: rules.optional(),
    ask: rules.optional(),
    /** How long a person has; "never": no deadline. */
    timeout: deadline.optional(),
    on_timeout: z.enum(VERDICTS, { error: `must be one of ${VERDICTS.join(', ')}` }).optional(),
  })
  .strict();

const workload = z
  .object({
    worktree: worktreeChoice.optional(),
    reserved: cap.default(0),
    priority: z.number().int('must be a whole number').default(0),
    max: cap.nullable().default(null),
    max_wait: duration.nullable().default(null),
    /** The default of `run --retries` for this workload's runs. */
    retries: upTo100.optional(),
    /** An attempt that exits with one of these is never retried. */
    terminal_exit_codes: exitCodes.optional(),
    /** Rules for the requests of this workload's runs. */
    approvals: approvals.optional(),
  })
  .strict();

const price = z
  .object({
    input_per_mtok: positive,
    output_per_mtok: positive,
    cached_input_per_mtok: positive.optional(),
  })
  .strict();

/** A ceiling's value by its unit (core/limits.ts); null, or leaving it out, is no limit. */
const CEILING_VALUE = { count: cap, usd: positive, duration: ceiling } as const;

/** The ceilings under their config.json keys (core/limits.ts: `timeout` is a run's timeout_ms). */
function budgetCeilings(): { [K in ConfigCeilingKey]: z.ZodDefault<z.ZodNullable<(typeof CEILING_VALUE)[(typeof RUN_CEILINGS)[ConfigCeilings[K]]['unit']]>> } {
  const shape: Record<string, z.ZodType> = {};
  for (const k of CEILING_NAMES) {
    const { config: key, unit } = RUN_CEILINGS[k];
    if (key !== null) shape[key] = CEILING_VALUE[unit].nullable().default(null);
  }
  return shape as never;
}

const runBudget = z
  .object({
    ...budgetCeilings(),
    /** No default here: an unset scope must not override a wider one's choice (the default, terminate, is NO_LIMITS'). */
    on_stall: z.enum(STALL_ACTIONS, { error: `must be one of ${STALL_ACTIONS.join(', ')}` }).optional(),
  })
  .strict();

const provider = z
  .object({
    command: z.array(z.string()).min(1, 'must name a program').optional(),
    protocol: z.enum(PROTOCOLS).optional(),
    price: price.optional(),
    budgets: runBudget.optional(),
    /** Send the prompt as the first input line instead of a `{prompt}` argument. */
    interactive_input: z.boolean().optional(),
    worktree: worktreeChoice.optional(),
    /** A run stopped by a usage limit: back to the queue, its session resumed when the hold lifts (`continue`), or ended (`end`). */
    on_limit: z.enum(['continue', 'end'], { error: 'must be continue or end' }).optional(),
    /** Continuations a run may have at most. */
    max_continues: upTo100.optional(),
    /** At this share of a usage window (0–1, as the agent reports it), no new run of the provider starts until the window resets. */
    pause_at: z
      .number({ error: 'must be a fraction above 0, at most 1' })
      .gt(0, 'must be a fraction above 0, at most 1')
      .lte(1, 'must be a fraction above 0, at most 1')
      .optional(),
    /** The default of `run --retries` for this provider's runs (a workload's own comes first). */
    retries: upTo100.optional(),
    /** An attempt that exits with one of these is never retried (a workload's list counts too). */
    terminal_exit_codes: exitCodes.optional(),
    /** When its hold lifts, the runs it held back start one per this long (0: all at once). */
    resume_pace: duration.refine((ms) => ms <= 3_600_000, { message: 'must be at most 1h (0 starts them all at once)' }).optional(),
    /** What the resumed session is told. */
    continue_prompt: z.string().trim().min(1, 'must not be empty').max(10_000, 'must be at most 10,000 characters').optional(),
    /** Rules for the requests of this provider's runs. */
    approvals: approvals.optional(),
  })
  .strict();

export const configSchema = z
  .object({
    concurrency: z
      .object({
        max: cap.default(25),
        max_queued: cap.nullable().default(null),
        providers: z.record(z.string(), cap).default({}),
        workloads: z.record(z.string(), workload).default({}),
        default_workload: z.string().default('default'),
      })
      .strict()
      .default({ max: 25, max_queued: null, providers: {}, workloads: {}, default_workload: 'default' }),
    timings: z
      .object({
        kill_grace: duration.default(10_000),
        max_starting: durationKey('must be more than 0 (0 would fail every run before it could start)').default(120_000),
        limit_hold: duration.default(300_000),
        idle_after: durationKey('must be more than 0 (0 would end an idle run at once)').default(600_000),
      })
      .strict()
      .default({ kill_grace: 10_000, max_starting: 120_000, limit_hold: 300_000, idle_after: 600_000 }),
    providers: z.record(z.string(), provider).default({}),
    budgets: z
      .object({
        // Parsed from {}: every ceiling's own default (none).
        run: runBudget.prefault({}),
        fleet: z
          .object({
            max_tokens: cap.nullable().default(null),
            max_cost_usd: positive.nullable().default(null),
            window: z
              .union([z.literal('all'), z.string()])
              .default('all')
              .transform((v, ctx) => {
                if (v === 'all') return 'all' as const;
                try {
                  return { rolling_ms: parseDuration(v) };
                } catch {
                  ctx.addIssue({ code: 'custom', message: 'must be "all" or a rolling duration like "24h"' });
                  return z.NEVER;
                }
              }),
          })
          .strict()
          .default({ max_tokens: null, max_cost_usd: null, window: 'all' }),
        /** Ancestors a run may have: a run made from inside a run at this depth is refused. */
        max_depth: z.number({ error: 'must be a whole number' }).int({ error: 'must be a whole number' }).min(0, { error: 'must not be negative' }).default(3),
      })
      .strict()
      .prefault({}),
    loop: z
      .object({
        action: z.enum(LOOP_ACTIONS).default('warn'),
        max_repetitions: z.number().int().min(2, 'must be at least 2').default(3),
        window: z.number().int().min(1, 'must be at least 1').default(4),
      })
      .strict()
      .default({ action: 'warn', max_repetitions: 3, window: 4 }),
    journal: z
      .object({
        synchronous: z.enum(['normal', 'full']).default('normal'),
      })
      .strict()
      .default({ synchronous: 'normal' }),
    retention: z
      .object({
        /** Ended runs older than this (by end time) are removed, with their events and run directories; "never" keeps them all. */
        ended: z.union([z.literal('never'), duration]).default(30 * 24 * 3_600_000),
      })
      .strict()
      .default({ ended: 30 * 24 * 3_600_000 }),
    /** Run worktrees (`run --worktree`): where they go, and what prepares one before its agent starts. */
    worktree: z
      .object({
        /** Default: $ORCR_HOME/worktrees. */
        dir: z.string().min(1, 'must not be empty').optional(),
        /** argv run in a new worktree before the agent (no shell); its failure ends the run `failed`. */
        setup: z.array(z.string()).min(1, 'must name a program').optional(),
        /** How long setup may take. */
        setup_timeout: duration.default(600_000),
      })
      .strict()
      .default({ setup_timeout: 600_000 }),
    /** How every run's requests are decided (a provider's, a workload's and a run's own rules add to these). */
    approvals: approvals.optional(),
    /** Who to tell when a run needs a person (server/notify.ts). Absent: nobody is told. */
    notify: z
      .object({
        webhook: httpUrl.optional(),
        /** An ntfy topic URL (e.g. https://ntfy.sh/my-topic): a short text is POSTed to it. */
        ntfy: httpUrl.optional(),
        /** argv of a program given the webhook's JSON on stdin. */
        command: z
          .array(z.string())
          .min(1, 'must name a program')
          .refine((a) => a[0] !== '', 'must name a program')
          .optional(),
        /** notify-send, when it is on the supervisor's PATH. */
        desktop: z.boolean().default(false),
        events: z.array(notifyEvent).default([...NOTIFY_EVENTS]),
        /** Notable events within this long of the first are one notification. */
        batch: duration.default(5000),
      })
      .strict()
      .optional(),
    /** Machines that share caps, the queue order, holds and fleet usage through PostgreSQL. Absent: this machine alone. */
    cluster: z
      .object({
        /** A PostgreSQL connection string; ORCR_CLUSTER_URL overrides it (so a secret can stay out of this file). */
        url: z.string().min(1, 'must not be empty').optional(),
        /** Several clusters may share one database. */
        name: z.string().min(1, 'must not be empty').max(100, 'must be at most 100 characters').default('default'),
        /** This machine's name in the cluster (default: the hostname); unique in the cluster. */
        host: z.string().min(1, 'must not be empty').max(200, 'must be at most 200 characters').optional(),
        lease_ttl: duration.default(30_000).refine((ms) => ms >= 1000, 'must be at least 1s'),
        /** A direct connection for LISTEN when `url` goes through a transaction-mode pooler (which cannot LISTEN). */
        listen_url: z.string().min(1, 'must not be empty').optional(),
        /** While notifications arrive: how often to check anyway for a change none told of. */
        poll: duration.default(5000).refine((ms) => ms >= 100, 'must be at least 100ms'),
        /** A machine silent this long is dropped from the cluster's list. */
        forget_after: duration.default(24 * 3600_000).refine((ms) => ms >= 1000, 'must be at least 1s'),
        on_conflict: z.enum(['refuse', 'replace']).default('refuse'),
        on_lease_lost: z.enum(['keep', 'stop']).default('keep'),
        /** A viewer reads the fleet (ps --cluster, the TUI) and joins nothing: no runs of its own in the cluster, SELECT is all it needs. */
        viewer: z.boolean().default(false),
        /** How long an ended run stays in the fleet view (from its end, on the database's clock). */
        view_retention: duration.default(3600_000),
        /** A machine whose heartbeat is older than this has its runs shown stale (default: lease_ttl). */
        stale_after: duration.refine((ms) => ms >= 1000, 'must be at least 1s').optional(),
        /** ... and not at all (its rows deleted by any member) once older than this. */
        gone_after: duration.default(600_000).refine((ms) => ms >= 1000, 'must be at least 1s'),
        /** The fleet view's writes: at most one flush this often, of at most publish_batch runs. */
        publish_interval: duration.default(100).refine((ms) => ms >= 10, 'must be at least 10ms'),
        publish_batch: z.number().int().min(1).max(10_000).default(500),
        /** Whether this machine carries out commands other machines send it (kill b:fix, approve b:12); said in its orcr_host row. */
        accept_commands: z.boolean({ error: 'must be true or false' }).default(true),
        /** How long a command to another machine waits to be taken, then answered, before the caller says it got no answer. */
        command_timeout: duration.default(10_000).refine((ms) => ms >= 100, 'must be at least 100ms'),
      })
      .strict()
      .optional(),
  })
  .strict();

export type ParsedConfig = z.output<typeof configSchema>;

export interface ProviderPreset {
  command?: string[];
  protocol?: Protocol;
  /**
   * The command has no `{prompt}`: the prompt is delivered as the first
   * input line (formatted for the protocol), and later input with `send`.
   */
  interactive_input?: boolean;
}

/**
 * Presets for the agent CLIs orcr knows, used when config.json does not
 * override them: each protocol's record has its CLI's (src/agents), checked
 * against the real CLIs (test/real/README.md), named for the protocol or as
 * its record says (`codex` is the app-server's, `codex-exec` exec's).
 * Prompts never travel in argv: /proc/PID/cmdline shows argv to every local
 * user, and Linux caps one argument at 128 KiB.
 */
export const BUILTIN_PROVIDERS: Readonly<Record<string, ProviderPreset>> = Object.fromEntries(
  AGENT_PROTOCOLS.flatMap(({ name, preset }) =>
    preset ? [[preset.name ?? name, { command: [...preset.command], protocol: name, ...(preset.interactive_input ? { interactive_input: true } : {}) }]] : [],
  ),
);
