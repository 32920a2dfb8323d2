// The verbs: each one's module, loaded when it is the verb given. A new
// verb is a module under verbs/ (parse, one SDK call, format), a line here
// and its usage in usage.ts.

import { CliExit, processIo, Shell, type CliIo, type Verb } from './shell.js';
import { MAIN_USAGE, VERB_USAGE } from './usage.js';
import { UsageError } from './usage-error.js';
import { VERSION } from './version.js';


type Loader = () => Promise<{ default: Verb }>;

const VERBS: Readonly<Record<string, Loader>> = {
  serve: () => import('./verbs/serve.js'),
  run: () => import('./verbs/run.js'),
  rerun: () => import('./verbs/run.js'),
  send: () => import('./verbs/run.js'),
  ps: () => import('./verbs/ps.js'),
  show: () => import('./verbs/ps.js'),
  kill: () => import('./verbs/kill.js'),
  wait: () => import('./verbs/wait.js'),
  logs: () => import('./verbs/logs.js'),
  events: () => import('./verbs/events.js'),
  stats: () => import('./verbs/stats.js'),
  spend: () => import('./verbs/stats.js'),
  server: () => import('./verbs/server.js'),
  queue: () => import('./verbs/server.js'),
  provider: () => import('./verbs/server.js'),
  gc: () => import('./verbs/worktree.js'),
  diff: () => import('./verbs/worktree.js'),
  worktree: () => import('./verbs/worktree.js'),
  cluster: () => import('./verbs/cluster.js'),
  loop: () => import('./verbs/loop.js'),
  mcp: () => import('./verbs/mcp.js'),
  demo: () => import('./verbs/mcp.js'),
};

async function main(argv: string[], sh: Shell): Promise<number> {
  const [verb, ...rest] = argv;
  if (!verb || verb === '--help' || verb === '-h' || verb === 'help') {
    sh.out(MAIN_USAGE);
    return verb ? 0 : 2;
  }
  if (verb === '--version') {
    sh.out(`orcr ${VERSION}`);
    return 0;
  }
  if (!(verb in VERB_USAGE) || !Object.hasOwn(VERBS, verb)) throw new UsageError(`unknown verb "${verb}" (see orcr --help)`);
  if (rest.includes('--help') || rest.includes('-h')) {
    const dd = rest.indexOf('--');
    const h = rest.indexOf('--help') >= 0 ? rest.indexOf('--help') : rest.indexOf('-h');
    if (dd < 0 || h < dd) {
      sh.out(`usage: ${VERB_USAGE[verb]}`);
      return 0;
    }
  }
  const { default: run } = await VERBS[verb]!();
  return run(verb, rest, sh);
}

/**
 * One command line, through `io`: its exit code, and whether a failure ended
 * it (then the process exits at once, whatever a verb left open).
 */
export async function runCli(argv: string[], io: CliIo = processIo): Promise<{ code: number; failed: boolean }> {
  const rest = argv.slice(1);
  const json = rest.includes('--json') && !rest.slice(0, rest.indexOf('--json')).includes('--');
  const sh = new Shell(json, VERSION, io);
  try {
    try {
      return { code: await main(argv, sh), failed: false };
    } catch (e) {
      if (e instanceof CliExit) throw e;
      return sh.failWith(e);
    }
  } catch (e) {
    if (e instanceof CliExit) return { code: e.code, failed: true };
    throw e;
  }
}

export async function cliMain(argv: string[]): Promise<void> {
  process.stdout.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code === 'EPIPE') process.exit(0);
  });
  const { code, failed } = await runCli(argv);
  if (failed) process.exit(code);
  process.exitCode = code;
}
