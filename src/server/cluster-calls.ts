// The caller's side of a command to another machine (issue 43): a socket
// request whose run refs (or `--host`) name another machine of the cluster,
// as the method table's `remote` says, is written to orcr_command for that
// machine's supervisor, and its answer awaited — woken by a notice on this
// machine's channel, or found by polling where notices do not arrive (a
// transaction-mode pooler) — and returned as if the call were local: same
// result (its runs named HOST:NAME), same error code, same words. Refused at
// once: a machine not heard from within lease_ttl, one that takes no
// commands, the database away (nothing is queued to go later), a role that
// may not write orcr_command. A command nobody takes in time is withdrawn,
// so it is never carried out late.

import { machineVerdict, placeCall, remoteInput, renameAnswer, ago } from '../core/cluster-commands.js';
import { remoteName, splitRef } from '../core/cluster-ref.js';
import { ambiguousText, lookupPublished } from '../core/fleet-view.js';
import { ClusterRefused, ClusterUnavailable } from '../limiter/pg-errors.js';
import type { CommandState, PgCommands } from '../limiter/pg-commands.js';
import { isErrorCode, RemoteError } from '../protocol/errors.js';
import { METHODS, type MethodName } from '../protocol/methods.js';
import { quote } from '../text/json-text.js';
import type { Forwarded } from './requests.js';
import type { ClusterLink } from './cluster-link.js';

export type CallLink = Pick<ClusterLink, 'name' | 'host' | 'commands' | 'listenNotices' | 'noticesArrive' | 'hosts' | 'down'>;

export interface CallsDeps {
  link: CallLink;
  /** Whether a local run answers to the whole ref (a run named `b:fix` here). */
  localExists: (ref: string) => boolean;
  /** A machine not heard from this long is not sent commands (lease_ttl). */
  staleAfterMs: number;
  /** How long a command waits to be taken, then answered (cluster.command_timeout). */
  timeoutMs: number;
  now?: () => number;
}

/** Polling for an answer: while notices arrive only as a backstop; else the way answers are found. */
const POLL_HEARD_MS = 1000;
const POLL_UNHEARD_MS = 250;
/** While a long call (a wait) is carried out, how often its machine's heartbeat is looked at. */
const WATCH_MS = 2000;

interface Pending {
  /** Set while it sleeps between two reads of its row. */
  wake: (() => void) | null;
  /** A notice came while its row was being read: read it again at once. */
  heard: boolean;
}

export class ClusterCalls {
  private readonly pending = new Map<string, Pending>();
  private readonly now: () => number;

  constructor(private readonly p: CallsDeps) {
    this.now = p.now ?? Date.now;
    p.link.listenNotices((payload) => {
      const p = payload.startsWith('answer:') ? this.pending.get(payload.slice(7)) : undefined;
      if (!p) return;
      p.heard = true;
      p.wake?.();
    });
  }

  /** The call carried out on another machine; undefined, at once, for a call that can only be this machine's. */
  forward(method: MethodName, params: Record<string, unknown>, signal: AbortSignal): Forwarded | undefined {
    const spec = METHODS[method].remote;
    if (!spec) return undefined;
    if (spec.after !== undefined) return this.inputsOf(spec.after, params, signal);
    const hostParam = spec.host === undefined ? undefined : params[spec.host];
    const refs = spec.refs === undefined ? [] : [params[spec.refs]].flat().filter((r): r is string => typeof r === 'string');
    // A bare name no local run answers to may be another machine's (as published in orcr_run).
    const elsewhere = refs.filter((r) => splitRef(r) === null && r !== '' && !/^\d+$/.test(r) && !this.p.localExists(r));
    if (hostParam === undefined && elsewhere.length === 0 && !refs.some((r) => splitRef(r) !== null)) return undefined;
    return this.withHosts(spec.refs, params, elsewhere).then((p) => this.place(method, p, p === params ? refs : ([p[spec.refs!]].flat() as string[]), signal));
  }

