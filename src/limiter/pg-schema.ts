// The cluster's tables in PostgreSQL. Every statement can run again (IF NOT
// EXISTS), so a supervisor applies them at join, and a role that may not run
// DDL gets them from `orcr cluster schema` to apply as a migration. Version 2
// added columns to tables of version 1 (ALTER … IF NOT EXISTS), version 3 a
// table: a database of any version takes the whole text. Version 4 added the
// fleet view (each machine's runs as `ps` shows them) and the commands one
// machine leaves for another's supervisor.

export const CLUSTER_SCHEMA_VERSION = 4;

export const CLUSTER_SCHEMA = `
CREATE TABLE IF NOT EXISTS orcr_cluster (
  name        text PRIMARY KEY,
  policy      jsonb NOT NULL,
  version     integer NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE IF NOT EXISTS orcr_host (
  cluster     text NOT NULL REFERENCES orcr_cluster(name) ON DELETE CASCADE,
  host        text NOT NULL,
  heartbeat   timestamptz NOT NULL DEFAULT now(),
  joined_at   timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (cluster, host)
);
CREATE TABLE IF NOT EXISTS orcr_waiter (
  cluster     text NOT NULL,
  uuid        text NOT NULL,
  host        text NOT NULL,
  name        text NOT NULL,
  provider    text NOT NULL,
  workload    text NOT NULL,
  seq         bigserial,
  enqueued_at bigint NOT NULL,
  PRIMARY KEY (cluster, uuid)
);
CREATE INDEX IF NOT EXISTS orcr_waiter_order ON orcr_waiter (cluster, seq);
CREATE TABLE IF NOT EXISTS orcr_lease (
  id          bigserial PRIMARY KEY,
  cluster     text NOT NULL,
  uuid        text NOT NULL,
  host        text NOT NULL,
  name        text NOT NULL,
  provider    text NOT NULL,
  workload    text NOT NULL,
  granted_at  bigint NOT NULL,
  expires_at  timestamptz NOT NULL,
  claimed     boolean NOT NULL DEFAULT false,
  UNIQUE (cluster, uuid)
);
CREATE INDEX IF NOT EXISTS orcr_lease_host ON orcr_lease (cluster, host);
CREATE TABLE IF NOT EXISTS orcr_hold (
  cluster     text NOT NULL,
  provider    text NOT NULL,
  until       bigint NOT NULL,
  PRIMARY KEY (cluster, provider)
);
CREATE TABLE IF NOT EXISTS orcr_usage (
  cluster     text NOT NULL,
  minute      bigint NOT NULL,
  tokens      bigint NOT NULL DEFAULT 0,
  cost        double precision NOT NULL DEFAULT 0,
  PRIMARY KEY (cluster, minute)
);
-- Version 2.
-- Bumped by every write that may let a run start somewhere: a machine that
-- hears no notifications (a transaction-mode pooler) polls this one value.
ALTER TABLE orcr_cluster ADD COLUMN IF NOT EXISTS change bigint NOT NULL DEFAULT 0;
-- When a machine came back after the database was away: staleness of the
-- others' heartbeats counts from here, not across the outage.
ALTER TABLE orcr_cluster ADD COLUMN IF NOT EXISTS resumed_at timestamptz;
-- Which home holds a host name (two homes with one name would share a queue).
ALTER TABLE orcr_host ADD COLUMN IF NOT EXISTS home_id text;
ALTER TABLE orcr_host ADD COLUMN IF NOT EXISTS home text;
ALTER TABLE orcr_host ADD COLUMN IF NOT EXISTS machine text;
-- A hold's end on the database's clock (until: the writer's, kept for version 1 readers).
ALTER TABLE orcr_hold ADD COLUMN IF NOT EXISTS expires_at timestamptz;
-- Version 3.
-- A provider whose hold lifted starts its waiting runs one per interval_ms,
-- left_count of them, the next not before next_at (the database's clock).
CREATE TABLE IF NOT EXISTS orcr_pace (
  cluster     text NOT NULL,
  provider    text NOT NULL,
  interval_ms bigint NOT NULL,
  left_count  integer NOT NULL,
  next_at     timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (cluster, provider)
);
-- Version 4.
-- The public face of each machine's runs, written by its supervisor (coalesced):
-- what \`ps\` shows, never prompts, environment values, tool inputs or output.
-- updated_at and ended_at are the database's clock (ages never trust a machine's).
CREATE TABLE IF NOT EXISTS orcr_run (
  cluster     text NOT NULL,
  host        text NOT NULL,
  uuid        text NOT NULL,
  name        text NOT NULL,
  status      text NOT NULL,
  face        jsonb NOT NULL,
  ended_at    timestamptz,
  updated_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (cluster, uuid)
);
CREATE INDEX IF NOT EXISTS orcr_run_host ON orcr_run (cluster, host);
CREATE INDEX IF NOT EXISTS orcr_run_name ON orcr_run (cluster, name);
-- A command for one machine's supervisor (kill, send, approve, …): a socket
-- method and its params, carried out there (the only writer of its journal)
-- and answered in \`answer\` ({result} or {error: {code, message}}).
CREATE TABLE IF NOT EXISTS orcr_command (
  id          bigserial PRIMARY KEY,
  cluster     text NOT NULL,
  host        text NOT NULL,
  from_host   text NOT NULL,
  method      text NOT NULL,
  params      jsonb NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now(),
  taken_at    timestamptz,
  done_at     timestamptz,
  answer      jsonb
);
CREATE INDEX IF NOT EXISTS orcr_command_todo ON orcr_command (cluster, host, id) WHERE done_at IS NULL;
-- Whether a machine carries out other machines' commands (cluster.accept_commands).
ALTER TABLE orcr_host ADD COLUMN IF NOT EXISTS accept_commands boolean NOT NULL DEFAULT true;
`;

