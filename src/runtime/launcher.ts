// Starting agents so that they outlive the supervisor, and signalling them.
//
// Each agent runs under a tiny POSIX sh wrapper in its own session and process
// group. The wrapper writes its pid to the run's `status` file, and appends the
// agent's exit status to it when the agent ends, because only a parent can read
// a child's exit status and the supervisor may not be that parent any more.
// For a run that takes input it holds the agent's stdin FIFO open (so input
// survives a supervisor restart and EOF comes only when we ask for it, by
// SIGUSR1). The agent's argv is passed as positional parameters: never parsed
// by a shell.
//
// Every file a run makes is an inode, and on some file systems (ext4 on a
// busy disk) making one costs kernel time on the order of a whole job's
// overhead (bench item 1): a run makes four (its directory, out, err,
// status), and a run without input forks one subshell, not two.

import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Unreadable } from './os-limits.js';

// $3 is the path of an `env` that can reset signals (`--default-signal`,
// coreutils >= 8.31), or empty. dash ignores INT and QUIT in a command it
// starts in the background (`&`) with job control off, and since they are
// then ignored on entry to that subshell no `trap -` can undo it: the agent
// would inherit them ignored. env resets them before exec'ing the agent. env
// would read a program path containing "=" as a variable, so such a path
// goes through `sh -c 'exec "$@"'`, which starts with them at default.
//
// Out of processes, dash cannot fork the agent's subshell and exits (2)
// without a word in `status`: the wrapper's first write carries a `wrap`
// line, and the subshell appends `run` just before it execs the agent, so a
// wrapper gone with `wrap` and no `run` never started its agent — a launch to
// try again, not an agent that vanished.
//
// The run's own files (status, out, err) are made under umask 077, as the
// FIFO is made 0600 whatever the umask; the agent gets the umask the
// supervisor had ($4), so the files it makes in its folder are as its user
// expects.
//
// A first input for an agent that reads a FIFO (a prompt as stream-json's
// first line) is in `prompt` before the wrapper starts, and the wrapper puts
// it into the FIFO itself (`cat`, in the background: past the pipe's 64 KiB
// it waits for the agent to read): it arrives exactly once, whether or not
// the supervisor lives through the launch.
//
// The wait loop: `wait` returns early (status > 128) when the trapped USR1
// arrives, and then the agent is still running; any other return is its end.
// The flag tells the two apart without `kill -0 $bg`, which, once the agent
// is reaped, may find a stranger that reuses its pid and spin forever.
const WRAPPER = `
dir=$1; fifo=$2; dfl=$3; um=$4; shift 4
umask 077
in=/dev/null; [ "$fifo" = f ] && in="$dir/prompt"
first=; [ "$fifo" = 2 ] && { fifo=1; first=1; }
trap '' TERM INT HUP
if [ "$fifo" = 1 ]; then trap 'exec 3>&-; usr1=1' USR1; else trap : USR1; fi
printf '%s\nwrap\n' $$ >"$dir/status"
if [ "$fifo" = 1 ]; then
  if [ -n "$dfl" ]; then
    case $1 in *=*) set -- /bin/sh -c 'exec "$@"' orcr-agent "$@";; esac
    set -- "$dfl" --default-signal=INT,QUIT -- "$@"
  fi
  [ -p "$dir/in" ] || mkfifo -m 600 "$dir/in"
  exec 3<>"$dir/in"
  if [ -n "$first" ]; then cat "$dir/prompt" >&3 & fi
  ( ( trap - TERM INT HUP; umask "$um"; echo run >>"$dir/status"; exec "$@" ) <"$dir/in" >>"$dir/out" 2>>"$dir/err" 3>&-
    echo "exit $?" >>"$dir/status" ) 3>&- &
  bg=$!
  while :; do
    usr1=
    wait "$bg"
    st=$?
    [ "$st" -gt 128 ] && [ -n "$usr1" ] || break
  done
else
  ( trap - TERM INT HUP; umask "$um"; echo run >>"$dir/status"; exec "$@" ) <"$in" >>"$dir/out" 2>>"$dir/err"
  echo "exit $?" >>"$dir/status"
fi
`;

export interface LaunchSpec {
  dir: string;
  argv: string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Give the agent a FIFO on stdin for `send`; otherwise it reads /dev/null, or `promptFile`. */
  stdinFifo: boolean;
  /**
   * The agent's first input: written to `prompt` in the run directory, and
   * read as the agent's stdin (text, then EOF: a one-shot agent), or written
   * into its FIFO by the wrapper as its first line (`stdinFifo`).
   */
  promptFile?: string | null;
}

export interface Launched {
  pid: number;
  pidStart: string | null;
  child: ChildProcess;
}

export class LaunchError extends Error {
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message);
  }
}

