// The fleet view's methods: every machine's runs, and one of them, read from
// the cluster's database by this supervisor (a member's or a viewer's).

import { notInCluster } from './admin.js';
import type { HandlerFamily } from './context.js';

export const fleetViewHandlers: HandlerFamily<'cluster.runs' | 'cluster.run'> = {
  'cluster.runs': async (p, { fleetView, settings }) => {
    const view = fleetView();
    if (view === null) throw notInCluster(settings);
    return view.runs(p);
  },
  'cluster.run': async ({ ref }, { fleetView, settings }) => {
    const view = fleetView();
    if (view === null) throw notInCluster(settings);
    return view.run(ref);
  },
};
