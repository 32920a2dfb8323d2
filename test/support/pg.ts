// The throw-away PostgreSQL server the cluster tests use: the bench's (one
// implementation for both), started from this machine's binaries or taken
// from ORCR_TEST_PG_URL.

export { findPgBin, pgUnavailable, PgServer } from '../../bench/lib/pg-server.js';
