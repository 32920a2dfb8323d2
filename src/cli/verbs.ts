// `orcr`: parse, call the supervisor, print text or --json, exit with a
// documented code (the README's table). Human output never echoes a control
// sequence (safeLine/safeText); JSON output escapes every control.

import fs from 'node:fs';
import path from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { Client } from '../client/client.js';
import { joinDashValues, wholeFlag } from '../client/flag-values.js';
import { ensureHome, homeDir, HomeError, type Home } from '../config/home.js';
import { ConfigError } from '../config/errors.js';
import { formatDuration, parseDuration } from '../config/duration.js';
import { ERROR_EXIT, RemoteError } from '../protocol/errors.js';
import type { PublicRun } from '../protocol/views.js';
import type { RunEvent } from '../core/events.js';
import { waitExitCode } from '../core/run-state.js';
import { ACTIVE_STATUSES, isRunStatus, RUN_STATUSES } from '../core/types.js';
import { MAIN_USAGE, VERB_USAGE } from './usage.js';
import { UsageError } from './usage-error.js';
import { treeOrder } from '../core/run-tree.js';
import { clusterLine, configNotes, plainNumber, psTable, psTree, showRun, sizeText, spendText, statsText, table, type SpendReply, type StatsReply } from './format.js';
import { followLogs, printLogs, type LogsMode } from './logs.js';
import { checkFrame } from './frame.js';
import { waitRuns } from '../client/wait.js';
import { safeLine, safeText } from '../text/terminal-text.js';
import { jsonText, quote } from '../text/json-text.js';


const VERSION = '0.1.0';

let jsonMode = false;

function out(text: string): void {
  process.stdout.write(text.endsWith('\n') ? text : text + '\n');
}

function printJson(value: unknown): void {
  out(jsonText(value, 2));
}

function fail(code: string, message: string, exit: number, verb?: string): never {
  if (jsonMode) printJson({ error: { code, message } });
  else {
    // A message may quote a run's name or an agent's words: no escapes reach the terminal.
    for (const line of safeText(message).split('\n')) process.stderr.write(`orcr: ${line}\n`);
    if (code === 'usage' && verb && VERB_USAGE[verb]) process.stderr.write(`usage: ${VERB_USAGE[verb]}\n`);
  }
  process.exit(exit);
}

type Parsed = { values: Record<string, string | boolean | undefined>; positionals: string[] };

function parse(verb: string, args: string[], options: ParseArgsConfig['options'], allowPositionals = true): Parsed {
  try {
    const all: NonNullable<ParseArgsConfig['options']> = { ...options, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } };
    return parseArgs({ args: joinDashValues(args, all), options: all, allowPositionals, strict: true }) as Parsed;
  } catch (e) {
    throw new UsageError((e as Error).message.replace(/\. To specify a positional.*$/s, ''), verb);
  }
}

let resolvedHome: Home | null = null;

/** The home, resolved once per process: a reconnect goes back to the same real path, whatever a link says by then. */
function cliHome(): Home {
  return (resolvedHome ??= ensureHome(homeDir()));
}

async function connect(): Promise<Client> {
  return Client.connect(cliHome());
}

