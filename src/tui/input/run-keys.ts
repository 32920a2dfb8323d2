// What the keys that act on one run do — the run details show, else the
// focused pane's selected row, holder, waiter or event — and why they do
// nothing when they cannot: no run there, a run that has ended, one that is
// not idle. Handlers and disabled reasons for the bindings (bindings.ts).

import { parseCap } from '../../core/caps.js';
import type { PublicRun } from '../../protocol/views.js';
import { limiterItems, selectable } from '../model/limiter-items.js';
import { paneTarget, reduceOpenDetails } from '../state/navigation.js';
import { isRemote, runOf } from '../state/fleet.js';
import { reduceOpenDiff, reduceOpenPager } from '../state/pager.js';
import { reduceSeen } from '../state/reducers.js';
import type { Patch, TuiState } from '../state/store.js';
import { refused, unavailable, type KeyCall, type Refusal, type Subject, type Target } from './binding.js';

export const plural = (n: number, one: string): string => `${n} ${one}${n === 1 ? '' : 's'}`;

export function targetOf(s: TuiState): Target | null {
  const picked = s.mode === 'details' ? s.selected : paneTarget(s);
  if (picked === null) return null;
  // A limiter line names another machine's holder by its uuid: in cluster scope it is that machine's run.
  const uuid = s.runs.byId[picked] ? picked : (s.fleet.keyOfUuid[picked] ?? picked);
  const run = runOf(s, uuid);
  return { uuid, run, name: run?.name ?? s.stats?.names[uuid] ?? uuid.slice(0, 8) };
}

/** Why nothing is selected, in the focused pane's words. */
export function nothingSelected(s: TuiState): string {
  if (s.mode === 'list' && s.pane === 'limiter') {
    const any = s.stats ? limiterItems(s.stats.caps).some(selectable) : false;
    return any ? 'no holder or waiter selected (j/k selects one)' : 'no run holds or waits on any cap';
  }
  if (s.mode === 'list' && s.pane === 'events') return s.log.size === 0 ? 'no events yet' : 'this event is not about a run';
  return 'no run selected';
}

/** Disabled without a run to act on; then, if given, for the run's own reason. */
export function needsRun(more?: (c: KeyCall, t: Target) => Refusal | null): (c: KeyCall) => Refusal | null {
  return (c) => (c.target ? (more?.(c, c.target) ?? null) : unavailable(nothingSelected(c.s)));
}

/** A handler over the target (disabled has made sure there is one). */
export function onTarget(act: (c: KeyCall, t: Target) => void): (c: KeyCall) => void {
  return (c) => {
    if (c.target) act(c, c.target);
  };
}

const ended = (r: PublicRun | undefined): r is PublicRun => r?.status === 'ended';

export const notEnded = (_c: KeyCall, t: Target): Refusal | null =>
  ended(t.run) ? refused(`${t.name} has already ended (${t.run.exit_reason}): nothing to kill`) : null;

export const runSubject = (c: KeyCall): Subject => ({ uuid: c.target!.uuid, name: c.target!.name });

/** A kill from the runs pane: the cursor will keep the row when the run moves away as it ends. */
function pinKilled(s: TuiState, uuid: string): Patch {
  return s.mode === 'list' && s.pane === 'runs' && s.selected === uuid ? { killPin: uuid } : {};
}

/** `x` once answered, `X`, and `K` (`force`: SIGKILL at once, without the TERM and its grace). */
export function killRun(c: KeyCall, q: Subject, force = false): void {
  const run = runOf(c.s, q.uuid);
  // It may have ended while the question was up.
  if (ended(run)) return c.fail(`${q.name} ended meanwhile (${run.exit_reason}): nothing to kill`);
  c.actions.runs.kill(q.uuid, force);
  c.set(pinKilled(c.s, q.uuid));
}

/** A kill of several runs (the ones that ended meanwhile are told apart by the supervisor's answer); the tags go with it. */
export function killSeveral(c: KeyCall, uuids: readonly string[]): void {
  c.actions.runs.killMany(uuids, false);
  c.set({ tagged: {} });
}

