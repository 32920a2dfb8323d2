// The thread behind TestHome.cli: `orcr` command lines run as calls of the
// built CLI's runCli (dist/src/cli/verbs.js) — the same parsing, SDK,
// supervisor start and output as `node dist/src/cli/main.js`, without a Node
// process per command line (0.4 s of CPU each here, ~1,200 in the suite).
// One line at a time: the test's thread waits on `flag` for the answer.
// Plain JavaScript: a worker thread runs outside vitest's transform.

import { workerData } from 'node:worker_threads';

const { port, flag, verbs } = workerData;
const { runCli } = await import(verbs);

/** The line running now, and how to answer it. */
let answer = null;

function reply(result) {
  if (answer === null) return;
  answer = null;
  port.postMessage(result);
  Atomics.store(flag, 0, 1);
  Atomics.notify(flag, 0);
}

// What would have ended the process: exit code 1 and the stack on stderr, as Node prints it.
// The thread is not used again (the test's side starts another).
process.on('uncaughtException', (e) => {
  answer?.({ code: 1, stderr: `${e?.stack ?? e}\n`, broken: true });
});

port.on('message', async ({ args, env, input }) => {
  // The environment of this command line (the home, NO_COLOR, …): a worker's process.env is its own copy.
  for (const k of Object.keys(process.env)) delete process.env[k];
  Object.assign(process.env, env);
  let stdout = '';
  let stderr = '';
  answer = (r) => reply({ code: r.code, stdout, stderr: stderr + (r.stderr ?? ''), broken: r.broken === true });
  try {
    const { code } = await runCli(args, {
      stdout: (t) => void (stdout += t),
      stderr: (t) => void (stderr += t),
      stdin: () => input ?? '',
    });
    answer?.({ code });
  } catch (e) {
    answer?.({ code: 1, stderr: `${e?.stack ?? e}\n`, broken: true });
  }
});