async function main(argv: string[]): Promise<number> {
  const [verb, ...rest] = argv;
  jsonMode = rest.includes('--json') && !rest.slice(0, rest.indexOf('--json')).includes('--');
  if (!verb || verb === '--help' || verb === '-h' || verb === 'help') {
    out(MAIN_USAGE);
    return verb ? 0 : 2;
  }
  if (verb === '--version') {
    out(`orcr ${VERSION}`);
    return 0;
  }
  if (!(verb in VERB_USAGE)) throw new UsageError(`unknown verb "${verb}" (see orcr --help)`);
  if (rest.includes('--help') || rest.includes('-h')) {
    const dd = rest.indexOf('--');
    const h = rest.indexOf('--help') >= 0 ? rest.indexOf('--help') : rest.indexOf('-h');
    if (dd < 0 || h < dd) {
      out(`usage: ${VERB_USAGE[verb]}`);
      return 0;
    }
  }

  switch (verb) {
    case 'serve': {
      parse(verb, rest, {}, false);
      const { serve } = await import('./serve.js');
      return serve();
    }
    case 'run': {
      const fanOut = rest.includes('--from') && !rest.slice(0, rest.indexOf('--from')).includes('--');
      // Loaded here: the run-spec schema brings zod, a noticeable part of a start-up that no other verb needs.
      const { callerEnv, parseRunArgs, parseFanOut } = await import('./run-args.js');
      const io = { stdin: readStdin };
      const specs = fanOut ? parseFanOut(rest, process.cwd(), io) : [parseRunArgs(rest, process.cwd(), io)];
      // A run starts with the environment of the `orcr run` that made it (PATH included), not the supervisor's.
      const params = { specs, caller_env: callerEnv() };
      const prompt = specs.length === 1 ? (specs[0]!.prompt ?? '') : '';
      // Name the part that is big: a prompt read from a file, or a fan-out's many specs.
      checkFrame('run.enqueue', params, fanOut ? `the ${specs.length} run specs` : prompt.length > 1024 * 1024 ? 'the prompt' : 'the run spec');
      const c = await connect();
      const res = await c.call<{ runs: PublicRun[]; warnings?: string[] }>('run.enqueue', params);
      c.close();
      for (const w of res.warnings ?? []) process.stderr.write(`orcr: warning: ${safeLine(w)}\n`);
      if (jsonMode) printJson(fanOut ? res.runs : res.runs[0]);
      else for (const r of res.runs) out(`${safeLine(r.name)} ${r.uuid}`);
      return 0;
    }
    case 'ps': {
      const { values } = parse(verb, rest, { all: { type: 'boolean' }, status: { type: 'string' }, provider: { type: 'string', short: 'a' }, tree: { type: 'boolean' } }, false);
      if (values.status && !isRunStatus(values.status)) {
        throw new UsageError(`--status must be one of ${RUN_STATUSES.join(', ')}`, verb);
      }
      const c = await connect();
      // No cap on the listing: `ps --all` means all (filter with --status or -a).
      // Paged, newest first: `ps --all` of a home of months is many pages.
      const pages: PublicRun[][] = [];
      let before: number | undefined;
      for (;;) {
        const page = await c.call<{ runs: PublicRun[]; next: number | null }>('run.list', { all: values.all ?? false, status: values.status, provider: values.provider, before });
        pages.unshift(page.runs);
        if (page.next === null || page.next === undefined) break;
        before = page.next;
      }
      c.close();
      const res = { runs: pages.flat() };
      if (jsonMode) printJson(values.tree ? treeOrder(res.runs).map(({ run }) => run) : res.runs);
      else out(values.tree ? psTree(res.runs) : psTable(res.runs));
      return 0;
    }
    case 'show': {
      const { values, positionals } = parse(verb, rest, { env: { type: 'boolean' } });
      if (positionals.length !== 1) throw new UsageError('show takes exactly one run', verb);
      const c = await connect();
      const res = await c.call<{ run: PublicRun; env?: Record<string, string> }>('run.get', { ref: positionals[0], env: values.env === true });
      c.close();
      if (jsonMode) printJson(res.env ? { ...res.run, env: res.env } : res.run);
      else out(showRun(res.run, Date.now(), res.env));
      return 0;
    }
    case 'kill': {
      const { values, positionals } = parse(verb, rest, {
        force: { type: 'boolean' },
        all: { type: 'boolean' },
        status: { type: 'string' },
        provider: { type: 'string', short: 'a' },
        workload: { type: 'string', short: 'w' },
        name: { type: 'string' },
        yes: { type: 'boolean', short: 'y' },
        'dry-run': { type: 'boolean' },
        'keep-children': { type: 'boolean' },
      });
      const filter = { all: values.all === true, status: values.status as string | undefined, provider: values.provider as string | undefined, workload: values.workload as string | undefined, name: values.name as string | undefined };
      const byFilter = filter.all || filter.status !== undefined || filter.provider !== undefined || filter.workload !== undefined || filter.name !== undefined;
      if (byFilter && positionals.length > 0) throw new UsageError('kill takes runs, or a filter (--all, --status, -a, -w, --name), not both', verb);
      if (!byFilter && positionals.length === 0) throw new UsageError('kill needs runs, or a filter: --all, --status S, -a PROVIDER, -w WORKLOAD, --name GLOB', verb);
      if (!byFilter && (values.yes || values['dry-run'])) throw new UsageError('--yes and --dry-run go with a filter', verb);
      if (filter.status !== undefined && !(ACTIVE_STATUSES as readonly string[]).includes(filter.status)) throw new UsageError(`--status must be one of ${ACTIVE_STATUSES.join(', ')} (ended runs need no kill)`, verb);
      const c = await connect();
      let refs = positionals;
      if (byFilter) {
        const sel = await c.call<{ runs: { uuid: string; name: string; status: string }[] }>('run.select', filter);
        if (values['dry-run'] || sel.runs.length === 0) {
          c.close();
          if (jsonMode) printJson(sel.runs.map((r) => ({ ...r, action: 'would_kill' })));
          else out(sel.runs.length === 0 ? 'no active run matches' : [`would kill ${sel.runs.length} run${sel.runs.length === 1 ? '' : 's'}:`, ...sel.runs.map((r) => `  ${safeLine(r.name)} ${r.status}`)].join('\n'));
          return 0;
        }
        if (!values.yes) {
          const ok = await confirm(`kill ${sel.runs.length} run${sel.runs.length === 1 ? '' : 's'} (${sel.runs.slice(0, 5).map((r) => safeLine(r.name)).join(', ')}${sel.runs.length > 5 ? ', …' : ''})?`);
          if (ok === null) {
            c.close();
            throw new UsageError(`kill would act on ${sel.runs.length} runs: confirm with --yes (no terminal to ask on)`, verb);
          }
          if (!ok) {
            c.close();
            out('nothing killed');
            return 0;
          }
        }
        refs = sel.runs.map((r) => r.uuid);
      }
      const res = await c.call<{ results: KillResult[] }>('run.kill', { refs, force: values.force ?? false, keep_children: values['keep-children'] === true });
      c.close();
      const missing = res.results.filter((r) => r.action === 'not_found');
      if (jsonMode) printJson(res.results);
      else {
        for (const r of res.results) {
          const name = safeLine(r.name ?? r.ref);
          if (r.action === 'not_found') process.stderr.write(`orcr: no run ${quote(r.ref)}\n`);
          else if (r.action === 'already_ended') out(`${name} already ended (${r.exit_reason})`);
          else {
            const n = r.descendants?.length ?? 0;
            out(`${name} ${r.action}${n > 0 ? ` (and ${n} descendant${n === 1 ? '' : 's'})` : ''}`);
          }
        }
      }
      return missing.length > 0 ? 6 : 0;
    }
    case 'rerun': {
      const { positionals } = parse(verb, rest, {});
      if (positionals.length !== 1) throw new UsageError('rerun takes exactly one run', verb);
      const c = await connect();
      const res = await c.call<{ run: PublicRun }>('run.rerun', { ref: positionals[0] });
      c.close();
      if (jsonMode) printJson(res.run);
      else out(`${safeLine(res.run.name)} ${res.run.uuid}`);
      return 0;
    }
    case 'loop': {
      const { loopVerb } = await import('./loop.js');
      return loopVerb(rest, { json: jsonMode, parse, connect, out, printJson, confirm });
    }
    case 'queue': {
      const { positionals } = parse(verb, rest, {});
      if (positionals.length !== 1 || (positionals[0] !== 'pause' && positionals[0] !== 'resume')) throw new UsageError('queue takes "pause" or "resume"', verb);
      const c = await connect();
      const res = await c.call<{ paused: boolean; queued: number }>('queue.pause', { paused: positionals[0] === 'pause' });
      c.close();
      if (jsonMode) printJson(res);
      else out(res.paused ? `queue paused: nothing starts (${res.queued} queued) until orcr queue resume` : `queue resumed (${res.queued} queued)`);
      return 0;
    }
    case 'wait': {
      const { values, positionals } = parse(verb, rest, { all: { type: 'boolean' }, timeout: { type: 'string' } });
      if (positionals.length === 0 && !values.all) throw new UsageError('wait needs at least one run, or --all', verb);
      let timeout_ms: number | null = null;
      if (values.timeout !== undefined) {
        try {
          timeout_ms = parseDuration(values.timeout as string, '--timeout');
        } catch (e) {
          throw new UsageError((e as Error).message);
        }
      }
      const settled = await waitRuns(cliHome(), { refs: positionals.length ? positionals : undefined, all: values.all === true, timeout_ms }, { callerRun: process.env.ORCR_RUN });
      let worst = 0;
      for (const s of settled) worst = Math.max(worst, s.token === 'pending' ? 3 : s.token === 'not_found' ? 6 : waitExitCode(s.token));
      if (jsonMode) printJson(settled.map((s) => ({ name: s.name, uuid: s.uuid, token: s.token })));
      else for (const s of settled) out(`${safeLine(s.name)} ${s.token}`);
      return worst;
    }
    case 'send': {
      const { positionals } = parse(verb, rest, {});
      if (positionals.length < 2) throw new UsageError('send needs a run and the text to send (or - to read it from stdin)', verb);
      const text = positionals.length === 2 && positionals[1] === '-' ? readStdin() : positionals.slice(1).join(' ');
      const params = { ref: positionals[0], text };
      checkFrame('run.send', params, 'the text');
      const c = await connect();
      const res = await c.call<{ run: PublicRun }>('run.send', params);
      c.close();
      if (jsonMode) printJson(res.run);
      else out(`${safeLine(res.run.name)} input ${res.run.input_seq}`);
      return 0;
    }
    case 'logs': {
      const { values, positionals } = parse(verb, rest, {
        tail: { type: 'string' },
        follow: { type: 'boolean', short: 'f' },
        stderr: { type: 'boolean' },
        pretty: { type: 'boolean' },
        raw: { type: 'boolean' },
      });
      if (values.pretty && values.raw) throw new UsageError('--pretty and --raw are each other\'s opposite: give one', verb);
      if (jsonMode && (values.pretty || values.raw)) throw new UsageError('--json is a format of its own: not with --pretty or --raw', verb);
      if (positionals.length !== 1) throw new UsageError('logs takes exactly one run', verb);
      let tail: number | null = null;
      if (values.tail !== undefined) {
        const n = wholeFlag('--tail', values.tail as string);
        if (typeof n !== 'number') throw new UsageError(n.problem);
        tail = n;
      }
      const c = await connect();
      const info = await c.call<{ uuid: string; dir: string; protocol: string | null; status: string }>('run.resolve', { ref: positionals[0] });
      const file = path.join(info.dir, values.stderr ? 'err' : 'out');
      // The transcript on a terminal, the lines as written when piped; stderr is no protocol: always raw.
      const mode: LogsMode = jsonMode ? 'json' : values.stderr ? 'raw' : values.pretty ? 'pretty' : values.raw ? 'raw' : process.stdout.isTTY ? 'pretty' : 'raw';
      if (values.follow) return followLogs(c, file, info.protocol, tail, mode, info.uuid, () => Client.reconnect(cliHome()));
      c.close();
      printLogs(file, info.protocol, tail, mode);
      return 0;
    }
    case 'events': {
      const { values } = parse(verb, rest, { follow: { type: 'boolean', short: 'f' }, since: { type: 'string' } }, false);
      let since = 0;
      if (values.since !== undefined) {
        const n = wholeFlag('--since', values.since as string);
        if (typeof n !== 'number') throw new UsageError(n.problem);
        since = n;
      }
      return eventsVerb(since, values.follow === true);
    }
    case 'spend': {
      parse(verb, rest, {}, false);
      const c = await connect();
      const res = await c.call<SpendReply>('spend');
      c.close();
      if (jsonMode) printJson(res);
      else out(spendText(res));
      return 0;
    }
    case 'stats': {
      parse(verb, rest, {}, false);
      const c = await connect();
      const res = await c.call<StatsReply>('stats');
      c.close();
      if (jsonMode) printJson(res);
      else out(statsText(res));
      return 0;
    }
    case 'server': {
      const { values, positionals } = parse(verb, rest, { drain: { type: 'boolean' }, 'kill-agents': { type: 'boolean' } });
      const sub = positionals[0];
      if (positionals.length !== 1 || (sub !== 'status' && sub !== 'stop')) throw new UsageError('server takes "status" or "stop"', verb);
      if ((values.drain || values['kill-agents']) && sub !== 'stop') throw new UsageError('--drain and --kill-agents go with server stop', verb);
      if (values.drain && values['kill-agents']) throw new UsageError('server stop takes --drain or --kill-agents, not both', verb);
      const home = cliHome();
      let c: Client;
      try {
        // Agents outlive their supervisor: --kill-agents on a stopped home with a journal starts one that
        // admits nothing, re-adopts the live agents (pid and start time checked) and kills them.
        const killStopped = values['kill-agents'] === true && fs.existsSync(home.db);
        c = await Client.connect(home, killStopped ? { killAgents: true } : { autoStart: false });
      } catch (e) {
        if (e instanceof RemoteError && e.code === 'unavailable') {
          if (jsonMode) printJson({ running: false, home: home.dir });
          else out(`not running (home ${safeLine(home.dir)})`);
          return sub === 'status' ? 7 : 0;
        }
        throw e;
      }
      if (sub === 'status') {
        const st = await c.call<{
          pid: number;
          home: string;
          started_at: number;
          active: number;
          queued: number;
          seq: number;
          degraded: string | null;
          warnings?: string[];
          config_error?: { at: number; message: string } | null;
          cluster?: StatsReply['cluster'];
          paused?: boolean;
          draining?: boolean;
        }>('server.status');
        c.close();
        if (jsonMode) printJson({ running: true, ...st });
        else {
          out(`running: pid ${st.pid}, home ${safeLine(st.home)}, up since ${new Date(st.started_at).toISOString()}, ${st.active} active run${st.active === 1 ? '' : 's'}, ${st.queued} queued`);
          if (st.degraded) out(`DEGRADED: the journal cannot be written (${safeLine(st.degraded)}); nothing starts until it can`);
          if (st.paused) out('queue paused: nothing starts until orcr queue resume');
          if (st.draining) out('draining: nothing starts; it stops once the running agents have ended');
          if (st.cluster) out(clusterLine(st.cluster));
          for (const line of configNotes(st.warnings, st.config_error)) out(line);
        }
        return 0;
      }
      const mode = values.drain ? 'drain' : values['kill-agents'] ? 'kill_agents' : 'leave';
      const closed = new Promise<void>((r) => c.onClose(() => r()));
      const reply = await c.call<{ stopping: boolean; waiting_for?: number; queued?: number; paused?: boolean }>('server.stop', { mode });
      if (!jsonMode && reply.waiting_for) out(`${mode === 'drain' ? 'draining' : 'killing'}: waiting for ${reply.waiting_for} running agent${reply.waiting_for === 1 ? '' : 's'} to end…`);
      const queued = reply.queued ?? 0;
      if (!jsonMode && queued > 0) out(stayQueued(queued, reply.paused === true));
      await closed;
      if (jsonMode) printJson({ stopped: true, mode, queued, paused: reply.paused === true });
      else out(mode === 'leave' ? 'stopped (agents keep running; the next supervisor re-adopts them)' : 'stopped (no agent left running)');
      return 0;
    }
    case 'provider': {
      const { positionals } = parse(verb, rest, {});
      if (positionals[0] !== 'resume' || positionals.length !== 2) throw new UsageError('provider takes: resume NAME', verb);
      const c = await connect();
      const res = await c.call<{ resumed: boolean }>('provider.resume', { provider: positionals[1] });
      c.close();
      // Like `send` to a run that is not idle (exit 4): the target is not in the state the verb acts on.
      if (!res.resumed) fail('not_on_hold', `${positionals[1]} is not on hold`, 4);
      if (jsonMode) printJson(res);
      else out(`${safeLine(positionals[1]!)} resumed`);
      return 0;
    }
    case 'gc': {
      const { values } = parse(verb, rest, { 'older-than': { type: 'string' }, 'dry-run': { type: 'boolean' }, branches: { type: 'boolean' }, force: { type: 'boolean' } }, false);
      let older_than_ms: number | undefined;
      if (values['older-than'] !== undefined) {
        try {
          older_than_ms = parseDuration(values['older-than'] as string, '--older-than');
        } catch (e) {
          throw new UsageError((e as Error).message);
        }
      }
      const c = await connect();
      const res = await c.call<{ runs: number; bytes: number; events: number; dry_run: boolean; older_than_ms: number; worktrees?: WorktreeLetGo[] }>('gc', {
        older_than_ms,
        dry_run: values['dry-run'] === true,
        branches: values.branches === true,
        force: values.force === true,
      });
      c.close();
      if (jsonMode) printJson(res);
      else {
        // A dry run and the gc after it say the same, in the same words.
        const what = `${res.runs} ended run${res.runs === 1 ? '' : 's'} older than ${formatDuration(res.older_than_ms)} and ${res.events} event${res.events === 1 ? '' : 's'} (${sizeText(res.bytes)} of journal rows and run directories)`;
        out(res.dry_run ? `would remove ${what}` : `removed ${what}`);
        printLetGo(res.worktrees ?? [], res.dry_run);
      }
      return 0;
    }
    case 'diff': {
      const { values, positionals } = parse(verb, rest, { stat: { type: 'boolean' } });
      if (positionals.length !== 1) throw new UsageError('diff takes exactly one run', verb);
      const c = await connect();
      const res = await c.call<{ text: string; added: number; removed: number; files: number }>('run.diff', { ref: positionals[0], stat: values.stat === true });
      c.close();
      if (jsonMode) printJson(res);
      else process.stdout.write(safeDiff(res.text));
      return 0;
    }
    case 'worktree': {
      const [sub, ...args] = rest;
      if (sub === 'finish') {
        const { values, positionals } = parse(verb, args, { merge: { type: 'boolean' }, 'keep-branch': { type: 'boolean' }, discard: { type: 'boolean' } });
        if (positionals.length !== 1) throw new UsageError('worktree finish takes exactly one run', verb);
        const modes = (['merge', 'keep-branch', 'discard'] as const).filter((m) => values[m] === true);
        if (modes.length !== 1) throw new UsageError('worktree finish needs one of --merge, --keep-branch, --discard', verb);
        const mode = modes[0] === 'keep-branch' ? 'keep_branch' : modes[0]!;
        const c = await connect();
        const res = await c.call<{ run: PublicRun; merged_into?: string; committed: boolean }>('worktree.finish', { ref: positionals[0], mode });
        c.close();
        if (jsonMode) printJson(res);
        else {
          const w = res.run.worktree!;
          const note = res.committed ? ' (its uncommitted work was committed first)' : '';
          out(
            mode === 'merge'
              ? `merged ${safeLine(w.branch)} into ${safeLine(res.merged_into ?? '')}${note}; worktree removed`
              : mode === 'keep_branch'
                ? `kept branch ${safeLine(w.branch)}${note}; worktree removed`
                : `discarded ${safeLine(w.branch)} and its worktree`,
          );
        }
        return 0;
      }
      if (sub === 'prune') {
        const { values } = parse(verb, args, { force: { type: 'boolean' }, 'dry-run': { type: 'boolean' } }, false);
        const c = await connect();
        const res = await c.call<{ worktrees: WorktreeLetGo[] }>('worktree.prune', { force: values.force === true, dry_run: values['dry-run'] === true });
        c.close();
        if (jsonMode) printJson(res);
        else if (res.worktrees.length === 0) out('no orphaned worktrees');
        else printLetGo(res.worktrees, values['dry-run'] === true);
        return 0;
      }
      throw new UsageError('worktree takes finish or prune', verb);
    }
    case 'cluster': {
      const { positionals } = parse(verb, rest, {});
      const sub = positionals[0];
      if (sub === 'schema') {
        if (positionals.length !== 1) throw new UsageError('cluster schema takes nothing more', verb);
        const { CLUSTER_SCHEMA, CLUSTER_SCHEMA_VERSION } = await import('../limiter/pg-schema.js');
        if (jsonMode) printJson({ version: CLUSTER_SCHEMA_VERSION, sql: CLUSTER_SCHEMA.trim() });
        else out(CLUSTER_SCHEMA.trim());
        return 0;
      }
      if (sub === 'forget') {
        if (positionals.length !== 2 || positionals[1] === '') throw new UsageError('cluster forget takes the host name of one machine', verb);
        const host = positionals[1]!;
        const c = await connect();
        const res = await c.call<{ host: string; forgotten: boolean; alive: boolean }>('cluster.forget', { host });
        c.close();
        if (jsonMode) printJson(res);
        else out(`${safeLine(host)} forgotten: its row, queue places and leases are gone from the cluster`);
        return 0;
      }
      if (sub !== 'status' || positionals.length !== 1) throw new UsageError('cluster takes "status", "schema" or "forget HOST"', verb);
      const c = await connect();
      const st = await c.call<StatsReply['cluster'] & {}>('cluster.status');
      c.close();
      if (jsonMode) printJson(st);
      else {
        out(clusterLine(st));
        const read = st.machines_at ? ` (as the database last told, at ${new Date(st.machines_at).toISOString()})` : '';
        if (!st.available && st.machines.length > 0) out(`machines${read}:`);
        out(
          table(
            ['HOST', 'STATE', 'LAST HEARTBEAT', 'LEASES', 'WAITERS'],
            st.machines.map((m) => [safeLine(m.host), m.alive ? 'up' : 'gone', m.heartbeat, String(m.leases), String(m.waiters)]),
          ),
        );
      }
      return 0;
    }
    case 'mcp': {
      parse(verb, rest, {}, false);
      const { serveMcp } = await import('../mcp/serve.js');
      return serveMcp(VERSION);
    }
    case 'demo': {
      const { values } = parse(verb, rest, { home: { type: 'string' } }, false);
      const { runDemo } = await import('./demo.js');
      return runDemo(values.home as string | undefined, jsonMode);
    }
  }
  return 0;
}

