// `orcr ps`, `orcr show`: the fleet and one run.

import { isRunStatus, RUN_STATUSES } from '../../core/types.js';
import { treeOrder } from '../../core/run-tree.js';
import { psCluster, showAnywhere } from '../fleet.js';
import { psTable, psTree } from '../format.js';
import type { Verb } from '../shell.js';
import { UsageError } from '../usage-error.js';

const psVerbs: Verb = async (verb, rest, sh) => {
  if (verb === 'show') {
    const { values, positionals } = sh.parse(verb, rest);
    if (positionals.length !== 1) throw new UsageError('show takes exactly one run', verb);
    return showAnywhere(verb, positionals[0]!, values, sh);
  }
  const { values } = sh.parse(verb, rest);
  if (values.cluster === true) return psCluster(verb, values, sh);
  if (values.host !== undefined) throw new UsageError('--host goes with --cluster: one machine of the fleet', verb);
  const status = values.status as string | undefined;
  if (status && !isRunStatus(status)) throw new UsageError(`--status must be one of ${RUN_STATUSES.join(', ')}`, verb);
  // No cap on the listing: `ps --all` means all (filter with --status or -a); read page by page.
  const runs = await sh.withSdk((o) =>
    o.list({ all: values.all === true, status: status && isRunStatus(status) ? status : undefined, provider: values.provider as string | undefined }),
  );
  if (sh.json) sh.printJson(values.tree ? treeOrder(runs).map(({ run }) => run) : runs);
  else sh.out(values.tree ? psTree(runs) : psTable(runs));
  return 0;
};
export default psVerbs;
