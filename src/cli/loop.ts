// `orcr loop …`: durable cron for a command. Parsing and printing only; the
// schedule is checked and kept by the supervisor (server/loops.ts), which
// also reads --once-at, so a relative time is relative to its clock.

import type { ParseArgsConfig } from 'node:util';
import type { Client } from '../client/client.js';
import { NOT_ZERO, parseDuration } from '../config/duration.js';
import { wholeFlag } from '../client/flag-values.js';
import type { RunEvent } from '../core/events.js';
import type { FireOutcome } from '../protocol/results.js';
import type { PublicLoop, PublicLoopRun } from '../protocol/views.js';
import { safeLine } from '../text/terminal-text.js';
import { jsonText } from '../text/json-text.js';
import { table } from './format.js';
import { UsageError } from './usage-error.js';

type Parsed = { values: Record<string, string | boolean | undefined>; positionals: string[] };

export interface LoopIo {
  json: boolean;
  parse(verb: string, args: string[], options: ParseArgsConfig['options'], allowPositionals?: boolean): Parsed;
  connect(): Promise<Client>;
  out(text: string): void;
  printJson(value: unknown): void;
  confirm(question: string): Promise<boolean | null>;
}

const VERB = 'loop';

/** What the user's clock reads: the zone a cron is kept in. */
export function localZone(env: NodeJS.ProcessEnv = process.env): string {
  return Intl.DateTimeFormat(undefined, env.TZ ? { timeZone: env.TZ } : {}).resolvedOptions().timeZone;
}

const when = (t: string | null): string => (t === null ? '-' : t.replace('T', ' ').replace(/\.\d+Z$/, 'Z'));

async function call<T>(io: LoopIo, method: string, params: Record<string, unknown>): Promise<T> {
  const c = await io.connect();
  try {
    return await c.call<T>(method, params);
  } finally {
    c.close();
  }
}

function one(positionals: string[], what: string): string {
  if (positionals.length !== 1) throw new UsageError(`loop ${what} takes exactly one loop name`, VERB);
  return positionals[0]!;
}