  /**
   * Each bare ref no local run answers to, looked up among other machines'
   * published runs: one machine has it → `HOST:REF`; several → ambiguous,
   * naming each; none → left as it is (no such run, as here).
   */
  private async withHosts(key: string | undefined, params: Record<string, unknown>, bare: readonly string[]): Promise<Record<string, unknown>> {
    if (key === undefined || bare.length === 0) return params;
    const c = this.p.link.commands();
    if ('unavailable' in c) return params;
    const found = new Map<string, string>();
    for (const ref of bare) {
      const rows = await c.port.runsAnswering(ref).catch(() => []);
      // As the fleet view looks a bare name up (cluster.run): the same runs, the same refusal.
      const hit = lookupPublished(ref, this.p.link.host, new Set(rows.map((r) => r.host)), rows, () => false);
      if (hit.kind === 'ambiguous') throw new RemoteError('ambiguous', ambiguousText(ref, hit.names));
      if (hit.kind === 'found') found.set(ref, remoteName(hit.run.host, ref));
    }
    if (found.size === 0) return params;
    const raw = params[key];
    const swap = (r: unknown): unknown => (typeof r === 'string' ? (found.get(r) ?? r) : r);
    return { ...params, [key]: Array.isArray(raw) ? raw.map(swap) : swap(raw) };
  }

  private async place(method: MethodName, params: Record<string, unknown>, refs: string[], signal: AbortSignal): Forwarded {
    const { link } = this.p;
    let hosts = await link.hosts();
    // A machine that joined since the list was read: read it again before calling the ref a local name.
    if (refs.some((r) => splitRef(r) !== null && !hosts.has(splitRef(r)!.host)) || (METHODS[method].remote?.host && !hosts.has(String(params.host))))
      hosts = await link.hosts(true);
    const place = placeCall(METHODS[method].remote, params, { self: link.host, name: link.name, hosts }, this.p.localExists);
    if (place.kind === 'local') return undefined;
    if (place.kind === 'refused') throw new RemoteError(place.code, place.message);
    const answer = await this.send(place.host, method, place.params, signal);
    if (answer.error) throw new RemoteError(isErrorCode(answer.error.code) ? answer.error.code : 'internal', renameWords(answer.error.message, place.renamed));
    return { result: renameAnswer(answer.result, place.host, place.renamed) };
  }

  /**
   * Run specs whose `after` names another machine's runs (run --after b:fix):
   * each such run looked up there (run.resolve, as a command) and named by its
   * uuid (b:UUID), so the runs are queued here with inputs their machine
   * settles (cluster-inputs.ts). Undefined when none does.
   */
  private inputsOf(key: string, params: Record<string, unknown>, signal: AbortSignal): Forwarded | undefined {
    const specs = params[key];
    if (!Array.isArray(specs)) return undefined;
    const refs = specs.flatMap((s: { after?: unknown }) => (Array.isArray(s.after) ? s.after : [])).filter((r): r is string => typeof r === 'string');
    if (!refs.some((r) => splitRef(r) !== null && remoteInput(r) === null)) return undefined;
    return (async () => {
      const names = new Set(specs.map((s: { name?: unknown }) => s.name).filter((n) => typeof n === 'string'));
      const resolved = new Map<string, string>();
      for (const ref of new Set(refs)) {
        // A name of the same call wins, as it does here (core/dependencies' planGraph).
        if (names.has(ref) || splitRef(ref) === null || remoteInput(ref) !== null) continue;
        const got = await this.forward('run.resolve', { ref }, signal);
        if (got && 'result' in got) resolved.set(ref, `${splitRef(ref)!.host}:${(got.result as { uuid: string }).uuid}`);
      }
      if (resolved.size === 0) return undefined;
      const rewritten = specs.map((s: { after?: unknown }) =>
        Array.isArray(s.after) ? { ...s, after: s.after.map((r: unknown) => (typeof r === 'string' ? (resolved.get(r) ?? r) : r)) } : s,
      );
      return { params: { ...params, [key]: rewritten } };
    })();
  }

  private port(host: string, what: string): PgCommands {
    const c = this.p.link.commands();
    if ('unavailable' in c) throw new RemoteError('unavailable', `the cluster database is unavailable (${c.unavailable}): ${what} machine ${host}`);
    return c.port;
  }

