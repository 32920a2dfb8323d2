// The one input router: a key becomes a command (keys.ts) in the current
// context, and the command becomes a store change and/or an action. The App
// hands Ink's useInput one stable function made here. It never talks to the
// supervisor itself: what leaves the store goes through Actions. A prompt,
// tagged runs, the pager and the loops view give keys meanings of their own
// (prompt-keys.ts, tagged-keys.ts, view-keys.ts); what is left is the list
// and details.

import type { Key } from 'ink';
import type { Actions } from './actions.js';
import type { PublicRun } from '../../protocol/views.js';
import { parseCap } from '../../core/caps.js';
import { limiterItems, selectable } from '../view/limiter.js';
import { Command, matchKey } from './keys.js';
import { splitBurst } from './burst.js';
import { plural, type KeyDeps } from './key-deps.js';
import { onPrompt } from './prompt-keys.js';
import { onTagged, taggedRuns } from './tagged-keys.js';
import { onLoops, onPager } from './view-keys.js';
import { error, info, type Patch, type Prompt, type TuiState, type TuiStore } from '../state/store.js';
import { nextPane, paneTarget, reduceCloseDetails, reduceDetailsRaw, reduceFocus, reduceOpenDetails, reduceScroll } from '../state/navigation.js';
import { nextGroup, nextSortKey, reduceFilter, reduceFold, reduceSeen, reduceShowAll, reduceSort } from '../state/reducers.js';
import { sortWords } from '../view/format.js';
import { contextOf } from '../view/key-hints.js';
import { reduceOpenDiff, reduceOpenPager } from '../state/pager.js';
import { nextThemeName, type ThemeSet } from '../view/theme.js';

export interface RouterDeps {
  store: TuiStore;
  actions: Actions;
  themes: ThemeSet;
  exit: () => void;
}

export { contextOf, splitBurst };

interface Target {
  uuid: string;
  name: string;
  run: PublicRun | undefined;
}

/** The run a key acts on: the one details show, else the focused pane's selected row, holder, waiter or event. */
function targetOf(s: TuiState): Target | null {
  const uuid = s.mode === 'details' ? s.selected : paneTarget(s);
  if (uuid === null) return null;
  const run = s.runs.byId[uuid];
  return { uuid, run, name: run?.name ?? s.stats?.names[uuid] ?? uuid.slice(0, 8) };
}

/** Why nothing is selected, in the focused pane's words. */
function nothingSelected(s: TuiState): string {
  if (s.mode === 'list' && s.pane === 'limiter') {
    const any = s.stats ? limiterItems(s.stats.caps).some(selectable) : false;
    return any ? 'no holder or waiter selected (j/k selects one)' : 'no run holds or waits on any cap';
  }
  if (s.mode === 'list' && s.pane === 'events') return s.log.size === 0 ? 'no events yet' : 'this event is not about a run';
  return 'no run selected';
}

/** Lines a page key moves in the focused pane. */
function pageOf(s: TuiState): number {
  if (s.mode === 'details') return s.viewport.detailsOutputHeight;
  if (s.mode === 'pager') return s.viewport.pagerHeight;
  if (s.pane === 'limiter') return s.viewport.limiterHeight;
  if (s.pane === 'events') return s.viewport.eventsHeight;
  return s.viewport.runsHeight;
}

/** The provider a hold key means: the limiter line's (a provider cap) or the selected run's, if it is on hold now. */
function heldProviderOf(s: TuiState, t: Target | null): string | null {
  let provider: string | null = null;
  if (s.mode === 'list' && s.pane === 'limiter' && s.stats) {
    const it = limiterItems(s.stats.caps)[s.limiterList.cursor];
    const cap = it ? parseCap(it.cap.cap) : null;
    if (cap?.kind === 'provider') provider = cap.name;
  }
  provider ??= t?.run?.provider ?? null;
  if (provider === null) return null;
  const until = s.stats?.holds[provider];
  return until !== undefined && until > s.now ? provider : null;
}