/** The tables and the version-2 columns a joining machine needs, to tell whether the schema must be applied. */
export const REQUIRED_COLUMNS: readonly (readonly [table: string, column: string])[] = [
  ['orcr_cluster', 'name'],
  ['orcr_cluster', 'change'],
  ['orcr_cluster', 'resumed_at'],
  ['orcr_host', 'home_id'],
  ['orcr_host', 'home'],
  ['orcr_host', 'machine'],
  ['orcr_waiter', 'seq'],
  ['orcr_lease', 'id'],
  ['orcr_hold', 'expires_at'],
  ['orcr_usage', 'minute'],
  ['orcr_pace', 'next_at'],
  ['orcr_run', 'face'],
  ['orcr_command', 'answer'],
  ['orcr_host', 'accept_commands'],
];

export const CLUSTER_TABLES = [
  'orcr_cluster',
  'orcr_host',
  'orcr_waiter',
  'orcr_lease',
  'orcr_hold',
  'orcr_usage',
  'orcr_pace',
  'orcr_run',
  'orcr_command',
] as const;

/** Missing (table.column) of REQUIRED_COLUMNS, read from the catalog of the connection's search path. */
export const MISSING_COLUMNS_SQL = `
SELECT t.tab || '.' || t.col AS missing
FROM unnest($1::text[], $2::text[]) AS t(tab, col)
WHERE NOT EXISTS (
  SELECT 1 FROM information_schema.columns c
  WHERE c.table_name = t.tab AND c.column_name = t.col AND c.table_schema = ANY (current_schemas(false))
)`;

/** What the role lacks on the tables and their sequences, as GRANT targets. */
export const MISSING_PRIVILEGES_SQL = `
SELECT 'table ' || t AS missing FROM unnest($1::text[]) AS t
  WHERE NOT has_table_privilege(t, 'SELECT, INSERT, UPDATE, DELETE')
UNION ALL
SELECT 'sequence ' || s FROM (VALUES (pg_get_serial_sequence('orcr_waiter', 'seq')), (pg_get_serial_sequence('orcr_lease', 'id')), (pg_get_serial_sequence('orcr_command', 'id'))) AS q(s)
  WHERE s IS NOT NULL AND NOT has_sequence_privilege(s, 'USAGE')`;
