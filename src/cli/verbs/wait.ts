// `orcr wait`: until runs are idle, ended or blocked (the SDK's wait: its own
// connection, through a restart, lending the caller's slot to its children).

import { waitExitCode } from '../../core/run-state.js';
import { safeLine } from '../../text/terminal-text.js';
import { durationFlag, type Verb } from '../shell.js';
import { UsageError } from '../usage-error.js';

const waitVerb: Verb = async (verb, rest, sh) => {
  const { values, positionals } = sh.parse(verb, rest);
  if (positionals.length === 0 && !values.all) throw new UsageError('wait needs at least one run, or --all', verb);
  const timeout = values.timeout === undefined ? undefined : durationFlag(values.timeout as string, '--timeout');
  // The caller's run is its ORCR_RUN (the SDK's callerEnv defaults to this process's environment).
  const settled = await sh.withSdk((o) => (values.all ? o.waitAll({ timeout }) : o.wait(positionals, { timeout })));
  let worst = 0;
  for (const s of settled) worst = Math.max(worst, s.token === 'pending' ? 3 : s.token === 'not_found' ? 6 : waitExitCode(s.token));
  if (sh.json) sh.printJson(settled.map((s) => ({ name: s.name, uuid: s.uuid, token: s.token })));
  else for (const s of settled) sh.out(`${safeLine(s.name)} ${s.token}`);
  return worst;
};
export default waitVerb;
