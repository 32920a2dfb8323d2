// The spawn helper's process: a small Node process that starts wrappers for
// the supervisor. libuv starts a child by forking the whole parent and the
// parent waits until the child has exec'd, so a spawn's cost grows with the
// parent's memory: ~1.5 ms from an 80-100 MB supervisor against ~0.6 ms from
// this process, and here it runs beside the supervisor's event loop.
//
// In: { id, file, args, cwd, env, replace } (env: only what differs from this
// process's, which it inherited from the supervisor; with `replace`, the whole
// environment). Out: { id, pid } or
// { id, error, code }. It exits when the supervisor goes (IPC disconnect).
// What it starts is detached (own session) and not tied to it: exits are
// seen by the supervisor from the run's status file, not from here.

import { spawn } from 'node:child_process';

interface Request {
  id: number;
  file: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
  replace?: boolean;
}

process.on('message', (m: Request) => {
  let reply: { id: number; pid?: number; error?: string; code?: string };
  try {
    const child = spawn(m.file, m.args, { cwd: m.cwd, env: m.replace ? m.env : { ...process.env, ...m.env }, detached: true, stdio: 'ignore' });
    child.on('error', () => undefined);
    child.unref();
    reply = child.pid === undefined ? { id: m.id, error: `could not start ${m.file}`, code: 'ESPAWN' } : { id: m.id, pid: child.pid };
  } catch (e) {
    reply = { id: m.id, error: (e as Error).message, code: (e as NodeJS.ErrnoException).code ?? 'ESPAWN' };
  }
  process.send?.(reply);
});
process.on('disconnect', () => process.exit(0));
// Listening now: tell the supervisor it can send.
process.send?.({ ready: true });
