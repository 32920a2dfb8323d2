// The run actions keys ask for — kill, send, wait, a new run from a typed
// line — carried out over the session, each saying in the footer what it did
// or why it could not. No key handling here (input/bindings.ts) and no
// rendering: the store is the only way back to the person.

import { callerEnv, parseRunArgs } from '../../client/run-args.js';
import type { KillResult } from '../../client/methods.js';
import type { RunPort } from '../input/actions.js';
import { shellSplit } from '../input/shell-split.js';
import { clean } from '../state/safe-text.js';
import { error, info, type TuiStore, type WaitBanner } from '../state/store.js';
import type { ClientLike, Session } from './session.js';
import { runOf } from '../state/fleet.js';

/** How long a settled wait's banner stays before it gives its line back. */
const WAIT_BANNER_MS = 60_000;

/** The banners still worth a line at `now`: those waiting, and those settled within the last minute. */
export function liveWaits(waits: readonly WaitBanner[], now: number): WaitBanner[] {
  return waits.filter((w) => w.state === 'waiting' || now - w.at < WAIT_BANNER_MS);
}

/** What the server did with a kill (run.kill's per-target result). */
type KillOutcome = Pick<KillResult, 'action' | 'exit_reason'>;

function killResult(name: string, outcome: KillOutcome | undefined, force: boolean): string {
  switch (outcome?.action) {
    case 'canceled':
      return `canceled ${name}: it had not started`;
    case 'already_ended':
      return `${name} had already ended (${outcome.exit_reason}): nothing to kill`;
    case 'not_found':
      return `${name}: no such run`;
    default:
      return `kill sent to ${name}${force ? ' (SIGKILL)' : ''}`;
  }
}

export interface RunActionsOptions {
  /** Working directory for `n` (relative --cwd and the default cwd of new runs). */
  cwd?: string;
}

export class RunActions implements RunPort {
  private waitId = 0;
  /** Actions on a run still on their way (a send): a wait issued after them waits for them. */
  private inflight = new Map<string, Promise<unknown>>();

  constructor(
    private readonly store: TuiStore,
    private readonly session: Session,
    private readonly opts: RunActionsOptions = {},
  ) {}

  private nameOf(uuid: string): string {
    return runOf(this.store.getState(), uuid)?.name ?? uuid.slice(0, 8);
  }

  private fail(what: string, e: unknown): void {
    const msg = e instanceof Error ? e.message : String(e);
    this.session.set(error(`${what}: ${msg}`, Date.now()));
  }

  private need(): ClientLike | null {
    const c = this.session.client;
    if (c) return c;
    this.session.set(error('not connected to the supervisor (r to reconnect)', Date.now()));
    return null;
  }

  kill(uuid: string, force: boolean): void {
    const c = this.need();
    if (!c) return;
    const name = this.nameOf(uuid);
    c.call('run.kill', { refs: [uuid], force })
      .then((res) => this.session.set(info(killResult(name, res.results[0], force), Date.now())))
      .catch((e) => this.fail(`kill ${name}`, e));
  }

  killMany(uuids: readonly string[], force: boolean): void {
    const c = this.need();
    if (!c) return;
    // One call per machine: the supervisor forwards one machine's runs at a time (tagged rows of several, in cluster scope).
    const byHost = new Map<string, string[]>();
    const faces = this.store.getState().fleet.faces;
    for (const u of uuids) {
      const host = faces[u]?.host ?? '';
      byHost.set(host, [...(byHost.get(host) ?? []), u]);
    }
    Promise.all([...byHost.values()].map((refs) => c.call('run.kill', { refs, force })))
      .then((answers) => {
        const res = { results: answers.flatMap((a) => a.results) };
        const n = (a: KillOutcome['action']): number => res.results.filter((r) => r.action === a).length;
        const parts = [`kill sent to ${n('killing')}${force ? ' (SIGKILL)' : ''}`];
        if (n('canceled')) parts.push(`${n('canceled')} canceled before they started`);
        if (n('already_ended')) parts.push(`${n('already_ended')} had ended`);
        if (n('not_found')) parts.push(`${n('not_found')} gone`);
        this.session.set(info(`${uuids.length} runs: ${parts.join(', ')}`, Date.now()));
      })
      .catch((e) => this.fail(`kill ${uuids.length} runs`, e));
  }

