import { defineConfig } from 'vitest/config';
import { fileURLToPath } from 'node:url';

// The live suite of the genuine agent CLIs (test/real, ~750 MB of CLIs from
// `npm run agents:install`) runs behind its own command, `npm run test:real`
// (ORCR_TEST_REAL=1); `npm test` runs everything else, the recorded
// transcripts of test/real included.
const LIVE = [
  'test/real/acp.test.ts',
  'test/real/claude.test.ts',
  'test/real/claude-approvals.test.ts',
  'test/real/claude-mcp.test.ts',
  'test/real/codex.test.ts',
  'test/real/codex-app.test.ts',
  'test/real/codex-app-probe.test.ts',
  'test/real/gemini.test.ts',
  'test/real/gemini-acp.test.ts',
  'test/real/gemini-acp-sessions.test.ts',
  'test/real/record.test.ts',
];

export default defineConfig({
  root: fileURLToPath(new URL('..', import.meta.url)),
  test: {
    include: process.env.ORCR_TEST_REAL === '1' ? ['test/real/**/*.test.ts'] : ['test/**/*.test.ts', 'test/**/*.test.tsx'],
    exclude: process.env.ORCR_TEST_REAL === '1' ? ['**/node_modules/**'] : ['**/node_modules/**', ...LIVE],
    // dist/ is brought up to date once, before any test (never by a test: see the file).
    globalSetup: ['test/support/global-setup.ts'],
    // Integration tests start real supervisors and child processes, and
    // spend much of their time waiting on them (a database stopped, a lease
    // running out, an agent's turn): on 2 cores five files at once keep both
    // busy — the whole suite 505 s at 3 -> 424 s at 5 here, the same hour,
    // all passing (1,485 tests; a clean clone later that hour at 5: 523 s,
    // so the gain is within this shared machine's noise; 718 s -> 634 s from
    // 1 to 3 earlier).
    maxWorkers: 5,
    testTimeout: 60_000,
    hookTimeout: 60_000,
    env: { FORCE_COLOR: '0' },
    reporters: ['default', './test/support/plain-summary.ts'],
  },
});
