// Run by ink-frame-cache.test.tsx as its own process (node --expose-gc): fills
// Ink's caches with frames of new text under a budget too large to turn over,
// then empties them, and prints {"said", "freed"}: the bytes the caches
// reported holding, and the heap that emptying them gave back.

import React from 'react';
import { Box, configureInkCaches, inkCacheStats, renderToString, Text } from 'ink';

const gc = globalThis.gc;
if (!gc) throw new Error('run with --expose-gc');
const h = React.createElement;
const heap = () => {
  for (let i = 0; i < 3; i++) gc();
  return process.memoryUsage().heapUsed;
};
const total = () => inkCacheStats().caches.reduce((a, c) => a + c.bytes, 0);

const frame = (i) =>
  h(
    Box,
    { flexDirection: 'column', width: 100 },
    Array.from({ length: 24 }, (_, j) =>
      h(Text, { key: j, color: j % 3 ? 'green' : '#ff8800', wrap: 'truncate-end' }, `${j % 4 ? '●' : '⧗'} run-${i}-${j} working ${i * 31 + j}s turn ${j} tokens ${(i * 977 + j) % 10000}`),
    ),
  );

configureInkCaches({ crossFrame: true, maxBytes: 512 * 1024 * 1024 });
renderToString(frame(-1), { columns: 100 });
configureInkCaches({ maxBytes: 1 });
configureInkCaches({ maxBytes: 512 * 1024 * 1024 });
const before = heap();
for (let i = 0; i < 300; i++) renderToString(frame(i), { columns: 100 });
const said = total();
const full = heap();
configureInkCaches({ maxBytes: 1 });
const emptied = heap();
process.stdout.write(JSON.stringify({ said, freed: full - emptied, grew: full - before }) + '\n');
