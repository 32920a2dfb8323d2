#!/usr/bin/env node
// `orcr`: the entry. The supervisor (`orcr serve`, which every client starts
// when none runs) loads only what it needs, not the CLI's tables, output
// parsers and their Unicode data; a verb loads its own module and what it
// needs (verbs.ts), so `orcr ps` does not pay for what `orcr logs` reads:
// tens of milliseconds off each start, and tests spawn the CLI by the hundred.

import '../client/node-check.js';

const [verb, ...rest] = process.argv.slice(2);
if (verb === 'serve' && rest.length === 0) {
  // A client that started this process hears that it runs at all: out of
  // threads (a process limit), Node can hang in its own start-up for ever,
  // before any of this, and the client then stops it instead of leaving it.
  if (process.env.ORCR_STARTED_FD === '3') {
    delete process.env.ORCR_STARTED_FD;
    const fs = await import('node:fs');
    try {
      fs.writeSync(3, 'r');
      fs.closeSync(3);
    } catch {
      /* the client has gone: nobody to tell */
    }
  }
  const { serveMain } = await import('./serve.js');
  await serveMain();
} else if (verb === '--version' && rest.length === 0) {
  // Asked by scripts and tests before anything else: nothing more to load.
  const { VERSION } = await import('./version.js');
  process.stdout.write(`orcr ${VERSION}\n`);
} else {
  const { cliMain } = await import('./verbs.js');
  await cliMain(process.argv.slice(2));
}