interface KillResult {
  ref: string;
  name: string | null;
  uuid: string | null;
  action: 'killing' | 'canceled' | 'already_ended' | 'not_found';
  status: string | null;
  exit_reason: string | null;
  /** Active runs below it killed with it (none with --keep-children). */
  descendants?: string[];
}

const readStdin = (): string => fs.readFileSync(0, 'utf8');

interface WorktreeLetGo {
  run: string | null;
  path: string;
  branch: string | null;
  action: 'removed' | 'kept_dirty' | 'kept_commits';
  branch_kept?: boolean;
}

/** One line per worktree gc or prune let go of, or kept (and why). */
function printLetGo(list: WorktreeLetGo[], dry: boolean): void {
  for (const w of list) {
    const branch = w.branch ? ` (branch ${safeLine(w.branch)}${w.branch_kept ? ' kept: it has commits' : ''})` : '';
    if (w.action === 'removed') out(`${dry ? 'would remove' : 'removed'} worktree ${safeLine(w.path)}${branch}`);
    else if (w.action === 'kept_dirty') out(`kept worktree ${safeLine(w.path)}: it has uncommitted changes (--force removes it)`);
    else out(`kept worktree ${safeLine(w.path)}: its branch ${safeLine(w.branch ?? '')} has commits (--branches removes the worktree, keeping the branch)`);
  }
}