/**
 * Find the program the way execvp would, so that "not found" and "not
 * executable" are reported with the OS reason instead of as exit code 127.
 */
export function resolveProgram(program: string, cwd: string, envPath: string | undefined): string {
  const check = (file: string): string => {
    let st: fs.Stats;
    try {
      st = fs.statSync(file);
    } catch (e) {
      throw new LaunchError(`${program}: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (e as Error).message}`, 'ENOENT');
    }
    if (st.isDirectory()) throw new LaunchError(`${program}: is a directory`, 'EISDIR');
    try {
      fs.accessSync(file, fs.constants.X_OK);
    } catch {
      throw new LaunchError(`${program}: permission denied (not executable)`, 'EACCES');
    }
    return file;
  };
  if (program.includes('/')) return check(path.resolve(cwd, program));
  for (const dir of (envPath ?? '/usr/local/bin:/usr/bin:/bin').split(':')) {
    if (!dir) continue;
    const file = path.join(dir, program);
    if (fs.existsSync(file)) {
      try {
        return check(file);
      } catch (e) {
        if ((e as LaunchError).code === 'EACCES' || (e as LaunchError).code === 'EISDIR') continue;
        throw e;
      }
    }
  }
  throw new LaunchError(`${program}: command not found in PATH`, 'ENOENT');
}

/**
 * The run directory, and the prompt file when there is one. Everything else
 * — the status file, `out`, `err`, and the input FIFO (mkfifo has no Node
 * API, and spawnSync would fork the whole supervisor) — is made by the
 * wrapper: it opens `out` and `err` for its agent anyway, and a run's reader
 * takes a missing `out` for one with nothing in it yet.
 */
export function prepareRunDir(dir: string, promptFile: string | null = null): void {
  let made = true;
  try {
    fs.mkdirSync(dir, { mode: 0o700 });
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') made = false;
    else if (code === 'ENOENT') made = fs.mkdirSync(dir, { recursive: true, mode: 0o700 }) !== undefined;
    else throw e;
  }
  // A run continued after a usage limit starts again in its directory: the last attempt's `exit` must not read as this one's.
  if (!made) fs.rmSync(path.join(dir, 'status'), { force: true });
  if (promptFile !== null) fs.writeFileSync(path.join(dir, 'prompt'), promptFile, { mode: 0o600 });
}

/**
 * prepareRunDir on libuv's thread pool. Making an inode is kernel work that
 * is slow on some file systems (ext4 on a busy disk): done on the event loop
 * it made the supervisor itself the limit on a fleet of short jobs; on the
 * pool it runs beside the loop, several at a time. Each call to the pool is
 * a round trip through another thread on the way from a slot's release to the
 * next spawn, so a new run's directory is one call (mkdir): a directory just
 * made holds no status to remove.
 */
export async function prepareRunDirAsync(dir: string, promptFile: string | null = null): Promise<void> {
  let made = true;
  try {
    await fs.promises.mkdir(dir, { mode: 0o700 });
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') made = false;
    // The home's `runs` is not there yet (its first run).
    else if (code === 'ENOENT') made = (await fs.promises.mkdir(dir, { recursive: true, mode: 0o700 })) !== undefined;
    else throw e;
  }
  if (!made) await fs.promises.rm(path.join(dir, 'status'), { force: true });
  if (promptFile !== null) await fs.promises.writeFile(path.join(dir, 'prompt'), promptFile, { mode: 0o600 });
}

/** What launch() checks before anything is made: the program (as execvp finds it) and the cwd. Throws LaunchError. */
export function checkLaunch(spec: LaunchSpec): string {
  const program = resolveProgram(spec.argv[0]!, spec.cwd, spec.env.PATH);
  try {
    if (!fs.statSync(spec.cwd).isDirectory()) throw new Error('not a directory');
  } catch (e) {
    throw new LaunchError(`cwd ${spec.cwd}: ${(e as Error).message}`, 'ENOENT');
  }
  return program;
}

let signalResetter: string | null | undefined;

/**
 * An `env` that takes `--default-signal` (coreutils >= 8.31; busybox's and
 * older ones refuse it), or null. Asked once per process: with no command it
 * prints the environment and exits 0. Without one, an agent with input
 * starts with INT and QUIT ignored, as before.
 */
function defaultSignalEnv(): string | null {
  if (signalResetter !== undefined) return signalResetter;
  signalResetter = null;
  for (const env of ['/usr/bin/env', '/bin/env']) {
    if (!fs.existsSync(env)) continue;
    const r = spawnSync(env, ['--default-signal=INT,QUIT'], { stdio: 'ignore', timeout: 5_000 });
    // Not started at all (out of processes): ask again next time rather than remember a no.
    if (r.error !== undefined) {
      signalResetter = undefined;
      return null;
    }
    if (r.status === 0) {
      signalResetter = env;
      break;
    }
  }
  return signalResetter;
}

