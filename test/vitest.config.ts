import { defineConfig } from 'vitest/config';
import { fileURLToPath } from 'node:url';

export default defineConfig({
  root: fileURLToPath(new URL('..', import.meta.url)),
  test: {
    include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
    // dist/ is brought up to date once, before any test (never by a test: see the file).
    globalSetup: ['test/support/global-setup.ts'],
    // Integration tests start real supervisors and child processes; on a
    // shared 2-core box, a handful of files at once is the useful maximum.
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 60_000,
    env: { FORCE_COLOR: '0' },
    reporters: ['default', './test/support/plain-summary.ts'],
  },
});
