// A command line to its verb: the verb's module (grammar.ts names it) is
// loaded only when it is the verb given, so `orcr ps` loads none of what
// `orcr logs` needs. A new verb is its entry in grammar.ts (its usage line
// follows from it; usage.ts holds what a line cannot say) and its module
// under verbs/.

import { isVerb, spec, type VerbModule } from './grammar.js';
import { CliExit, processIo, Shell, type CliIo, type Verb } from './shell.js';
import { mainUsage, verbUsage } from './usage.js';
import { VERSION } from './version.js';
import { unknownVerb } from './words.js';

type Loader = () => Promise<{ default: Verb }>;

const MODULES: Readonly<Record<VerbModule, Loader>> = {
  run: () => import('./verbs/run.js'),
  ps: () => import('./verbs/ps.js'),
  kill: () => import('./verbs/kill.js'),
  wait: () => import('./verbs/wait.js'),
  logs: () => import('./verbs/logs.js'),
  events: () => import('./verbs/events.js'),
  stats: () => import('./verbs/stats.js'),
  server: () => import('./verbs/server.js'),
  worktree: () => import('./verbs/worktree.js'),
  cluster: () => import('./verbs/cluster.js'),
  loop: () => import('./verbs/loop.js'),
  mcp: () => import('./verbs/mcp.js'),
  serve: () => import('./verbs/serve.js'),
  help: () => import('./verbs/help.js'),
  completion: () => import('./verbs/completion.js'),
};

async function main(argv: string[], sh: Shell): Promise<number> {
  let [verb, ...rest] = argv;
  // No verb at all: the list of them, as a usage error (git does the same).
  if (verb === undefined) {
    sh.out(mainUsage());
    return 2;
  }
  if (verb === '--version') {
    sh.out(`orcr ${VERSION}`);
    return 0;
  }
  // `orcr --help [VERB]` is `orcr help [VERB]`.
  if (verb === '--help' || verb === '-h') verb = 'help';
  if (!isVerb(verb)) throw unknownVerb(verb);
  const dd = rest.indexOf('--');
  const h = rest.findIndex((a) => a === '--help' || a === '-h');
  if (h >= 0 && (dd < 0 || h < dd)) {
    sh.out(verbUsage(verb));
    return 0;
  }
  const { default: run } = await MODULES[spec(verb).module]();
  return run(verb, rest, sh);
}

/**
 * One command line, through `io`: its exit code, and whether a failure ended
 * it (then the process exits at once, whatever a verb left open). Exported
 * for the tests' CLI thread (test/support/cli-thread.mjs), which imports the
 * built file by a path knip cannot follow.
 * @public
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