/** The wrapper's argv after /bin/sh, for a checked spec: what startWrapper (or the spawn helper) runs. */
export function wrapperArgs(spec: LaunchSpec, program: string): string[] {
  const stdin = spec.stdinFifo ? (spec.promptFile != null ? '2' : '1') : spec.promptFile != null ? 'f' : '0';
  const dfl = spec.stdinFifo ? (defaultSignalEnv() ?? '') : '';
  return ['-c', WRAPPER, 'orcr-wrap', spec.dir, stdin, dfl, ownUmask(), program, ...spec.argv.slice(1)];
}

let umaskText: string | undefined;

/**
 * This process's umask, in octal, for the agent (read from /proc: Node's
 * process.umask() cannot read it in a worker thread, and setting it to read
 * it would race other threads' files).
 */
function ownUmask(): string {
  if (umaskText !== undefined) return umaskText;
  try {
    umaskText = /^Umask:\s*([0-7]{3,4})$/m.exec(fs.readFileSync('/proc/self/status', 'utf8'))?.[1] ?? '022';
  } catch {
    umaskText = '022';
  }
  return umaskText;
}

/**
 * Start the wrapper for a checked spec whose run directory is ready. A fork
 * the OS refuses (EAGAIN: out of processes; EMFILE, ENFILE: out of
 * descriptors) is reported through the child's `error` event, a tick later:
 * it is listened to, or it would reach the process's top.
 */
function startWrapper(spec: LaunchSpec, program: string): Launched {
  const child = spawnDetached(spec, program);
  if (child.pid === undefined) throw new LaunchError('could not start /bin/sh', 'ESPAWN');
  return { pid: child.pid, pidStart: processStartTime(child.pid), child };
}

/** startWrapper, resolved once the OS has said yes or no: a refusal is a LaunchError with the OS's code (os-limits.ts says which are passing). */
export function spawnWrapper(spec: LaunchSpec, program: string): Promise<Launched> {
  return new Promise((resolve, reject) => {
    const child = spawnDetached(spec, program);
    child.once('spawn', () => resolve({ pid: child.pid!, pidStart: processStartTime(child.pid!), child }));
    child.once('error', (e: NodeJS.ErrnoException) => reject(new LaunchError(`could not start /bin/sh: ${e.code ?? e.message}`, e.code ?? 'ESPAWN')));
  });
}

function spawnDetached(spec: LaunchSpec, program: string): ChildProcess {
  const child = spawn('/bin/sh', wrapperArgs(spec, program), { cwd: spec.cwd, env: spec.env, detached: true, stdio: 'ignore' });
  child.on('error', () => undefined);
  child.unref();
  return child;
}

export function launch(spec: LaunchSpec): Launched {
  const program = checkLaunch(spec);
  prepareRunDir(spec.dir, spec.promptFile ?? null);
  return startWrapper(spec, program);
}

/**
 * The fields of /proc/PID/stat after the command name (so [0] is the state,
 * [2] the process group, [19] the start time), or null if the process is gone.
 * The command name may contain spaces and parentheses: split after the last ')'.
 */
export function procStat(pid: number): string[] | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null;
  }
}

/** Field 22 of /proc/PID/stat (start time in clock ticks since boot), or null if the process is gone. */
export function processStartTime(pid: number): string | null {
  return procStat(pid)?.[19] ?? null;
}

/** Is this pid still the process we started (same start time), and not a zombie? */
export function isOurProcess(pid: number, pidStart: string | null): boolean {
  const rest = procStat(pid);
  if (!rest || rest[0] === 'Z') return false;
  return pidStart === null || rest[19] === pidStart;
}

/** Until each of these processes is gone (or a zombie, or its pid another's), or `timeoutMs` passed. */
export async function processesGone(procs: readonly { pid: number; start: string | null }[], timeoutMs: number): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (procs.some((p) => isOurProcess(p.pid, p.start)) && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
}

/**
 * Does a process with this pid exist (kill 0: one system call, no file read)?
 * A zombie or a stranger that took the pid counts as existing: isOurProcess
 * tells those apart, at a file read's price.
 */
export function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Signal the whole process group, so grandchildren go too. */
export function signalGroup(pgid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false;
  }
}

/**
 * Processes of a run that may have left its process group: every live
 * process whose environment carries ORCR_RUN=<uuid>. Agents start tools in
 * sessions of their own (Claude Code runs each Bash command under setsid), so
 * a signal to the group misses them; the variable survives re-parenting.
 */