/** A kill from the runs pane: the cursor will keep the row when the run moves away as it ends. */
function pinKilled(s: TuiState, uuid: string): Patch {
  return s.mode === 'list' && s.pane === 'runs' && s.selected === uuid ? { killPin: uuid } : {};
}

export function createKeyHandler(deps: RouterDeps): (input: string, key: Key) => void {
  const { store, actions, themes } = deps;
  const set = (p: Patch): void => store.setState(p);
  const now = (): number => Date.now();

  const openPrompt = (s: TuiState, p: Omit<Prompt, 'back'>): void => set({ mode: 'prompt', prompt: { ...p, back: s.mode }, message: null });
  const k: KeyDeps = { store, actions, set, now, openPrompt, exit: deps.exit };

  const handle = (input: string, key: Key): void => {
    const s = store.getState();
    const ctx = contextOf(s);
    const cmd = matchKey(ctx, input, key);
    if (ctx === 'prompt' && s.prompt) {
      onPrompt(k, s, cmd, input, key);
      return;
    }
    if (cmd === null) return;
    const t = targetOf(s);
    const none = (): void => set(info(nothingSelected(s), now()));
    // With runs tagged, x, X, w, s and R act on all of them (from the runs list).
    const tags = s.mode === 'list' ? taggedRuns(s) : [];
    if (tags.length > 0 && onTagged(k, s, cmd, tags)) return;
    if (s.mode === 'pager' && onPager(k, s, cmd)) return;
    if (s.mode === 'help') {
      // The help screen scrolls (the Help component keeps the last page in view).
      const page = Math.max(1, s.viewport.pagerHeight - 2);
      const to: Record<string, number> = { [Command.Up]: s.helpScroll - 1, [Command.Down]: s.helpScroll + 1, [Command.PageUp]: s.helpScroll - page, [Command.PageDown]: s.helpScroll + page, [Command.First]: 0, [Command.Last]: 1e6 };
      if (cmd in to) return set({ helpScroll: Math.max(0, Math.min(to[cmd]!, 1e6)) });
    }
    if (s.mode === 'loops' && onLoops(k, s, cmd)) return;
    switch (cmd) {
      case Command.Up:
        set(reduceScroll(s, -1));
        return;
      case Command.Down:
        set(reduceScroll(s, 1));
        return;
      case Command.PageUp:
        set(reduceScroll(s, -Math.max(1, pageOf(s) - 1)));
        return;
      case Command.PageDown:
        set(reduceScroll(s, Math.max(1, pageOf(s) - 1)));
        return;
      case Command.First:
        set(reduceScroll(s, 'top'));
        return;
      case Command.Last:
        set(reduceScroll(s, 'bottom'));
        return;
      case Command.Details:
        if (!t) return none();
        if (!t.run) return set(info(`${t.name} is not among the runs the supervisor listed`, now()));
        set(reduceOpenDetails(s, t.uuid));
        set(reduceSeen(store.getState(), t.uuid));
        actions.detailsOpened();
        return;
      case Command.Transcript:
        if (!t) return none();
        set(reduceOpenPager(s, t.uuid, t.name));
        actions.transcriptOpened(t.uuid);
        return;
      case Command.Diff:
        if (!t) return none();
        if (!t.run?.worktree) return set(info(`${t.name} has no worktree (it was not started with --worktree): nothing to diff`, now()));
        set(reduceOpenDiff(s, t.uuid, t.name));
        actions.diffOpened(t.uuid);
        return;
      case Command.Kill:
        if (!t) return none();
        if (t.run?.status === 'ended') return set(error(`${t.name} has already ended (${t.run.exit_reason}): nothing to kill`, now()));
        set({ mode: 'confirm', confirm: { uuid: t.uuid, name: t.name, back: s.mode }, message: null });
        return;
      case Command.KillNow:
        if (!t) return none();
        if (t.run?.status === 'ended') return set(error(`${t.name} has already ended (${t.run.exit_reason}): nothing to kill`, now()));
        actions.kill(t.uuid, false);
        set(pinKilled(s, t.uuid));
        return;
      case Command.Confirm: {
        const c = s.confirm;
        if (!c) return set({ mode: 'list' });
        if (c.uuids) {
          // The ones that ended while the question was up are told apart by the supervisor's answer.
          actions.killMany(c.uuids, false);
          set({ mode: c.back, confirm: null, tagged: {} });
          return;
        }
        const run = s.runs.byId[c.uuid];
        // It may have ended while the question was up.
        if (run?.status === 'ended') return set({ mode: c.back, confirm: null, ...error(`${c.name} ended meanwhile (${run.exit_reason}): nothing to kill`, now()) });
        actions.kill(c.uuid, false);
        set({ mode: c.back, confirm: null, ...pinKilled({ ...s, mode: c.back }, c.uuid) });
        return;
      }
      case Command.Deny:
        set({ mode: s.confirm?.back ?? 'list', confirm: null, ...info(`kill canceled: ${s.confirm?.name ?? 'the run'} keeps running`, now()) });
        return;
      case Command.Wait:
        if (!t) return none();
        actions.wait(t.uuid);
        return;
      case Command.Send:
        if (!t) return none();
        if (t.run?.status !== 'idle') {
          const st = !t.run ? 'not listed' : t.run.status === 'ended' ? `ended (${t.run.exit_reason})` : t.run.status;
          set(error(`${t.name} is ${st}: input goes only to an idle run`, now()));
          return;
        }
        openPrompt(s, { kind: 'send', text: '', target: t.uuid, targetName: t.name });
        return;
      case Command.New:
        openPrompt(s, { kind: 'new', text: '', target: null, targetName: null });
        return;
      case Command.Tag: {
        if (!t || s.pane !== 'runs') return none();
        const tagged = { ...s.tagged };
        if (tagged[t.uuid]) delete tagged[t.uuid];
        else tagged[t.uuid] = true;
        const n = Object.keys(tagged).length;
        // On to the next row, so space, space, space tags a run of rows.
        set({ tagged, ...reduceScroll(s, 1), ...info(n ? `${plural(n, 'run')} tagged: x, w, s and R act on them (esc untags)` : 'no runs tagged', now()) });
        return;
      }
      case Command.TagAll: {
        if (s.pane !== 'runs') return;
        const all = s.view.ids.length > 0 && s.view.ids.every((id) => s.tagged[id]);
        const tagged: Record<string, true> = all ? {} : Object.fromEntries(s.view.ids.map((id) => [id, true as const]));
        set({ tagged, ...info(all ? 'no runs tagged' : `${plural(s.view.ids.length, 'listed run')} tagged: x, w, s and R act on them (esc untags)`, now()) });
        return;
      }
      case Command.NextAttention: {
        const ids = s.view.ids;
        const lead = ids.filter((id) => s.view.attention[id]);
        if (lead.length === 0) return set(info('no run needs you', now()));
        // They lead the list: the next one below the cursor, or the first again.
        const at = lead.map((id) => ids.indexOf(id)).find((i) => i > s.list.cursor) ?? ids.indexOf(lead[0]!);
        const need = s.view.attention[ids[at]!]!;
        set({ ...reduceScroll({ ...s, pane: 'runs' }, at - s.list.cursor), ...info(`${s.runs.byId[ids[at]!]?.name ?? 'run'}: ${need.reason} (${lead.length} need${lead.length === 1 ? 's' : ''} you)`, now()) });
        return;
      }
      case Command.Sort:
      case Command.Group:
      case Command.Reverse: {
        const group = s.sort.group ?? null;
        const sort =
          cmd === Command.Sort
            ? { key: nextSortKey(s.sort.key), reverse: false, group }
            : cmd === Command.Group
              ? { ...s.sort, group: nextGroup(group, Object.values(s.runs.byId).some((r) => r.worktree)) }
              : { ...s.sort, reverse: !s.sort.reverse };
        set({ ...reduceSort(s, sort), ...info(`sorted by ${sortWords(sort)} (S: next column, -: reverse, b: group)`, now()) });
        actions.sortChanged(sort);
        return;
      }
      case Command.Rerun:
        if (!t) return none();
        if (t.run && t.run.status !== 'ended') return set(error(`${t.name} is ${t.run.status}: rerun takes an ended run (x kills it first)`, now()));
        actions.rerun(t.uuid);
        return;
      case Command.Spend:
        if (s.mode === 'spend') return set({ mode: 'list' });
        set({ mode: 'spend', message: null });
        actions.spendOpened();
        return;
      case Command.Loops:
        set({ mode: 'loops', message: null });
        actions.loopsOpened();
        return;
      case Command.Fold: {
        if (!t || s.pane !== 'runs') return none();
        const f = s.view.folded?.[t.uuid];
        if (f === undefined) return set(info(`${t.name} has no runs of its own listed under it`, now()));
        set({ ...reduceFold(s, t.uuid), ...info(f > 0 ? `${t.name}: its runs unfolded` : `${t.name}: ${plural(s.runs.byId[t.uuid]?.children.length ?? 0, 'child run')} folded under it`, now()) });
        return;
      }
      case Command.Takeover:
        if (!t) return none();
        actions.takeover(t.uuid);
        return;
      case Command.ResumeProvider:
      case Command.CancelHeld: {
        const provider = heldProviderOf(s, t);
        if (provider === null) return set(error('no provider on hold here (select a held run, or a provider line in the limiter)', now()));
        if (cmd === Command.ResumeProvider) return actions.resumeProvider(provider);
        const queued = Object.values(s.runs.byId).filter((r) => r.status === 'queued' && r.provider === provider);
        if (queued.length === 0) return set(info(`no runs of ${provider} are queued behind its hold`, now()));
        set({ mode: 'confirm', confirm: { uuid: queued[0]!.uuid, name: `${plural(queued.length, 'queued run')} of ${provider} (held)`, back: s.mode, uuids: queued.map((r) => r.uuid), verb: 'cancel' }, message: null });
        return;
      }
      case Command.PauseQueue:
        // Unknown until the first stats: pausing is the safe guess.
        actions.pauseQueue(!(s.stats?.paused ?? false));
        return;
      case Command.Filter:
        // The filter as it was, selected: typing replaces it, an arrow key keeps it to edit.
        openPrompt(s, { kind: 'filter', text: s.filter, target: null, targetName: null, selected: s.filter !== '' });
        return;
      case Command.ToggleAll:
        set({ ...reduceShowAll(s, !s.showAll), ...info(s.showAll ? 'showing active runs only (a shows all)' : 'showing all runs', now()) });
        return;
      case Command.LoadOlder:
        actions.loadOlder();
        return;
      case Command.RawView:
        return set(reduceDetailsRaw(s));
      case Command.Back:
        if (s.mode === 'details') {
          set(reduceCloseDetails(s));
          return actions.detailsClosed();
        }
        if (s.mode === 'help') return set({ mode: s.helpBack });
        if (s.mode === 'spend') return set({ mode: 'list' });
        if (s.pane !== 'runs') return set({ pane: 'runs' });
        if (Object.keys(s.tagged).length > 0) return set({ tagged: {}, ...info('no runs tagged', now()) });
        if (s.filter) return set(reduceFilter(s, ''));
        set({ message: null });
        return;
      case Command.NextPane:
        set(reduceFocus(s, nextPane(s)));
        return;
      case Command.ToggleEvents:
        set({ showEvents: !s.showEvents, pane: s.pane === 'events' ? 'runs' : s.pane });
        return;
      case Command.NextTheme: {
        const theme = nextThemeName(themes, s.theme);
        set({ theme });
        actions.themeChanged(theme);
        return;
      }
      case Command.Help:
        if (s.mode === 'help') set({ mode: s.helpBack });
        else set({ mode: 'help', helpBack: s.mode, helpScroll: 0 });
        return;
      case Command.Reconnect:
        actions.reconnect();
        return;
      case Command.Quit:
        deps.exit();
        return;
      default:
        return;
    }
  };

  return (input: string, key: Key): void => {
    const parts = splitBurst(input, key, store.getState().mode === 'prompt');
    if (parts === null) handle(input, key);
    else for (const [i, k] of parts) handle(i, k);
  };
}
