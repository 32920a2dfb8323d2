#!/usr/bin/env node
// `orcr`: the entry. The supervisor (`orcr serve`, which every client starts
// when none runs) loads only what it needs, not the CLI's tables, output
// parsers and their Unicode data: tens of milliseconds off each start.

const [verb, ...rest] = process.argv.slice(2);
if (verb === 'serve' && rest.length === 0) {
  const { serveMain } = await import('./serve.js');
  await serveMain();
} else {
  await import('./verbs.js');
}