function runProcesses(uuid: string): number[] {
  const needle = `ORCR_RUN=${uuid}`;
  const out: number[] = [];
  let entries: string[];
  try {
    entries = fs.readdirSync('/proc');
  } catch {
    return out;
  }
  for (const d of entries) {
    if (d.charCodeAt(0) < 48 || d.charCodeAt(0) > 57) continue;
    try {
      if (fs.readFileSync(`/proc/${d}/environ`, 'latin1').split('\0').includes(needle)) out.push(Number(d));
    } catch {
      /* gone, or not ours */
    }
  }
  return out;
}

/** Signal a run's process group and every process of the run outside it. */
export function signalRun(uuid: string, pgid: number, signal: NodeJS.Signals): void {
  signalGroup(pgid, signal);
  for (const pid of runProcesses(uuid)) {
    try {
      process.kill(pid, signal);
    } catch {
      /* gone */
    }
  }
}

/** Any process left in the group? (kill 0 to the group) */
export function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * The run's `status` file: the wrapper's pid, then `exit N` once the agent
 * has ended. The wrapper appends each line with one write, so only a line
 * with its newline counts. Run directories made before this layout have a
 * `pid` file and an `exit` file instead; those are read too.
 */
export interface RunStatus {
  pid: number | null;
  exit: number | null;
  /** The wrapper said it began (`wrap`) and its agent did not (no `run`): with the wrapper gone, the agent never started. */
  unstarted: boolean;
  /** Its agent was started (the subshell's `run` line, or an exit status written). */
  ran: boolean;
}

/**
 * A run started again (continued, retried) whose new launch was journaled but
 * not carried out when its supervisor died still has the earlier attempt's
 * status file until the launch removes it: written no later than that attempt
 * ended, it is removed, so its `exit` is not read as this attempt's.
 */
export function forgetEarlierExit(dir: string, attemptEndedAt: number): void {
  const file = path.join(dir, 'status');
  let mtime: number;
  try {
    mtime = fs.statSync(file).mtimeMs;
  } catch {
    // None (the usual case), or unreadable now: readRunStatus says which.
    return;
  }
  if (mtime <= attemptEndedAt) fs.rmSync(file, { force: true });
}

export function readRunStatus(dir: string): RunStatus {
  let text: string;
  const file = path.join(dir, 'status');
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    // There but unreadable now (out of descriptors, an I/O error): not the same as "no status", which would misrecord the exit.
    const code = (e as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT' && code !== 'ENOTDIR') throw new Unreadable(file, code ?? 'EIO');
    // No status file: a wrapper not started yet (the usual case), or a run directory of the old layout.
    const pid = legacyNumber(path.join(dir, 'pid'), false);
    const exit = pid === null ? null : legacyNumber(path.join(dir, 'exit'), true);
    return { pid, exit, unstarted: false, ran: exit !== null };
  }
  let pid: number | null = null;
  let exit: number | null = null;
  let wrap = false;
  let ran = false;
  for (const line of text.split('\n').slice(0, -1)) {
    if (line === 'wrap') wrap = true;
    if (line === 'run') ran = true;
    const m = /^(?:exit )?(-?\d+)$/.exec(line.trim());
    if (!m) continue;
    if (line.startsWith('exit ')) exit = Number(m[1]);
    else pid ??= Number(m[1]) > 0 ? Number(m[1]) : null;
  }
  return { pid, exit, unstarted: wrap && !ran && exit === null, ran: ran || exit !== null };
}

function legacyNumber(file: string, needNewline: boolean): number | null {
  try {
    const text = fs.readFileSync(file, 'utf8');
    if (needNewline && !text.endsWith('\n')) return null;
    const n = Number(text.trim());
    return text.trim() !== '' && Number.isInteger(n) ? n : null;
  } catch {
    return null;
  }
}

/** The agent's exit status, or null if it has none (yet). Throws Unreadable when the file is there but cannot be read now. */
export function readExitStatus(dir: string): number | null {
  return readRunStatus(dir).exit;
}

/** The live wrapper of this run dir, by a scan of /proc (only on the rare path where no pid is known). */
export function findWrapper(dir: string): number | null {
  for (const entry of fs.readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid) || pid <= 0 || !isWrapperOf(pid, dir) || !isOurProcess(pid, null)) continue;
    // Its subshells carry the same argv: the wrapper is their process-group leader.
    const pgid = Number(procStat(pid)?.[2]);
    if (pgid > 0 && isWrapperOf(pgid, dir)) return pgid;
  }
  return null;
}

/** The pid belongs to our wrapper for this run dir (guards against pid reuse without a start time). */
export function isWrapperOf(pid: number, dir: string): boolean {
  try {
    const argv = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    return argv.includes('orcr-wrap') && argv.includes(dir);
  } catch {
    return false;
  }
}