/** A diff for a terminal: coloured by line (+ green, − red) when colour is on, never an escape of its own. */
function safeDiff(text: string): string {
  const color = process.stdout.isTTY ? !process.env.NO_COLOR : process.env.FORCE_COLOR === '1';
  return text
    .split('\n')
    .map((l) => {
      const s = safeLine(l);
      if (!color) return s;
      if (l.startsWith('+') && !l.startsWith('+++')) return `\x1b[32m${s}\x1b[0m`;
      if (l.startsWith('-') && !l.startsWith('---')) return `\x1b[31m${s}\x1b[0m`;
      if (l.startsWith('@@')) return `\x1b[36m${s}\x1b[0m`;
      return s;
    })
    .join('\n');
}

/** Ask y/N on the terminal; null when there is none to ask on. */
async function confirm(question: string): Promise<boolean | null> {
  if (!process.stdin.isTTY || !process.stderr.isTTY) return null;
  const { createInterface } = await import('node:readline/promises');
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return /^y(es)?$/i.test((await rl.question(`${question} [y/N] `)).trim());
  } finally {
    rl.close();
  }
}

/** What a `server stop` leaves queued: neither --drain nor --kill-agents touches queued runs, and the next supervisor starts them. */
function stayQueued(n: number, paused: boolean): string {
  const runs = n === 1 ? '1 queued run stays queued' : `${n} queued runs stay queued`;
  const them = n === 1 ? 'it' : 'them';
  return paused
    ? `${runs}; the queue is paused, so the next supervisor starts ${them} only after orcr queue resume`
    : `${runs}: the next supervisor starts ${them} (orcr queue pause first keeps ${them} waiting; orcr kill --status queued drops ${them})`;
}

