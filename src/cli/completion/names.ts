// `orcr __complete runs|loops`: names for a completion script, asked of the
// supervisor that runs for this home, if one does. Never starts one, makes no
// home (a Tab in a shell must change nothing), and lists only what a person
// would type: the active runs' names, then the newest ended ones'.

import fs from 'node:fs';
import { checkHome, homeDir, homePaths, realHome } from '../../config/home.js';
import { OrcrError } from '../../sdk/errors.js';
import { hasControls } from '../../text/terminal-text.js';

/** Active runs listed at most (the newest, if there are more), and ended ones after them. */
const ACTIVE = 1000;
const ENDED = 200;

export type NameKind = 'runs' | 'loops';

/** The names, one each; none when no supervisor runs for this home. */
export async function supervisorNames(kind: NameKind, env: NodeJS.ProcessEnv = process.env): Promise<string[]> {
  const dir = realHome(homeDir(env));
  const home = homePaths(dir);
  if (!fs.existsSync(home.socket)) return [];
  // Refused as every verb refuses it: a home others can write to may hold someone else's socket.
  checkHome(dir);
  const { Orcr } = await import('../../sdk/client.js');
  let orcr;
  try {
    orcr = await Orcr.open(home, { autoStart: false });
  } catch (e) {
    if (e instanceof OrcrError && e.code === 'unavailable') return [];
    throw e;
  }
  try {
    // One a line: a name that could break a line (none is let in today) is left out, never altered.
    const listed = (names: string[]): string[] => [...new Set(names)].filter((n) => n !== '' && !hasControls(n));
    if (kind === 'loops') return listed((await orcr.call('loop.list')).loops.map((l) => l.name));
    const active = (await orcr.call('run.list', { limit: ACTIVE })).runs;
    const ended = (await orcr.call('run.list', { all: true, limit: ENDED })).runs.filter((r) => r.status === 'ended');
    return listed([...active, ...ended].map((r) => r.name));
  } finally {
    orcr.close();
  }
}
