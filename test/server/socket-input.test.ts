// Bad input at the supervisor's socket, through a real supervisor: JSON
// nested past reason is a usage error (no stack trace in server.log), and
// the request limit counts bytes of UTF-8, not characters.

import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { MAX_FRAME_BYTES } from '../../src/protocol/wire.js';
import { until, useHomes, type TestHome } from '../support/harness.js';

const home = useHomes();

/** Send hello, then `line`; the replies (one JSON per line) once `want` replies came (or 'close': once the supervisor closed the socket) or the socket closed. */
async function exchange(
  h: TestHome,
  line: string | Buffer,
  want: number | 'close' = 2,
): Promise<{ replies: { id: number | null; error?: { code: string; message: string }; result?: unknown }[]; closed: boolean }> {
  const socket = net.createConnection(path.join(h.dir, 'orcr.sock'));
  let got = '';
  let closed = false;
  socket.setEncoding('utf8');
  socket.on('data', (d: string) => (got += d));
  socket.on('close', () => (closed = true));
  socket.on('error', () => undefined);
  socket.write(JSON.stringify({ id: 1, method: 'hello', params: { version: 1 } }) + '\n');
  socket.write(line);
  socket.write('\n');
  try {
    await until(
      () => closed || (want !== 'close' && got.split('\n').filter(Boolean).length >= want),
      want === 'close' ? 'the socket to close' : 'the replies',
      30_000,
    );
  } finally {
    socket.destroy();
  }
  return {
    replies: got
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l)),
    closed,
  };
}

describe('the socket refuses bad input in words', () => {
  it('deeply nested JSON is a usage error, with no stack trace in server.log; the supervisor goes on', async () => {
    const h = home();
    h.cli(['ps']);
    const deep = (n: number) => '['.repeat(n) + ']'.repeat(n);
    for (const line of [
      `{"id":2,"method":"run.enqueue","params":{"specs":[{"cwd":"/","command":["true"],"env":${deep(100_000)}}]}}`,
      `{"id":2,"method":"stats","params":${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}}`,
      `{"id":2,"method":"run.list","params":{"x":"${'['.repeat(1000)}"},"y":${deep(101)}}`,
    ]) {
      const { replies } = await exchange(h, line);
      expect(replies[1]).toEqual({ id: 2, error: { code: 'usage', message: 'the request is nested more than 100 levels deep' } });
    }
    // Brackets inside a string are text, and 100 levels are fine.
    const fine = await exchange(h, JSON.stringify({ id: 3, method: 'run.list', params: { x: '['.repeat(5000) } }).slice(0, -1) + `,"y":${deep(98)}}`);
    expect(fine.replies[1]).toMatchObject({ id: 3, result: { runs: [] } });
    const log = fs.readFileSync(path.join(h.dir, 'server.log'), 'utf8');
    expect(log).not.toMatch(/Maximum call stack|RangeError|internal error/);
    expect(h.cli(['ps']).code).toBe(0);
  });

  it('the request limit counts bytes: 9 MB of three-byte characters (3 M characters) is refused; 8 MiB of ASCII less a little is taken', async () => {
    const h = home();
    h.cli(['ps']);
    // The refusal comes before the close: wait for the close itself (CI once read the reply first and saw the socket open).
    const wide = await exchange(h, JSON.stringify({ id: 2, method: 'run.send', params: { ref: 'nope', text: '€'.repeat(3_000_000) } }), 'close');
    expect(wide.replies[1]).toEqual({ id: null, error: { code: 'usage', message: `frame larger than ${MAX_FRAME_BYTES} bytes` } });
    expect(wide.closed).toBe(true);
    const ascii = await exchange(h, JSON.stringify({ id: 2, method: 'run.send', params: { ref: 'nope', text: 'a'.repeat(MAX_FRAME_BYTES - 100) } }));
    expect(ascii.replies[1]).toMatchObject({ id: 2, error: { code: 'not_found' } });
    // Two requests in one write, one of them with multi-byte characters, are read as sent.
    const euro = Buffer.from(JSON.stringify({ id: 4, method: 'run.send', params: { ref: '€€', text: 'x' } }));
    const two = await exchange(h, Buffer.concat([Buffer.from(JSON.stringify({ id: 3, method: 'stats' }) + '\n'), euro]), 3);
    expect(two.replies.map((r) => r.id)).toEqual([1, 3, 4]);
    expect(two.replies[2]!.error!.message).toMatch(/€€/);
  });
});