  /** Input to an idle run; an empty line is refused here, whoever asks: it would be an empty turn. */
  send(uuid: string, text: string): void {
    const name = this.nameOf(uuid);
    if (text === '') {
      this.session.set(error(`nothing sent to ${name}: the line was empty`, Date.now()));
      return;
    }
    const c = this.need();
    if (!c) return;
    const p = c
      .call('run.send', { ref: uuid, text })
      .then((res) => this.session.set(info(`sent to ${name}${res.run ? ` (input #${res.run.input_seq})` : ''}`, Date.now())))
      .catch((e) => this.fail(`send to ${name}`, e));
    this.inflight.set(uuid, p);
    void p.finally(() => {
      if (this.inflight.get(uuid) === p) this.inflight.delete(uuid);
    });
  }

  /** `w`: a second connection blocks in run.wait, so the main stream keeps flowing. */
  wait(uuid: string): void {
    if (!this.need()) return;
    const id = ++this.waitId;
    const name = this.nameOf(uuid);
    const banner: WaitBanner = { id, uuid, name, state: 'waiting', token: null, error: null, at: Date.now() };
    this.session.set((s) => ({
      waits: [...liveWaits(s.waits, Date.now()), banner].slice(-4),
      ...info(`waiting on ${name} until it is idle or ended…`, Date.now()),
    }));
    const update = (patch: Partial<WaitBanner>): void =>
      this.session.set((s) => ({
        waits: s.waits.map((w) => (w.id === id ? { ...w, ...patch, at: Date.now() } : w)),
        ...(patch.state === 'settled' ? info(`wait on ${name}: ${patch.token}`, Date.now()) : error(`wait on ${name} failed: ${patch.error}`, Date.now())),
      }));
    void (async () => {
      let wc: ClientLike | null = null;
      try {
        // `s` then `w`: wait for the turn the input starts, not the one before it.
        await this.inflight.get(uuid);
        wc = await this.session.openExtra();
        const res = await wc.call('run.wait', { refs: [uuid] });
        // The stream told the main connection first; show that before the banner so they agree.
        this.session.batcher.flush();
        update({ state: 'settled', token: res.settled[0]?.token ?? 'unknown' });
      } catch (e) {
        update({ state: 'failed', error: clean((e as Error).message) });
      } finally {
        if (wc) this.session.releaseExtra(wc);
      }
    })();
  }

  /** `n`: a typed line of `orcr run` flags becomes a run spec here, and a run there. */
  enqueue(line: string): void {
    let spec;
    try {
      const args = shellSplit(line);
      if (args.length === 0) {
        this.session.set(error('new run: nothing typed (give -a PROVIDER -p PROMPT or -- COMMAND)', Date.now()));
        return;
      }
      spec = parseRunArgs(args, this.opts.cwd ?? process.cwd());
    } catch (e) {
      this.fail('new run', e);
      return;
    }
    const c = this.need();
    if (!c) return;
    // A run starts with the environment of whoever made it: here, this TUI's.
    c.call('run.enqueue', { specs: [spec], caller_env: callerEnv(process.env) })
      .then((res) => {
        const r = res.runs[0];
        this.session.set(info(r ? `queued ${r.name} (${r.uuid.slice(0, 8)})` : 'queued', Date.now()));
      })
      .catch((e) => this.fail('new run', e));
  }

  rerun(uuid: string): void {
    const c = this.need();
    if (!c) return;
    const name = this.nameOf(uuid);
    c.call('run.rerun', { ref: uuid })
      .then((res) => this.session.set(info(`queued ${res.run.name} (${res.run.uuid.slice(0, 8)}), a rerun of ${name}`, Date.now())))
      .catch((e) => this.fail(`rerun ${name}`, e));
  }

  resumeProvider(provider: string): void {
    const c = this.need();
    if (!c) return;
    c.call('provider.resume', { provider })
      .then((res) => this.session.set(info(res.resumed ? `${provider} resumed: its queued runs may start now` : `${provider} was not on hold`, Date.now())))
      .catch((e) => this.fail(`resume ${provider}`, e));
  }

  pauseQueue(paused: boolean): void {
    const c = this.need();
    if (!c) return;
    c.call('queue.pause', { paused })
      .then((res) =>
        this.session.set(
          info(res.paused ? `queue paused: nothing starts (${res.queued} queued) until P resumes it` : `queue resumed (${res.queued} queued)`, Date.now()),
        ),
      )
      .catch((e) => this.fail(paused ? 'pause the queue' : 'resume the queue', e));
  }
}
