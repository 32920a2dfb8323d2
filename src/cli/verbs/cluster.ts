// `orcr cluster status|schema|forget`: the machines sharing one set of caps.

import { safeLine } from '../../text/terminal-text.js';
import { table } from '../format.js';
import { clusterLine } from '../format-stats.js';
import type { Verb } from '../shell.js';
import { UsageError } from '../usage-error.js';

const clusterVerb: Verb = async (verb, rest, sh) => {
  const { positionals } = sh.parse(verb, rest);
  const sub = positionals[0];
  if (sub === 'schema') {
    if (positionals.length !== 1) throw new UsageError('cluster schema takes nothing more', verb);
    const { CLUSTER_SCHEMA, CLUSTER_SCHEMA_VERSION } = await import('../../limiter/pg-schema.js');
    if (sh.json) sh.printJson({ version: CLUSTER_SCHEMA_VERSION, sql: CLUSTER_SCHEMA.trim() });
    else sh.out(CLUSTER_SCHEMA.trim());
    return 0;
  }
  if (sub === 'forget') {
    if (positionals.length !== 2 || positionals[1] === '') throw new UsageError('cluster forget takes the host name of one machine', verb);
    const host = positionals[1]!;
    const res = await sh.withSdk((o) => o.cluster.forget(host));
    if (sh.json) sh.printJson(res);
    else sh.out(`${safeLine(host)} forgotten: its row, queue places and leases are gone from the cluster`);
    return 0;
  }
  if (sub !== 'status' || positionals.length !== 1) throw new UsageError('cluster takes "status", "schema" or "forget HOST"', verb);
  const st = await sh.withSdk((o) => o.cluster.status());
  if (sh.json) sh.printJson(st);
  else {
    sh.out(clusterLine(st));
    if (st.pending) sh.out(`config.json was edited: ${safeLine(st.pending)}`);
    const read = st.machines_at ? ` (as the database last told, at ${new Date(st.machines_at).toISOString()})` : '';
    if (!st.available && st.machines.length > 0) sh.out(`machines${read}:`);
    sh.out(
      table(
        ['HOST', 'STATE', 'LAST HEARTBEAT', 'LEASES', 'WAITERS'],
        st.machines.map((m) => [safeLine(m.host), m.alive ? 'up' : 'gone', m.heartbeat, String(m.leases), String(m.waiters)]),
      ),
    );
  }
  return 0;
};
export default clusterVerb;
