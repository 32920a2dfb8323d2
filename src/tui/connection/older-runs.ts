// Paging older ended runs in (`L`): one run.list page of ended runs queued
// before the window's cursor, joined to the store. The list says how many
// there are (view/older.ts); this only fetches them.

import { ENDED_MAX, ENDED_WINDOW, OLDER_PAGE } from '../state/ended-window.js';
import { reduceOlderPage } from '../state/reducers.js';
import { error, info, type TuiStore } from '../state/store.js';
import type { Session } from './session.js';
import type { OlderPort } from '../input/actions.js';

export class OlderRuns implements OlderPort {
  constructor(
    private readonly store: TuiStore,
    private readonly session: Session,
  ) {}

  load(): void {
    const s = this.store.getState();
    const o = s.older;
    if (o.loading) return;
    if (o.before === null) return this.session.set(info('no older ended runs: every one is listed', Date.now()));
    if (o.extra >= ENDED_MAX - ENDED_WINDOW) {
      return this.session.set(
        info(
          `holding ${ENDED_MAX.toLocaleString('en-US')} ended runs, the most the TUI keeps (a twice lets the older ones go; orcr ps --all lists every one)`,
          Date.now(),
        ),
      );
    }
    const c = this.session.client;
    if (!c) return this.session.set(error('not connected to the supervisor (r to reconnect)', Date.now()));
    this.session.set((st) => ({ older: { ...st.older, loading: true } }));
    c.call('run.list', { status: 'ended', before: o.before, limit: OLDER_PAGE })
      .then((page) => {
        // Events that came before the reply are applied first: the page is as new as they are.
        this.session.batcher.flush();
        this.session.set((st) => {
          const { patch, added } = reduceOlderPage(st, page);
          const more = patch.older!.before === null ? 'none older' : `${patch.older!.hidden.toLocaleString('en-US')} older not shown`;
          return { ...patch, ...info(`loaded ${added.toLocaleString('en-US')} older ended runs (${more})`, Date.now()) };
        });
      })
      .catch((e) => {
        this.session.set((st) => ({ older: { ...st.older, loading: false }, ...error(`older runs: ${(e as Error).message}`, Date.now()) }));
      });
  }
}