export const openDetails = (c: KeyCall, t: Target): void => {
  c.set(reduceOpenDetails(c.s, t.uuid));
  // Another machine's run: its face, read afresh; its output stays on its machine.
  if (isRemote(c.s, t.uuid)) return c.actions.fleet.remoteDetailsOpened(t.uuid);
  c.set(reduceSeen(c.state(), t.uuid));
  c.actions.output.detailsOpened();
};

export const listed = (c: KeyCall, t: Target): Refusal | null => {
  if (t.run) return null;
  // A limiter holder of another machine (`b:fix-auth`), seen from this machine's scope.
  if (c.s.scope === 'machine' && c.s.stats?.cluster && /^[^:]+:/.test(t.name))
    return unavailable(`${t.name} is another machine's run: m shows the cluster's runs`);
  return unavailable(`${t.name} is not among the runs the supervisor listed`);
};

/** Keys that read what stays on a run's own machine (its output files, its agent's session): this machine's runs only. */
export const onThisMachine =
  (what: string) =>
  (c: KeyCall, t: Target): Refusal | null =>
    isRemote(c.s, t.uuid) ? unavailable(`${t.name} runs on ${c.s.fleet.faces[t.uuid]!.host}: ${what} only for this machine's runs`) : null;

export const openTranscript = (c: KeyCall, t: Target): void => {
  c.set(reduceOpenPager(c.s, t.uuid, t.name));
  c.actions.output.transcriptOpened(t.uuid);
};

export const hasWorktree = (_c: KeyCall, t: Target): Refusal | null =>
  t.run?.worktree ? null : unavailable(`${t.name} has no worktree (it was not started with --worktree): nothing to diff`);

export const openDiff = (c: KeyCall, t: Target): void => {
  c.set(reduceOpenDiff(c.s, t.uuid, t.name));
  c.actions.output.diffOpened(t.uuid);
};

export const idle = (_c: KeyCall, t: Target): Refusal | null => {
  if (t.run?.status === 'idle') return null;
  const st = !t.run ? 'not listed' : t.run.status === 'ended' ? `ended (${t.run.exit_reason})` : t.run.status;
  return refused(`${t.name} is ${st}: input goes only to an idle run`);
};

export const sendTo = (c: KeyCall, t: Target): void => c.openPrompt({ kind: 'send', text: '', target: t.uuid, targetName: t.name });

export const rerunnable = (_c: KeyCall, t: Target): Refusal | null =>
  t.run && t.run.status !== 'ended' ? refused(`${t.name} is ${t.run.status}: rerun takes an ended run (x kills it first)`) : null;

/** The provider a hold key means: the limiter line's (a provider cap) or the selected run's, if it is on hold now. */
export function heldProviderOf(c: KeyCall): string | null {
  const s = c.s;
  let provider: string | null = null;
  if (s.mode === 'list' && s.pane === 'limiter' && s.stats) {
    const it = limiterItems(s.stats.caps)[s.limiterList.cursor];
    const cap = it ? parseCap(it.cap.cap) : null;
    if (cap?.kind === 'provider') provider = cap.name;
  }
  provider ??= c.target?.run?.provider ?? null;
  if (provider === null) return null;
  const until = s.stats?.holds[provider];
  return until !== undefined && until > s.now ? provider : null;
}

const NOTHING_HELD = refused('no provider on hold here (select a held run, or a provider line in the limiter)');

export const held = (c: KeyCall): Refusal | null => (heldProviderOf(c) === null ? NOTHING_HELD : null);

const queuedBehind = (c: KeyCall, provider: string): PublicRun[] =>
  Object.values(c.s.runs.byId).filter((r) => r.status === 'queued' && r.provider === provider);

export function heldQueue(c: KeyCall): Refusal | null {
  const provider = heldProviderOf(c);
  if (provider === null) return NOTHING_HELD;
  return queuedBehind(c, provider).length === 0 ? unavailable(`no runs of ${provider} are queued behind its hold`) : null;
}

export function heldQueueSubject(c: KeyCall): Subject {
  const provider = heldProviderOf(c)!;
  const queued = queuedBehind(c, provider);
  return { uuid: queued[0]!.uuid, name: `${plural(queued.length, 'queued run')} of ${provider} (held)`, uuids: queued.map((r) => r.uuid) };
}
