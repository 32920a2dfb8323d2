// `o`: a person carries a run's session on in the agent's own CLI. The run is
// asked to stop at the end of its turn (a second `o` stops it now), and once
// it has ended the CLI opens — in a new tmux window when the TUI runs inside
// tmux, else in this terminal with the TUI handed out of it and back.

import { spawnSync } from 'node:child_process';
import { takeoverCommand, type TakeoverCommand } from '../../client/takeover.js';
import type { PublicRun } from '../../client/methods.js';
import { error, info, type TuiStore } from '../state/store.js';
import type { Session } from './session.js';
import type { TakeoverPort } from '../input/actions.js';

/** Run the CLI in this terminal: the TUI lets go of it for as long as `run` takes, and takes it back after. */
export type HandOver = (run: () => void) => Promise<void>;

export interface TakeoverOptions {
  env?: NodeJS.ProcessEnv;
  /** Without it (no terminal of ours to lend), only tmux can take a run over. */
  handOver?: HandOver;
}

/** Open the CLI; a message for the footer. */
async function openCli(cmd: TakeoverCommand, name: string, opts: TakeoverOptions): Promise<{ ok: boolean; text: string }> {
  const env = opts.env ?? process.env;
  const shown = [cmd.file, ...cmd.args].join(' ');
  if (env.TMUX) {
    const r = spawnSync('tmux', ['new-window', '-c', cmd.cwd, '-n', `orcr:${name}`.slice(0, 40), '--', cmd.file, ...cmd.args], { stdio: 'ignore', env });
    return r.status === 0
      ? { ok: true, text: `${name} taken over: ${shown} in a new tmux window` }
      : { ok: false, text: `could not open a tmux window for ${shown} (tmux exit ${r.status ?? r.signal})` };
  }
  if (!opts.handOver) return { ok: false, text: 'no terminal to open the agent in' };
  let result: ReturnType<typeof spawnSync> | null = null;
  try {
    await opts.handOver(() => {
      result = spawnSync(cmd.file, cmd.args, { cwd: cmd.cwd, stdio: 'inherit', env });
    });
  } catch (e) {
    return { ok: false, text: `could not hand the terminal to ${shown}: ${(e as Error).message}` };
  }
  const r = result as ReturnType<typeof spawnSync> | null;
  if (r?.error) {
    const code = (r.error as NodeJS.ErrnoException).code;
    return { ok: false, text: code === 'ENOENT' ? `${cmd.file} is not installed here (not on PATH): cannot resume ${name}` : `${shown}: ${r.error.message}` };
  }
  return { ok: true, text: `back from ${shown} (exit ${r?.status ?? r?.signal ?? '?'})` };
}

export class Takeover implements TakeoverPort {
  /** The run asked to stop at its turn's end, whose CLI opens once it has. */
  private pending: { uuid: string; off: () => void } | null = null;

  constructor(
    private readonly store: TuiStore,
    private readonly session: Session,
    private readonly opts: TakeoverOptions,
  ) {}

  start(uuid: string): void {
    const run = this.store.getState().runs.byId[uuid];
    if (!run) return this.session.set(error('that run is not listed', Date.now()));
    const cmd = takeoverCommand(run);
    if ('why' in cmd) return this.session.set(error(`o: ${cmd.why}`, Date.now()));
    if (!(this.opts.env ?? process.env).TMUX && !this.opts.handOver) return this.session.set(error('o: no terminal to open the agent in', Date.now()));
    if (run.status === 'ended') return this.open(run);
    const c = this.session.client;
    if (!c) return this.session.set(error('not connected to the supervisor (r to reconnect)', Date.now()));
    // A second `o` while the turn goes on: stop it now.
    const now = this.pending?.uuid === uuid;
    c.call('run.takeover', { ref: uuid, now })
      .then(({ run: after }) => {
        this.watch(uuid);
        if (after.status === 'working' && !now) {
          this.session.set(info(`${run.name} stops at the end of its turn, then ${cmd.file} opens on its session (o again stops it now)`, Date.now()));
        } else this.session.set(info(`stopping ${run.name} to take it over…`, Date.now()));
      })
      .catch((e: unknown) => this.session.set(error(`take over ${run.name}: ${(e as Error).message}`, Date.now())));
  }

  /** Open the CLI once the run has ended (its session is whole and no one else writes it). */
  private watch(uuid: string): void {
    if (this.pending?.uuid === uuid) return;
    this.pending?.off();
    const check = (): boolean => {
      const r = this.store.getState().runs.byId[uuid];
      if (r?.status !== 'ended') return false;
      this.pending?.off();
      this.pending = null;
      // Out of the store's notification: the hand-over blocks while the CLI runs.
      setImmediate(() => this.open(r));
      return true;
    };
    const off = this.store.subscribe(() => void check());
    this.pending = { uuid, off };
    check();
  }

  private open(run: PublicRun): void {
    const cmd = takeoverCommand(run);
    if ('why' in cmd) return this.session.set(error(`o: ${cmd.why}`, Date.now()));
    void openCli(cmd, run.name, this.opts).then((r) => this.session.set(r.ok ? info(r.text, Date.now()) : error(r.text, Date.now())));
  }

  stop(): void {
    this.pending?.off();
    this.pending = null;
  }
}
