// The approvals queue's side of the connection: the requests waiting across
// the fleet read with approval.list when the TUI connects (the whole truth)
// and after a frame brought new requests (their options and the rule they
// offer, which an event does not carry) — never polled: the event stream
// keeps them current in between; the answers the queue's keys give, as one
// approval.answer each (via `tui`, who: this terminal), said in the footer,
// a refusal included, and the list read again after; and a request's whole
// input read into the pager.

import fs from 'node:fs';
import type { Verdict } from '../../core/approvals.js';
import type { ApprovalAnswered } from '../../protocol/results.js';
import type { AnswerOptions, ApprovalsPort } from '../input/actions.js';
import type { Request } from '../state/approvals.js';
import { requestLabel } from '../model/fleet-names.js';
import { InputDoc } from '../state/input-doc.js';
import { reduceClosePager } from '../state/pager.js';
import { reduceRequestList } from '../state/reducers.js';
import { error, info, type TuiStore } from '../state/store.js';
import type { Session } from './session.js';

/** The terminal the TUI runs in (`pts/3`), else its process (`pid 4242`): who answered, for the record. */
export function answererName(pid = process.pid): string {
  try {
    const tty = fs.readlinkSync('/proc/self/fd/0');
    if (tty.startsWith('/dev/') && tty !== '/dev/null') return tty.slice('/dev/'.length);
  } catch {
    /* not Linux, or no stdin: the process names it */
  }
  return `pid ${pid}`;
}

const DONE: Record<Verdict, string> = { allow: 'allowed', deny: 'denied' };

/** A request as the footer names it: `#12 (refactor: Bash: npm test)`. */
const named = (r: Request | undefined, id: number): string => (r ? `${requestLabel(r)} (${r.name}: ${r.summary})` : `#${id}`);

/** What an answer did, for the footer: each request decided, or why not (the supervisor's words). */
function answeredText(
  verdict: Verdict,
  ids: readonly number[],
  results: readonly ApprovalAnswered[],
  opts: AnswerOptions,
  known: Readonly<Record<number, Request>>,
): { text: string; kind: 'info' | 'error' } {
  const refused = results.filter((r) => r.error);
  const done = results.length - refused.length;
  const verb = opts.answers ? 'answered' : DONE[verdict];
  const what = ids.length === 1 ? named(known[ids[0]!], ids[0]!) : `${done} of ${ids.length} requests`;
  const extra = opts.always
    ? ', and its like for the rest of its run'
    : opts.answers
      ? `: ${opts.answers.map((a) => (typeof a === 'string' ? a : a.join(', '))).join('; ')}`
      : '';
  if (refused.length === 0) return { text: ids.length === 1 ? `${verb} ${what}${extra}` : `${verb} ${ids.length} requests${extra}`, kind: 'info' };
  const why = refused.map((r) => r.error!.message).join('; ');
  return { text: done > 0 ? `${verb} ${what}; not answered: ${why}` : `not answered: ${why}`, kind: 'error' };
}

export class ApprovalDesk implements ApprovalsPort {
  private reading = false;
  /** Another read asked for while one was on its way (true: a whole-truth one). */
  private again: boolean | null = null;

  constructor(
    private readonly store: TuiStore,
    private readonly session: Session,
    private readonly opts: { who: string; caller: string | null },
  ) {}

  /** Read the pending requests; `fresh` on a new connection, where the list replaces what the TUI held. */
  refresh(fresh: boolean): void {
    if (this.reading) {
      this.again = (this.again ?? false) || fresh;
      return;
    }
    const c = this.session.client;
    if (!c) return;
    this.reading = true;
    c.call('approval.list', {})
      .then((res) => this.session.batcher.defer((s) => reduceRequestList(s, res.approvals, fresh)))
      // A supervisor without requests (an older one) has nothing to show; a dropped connection reads again when it is back.
      .catch(() => undefined)
      .finally(() => {
        this.reading = false;
        const again = this.again;
        this.again = null;
        if (again !== null) this.refresh(again);
      });
  }

  answer(ids: readonly number[], verdict: Verdict, opts: AnswerOptions = {}): void {
    const c = this.session.client;
    if (!c) return void this.session.set(error('not connected to the supervisor (r to reconnect)', Date.now()));
    const known = this.store.getState().requests.byId;
    const params = (targets: string[]) => ({
      targets,
      verdict,
      ...opts,
      via: 'tui' as const,
      who: this.opts.who,
      ...(this.opts.caller ? { caller: this.opts.caller } : {}),
    });
    // Another machine's request by its `HOST:ID`: the supervisor forwards the answer there, one machine's per call.
    const byHost = new Map<string, string[]>();
    for (const id of ids) {
      const host = known[id]?.host ?? '';
      byHost.set(host, [...(byHost.get(host) ?? []), known[id]?.ref ?? String(id)]);
    }
    Promise.all([...byHost.values()].map((targets) => c.call('approval.answer', params(targets))))
      .then((answers) => {
        const said = answeredText(
          verdict,
          ids,
          answers.flatMap((a) => a.results),
          opts,
          known,
        );
        this.session.set((said.kind === 'error' ? error : info)(said.text, Date.now()));
      })
      .catch((e: Error) => this.session.set(error(`not answered: ${e.message}`, Date.now())))
      // Whatever came of it, the queue shows what waits now.
      .finally(() => this.refresh(false));
  }

  inputOpened(id: number): void {
    const showing = (): boolean => {
      const s = this.store.getState();
      return s.mode === 'pager' && s.pager?.view === 'input' && s.pager.request === id;
    };
    const c = this.session.client;
    if (!c) return void this.session.set((s) => ({ ...reduceClosePager(s), ...error('not connected to the supervisor (r to reconnect)', Date.now()) }));
    c.call('approval.get', { id })
      .then((res) => {
        if (!showing()) return;
        this.session.set((s) => ({ pagerDoc: new InputDoc(id, res.input, res.truncated === true), pager: { ...s.pager!, version: s.pager!.version + 1 } }));
      })
      .catch((e: Error) => {
        if (showing()) this.session.set((s) => ({ ...reduceClosePager(s), ...error(`request #${id}: ${e.message}`, Date.now()) }));
      });
  }
}
