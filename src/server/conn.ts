// One client connection as the transport holds it: its socket, its bounded
// flow (connection.ts), what it subscribed to, and the signal its waits are
// dropped by when it goes; and the one way an answer is written to it.

import type net from 'node:net';
import type { ErrorBody } from '../protocol/errors.js';
import type { Connection } from './connection.js';

export interface Conn {
  socket: net.Socket;
  /** Its flow: requests read and handled within limits, replies and events queued within limits. */
  flow: Connection;
  subscribed: boolean;
  /** Subscribed with `rows`: also told of rows that changed without an event, and of queue positions. */
  rows: boolean;
  /** Subscribed with `rows` since the last positions were sent: to be sent all of them. */
  positionsDue: boolean;
  /** Aborted when the client goes away: its waits are dropped with it. */
  gone: AbortController;
}

export function reply(conn: Conn, id: number | null, error: ErrorBody | null, result?: unknown): void {
  conn.flow.send(JSON.stringify(error ? { id, error } : { id, result }) + '\n');
}
