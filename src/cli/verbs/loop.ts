// `orcr loop …`: durable cron for a command. Parsing and printing only; the
// schedule is checked and kept by the supervisor (server/loops.ts), which
// also reads --once-at, so a relative time is relative to its clock.

import { NOT_ZERO } from '../../config/duration.js';
import type { Orcr } from '../../sdk/client.js';
import { safeLine } from '../../text/terminal-text.js';
import { jsonText } from '../../text/json-text.js';
import { table } from '../format.js';
import { VERBS } from '../grammar.js';
import { durationFlag, wholeNumberFlag, type Shell, type Verb } from '../shell.js';
import { UsageError } from '../usage-error.js';

const VERB = 'loop';
const SUBS = VERBS.loop.subcommands;

/** What the user's clock reads: the zone a cron is kept in. */
export function localZone(env: NodeJS.ProcessEnv = process.env): string {
  return Intl.DateTimeFormat(undefined, env.TZ ? { timeZone: env.TZ } : {}).resolvedOptions().timeZone;
}

const when = (t: string | null): string => (t === null ? '-' : t.replace('T', ' ').replace(/\.\d+Z$/, 'Z'));

/** One SDK call on a connection of its own. */
const call = <T>(io: Shell, fn: (loops: Orcr['loops']) => Promise<T>): Promise<T> => io.withSdk((o) => fn(o.loops));

function one(positionals: string[], what: string): string {
  if (positionals.length !== 1) throw new UsageError(`loop ${what} takes exactly one loop name`, VERB);
  return positionals[0]!;
}

type Sub = (args: string[], io: Shell) => Promise<number>;

async function create(args: string[], io: Shell): Promise<number> {
  const dd = args.indexOf('--');
  if (dd < 0 || dd === args.length - 1) throw new UsageError('loop create needs the command after --', VERB);
  const { values, positionals } = io.parse(VERB, args.slice(0, dd), SUBS.create);
  const [name, ...cron] = positionals;
  if (name === undefined) throw new UsageError('loop create needs a name', VERB);
  const onceAt = values['once-at'] as string | undefined;
  if ((cron.length === 0) === (onceAt === undefined))
    throw new UsageError('loop create needs a cron schedule ("0 9 * * 1-5") or --once-at TIME, not both', VERB);
  const max = values['max-concurrency'] === undefined ? 1 : wholeNumberFlag(values['max-concurrency'] as string, '--max-concurrency', 1);
  const overlap = (values.overlap as string | undefined) ?? 'queue';
  if (overlap !== 'queue' && overlap !== 'skip') throw new UsageError('--overlap must be queue or skip', VERB);
  let timeout: number | null = null;
  if (values.timeout !== undefined) {
    timeout = durationFlag(values.timeout as string, '--timeout');
    if (timeout === 0) throw new UsageError(`--timeout ${NOT_ZERO}, got "${values.timeout as string}"`);
  }
  // Its runs start with this environment (the SDK's callerEnv), as `orcr run`'s do.
  const loop = await call(io, (l) =>
    l.create({
      name,
      // One argument ("*/5 * * * *") or five: the supervisor counts the fields.
      cron: cron.length > 0 ? cron.join(' ') : undefined,
      onceAt,
      tz: (values.tz as string | undefined) ?? localZone(),
      maxConcurrency: max,
      overlap,
      timeoutMs: timeout,
      command: args.slice(dd + 1),
      cwd: process.cwd(),
    }),
  );
  if (io.json) io.printJson(loop);
  else io.out(`loop ${safeLine(loop.name)}: ${safeLine(loop.schedule)}${loop.tz ? ` (${loop.tz})` : ''}, next fire ${when(loop.next_fire_at)}`);
  return 0;
}

