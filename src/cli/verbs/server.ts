// `orcr server status|stop`, `orcr queue pause|resume`, `orcr provider resume`:
// the supervisor itself, its queue, a provider's hold.

import fs from 'node:fs';
import type { Orcr } from '../../sdk/client.js';
import { OrcrError } from '../../sdk/errors.js';
import { safeLine } from '../../text/terminal-text.js';
import { clusterLine, configNotes } from '../format-stats.js';
import { VERBS, withSubcommandFlags } from '../grammar.js';
import type { Shell, Verb } from '../shell.js';
import { UsageError } from '../usage-error.js';

/** What a `server stop` leaves queued: neither --drain nor --kill-agents touches queued runs, and the next supervisor starts them. */
function stayQueued(n: number, paused: boolean): string {
  const runs = n === 1 ? '1 queued run stays queued' : `${n} queued runs stay queued`;
  const them = n === 1 ? 'it' : 'them';
  return paused
    ? `${runs}; the queue is paused, so the next supervisor starts ${them} only after orcr queue resume`
    : `${runs}: the next supervisor starts ${them} (orcr queue pause first keeps ${them} waiting; orcr kill --status queued drops ${them})`;
}

async function server(verb: string, rest: string[], sh: Shell): Promise<number> {
  const { values, positionals } = sh.parse(verb, rest, withSubcommandFlags(VERBS.server));
  const sub = positionals[0];
  if (positionals.length !== 1 || (sub !== 'status' && sub !== 'stop')) throw new UsageError('server takes "status" or "stop"', verb);
  if ((values.drain || values['kill-agents']) && sub !== 'stop') throw new UsageError('--drain and --kill-agents go with server stop', verb);
  if (values.drain && values['kill-agents']) throw new UsageError('server stop takes --drain or --kill-agents, not both', verb);
  const home = sh.home();
  let orcr: Orcr;
  try {
    // Agents outlive their supervisor: --kill-agents on a stopped home with a journal starts one that
    // admits nothing, re-adopts the live agents (pid and start time checked) and kills them.
    const killStopped = values['kill-agents'] === true && fs.existsSync(home.db);
    orcr = await sh.sdk(killStopped ? { killAgents: true, now: true } : { autoStart: false, now: true });
  } catch (e) {
    if (e instanceof OrcrError && e.code === 'unavailable') {
      if (sh.json) sh.printJson({ running: false, home: home.dir });
      else sh.out(`not running (home ${safeLine(home.dir)})`);
      return sub === 'status' ? 7 : 0;
    }
    throw e;
  }
  if (sub === 'status') {
    const st = await orcr.server.status();
    orcr.close();
    if (sh.json) sh.printJson({ running: true, ...st });
    else {
      sh.out(
        `running: pid ${st.pid}, home ${safeLine(st.home)}, up since ${new Date(st.started_at).toISOString()}, ${st.active} active run${st.active === 1 ? '' : 's'}, ${st.queued} queued`,
      );
      if (st.degraded) sh.out(`DEGRADED: the journal cannot be written (${safeLine(st.degraded)}); nothing starts until it can`);
      if (st.paused) sh.out('queue paused: nothing starts until orcr queue resume');
      if (st.draining) sh.out('draining: nothing starts; it stops once the running agents have ended');
      if (st.cluster) sh.out(clusterLine(st.cluster));
      for (const line of configNotes(st.warnings, st.config_error)) sh.out(line);
    }
    return 0;
  }
  const mode = values.drain ? 'drain' : values['kill-agents'] ? 'kill_agents' : 'leave';
  const reply = await orcr.server.stop({
    mode,
    onAnswer: (r) => {
      if (!sh.json && r.waiting_for)
        sh.out(`${mode === 'drain' ? 'draining' : 'killing'}: waiting for ${r.waiting_for} running agent${r.waiting_for === 1 ? '' : 's'} to end…`);
      if (!sh.json && (r.queued ?? 0) > 0) sh.out(stayQueued(r.queued, r.paused === true));
    },
  });
  orcr.close();
  if (sh.json) sh.printJson({ stopped: true, mode, queued: reply.queued ?? 0, paused: reply.paused === true });
  else sh.out(mode === 'leave' ? 'stopped (agents keep running; the next supervisor re-adopts them)' : 'stopped (no agent left running)');
  return 0;
}

const serverVerbs: Verb = async (verb, rest, sh) => {
  if (verb === 'server') return server(verb, rest, sh);
  const { values, positionals } = sh.parse(verb, rest, withSubcommandFlags(verb === 'queue' ? VERBS.queue : VERBS.provider));
  const host = values.host as string | undefined;
  if (host !== undefined && host.trim() === '') throw new UsageError("--host needs a machine's host name", verb);
  const on = host === undefined ? {} : { host };
  const where = host === undefined ? '' : ` on ${safeLine(host)}`;
  if (verb === 'queue') {
    if (positionals.length !== 1 || (positionals[0] !== 'pause' && positionals[0] !== 'resume')) throw new UsageError('queue takes "pause" or "resume"', verb);
    const res = await sh.withSdk((o) => (positionals[0] === 'pause' ? o.queue.pause(on) : o.queue.resume(on)));
    const resume = host === undefined ? 'orcr queue resume' : `orcr queue resume --host ${safeLine(host)}`;
    if (sh.json) sh.printJson(res);
    else sh.out(res.paused ? `queue paused${where}: nothing starts (${res.queued} queued) until ${resume}` : `queue resumed${where} (${res.queued} queued)`);
    return 0;
  }
  if (positionals[0] !== 'resume' || positionals.length !== 2) throw new UsageError('provider takes: resume NAME', verb);
  const provider = positionals[1]!;
  const resumed = await sh.withSdk((o) => o.providers.resume(provider, on));
  // Like `send` to a run that is not idle (exit 4): the target is not in the state the verb acts on.
  if (!resumed) sh.fail('not_on_hold', `${provider} is not on hold${where}`, 4);
  if (sh.json) sh.printJson({ resumed });
  else sh.out(`${safeLine(provider)} resumed${where}`);
  return 0;
};
export default serverVerbs;
