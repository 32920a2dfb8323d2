// The supervisor's one lifecycle mode, instead of four flags re-tested by
// hand: running, paused (`orcr queue pause`), draining (`server stop
// --drain`), degraded (the journal cannot be written) or stopping. Two
// questions cover every room: does it write (the journal is the truth and can
// take a change), and does it admit (a queued run may start). A degrade
// remembers the pause and the drain it interrupted, so a recovery resumes them.

export type Mode =
  | { kind: 'running' }
  | { kind: 'paused' }
  | { kind: 'draining'; paused: boolean }
  | { kind: 'degraded'; reason: string; paused: boolean; draining: boolean }
  | { kind: 'stopping' };

export const RUNNING: Mode = Object.freeze({ kind: 'running' });

/** The journal may be written: nothing is written while degraded or stopping. */
export function writes(m: Mode): boolean {
  return m.kind !== 'degraded' && m.kind !== 'stopping';
}

/** A queued run may start. */
export function admits(m: Mode): boolean {
  return m.kind === 'running';
}

export function isPaused(m: Mode): boolean {
  return m.kind === 'paused' || ((m.kind === 'draining' || m.kind === 'degraded') && m.paused);
}

export function isDraining(m: Mode): boolean {
  return m.kind === 'draining' || (m.kind === 'degraded' && m.draining);
}

/** Why the journal cannot be written, or null. */
export function degradedReason(m: Mode): string | null {
  return m.kind === 'degraded' ? m.reason : null;
}

function of(paused: boolean, draining: boolean): Mode {
  if (draining) return { kind: 'draining', paused };
  return paused ? { kind: 'paused' } : RUNNING;
}

/** `orcr queue pause|resume` (a degraded or stopping supervisor takes no writes, so keeps its mode). */
export function withPaused(m: Mode, paused: boolean): Mode {
  if (m.kind === 'degraded') return { ...m, paused };
  if (m.kind === 'stopping') return m;
  return of(paused, isDraining(m));
}

/** `server stop --drain|--kill-agents`: admit nothing more. */
export function withDraining(m: Mode): Mode {
  if (m.kind === 'degraded') return { ...m, draining: true };
  if (m.kind === 'stopping') return m;
  return of(isPaused(m), true);
}

export function degraded(m: Mode, reason: string): Mode {
  if (m.kind === 'degraded' || m.kind === 'stopping') return m;
  return { kind: 'degraded', reason, paused: isPaused(m), draining: isDraining(m) };
}

/** The journal is writable again: the pause and drain it interrupted go on. */
export function recovered(m: Mode): Mode {
  return m.kind === 'degraded' ? of(m.paused, m.draining) : m;
}

export const STOPPING: Mode = Object.freeze({ kind: 'stopping' });