  /** Write the command (refused at once as its machine's row says), then its answer. */
  private async send(host: string, method: MethodName, params: Record<string, unknown>, signal: AbortSignal): Promise<NonNullable<CommandState['answer']>> {
    const port = this.port(host, 'nothing was sent to');
    const { link, staleAfterMs } = this.p;
    let sent: Awaited<ReturnType<PgCommands['send']>>;
    try {
      sent = await port.send(host, method, params, (m) => machineVerdict(host, link.name, m, staleAfterMs));
    } catch (e) {
      if (e instanceof ClusterRefused) throw new RemoteError('refused', e.message);
      if (e instanceof ClusterUnavailable) link.down(e);
      throw new RemoteError('unavailable', `the cluster database is unavailable (${(e as Error).message}): nothing was sent to machine ${host}`);
    }
    if (!('id' in sent)) throw new RemoteError(sent.code, sent.message);
    const waits = METHODS[method].remote?.waits;
    const long = waits === undefined ? 0 : params[waits];
    // A wait without a timeout takes as long as its runs do: watched by its machine's heartbeat instead.
    const extra = waits === undefined ? 0 : typeof long === 'number' ? long : Infinity;
    return this.answerOf(port, host, sent.id, extra, signal);
  }

  private async answerOf(port: PgCommands, host: string, id: string, extraMs: number, signal: AbortSignal): Promise<NonNullable<CommandState['answer']>> {
    const started = this.now();
    const { timeoutMs } = this.p;
    let watched = started;
    let lastError: string | null = null;
    this.pending.set(id, { wake: null, heard: false });
    try {
      for (;;) {
        if (signal.aborted) throw new RemoteError('stopped', 'the caller went away');
        let state: CommandState | null | undefined;
        try {
          state = await port.state(id);
          lastError = null;
        } catch (e) {
          lastError = (e as Error).message;
        }
        if (state === null) throw new RemoteError('unavailable', `the command to machine ${host} was removed before it was answered`);
        if (state?.answer) return state.answer;
        const age = this.now() - started;
        if (state && !state.taken && age > timeoutMs && (await port.withdraw(id).catch(() => false))) {
          throw new RemoteError(
            'unavailable',
            `machine ${host} did not take the command within ${ago(timeoutMs)} (nothing was done there: the command is withdrawn); is its supervisor running?`,
          );
        }
        if (age > timeoutMs + extraMs) throw this.noAnswer(host, age, lastError);
        if (state?.taken && extraMs > 0 && this.now() - watched > WATCH_MS) {
          watched = this.now();
          await this.watch(port, host);
        }
        await this.sleep(id, signal);
      }
    } catch (e) {
      // The caller gave up (its client went away, or no answer came): whatever its machine still does for it is dropped there.
      await port.abandon(id).catch(() => undefined);
      throw e;
    } finally {
      this.pending.delete(id);
    }
  }

  private noAnswer(host: string, age: number, dbError: string | null): RemoteError {
    const why = dbError ? ` (the cluster database: ${dbError})` : '';
    return new RemoteError('unavailable', `machine ${host} took the command but gave no answer within ${ago(age)}${why}: it may have been carried out there`);
  }

  /** A long call's machine that stops beating will not answer: said now, not at a deadline that may never come. */
  private async watch(port: PgCommands, host: string): Promise<void> {
    const m = await port.machine(host).catch(() => undefined);
    if (m === undefined) return;
    const refused = machineVerdict(host, this.p.link.name, m, this.p.staleAfterMs);
    if (refused?.code === 'unavailable' || refused?.code === 'not_found') {
      throw new RemoteError('unavailable', `machine ${host} stopped answering while the call was on its way (last heard ${m ? ago(m.age_ms) : '?'} ago)`);
    }
  }

  private sleep(id: string, signal: AbortSignal): Promise<void> {
    const p = this.pending.get(id)!;
    if (p.heard) {
      p.heard = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        p.wake = null;
        p.heard = false;
        resolve();
      };
      const timer = setTimeout(done, this.p.link.noticesArrive ? POLL_HEARD_MS : POLL_UNHEARD_MS);
      p.wake = done;
      signal.addEventListener('abort', done, { once: true });
    });
  }
}

/**
 * The owner's words with each ref as the caller gave it: `no run "b:fix"`,
 * not `no run "fix"`; `no request b:12`, not `no request 12` (a request's
 * number is written bare).
 */
function renameWords(message: string, renamed: ReadonlyMap<string, string>): string {
  let out = message;
  for (const [theirs, ours] of renamed) {
    out = out.split(quote(theirs)).join(quote(ours));
    if (/^\d+$/.test(theirs)) out = out.replace(new RegExp(`\\brequest ${theirs}\\b`, 'g'), `request ${ours}`);
  }
  return out;
}