async function list(args: string[], io: Shell): Promise<number> {
  io.parse(VERB, args, SUBS.ls);
  const loops = await call(io, (l) => l.list());
  if (io.json) io.printJson(loops);
  else if (loops.length === 0) io.out('no loops (orcr loop create NAME "CRON" -- COMMAND)');
  else
    io.out(
      table(
        ['NAME', 'SCHEDULE', 'TZ', 'NEXT', 'LAST', 'ACTIVE', 'STATE'],
        loops.map((l) => [
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

const pauseOrResume =
  (sub: 'pause' | 'resume'): Sub =>
  async (args, io) => {
    const { positionals } = io.parse(VERB, args, SUBS[sub]);
    const name = one(positionals, sub);
    const loop = await call(io, (l) => (sub === 'pause' ? l.pause(name) : l.resume(name)));
    if (io.json) io.printJson(loop);
    else io.out(loop.paused ? `loop ${safeLine(loop.name)} paused` : `loop ${safeLine(loop.name)} resumed, next fire ${when(loop.next_fire_at)}`);
    return 0;
  };

async function remove(args: string[], io: Shell): Promise<number> {
  const { values, positionals } = io.parse(VERB, args, SUBS.rm);
  const name = one(positionals, 'rm');
  if (!values.yes) {
    const ok = await io.confirm(`remove loop ${safeLine(name)}${values['kill-active'] ? ' and kill its active runs' : ''}?`);
    if (ok === null) throw new UsageError(`loop rm: confirm with -y (no terminal to ask on)`, VERB);
    if (!ok) {
      io.out('nothing removed');
      return 0;
    }
  }
  const res = await call(io, (l) => l.remove(name, { killActive: values['kill-active'] === true }));
  if (io.json) io.printJson(res);
  else
    io.out(`loop ${safeLine(res.removed)} removed${res.killed.length > 0 ? ` (killing ${res.killed.length} run${res.killed.length === 1 ? '' : 's'})` : ''}`);
  return 0;
}

async function logs(args: string[], io: Shell): Promise<number> {
  const { positionals } = io.parse(VERB, args, SUBS.logs);
  const name = one(positionals, 'logs');
  const events = await call(io, (l) => l.events(name));
  if (io.json) io.printJson(events);
  else
    for (const e of events) {
      const d = Object.entries(e.data)
        .filter(([k, v]) => k !== 'loop' && v !== null && v !== undefined)
        .map(([k, v]) => `${k}=${typeof v === 'object' ? jsonText(v) : String(v)}`)
        .join(' ');
      io.out([when(new Date(e.ts).toISOString()), e.type.replace(/^loop_/, ''), e.run ?? '-', d].map(safeLine).join('\t'));
    }
  return 0;
}

/** `loop run start|stop|ls NAME`: a loop's runs by hand. */
async function runs(args: string[], io: Shell): Promise<number> {
  const [action, ...more] = args;
  if (action !== 'start' && action !== 'stop' && action !== 'ls') throw new UsageError('loop run takes start, stop or ls', VERB);
  const { positionals } = io.parse(VERB, more, SUBS.run.subcommands[action]);
  const name = one(positionals, `run ${action}`);
  if (action === 'start') {
    const res = await call(io, (l) => l.start(name));
    if (io.json) io.printJson(res);
    else io.out(res.action === 'started' ? `${safeLine(res.name)} ${res.run}` : `loop ${safeLine(name)} is at its max concurrency: ${res.action}`);
  } else if (action === 'stop') {
    const res = { stopped: await call(io, (l) => l.stop(name)) };
    if (io.json) io.printJson(res);
    else
      io.out(
        res.stopped.length === 0
          ? `loop ${safeLine(name)} has no active run`
          : `stopping ${res.stopped.length} run${res.stopped.length === 1 ? '' : 's'} of loop ${safeLine(name)}`,
      );
  } else {
    const list = await call(io, (l) => l.runs(name));
    if (io.json) io.printJson(list);
    else
      io.out(
        table(
          ['RUN', 'STATUS', 'STARTED', 'ENDED', 'EXIT', 'AGENTS'],
          list.map((r) => [
            r.name ?? `(pending${r.coalesced ? `, +${r.coalesced} coalesced` : ''})`,
            r.status,
            when(r.started_at ?? r.created_at),
            when(r.ended_at),
            r.exit_code === null ? '-' : String(r.exit_code),
            String(r.children),
          ]),
        ),
      );
  }
  return 0;
}

const SUBVERBS: Record<string, Sub> = { create, ls: list, pause: pauseOrResume('pause'), resume: pauseOrResume('resume'), rm: remove, logs, run: runs };

const loopVerb: Verb = async (_verb, rest, io) => {
  const [sub, ...args] = rest;
  const fn = sub !== undefined && Object.hasOwn(SUBVERBS, sub) ? SUBVERBS[sub]! : null;
  if (fn === null) throw new UsageError('loop takes create, ls, pause, resume, rm, logs or run', VERB);
  return fn(args, io);
};
export default loopVerb;