export async function loopVerb(rest: string[], io: LoopIo): Promise<number> {
  const [sub, ...args] = rest;
  switch (sub) {
    case 'create': {
      const dd = args.indexOf('--');
      if (dd < 0 || dd === args.length - 1) throw new UsageError('loop create needs the command after --', VERB);
      const { values, positionals } = io.parse(VERB, args.slice(0, dd), {
        'once-at': { type: 'string' },
        'max-concurrency': { type: 'string' },
        overlap: { type: 'string' },
        timeout: { type: 'string' },
        tz: { type: 'string' },
      });
      const [name, ...cron] = positionals;
      if (name === undefined) throw new UsageError('loop create needs a name', VERB);
      const onceAt = values['once-at'] as string | undefined;
      if ((cron.length === 0) === (onceAt === undefined)) throw new UsageError('loop create needs a cron schedule ("0 9 * * 1-5") or --once-at TIME, not both', VERB);
      let max = 1;
      if (values['max-concurrency'] !== undefined) {
        const n = wholeFlag('--max-concurrency', values['max-concurrency'] as string, 1);
        if (typeof n !== 'number') throw new UsageError(n.problem);
        max = n;
      }
      const overlap = (values.overlap as string | undefined) ?? 'queue';
      if (overlap !== 'queue' && overlap !== 'skip') throw new UsageError('--overlap must be queue or skip', VERB);
      let timeout: number | null = null;
      if (values.timeout !== undefined) {
        try {
          timeout = parseDuration(values.timeout as string, '--timeout');
        } catch (e) {
          throw new UsageError((e as Error).message);
        }
        if (timeout === 0) throw new UsageError(`--timeout ${NOT_ZERO}, got "${values.timeout as string}"`);
      }
      const { callerEnv } = await import('./run-args.js');
      const res = await call<{ loop: PublicLoop }>(io, 'loop.create', {
        name,
        // One argument ("*/5 * * * *") or five: the supervisor counts the fields.
        cron: cron.length > 0 ? cron.join(' ') : undefined,
        once_at: onceAt,
        tz: (values.tz as string | undefined) ?? localZone(),
        max_concurrency: max,
        overlap,
        timeout_ms: timeout,
        command: args.slice(dd + 1),
        cwd: process.cwd(),
        caller_env: callerEnv(),
      });
      if (io.json) io.printJson(res.loop);
      else io.out(`loop ${safeLine(res.loop.name)}: ${safeLine(res.loop.schedule)}${res.loop.tz ? ` (${res.loop.tz})` : ''}, next fire ${when(res.loop.next_fire_at)}`);
      return 0;
    }
    case 'ls': {
      io.parse(VERB, args, {}, false);
      const res = await call<{ loops: PublicLoop[] }>(io, 'loop.list', {});
      if (io.json) io.printJson(res.loops);
      else if (res.loops.length === 0) io.out('no loops (orcr loop create NAME "CRON" -- COMMAND)');
      else
        io.out(
          table(
            ['NAME', 'SCHEDULE', 'TZ', 'NEXT', 'LAST', 'ACTIVE', 'STATE'],
            res.loops.map((l) => [
              l.name,
              l.schedule,
              l.tz ?? '-',
              when(l.next_fire_at),
              l.last ? `${l.last.status} ${when(l.last.ended_at)}` : '-',
              `${l.active.length}/${l.max_concurrency}${l.pending ? ' +1 pending' : ''}`,
              l.paused ? 'paused' : 'on',
            ]),
          ),
        );
      return 0;
    }
    case 'pause':
    case 'resume': {
      const { positionals } = io.parse(VERB, args, {});
      const res = await call<{ loop: PublicLoop }>(io, 'loop.pause', { name: one(positionals, sub), paused: sub === 'pause' });
      if (io.json) io.printJson(res.loop);
      else io.out(res.loop.paused ? `loop ${safeLine(res.loop.name)} paused` : `loop ${safeLine(res.loop.name)} resumed, next fire ${when(res.loop.next_fire_at)}`);
      return 0;
    }
    case 'rm': {
      const { values, positionals } = io.parse(VERB, args, { 'kill-active': { type: 'boolean' }, yes: { type: 'boolean', short: 'y' } });
      const name = one(positionals, 'rm');
      if (!values.yes) {
        const ok = await io.confirm(`remove loop ${safeLine(name)}${values['kill-active'] ? ' and kill its active runs' : ''}?`);
        if (ok === null) throw new UsageError(`loop rm: confirm with -y (no terminal to ask on)`, VERB);
        if (!ok) {
          io.out('nothing removed');
          return 0;
        }
      }
      const res = await call<{ removed: string; killed: string[] }>(io, 'loop.remove', { name, kill_active: values['kill-active'] === true });
      if (io.json) io.printJson(res);
      else io.out(`loop ${safeLine(res.removed)} removed${res.killed.length > 0 ? ` (killing ${res.killed.length} run${res.killed.length === 1 ? '' : 's'})` : ''}`);
      return 0;
    }
    case 'logs': {
      const { positionals } = io.parse(VERB, args, {});
      const res = await call<{ events: RunEvent[] }>(io, 'loop.events', { name: one(positionals, 'logs') });
      if (io.json) io.printJson(res.events);
      else
        for (const e of res.events) {
          const d = Object.entries(e.data)
            .filter(([k, v]) => k !== 'loop' && v !== null && v !== undefined)
            .map(([k, v]) => `${k}=${typeof v === 'object' ? jsonText(v) : String(v)}`)
            .join(' ');
          io.out([when(new Date(e.ts).toISOString()), e.type.replace(/^loop_/, ''), e.run ?? '-', d].map(safeLine).join('\t'));
        }
      return 0;
    }
    case 'run': {
      const [action, ...more] = args;
      const { positionals } = io.parse(VERB, more, {});
      const name = one(positionals, `run ${action ?? ''}`.trim());
      if (action === 'start') {
        const res = await call<FireOutcome>(io, 'loop.start', { name });
        if (io.json) io.printJson(res);
        else io.out(res.action === 'started' ? `${safeLine(res.name)} ${res.run}` : `loop ${safeLine(name)} is at its max concurrency: ${res.action}`);
        return 0;
      }
      if (action === 'stop') {
        const res = await call<{ stopped: string[] }>(io, 'loop.stop', { name });
        if (io.json) io.printJson(res);
        else io.out(res.stopped.length === 0 ? `loop ${safeLine(name)} has no active run` : `stopping ${res.stopped.length} run${res.stopped.length === 1 ? '' : 's'} of loop ${safeLine(name)}`);
        return 0;
      }
      if (action === 'ls') {
        const res = await call<{ runs: PublicLoopRun[] }>(io, 'loop.runs', { name });
        if (io.json) io.printJson(res.runs);
        else
          io.out(
            table(
              ['RUN', 'STATUS', 'STARTED', 'ENDED', 'EXIT', 'AGENTS'],
              res.runs.map((r) => [r.name ?? `(pending${r.coalesced ? `, +${r.coalesced} coalesced` : ''})`, r.status, when(r.started_at ?? r.created_at), when(r.ended_at), r.exit_code === null ? '-' : String(r.exit_code), String(r.children)]),
            ),
          );
        return 0;
      }
      throw new UsageError('loop run takes start, stop or ls', VERB);
    }
    default:
      throw new UsageError('loop takes create, ls, pause, resume, rm, logs or run', VERB);
  }
}
