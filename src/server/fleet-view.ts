// Reading the fleet: every machine's runs as each published them into the
// cluster's database (orcr_run), for `ps --cluster`, `show HOST:RUN` and the
// TUI's cluster scope. A member overlays its own active runs from memory (its
// view of itself never waits for its own flush); a viewer reads only. Ages
// are the database's clock's. When the database does not answer, the answer
// is the last good read, with when it was (stale_since) and why: a view that
// is old is said to be, never an error the user cannot act on.

import { ambiguousText, freshness, lookupPublished } from '../core/fleet-view.js';
import { remoteName } from '../core/cluster-ref.js';
import type { ClusterDb } from '../limiter/pg-db.js';
import { readView, type ViewRead, type ViewRow } from '../limiter/pg-runs.js';
import { RemoteError } from '../protocol/errors.js';
import type { ParsedParamsOf } from '../protocol/methods.js';
import type { ClusterRunReply, ClusterRunsReply } from '../protocol/results.js';
import type { ClusterRun, ClusterRunFace } from '../protocol/views.js';

/** A name as typed, quoted and escaped: a control character in it is shown, not obeyed. */
const q = (s: string): string => JSON.stringify(s);

/** How long a read waits for the database before answering from the last good one. */
const READ_DEADLINE_MS = 3000;

/** This machine's own runs, as the fleet view shows them (a member's; a viewer has none in the cluster). */
export interface LocalFaces {
  /** Its active runs' faces, now. */
  active(): ClusterRunFace[];
  /** The face of the run a ref names here, null for none (ambiguous: a RemoteError, as a local ref is). */
  find(ref: string): ClusterRunFace | null;
}

export interface FleetViewDeps {
  db: Pick<ClusterDb, 'tx'>;
  cluster: string;
  host: string;
  /** null for a viewer. */
  local: LocalFaces | null;
  staleAfterMs: () => number;
  goneAfterMs: () => number;
  /** This machine's publisher's counts (a member's), null for a viewer. */
  publishing: () => { flushes: number; pending: number } | null;
}

type Filter = ParsedParamsOf<'cluster.runs'>;

interface GoodRead {
  read: ViewRead;
  /** This machine's clock, when it was read. */
  at: number;
}

export class FleetView {
  /** The last good read, with ended runs and without. */
  private last: { all: GoodRead | null; active: GoodRead | null } = { all: null, active: null };

  constructor(private readonly p: FleetViewDeps) {}

  get host(): string {
    return this.p.host;
  }

  /** The fleet's runs, filtered as run.list filters (active ones unless `all` or a status). */
  async runs(f: Filter): Promise<ClusterRunsReply> {
    const all = f.all === true || f.status !== undefined;
    const { read, staleSince, error } = await this.read(all);
    const runs = this.merge(read).filter(
      (r) =>
        (all || r.status !== 'ended') &&
        (f.status === undefined || r.status === f.status) &&
        (f.provider === undefined || r.provider === f.provider) &&
        (f.host === undefined || r.host === f.host),
    );
    const machines = read.machines
      .filter((m) => freshness(m.age_ms, this.p.staleAfterMs(), this.p.goneAfterMs()) !== 'gone')
      .map((m) => ({ ...m, stale: freshness(m.age_ms, this.p.staleAfterMs(), this.p.goneAfterMs()) === 'stale' }));
    return { cluster: this.p.cluster, host: this.p.host, runs, machines, as_of: read.as_of, stale_since: staleSince, error, publishing: this.p.publishing() };
  }

