// `orcr kill`: runs by name, or every active run a filter selects (after a y/N question).

import { ACTIVE_STATUSES } from '../../core/types.js';
import { quote } from '../../text/json-text.js';
import { safeLine } from '../../text/terminal-text.js';
import type { Verb } from '../shell.js';
import { UsageError } from '../usage-error.js';

const killVerb: Verb = async (verb, rest, sh) => {
  const { values, positionals } = sh.parse(verb, rest);
  const after = values.after as string | undefined;
  if (after !== undefined && after.trim() === '') throw new UsageError('--after needs a run (name or uuid)', verb);
  // The status as the method table's enum: one of the active ones (ended runs need no kill), checked below.
  const status = ACTIVE_STATUSES.find((st) => st === values.status);
  const filter = {
    all: values.all === true,
    status,
    provider: values.provider as string | undefined,
    workload: values.workload as string | undefined,
    name: values.name as string | undefined,
    ...(after !== undefined ? { after } : {}),
  };
  const byFilter =
    filter.all ||
    values.status !== undefined ||
    filter.provider !== undefined ||
    filter.workload !== undefined ||
    filter.name !== undefined ||
    after !== undefined;
  if (byFilter && positionals.length > 0) throw new UsageError('kill takes runs, or a filter (--all, --status, -a, -w, --name, --after), not both', verb);
  if (!byFilter && positionals.length === 0)
    throw new UsageError('kill needs runs, or a filter: --all, --status S, -a PROVIDER, -w WORKLOAD, --name GLOB, --after RUN', verb);
  if (!byFilter && (values.yes || values['dry-run'])) throw new UsageError('--yes and --dry-run go with a filter', verb);
  if (values.status !== undefined && status === undefined)
    throw new UsageError(`--status must be one of ${ACTIVE_STATUSES.join(', ')} (ended runs need no kill)`, verb);
  const orcr = await sh.sdk();
  try {
    let refs = positionals;
    if (byFilter) {
      const sel = await orcr.select(filter);
      if (values['dry-run'] || sel.length === 0) {
        if (sh.json) sh.printJson(sel.map((r) => ({ ...r, action: 'would_kill' })));
        else
          sh.out(
            sel.length === 0
              ? 'no active run matches'
              : [`would kill ${sel.length} run${sel.length === 1 ? '' : 's'}:`, ...sel.map((r) => `  ${safeLine(r.name)} ${r.status}`)].join('\n'),
          );
        return 0;
      }
      if (!values.yes) {
        const ok = await sh.confirm(
          `kill ${sel.length} run${sel.length === 1 ? '' : 's'} (${sel
            .slice(0, 5)
            .map((r) => safeLine(r.name))
            .join(', ')}${sel.length > 5 ? ', …' : ''})?`,
        );
        if (ok === null) throw new UsageError(`kill would act on ${sel.length} runs: confirm with --yes (no terminal to ask on)`, verb);
        if (!ok) {
          sh.out('nothing killed');
          return 0;
        }
      }
      refs = sel.map((r) => r.uuid);
    }
    const results = await orcr.kill(refs, {
      force: values.force === true,
      keepChildren: values['keep-children'] === true,
      keepDependents: values['keep-dependents'] === true,
    });
    if (sh.json) sh.printJson(results);
    else {
      for (const r of results) {
        const name = safeLine(r.name ?? r.ref);
        if (r.action === 'not_found') sh.say(`no run ${quote(r.ref)}`);
        else if (r.action === 'already_ended') sh.out(`${name} already ended (${r.exit_reason})`);
        else {
          const n = r.descendants?.length ?? 0;
          sh.out(`${name} ${r.action}${n > 0 ? ` (and ${n} descendant${n === 1 ? '' : 's'})` : ''}`);
        }
      }
    }
    return results.some((r) => r.action === 'not_found') ? 6 : 0;
  } finally {
    orcr.close();
  }
};
export default killVerb;
