// The cluster's tables in PostgreSQL. Every statement can run again (IF NOT
// EXISTS), so a supervisor applies them at join, and a role that may not run
// DDL gets them from `orcr cluster schema` to apply as a migration.

export const CLUSTER_SCHEMA_VERSION = 1;

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
`;
