// `orcr stats`, `orcr spend`: the caps and queues, and usage and cost.

import { fleetTotals } from '../fleet.js';
import { spendText, statsText } from '../format-stats.js';
import type { Verb } from '../shell.js';

const statsVerbs: Verb = async (verb, rest, sh) => {
  const { values } = sh.parse(verb, rest);
  if (values.cluster === true) return fleetTotals(verb === 'spend' ? 'spend' : 'stats', sh);
  if (verb === 'spend') {
    const res = await sh.withSdk((o) => o.spend());
    if (sh.json) sh.printJson(res);
    else sh.out(spendText(res));
    return 0;
  }
  const res = await sh.withSdk((o) => o.stats());
  if (sh.json) sh.printJson(res);
  else sh.out(statsText(res));
  return 0;
};
export default statsVerbs;