/**
 * One event: `seq ts type id name data`, tab-separated, replayed or live
 * alike. A run is its short id (as `ps` shows it, and a reference every verb
 * takes) and its name, one per column: names repeat across time, ids do not.
 */
function printEvent(e: RunEvent, name: string | null): void {
  if (jsonMode) out(jsonText(e));
  else {
    const d = Object.entries(e.data)
      .filter(([, v]) => v !== null && v !== undefined)
      .map(([k, v]) => `${k}=${typeof v === 'number' ? plainNumber(v) : typeof v === 'object' ? jsonText(v) : String(v)}`)
      .join(' ');
    const id = e.run === null ? '-' : e.run.slice(0, 8);
    out([String(e.seq), new Date(e.ts).toISOString(), e.type, id, e.run === null ? '-' : (name ?? '-'), d].map(safeLine).join('\t'));
  }
}

/** The name of an event's run, from the names a reply carries. */
const nameIn = (names: Record<string, string> | undefined, e: RunEvent): string | null => (e.run !== null && names && Object.hasOwn(names, e.run) ? names[e.run]! : null);

async function eventsVerb(since: number, follow: boolean): Promise<number> {
  const c = await connect();
  if (!follow) {
    // Page through the journal: a long-lived home holds millions of events.
    const PAGE = 10_000;
    let cursor = since;
    let first = true;
    if (jsonMode) process.stdout.write('[');
    for (;;) {
      const res = await c.call<{ events: RunEvent[]; names?: Record<string, string> }>('events', { since: cursor, limit: PAGE });
      for (const e of res.events) {
        if (jsonMode) {
          process.stdout.write((first ? '\n  ' : ',\n  ') + jsonText(e));
          first = false;
        } else printEvent(e, nameIn(res.names, e));
      }
      if (res.events.length < PAGE) break;
      cursor = res.events[res.events.length - 1]!.seq;
    }
    if (jsonMode) process.stdout.write(first ? ']\n' : '\n]\n');
    c.close();
    return 0;
  }
  // Follow: replay from `since`, then the live stream; on a restart, resume from the last seq seen.
  let last = since;
  let client: Client | null = c;
  for (;;) {
    const cl: Client = client ?? (await Client.reconnect(cliHome()));
    client = null;
    const done = new Promise<void>((r) =>
      cl.onClose((stopped) => {
        if (stopped) fail('stopped', 'the supervisor was stopped (orcr server stop); no more events', 7);
        r();
      }),
    );
    // Live events can arrive in the same read as the subscribe reply, before
    // its replay is printed: hold them until the replay is out.
    let held: { event: RunEvent; name: string | null }[] | null = [];
    const emit = (event: RunEvent, name: string | null): void => {
      if (event.seq <= last) return;
      last = event.seq;
      printEvent(event, name);
    };
    cl.onEvent((m) => {
      if (held) held.push({ event: m.event, name: m.run?.name ?? null });
      else emit(m.event, m.run?.name ?? null);
    });
    const res = await cl.call<{ seq: number; events: RunEvent[]; names?: Record<string, string>; more?: boolean; pruned?: { first_seq: number } }>('subscribe', { since: last });
    if (res.pruned) process.stderr.write(`orcr: events ${last + 1}–${res.pruned.first_seq - 1} were removed by retention (retention.ended, orcr gc); following from ${res.pruned.first_seq}\n`);
    for (const e of res.events) emit(e, nameIn(res.names, e));
    // A replay longer than a page: the rest by pages, live events held meanwhile.
    for (let more = res.more === true; more; ) {
      const page = await cl.call<{ events: RunEvent[]; names?: Record<string, string> }>('events', { since: last });
      for (const e of page.events) emit(e, nameIn(page.names, e));
      more = page.events.length > 0 && last < res.seq;
    }
    for (const h of held) emit(h.event, h.name);
    held = null;
    await done;
  }
}

process.stdout.on('error', (e: NodeJS.ErrnoException) => {
  if (e.code === 'EPIPE') process.exit(0);
});

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (e: unknown) => {
    if (e instanceof UsageError) fail('usage', e.message, 2, e.verb);
    if (e instanceof ConfigError) fail('config', e.message, 2);
    if (e instanceof HomeError) fail('usage', e.message, 2);
    if (e instanceof RemoteError) fail(e.code, e.message, ERROR_EXIT[e.code] ?? 1);
    fail('internal', (e as Error)?.stack ?? String(e), 1);
  },
);

