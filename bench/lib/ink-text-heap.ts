// Run as its own process (node --expose-gc): Ink alone, no orcr. One <Text>
// whose text is new on every frame ('row xxx… N', N = 1…FRAMES, argv[2],
// default 50,000), rendered to a fake 160x50 terminal with a turn of the event
// loop between frames. Prints {"ink", "react", "nodeEnv", "heapMb"}: the heap
// after a full GC, five times along the way. An Ink that keeps every text it
// measured grows by what it kept; a bounded cache levels off. NODE_ENV is
// the caller's (unset: React's development build).

import fs from 'node:fs';
import { PassThrough, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';

delete process.env.CI;
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with --expose-gc');
const frames = Number(process.argv[2] ?? 50_000);

const React = (await import('react')).default;
const { render, Text } = await import('ink');
/** The installed version of a package (Ink's exports leave out its package.json). */
function version(pkg: string): string {
  const entry = fileURLToPath(import.meta.resolve(pkg));
  const dir = entry.slice(0, entry.lastIndexOf(`/node_modules/${pkg}/`) + `/node_modules/${pkg}`.length);
  return (JSON.parse(fs.readFileSync(`${dir}/package.json`, 'utf8')) as { version: string }).version;
}

const stdout = Object.assign(new Writable({ write: (_c, _e, cb) => cb() }), { isTTY: true, columns: 160, rows: 50 });
const stdin = Object.assign(new PassThrough(), { isTTY: true, setRawMode: () => stdin, ref: () => stdin, unref: () => stdin });
const frame = (i: number): React.ReactElement => React.createElement(Text, null, 'row ' + 'x'.repeat(60) + ' ' + i);
const inst = render(frame(0), {
  stdout: stdout as unknown as NodeJS.WriteStream,
  stdin: stdin as unknown as NodeJS.ReadStream,
  patchConsole: false,
  exitOnCtrlC: false,
  maxFps: 1000,
});
const tick = (): Promise<void> => new Promise((r) => setImmediate(r));
const heapMb = (): number => {
  gc();
  return Math.round(process.memoryUsage().heapUsed / 1e5) / 10;
};
await tick();
const heap: [number, number][] = [[0, heapMb()]];
for (let i = 1; i <= frames; i++) {
  inst.rerender(frame(i));
  await tick();
  if (i % Math.ceil(frames / 5) === 0 || i === frames) heap.push([i, heapMb()]);
}
inst.unmount();
process.stdout.write(JSON.stringify({ ink: version('ink'), react: version('react'), nodeEnv: process.env.NODE_ENV ?? null, heapMb: heap }) + '\n');
process.exit(0);
