// Every skip says why. A test or a suite that cannot run here is still
// registered, and skipped through vitest's `ctx.skip(note)` with the reason
// as its note; test/support/plain-summary.ts counts the skips per reason at
// the end of the run, and with CI=true fails the run on any skip not marked
// optional (what the README says runs everywhere must run in CI). A plain
// `it.skipIf` carries no reason: the summary lists it as "no reason given",
// which CI refuses too.

import { beforeEach, describe, it, type TestContext } from 'vitest';

/** Why a test cannot run here (null: it can), and whether the README calls what it needs optional. */
export interface Need {
  reason: string | null;
  optional?: boolean;
}

/** The note a skip carries: optional ones are marked so, for the summary and CI. */
export const OPTIONAL = 'optional: ';
const noteOf = (need: Need): string => (need.optional ? OPTIONAL : '') + need.reason;

const asNeed = (need: Need | string | null): Need => (typeof need === 'object' && need !== null ? need : { reason: need });

/** A test that runs unless `need` says why not. */
export function itWhen(need: Need | string | null, name: string, fn: (ctx: TestContext) => unknown, timeout?: number): void {
  const n = asNeed(need);
  it(
    name,
    async (ctx) => {
      if (n.reason !== null) ctx.skip(noteOf(n));
      await fn(ctx);
    },
    timeout,
  );
}

/**
 * A suite whose tests run unless `need` says why not; its title says so. Its
 * hooks still run when skipped: a suite's beforeAll that needs what is missing
 * must check `need` itself.
 */
export function describeWhen(need: Need | string | null, name: string, fn: () => void, options?: { timeout?: number }): void {
  const n = asNeed(need);
  describe(n.reason === null ? name : `${name} (skipped: ${n.reason})`, options ?? {}, () => {
    if (n.reason !== null) beforeEach((ctx) => ctx.skip(noteOf(n)));
    fn();
  });
}
