import { defineConfig } from 'vitest/config';
import { fileURLToPath } from 'node:url';

export default defineConfig({
  root: fileURLToPath(new URL('..', import.meta.url)),
  test: {
    include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
    // Integration tests start real supervisors and child processes; on a
    // shared 2-core box, a handful of files at once is the useful maximum.
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 60_000,
    env: { FORCE_COLOR: '0' },
    reporters: ['default', './test/support/plain-summary.ts'],
  },
});
