// The spawn helper's process: a small Node process that starts wrappers for
// the supervisor. libuv starts a child by forking the whole parent and the
// parent waits until the child has exec'd, so a spawn's cost grows with the
// parent's memory: from this small process it costs a fraction of what it
// costs from the supervisor (bench item 1), and here it runs beside the
// supervisor's event loop.
//
// In: { id, file, args, cwd, env, base } (env: what to add to the base
// environment: `base.env`, kept by `base.id` for later requests that name
// only the id, or without a base this process's, inherited from the
// supervisor). Out: { id, pid } or
// { id, error, code } (the OS's code: EAGAIN when out of processes). It exits when the supervisor goes (IPC disconnect).
// What it starts is detached (own session) and not tied to it: exits are
// seen by the supervisor from the run's status file, not from here.

import { spawn } from 'node:child_process';

interface Request {
  id: number;
  file: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
  base?: { id: string; env?: Record<string, string> } | null;
}

const bases = new Map<string, Record<string, string>>();

process.on('message', (m: Request) => {
  const send = (reply: { id: number; pid?: number; error?: string; code?: string }): void => void process.send?.(reply);
  try {
    const child = spawn(m.file, m.args, { cwd: m.cwd, env: { ...baseOf(m), ...m.env }, detached: true, stdio: 'ignore' });
    // A fork the OS refuses (EAGAIN, EMFILE, ENFILE) comes as `error`, a tick later: its code goes back, so the supervisor can wait and retry.
    child.once('spawn', () => send({ id: m.id, pid: child.pid! }));
    child.once('error', (e: NodeJS.ErrnoException) => send({ id: m.id, error: `could not start ${m.file}: ${e.code ?? e.message}`, code: e.code ?? 'ESPAWN' }));
    child.unref();
  } catch (e) {
    send({ id: m.id, error: (e as Error).message, code: (e as NodeJS.ErrnoException).code ?? 'ESPAWN' });
  }
});
function baseOf(m: Request): NodeJS.ProcessEnv {
  if (!m.base) return process.env;
  if (m.base.env) bases.set(m.base.id, m.base.env);
  const env = bases.get(m.base.id);
  if (!env) throw new Error(`spawn helper: no environment ${m.base.id}`);
  return env;
}

process.on('disconnect', () => process.exit(0));
// Listening now: tell the supervisor it can send.
process.send?.({ ready: true });
