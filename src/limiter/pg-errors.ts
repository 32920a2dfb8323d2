// What can go wrong between a machine and the cluster's database, told
// apart: refused for good (a bad URL, a password, a privilege, a name
// already taken), the caps differ, or unavailable for now (fail closed and
// try again) — with the real cause named, not the symptom it left behind.

/** The cluster refuses this machine: its caps differ from the cluster's. */
export class ClusterConflict extends Error {
  override readonly name = 'ClusterConflict';
  constructor(
    message: string,
    readonly keys: string[],
  ) {
    super(message);
  }
}

/** The database cannot be reached (or refused a statement): fail closed until it can. */
export class ClusterUnavailable extends Error {
  override readonly name = 'ClusterUnavailable';
}

/** The database refuses this machine for good until someone changes something: a bad URL, a wrong password, a missing privilege. */
export class ClusterRefused extends Error {
  override readonly name = 'ClusterRefused';
}

/** SQLSTATE classes and socket errors that no retry will cure. */
const FATAL_CODES: Readonly<Record<string, string>> = {
  '28P01': 'the password was refused',
  '28000': 'the role may not log in (pg_hba.conf, or no such role)',
  '3D000': 'no such database',
  '42501': 'the role lacks a privilege orcr needs (it must create and write the orcr_* tables; `orcr cluster schema` prints them to apply as a migration)',
  '3F000': 'no such schema',
  ENOTFOUND: 'no such host',
  ERR_INVALID_URL: 'not a valid connection URL',
};

/** Causes worth naming among the passing ones. */
const PASSING_CODES: Readonly<Record<string, string>> = {
  '55P03': "a lock on one of orcr's tables is held by another session (lock_timeout ran out waiting for it)",
  '57014': "a statement on orcr's tables ran past statement_timeout (a lock held elsewhere, or an overloaded database)",
  '57P01': 'the database server was shut down or restarted',
  '57P03': 'the database server is starting up or shutting down',
  '53300': 'the database server has no connection left (max_connections)',
  ECONNREFUSED: 'the database server refused the connection (not running, or a wrong port)',
};

export function unavailable(e: unknown): ClusterUnavailable {
  if (e instanceof ClusterUnavailable) return e;
  const code = (e as { code?: string })?.code ?? '';
  const msg = (e as Error)?.message ?? String(e);
  const why = PASSING_CODES[code];
  return new ClusterUnavailable(why ? `${why}: ${msg}` : msg);
}

/** What joining failed of: refused for good, or unavailable for now. */
export function classify(e: unknown): ClusterRefused | ClusterUnavailable | ClusterConflict {
  if (e instanceof ClusterConflict || e instanceof ClusterRefused) return e;
  const code = (e as { code?: string })?.code ?? '';
  const why = FATAL_CODES[code];
  const msg = (e as Error)?.message ?? String(e);
  if (why) return new ClusterRefused(`${why}: ${msg}`);
  if (e instanceof TypeError && /url/i.test(msg)) return new ClusterRefused(`not a valid connection URL: ${msg}`);
  return unavailable(e);
}
