// Schema migrations. MIGRATIONS[v] takes a store from version v to v + 1;
// PRAGMA user_version holds the version a store is at.

export const MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
  CREATE TABLE runs (
    uuid TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    status TEXT NOT NULL,
    queue_seq INTEGER NOT NULL UNIQUE,
    provider TEXT NOT NULL,
    workload TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    record TEXT NOT NULL
  );
  CREATE INDEX runs_active ON runs (queue_seq) WHERE status != 'ended';
  CREATE INDEX runs_name ON runs (name);
  CREATE TABLE events (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    ts INTEGER NOT NULL,
    run TEXT,
    type TEXT NOT NULL,
    data TEXT NOT NULL
  );
  CREATE INDEX events_run ON events (run, seq);
  `,
  // v2: fleet usage per minute, so fleet budgets (all-time or rolling) are a
  // small SUM at start-up instead of a scan of every event.
  `
  CREATE TABLE usage_minutes (minute INTEGER PRIMARY KEY, tokens INTEGER NOT NULL, cost REAL NOT NULL);
  `,
  // v3: the environment of the client that made each run, written once at
  // enqueue and read once at launch: kept out of the run's record (rewritten
  // on every transition), and stored once per distinct environment (a fleet's
  // runs mostly share their maker's), named by its hash.
  `
  CREATE TABLE envs (id TEXT PRIMARY KEY, env TEXT NOT NULL);
  ALTER TABLE runs ADD COLUMN env_id TEXT;
  `,
  // v4: when a run ended, as a column (retention collects ended runs by age
  // without reading every record).
  `
  ALTER TABLE runs ADD COLUMN ended_at INTEGER;
  UPDATE runs SET ended_at = json_extract(record, '$.ended_at') WHERE status = 'ended';
  CREATE INDEX runs_ended ON runs (ended_at) WHERE status = 'ended';
  `,
  // v5: the run that made each run (its maker's ORCR_RUN), as a column, so a
  // run's children are an index lookup; the record carries it (and depth) too.
  `
  ALTER TABLE runs ADD COLUMN parent TEXT;
  UPDATE runs SET parent = json_extract(record, '$.parent') WHERE json_extract(record, '$.parent') IS NOT NULL;
  CREATE INDEX runs_parent ON runs (parent, queue_seq) WHERE parent IS NOT NULL;
  `,
  // v6: the directory of a run's worktree while it may exist (run --worktree),
  // so gc and prune find them without reading every record.
  `
  ALTER TABLE runs ADD COLUMN worktree TEXT;
  CREATE INDEX runs_worktree ON runs (worktree) WHERE worktree IS NOT NULL;
  `,
  // v7: loops (durable cron for a command), one row each: the record as JSON,
  // and the environment of the client that made it, which its runs start with
  // (kept here, not in envs, which retention prunes to what runs refer to).
  `
  CREATE TABLE loops (name TEXT PRIMARY KEY, record TEXT NOT NULL, env TEXT);
  `,
  // v8: an agent's requests (a tool it wants to use, a question it asks),
  // one row each: short ids for people to type, never reused in a home
  // (AUTOINCREMENT: retention removes old ones); one row per request of a
  // run (its agent's ref), so a request read twice is journaled once; the
  // pending ones found without reading every record. The input asked about
  // stays in the run's folder, never here.
  `
  CREATE TABLE approvals (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    run TEXT NOT NULL,
    ref TEXT NOT NULL,
    state TEXT NOT NULL,
    asked_at INTEGER NOT NULL,
    record TEXT NOT NULL,
    UNIQUE (run, ref)
  );
  CREATE INDEX approvals_pending ON approvals (asked_at, id) WHERE state = 'pending';
  `,
];

export const SCHEMA_VERSION = MIGRATIONS.length;
