// `orcr logs`: a run's output as written, as its transcript, or as entries
// (--json); with -f, as it grows, until the run ends. The follow holds its
// connection as a subscription (the client core's Client), so it does not go
// through the SDK's session; the reading and printing is ../logs.ts.

import path from 'node:path';
import { Client } from '../../client/client.js';
import { followLogs, printLines, printLogs, type LogsMode } from '../logs.js';
import { wholeNumberFlag, type Verb } from '../shell.js';
import { UsageError } from '../usage-error.js';
import { TAIL_MAX_LINES } from '../../protocol/methods.js';

/** How many lines of another machine's run `logs` fetches without --tail. */
const REMOTE_TAIL = 1000;

const logsVerb: Verb = async (verb, rest, sh) => {
  const { values, positionals } = sh.parse(verb, rest);
  if (values.pretty && values.raw) throw new UsageError("--pretty and --raw are each other's opposite: give one", verb);
  if (sh.json && (values.pretty || values.raw)) throw new UsageError('--json is a format of its own: not with --pretty or --raw', verb);
  if (positionals.length !== 1) throw new UsageError('logs takes exactly one run', verb);
  const tail = values.tail === undefined ? null : wholeNumberFlag(values.tail as string, '--tail');
  const c = await Client.connect(sh.home());
  const info = await c.call('run.resolve', { ref: positionals[0]! });
  const file = path.join(info.dir, values.stderr ? 'err' : 'out');
  // The transcript on a terminal, the lines as written when piped; stderr is no protocol: always raw.
  const mode: LogsMode = sh.json ? 'json' : values.stderr ? 'raw' : values.pretty ? 'pretty' : values.raw ? 'raw' : process.stdout.isTTY ? 'pretty' : 'raw';
  if (info.host !== undefined) {
    // Another machine's run: its files are there; a bounded tail comes back as the answer to a command.
    if (values.follow) {
      c.close();
      throw new UsageError(`logs -f follows a run of this machine; ${positionals[0]!} is machine ${info.host}'s: logs --tail N shows its last lines`, verb);
    }
    const got = await c.call('run.tail', { ref: positionals[0]!, lines: Math.min(tail ?? REMOTE_TAIL, TAIL_MAX_LINES), stderr: values.stderr === true });
    c.close();
    if (got.truncated && !sh.json)
      sh.say(`(the last ${got.lines.length} lines of ${info.name}'s ${values.stderr ? 'stderr' : 'output'}, from machine ${info.host})`);
    printLines(got.lines, null, got.protocol, tail, mode, (text) => sh.write(text));
    return 0;
  }
  if (values.follow)
    return followLogs(
      c,
      file,
      info.protocol,
      tail,
      mode,
      info.uuid,
      () => Client.reconnect(sh.home()),
      (text) => sh.write(text),
    );
  c.close();
  printLogs(file, info.protocol, tail, mode, (text) => sh.write(text));
  return 0;
};
export default logsVerb;
