// What orcr-tui prints on the terminal it leaves: where the runs it showed
// are now, in whole sentences at every count (none, one, many), for a home of
// one's own and for --demo's throw-away one. Pure: main.tsx prints them.

import { safeLine } from '../../text/terminal-text.js';

const PREFIX = 'orcr-tui: ';

/** Live runs first, as the header counts them; the queued last. */
const ORDER = ['starting', 'working', 'idle', 'blocked', 'queued'];

const runs = (n: number): string => `${n} run${n === 1 ? '' : 's'}`;

export interface ByeInput {
  home: string;
  /** The supervisor's pid, when connected. */
  pid: number | null;
  /** Whether a snapshot ever came: without one, nothing is known of the runs. */
  loaded: boolean;
  /** Still connected when quitting (else the counts are as last seen). */
  up: boolean;
  /** The runs not ended, by status (queued, working, …), as the TUI last held them. */
  active: Readonly<Record<string, number>>;
}

/** Quitting one's own home: the agents keep running, and where. */
export function byeText(b: ByeInput): string {
  // A home's path is the user's to name: what it holds is shown, never obeyed.
  const sup = `the supervisor${b.pid !== null ? ` (pid ${b.pid})` : ''} of ${safeLine(b.home)}`;
  if (!b.loaded) return `${PREFIX}bye. No runs were shown: ${sup} did not answer. \`orcr ps\` lists them once it runs.\n`;
  const n = Object.values(b.active).reduce((a, c) => a + c, 0);
  const parts = Object.entries(b.active)
    .filter(([, c]) => c > 0)
    .sort(([a], [c]) => ORDER.indexOf(a) - ORDER.indexOf(c))
    .map(([st, c]) => `${c} ${st}`)
    .join(', ');
  // "1 working run" / "3 runs (2 working, 1 queued)"
  const what = n === 1 ? `1 ${Object.keys(b.active).find((st) => b.active[st]! > 0)} run` : `${runs(n)} (${parts})`;
  const [it, they] = n === 1 ? ['it', 'it'] : ['they', 'them'];
  if (!b.up) {
    if (n === 0) return `${PREFIX}bye. When ${sup} was last seen, no run was active.\n`;
    return `${PREFIX}bye. When ${sup} was last seen, ${what} had not ended; ${it} may still be going. \`orcr ps\` lists ${they}.\n`;
  }
  if (n === 0) return `${PREFIX}bye. No run is active; ${sup} keeps running.\n`;
  return `${PREFIX}bye. ${what} ${n === 1 ? 'has' : 'have'} not ended: ${it} ${n === 1 ? 'keeps' : 'keep'} going under ${sup}. \`orcr ps\` lists ${they}.\n`;
}

/** How to take a demo down by hand, when the TUI could not (or was told to leave at once). */
function byHand(dir: string): string {
  dir = safeLine(dir);
  return `To stop it yourself: ORCR_HOME=${dir} orcr server stop --kill-agents, then remove the folder.`;
}

export function demoStoppingText(dir: string): string {
  dir = safeLine(dir);
  return `${PREFIX}stopping the demo's agents and its supervisor, then removing ${dir}…\n`;
}

export interface DemoRemoval {
  /** Runs that had not ended, ended now. */
  stopped: number;
  /** Processes of the home found still running after the supervisor stopped, killed. */
  strays: number;
  removed: boolean;
}

export function demoStoppedText(r: DemoRemoval, dir: string): string {
  dir = safeLine(dir);
  const ended =
    r.stopped === 0
      ? 'No run was still going, and its supervisor stopped.'
      : `${runs(r.stopped)} ${r.stopped === 1 ? 'was' : 'were'} ended and its supervisor stopped.`;
  const strays = r.strays === 0 ? '' : ` ${r.strays} stray process${r.strays === 1 ? ' was' : 'es were'} killed.`;
  const removed = r.removed ? ` ${dir} is removed.` : ` ${dir} could not be removed: remove it yourself.`;
  return `${PREFIX}the demo is stopped. ${ended}${strays}${removed}\n`;
}

export function demoFailedText(dir: string, why: string): string {
  return `${PREFIX}could not stop the demo (${safeLine(why)}). ${byHand(dir)}\n`;
}

/** A second ctrl-c or TERM while the demo was being taken down: leave now. */
export function demoLeftText(dir: string): string {
  return `${PREFIX}left the demo as it was. ${byHand(dir)}\n`;
}
