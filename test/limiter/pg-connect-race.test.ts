// A server that ends a connection in the same breath as it accepts it: ready
// for queries, then "terminating connection due to administrator command", in
// one TCP write — what a PostgreSQL server being restarted (or its backends
// terminated) sends to a connection it had just finished opening. node-postgres
// reads both messages in one go: the pool hands the client out on the first,
// and the second is an 'error' on a client nobody listened to yet, which would
// take the supervisor down. The peer is a few lines speaking PostgreSQL's wire
// protocol on a real socket.

import net from 'node:net';
import { afterEach, expect, it } from 'vitest';
import { ClusterDb } from '../../src/limiter/pg-db.js';

let server: net.Server | null = null;

afterEach(async () => {
  await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
  server = null;
});

/** A backend message: its type byte, its length (itself included), its body. */
function message(type: string, body: Buffer): Buffer {
  const head = Buffer.alloc(5);
  head.write(type, 0, 'latin1');
  head.writeInt32BE(body.length + 4, 1);
  return Buffer.concat([head, body]);
}

function errorResponse(fields: Record<string, string>): Buffer {
  const parts = Object.entries(fields).map(([k, v]) => Buffer.from(`${k}${v}\0`, 'utf8'));
  return message('E', Buffer.concat([...parts, Buffer.from([0])]));
}

const authOk = message('R', Buffer.from([0, 0, 0, 0]));
const ready = message('Z', Buffer.from('I', 'latin1'));
const terminated = errorResponse({ S: 'FATAL', V: 'FATAL', C: '57P01', M: 'terminating connection due to administrator command' });

/** Accepts every connection, then ends it in the same write that says it is ready. */
async function droppingServer(): Promise<number> {
  server = net.createServer((socket) => {
    socket.on('error', () => undefined);
    // The startup message: its length, then as many bytes; then ready and gone at once.
    socket.once('data', () => {
      socket.end(Buffer.concat([authOk, ready, terminated]));
    });
  });
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', () => r()));
  return (server.address() as net.AddressInfo).port;
}

it('a connection ended as it opens fails the call as the cluster being unavailable, and raises nothing uncaught', async () => {
  const port = await droppingServer();
  const uncaught: unknown[] = [];
  const seen = (e: unknown): void => void uncaught.push(e);
  process.on('uncaughtException', seen);
  const db = new ClusterDb(`postgres://orcr:x@127.0.0.1:${port}/orcr`, Date.now);
  try {
    for (let i = 0; i < 5; i++) {
      const err = await db.q('SELECT 1').then(
        () => null,
        (e: unknown) => e,
      );
      expect((err as Error | null)?.name).toBe('ClusterUnavailable');
    }
    // An uncaught error surfaces on a later turn of the event loop: give it one.
    await new Promise((r) => setImmediate(r));
    expect(uncaught.map((e) => (e as Error).message)).toEqual([]);
  } finally {
    process.off('uncaughtException', seen);
    await db.end();
  }
});
