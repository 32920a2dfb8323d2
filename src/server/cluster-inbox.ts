// The owner's side of commands between machines (issue 43): this machine's
// supervisor — the only writer of its journal — carries out what other
// machines ask of its runs. Woken by a notice on its own channel, and
// polling (every 250 ms where notices do not arrive: a transaction-mode
// pooler drops them; as a backstop otherwise), it takes each command once,
// dispatches it as a socket request is dispatched (requests.ts'
// answerCommand: the same schema, checks, handler and errors), with who
// answered naming the calling machine, and writes the answer. Only methods
// the table marks `remote` are carried out; none with accept_commands false.
// A call its caller gave up on (a wait whose client left) is dropped here.
// What an earlier supervisor of this machine took and left unanswered (it
// stopped or died meanwhile) is found at start: a wait is carried on — its
// caller still waits, as a local client waits through a restart — and
// anything else is answered that it may have been done, never done twice.

import { remoteWho } from '../core/cluster-commands.js';
import type { PgCommands, TakenCommand } from '../limiter/pg-commands.js';
import type { ErrorBody } from '../protocol/errors.js';
import { isMethodName, METHODS, type MethodName } from '../protocol/methods.js';
import type { CallLink } from './cluster-calls.js';

export interface InboxDeps {
  link: Pick<CallLink, 'host' | 'commands' | 'listenNotices' | 'noticesArrive'>;
  /** The call dispatched as a socket request is; `signal` aborts what lasts (a wait) when its caller gave up. */
  answer: (method: MethodName, params: Record<string, unknown>, signal: AbortSignal) => Promise<{ result: unknown } | { error: ErrorBody }>;
  /** cluster.accept_commands as config.json says now. */
  accepts: () => boolean;
  /** A command older than this when found is not carried out (its caller has withdrawn it or given up). */
  freshMs: number;
  log: (msg: string) => void;
}

const POLL_HEARD_MS = 2000;
const POLL_UNHEARD_MS = 250;
/** Answered commands are kept this long (for a caller that polls), then deleted. */
const KEEP_MS = 3_600_000;
const CLEAN_EVERY_MS = 600_000;

export class ClusterInbox {
  private timer: NodeJS.Timeout | null = null;
  private cleaned = 0;
  private taking: Promise<void> | null = null;
  private again = false;
  private closed = false;
  /** The commands an earlier supervisor left are read once, before any is taken. */
  private adopted = false;
  /** Commands being carried out, each with what aborts it. */
  private readonly inFlight = new Map<string, AbortController>();
  private readonly unlisten: () => void;

  constructor(private readonly p: InboxDeps) {
    this.unlisten = p.link.listenNotices((payload) => {
      if (payload.startsWith('command:')) this.wake();
    });
  }

  start(): void {
    this.wake();
  }

  /** Take what waits now; a wake while a take is on its way takes again after it. */
  private wake(): void {
    if (this.closed) return;
    if (this.taking) {
      this.again = true;
      return;
    }
    this.taking = this.round().finally(() => {
      this.taking = null;
      if (this.again) {
        this.again = false;
        this.wake();
      } else this.schedule();
    });
  }

  private schedule(): void {
    if (this.closed) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => this.wake(), this.p.link.noticesArrive ? POLL_HEARD_MS : POLL_UNHEARD_MS);
    this.timer.unref();
  }

  private async round(): Promise<void> {
    const c = this.p.link.commands();
    if ('unavailable' in c) return;
    try {
      if (!this.adopted) {
        for (const cmd of await c.port.orphans()) void this.resume(c.port, cmd);
        this.adopted = true;
      }
      for (const cmd of await c.port.take(this.p.freshMs)) void this.carry(c.port, cmd);
      await this.dropAbandoned(c.port);
      if (Date.now() - this.cleaned > CLEAN_EVERY_MS) {
        this.cleaned = Date.now();
        await c.port.clean(KEEP_MS);
      }
    } catch {
      /* the database is away: the cluster link notices through its own calls, and the next round tries again */
    }
  }

  private async dropAbandoned(port: PgCommands): Promise<void> {
    if (this.inFlight.size === 0) return;
    for (const id of await port.abandoned([...this.inFlight.keys()])) this.inFlight.get(id)?.abort();
  }

  private async carry(port: PgCommands, cmd: TakenCommand): Promise<void> {
    const abort = new AbortController();
    this.inFlight.set(cmd.id, abort);
    let answer: { result: unknown } | { error: ErrorBody };
    try {
      answer = await this.dispatch(cmd, abort.signal);
    } finally {
      this.inFlight.delete(cmd.id);
    }
    if (abort.signal.aborted) return;
    await this.write(port, cmd, answer);
  }

  /** A command an earlier supervisor of this machine left unanswered: a wait carried on with what is left of its timeout; anything else told. */
  private resume(port: PgCommands, cmd: TakenCommand & { age_ms: number }): Promise<void> {
    const waits = isMethodName(cmd.method) ? METHODS[cmd.method].remote?.waits : undefined;
    if (waits === undefined) {
      const message =
        `machine ${this.p.link.host}'s supervisor stopped while it carried out ${cmd.method}, and the next one does not do it again: ` +
        `it may have been done there (orcr ps --cluster shows what happened)`;
      return this.write(port, cmd, { error: { code: 'unavailable', message } });
    }
    const left = cmd.params[waits];
    const params = typeof left === 'number' ? { ...cmd.params, [waits]: Math.max(0, left - cmd.age_ms) } : cmd.params;
    return this.carry(port, { id: cmd.id, from_host: cmd.from_host, method: cmd.method, params });
  }

  private dispatch(cmd: TakenCommand, signal: AbortSignal): Promise<{ result: unknown } | { error: ErrorBody }> {
    const { method } = cmd;
    const spec = isMethodName(method) ? METHODS[method].remote : undefined;
    if (!isMethodName(method) || !spec) {
      return Promise.resolve({ error: { code: 'usage', message: `${JSON.stringify(method)} is not carried out for other machines` } });
    }
    if (!this.p.accepts()) {
      const message = `machine ${this.p.link.host} does not take commands from other machines (its cluster.accept_commands is false)`;
      return Promise.resolve({ error: { code: 'refused', message } });
    }
    const params = { ...cmd.params };
    if (spec.who !== undefined) params[spec.who] = remoteWho(cmd.from_host, params[spec.who]);
    return this.p.answer(method, params, signal);
  }

  /** The answer written; a database away for a moment is tried again for a while (the caller polls until its deadline). */
  private async write(port: PgCommands, cmd: TakenCommand, answer: { result: unknown } | { error: ErrorBody }): Promise<void> {
    for (let i = 0; i < 20 && !this.closed; i++) {
      try {
        await port.answer(cmd, answer);
        return;
      } catch {
        await new Promise((r) => setTimeout(r, 500).unref());
      }
    }
    this.p.log(`cluster: the answer to command ${cmd.id} from ${cmd.from_host} (${cmd.method}) could not be written`);
  }

  close(): void {
    this.closed = true;
    this.unlisten();
    if (this.timer) clearTimeout(this.timer);
    for (const a of this.inFlight.values()) a.abort();
  }
}
