// Imported first by each entry point, for its side effect: on a Node.js that
// is too old, say so in one line and exit before any other module loads
// (an import's body runs before the next import's, so nothing after it
// starts). Written in what every Node since 12 parses.

import { nodeTooOld } from './node-version.js';

const why = nodeTooOld(process.versions.node, /tui(\/main\.js)?$/.test(process.argv[1] ?? '') ? 'orcr-tui' : 'orcr');
if (why) {
  process.stderr.write(`${why}\n`);
  process.exit(1);
}