  /** One run: `HOST:REF`, or a bare ref this machine has not and exactly one other machine has. */
  async run(ref: string): Promise<ClusterRunReply> {
    const { read, staleSince } = await this.read(true);
    const runs = this.merge(read);
    const local = this.p.local;
    // A viewer is no machine of the cluster: every HOST: is another's, even one named as its own host.
    const self = local ? this.p.host : '';
    const hosts = new Set([...read.machines.map((m) => m.host), ...(local ? [self] : [])]);
    const found = lookupPublished(ref, self, hosts, runs, (r) => local?.find(r) != null);
    const reply = (run: ClusterRun): ClusterRunReply => ({ run, as_of: read.as_of, stale_since: staleSince });
    if (found.kind === 'found') return reply(found.run);
    if (found.kind === 'ambiguous') throw new RemoteError('ambiguous', ambiguousText(ref, found.names));
    if (found.kind === 'local') {
      const face = local?.find(found.ref) ?? null;
      if (face) return reply(this.asRun(face, this.p.host, false, read.as_of));
      const split = ref.indexOf(':');
      const unknown =
        split > 0 && !hosts.has(ref.slice(0, split))
          ? `; no machine ${q(ref.slice(0, split))} in cluster ${q(this.p.cluster)} (${[...hosts].sort().join(', ')})`
          : '';
      throw new RemoteError('not_found', `no run ${q(ref)} on any machine of the cluster${unknown}`);
    }
    throw new RemoteError('not_found', `no run ${q(found.ref)} on machine ${found.host}`);
  }

  /** The published rows as runs, gone machines' left out; a member's own active runs from memory. */
  private merge(read: ViewRead): ClusterRun[] {
    const stale = this.p.staleAfterMs();
    const gone = this.p.goneAfterMs();
    const own = this.p.local?.active() ?? [];
    const ownUuids = new Set(own.map((f) => f.uuid));
    const out: ClusterRun[] = [];
    for (const row of read.rows) {
      if (row.host === this.p.host && this.p.local) {
        // Ours: memory is newer than our last flush; an ended one is only in the database.
        if (!ownUuids.has(row.face.uuid) && row.face.status === 'ended') out.push(this.fromRow(row, false));
        continue;
      }
      const f = freshness(row.age_ms, stale, gone);
      if (f !== 'gone') out.push(this.fromRow(row, f === 'stale'));
    }
    for (const face of own) out.push(this.asRun(face, this.p.host, false, read.as_of));
    return out.sort((a, b) => (a.host === b.host ? a.created_at.localeCompare(b.created_at) : a.host.localeCompare(b.host)));
  }

  private fromRow(row: ViewRow, stale: boolean): ClusterRun {
    return this.asRun(row.face, row.host, stale, row.published_at);
  }

  private asRun(face: ClusterRunFace, host: string, stale: boolean, publishedAt: string): ClusterRun {
    const local = host === this.p.host && this.p.local !== null;
    return { ...face, host, ref: local ? face.name : remoteName(host, face.name), local, stale, published_at: publishedAt };
  }

  /** A read now, or the last good one when the database does not answer in time. */
  private async read(all: boolean): Promise<{ read: ViewRead; staleSince: string | null; error: string | null }> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`the database did not answer within ${READ_DEADLINE_MS / 1000} s`)), READ_DEADLINE_MS);
    });
    try {
      const read = await Promise.race([readView(this.p.db, this.p.cluster, all), late]);
      const good = { read, at: Date.now() };
      if (all) this.last.all = good;
      else this.last.active = good;
      return { read, staleSince: null, error: null };
    } catch (e) {
      const error = (e as Error)?.message ?? String(e);
      const last = this.newest(all);
      if (last) return { read: last.read, staleSince: new Date(last.at).toISOString(), error };
      // Never read: nothing to show but this machine's own, and that the view is missing since now.
      const now = new Date().toISOString();
      return { read: { rows: [], machines: [], as_of: now }, staleSince: now, error };
    } finally {
      clearTimeout(timer);
    }
  }

  /** The last good read that answers this question: with ended runs answers both. */
  private newest(all: boolean): GoodRead | null {
    const { all: a, active } = this.last;
    if (all) return a;
    if (a && (!active || a.at > active.at)) return a;
    return active;
  }
}
