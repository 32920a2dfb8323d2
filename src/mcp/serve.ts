// `orcr mcp`: the Model Context Protocol on stdin/stdout, so an agent can run,
// watch and stop other runs with tools. The supervisor connection is made at
// the first tool call, not at start-up: a client lists tools without one;
// once made, it comes back by itself after a supervisor restart or stop (the
// SDK's session: the next call connects again).
// Runs made here start with this process's environment — the calling agent's,
// ORCR_RUN included when it is itself a run; an answer to a request made here
// is recorded as an MCP client's (its name, as it said at initialize, and
// this process), from that run: the supervisor refuses it for the run's own.

import { ensureHome, homeDir } from '../config/home.js';
import { Orcr } from '../sdk/client.js';
import { guard } from '../sdk/errors.js';
import type { Answerer } from '../sdk/families.js';
import { INVALID_REQUEST, RpcError, serveJsonRpc } from './jsonrpc.js';
import { callTool, toolList } from './tools.js';

/** Versions of the protocol this server speaks, newest last. */
const PROTOCOL_VERSIONS = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25'];

/** The versions with JSON-RPC batches: added in 2025-03-26, removed in 2025-06-18. */
const BATCH_VERSIONS = ['2025-03-26'];

export async function serveMcp(version: string): Promise<number> {
  let negotiated: string | null = null;
  let clientName: string | null = null;
  let orcr: Promise<Orcr> | null = null;
  const client = (): Promise<Orcr> => {
    orcr ??= guard(() => Orcr.open(ensureHome(homeDir()), { answerer: answerer(clientName) })).catch((e: unknown) => {
      orcr = null; // a supervisor that could not start now may next time
      throw e;
    });
    return orcr;
  };
  await serveJsonRpc(
    process.stdin,
    process.stdout,
    {
      initialize: (p, ctx) => {
        if (ctx.inBatch) throw new RpcError(INVALID_REQUEST, 'invalid request: initialize must not be part of a batch');
        // The client's version when we speak it; else ours, and the client decides.
        negotiated = PROTOCOL_VERSIONS.includes(String(p.protocolVersion)) ? String(p.protocolVersion) : PROTOCOL_VERSIONS.at(-1)!;
        clientName = nameOf(p.clientInfo);
        return {
          protocolVersion: negotiated,
          capabilities: { tools: { listChanged: false } },
          serverInfo: { name: 'orcr', version },
          instructions:
            'orcr supervises runs of coding agents and commands under caps and budgets. Start runs with run, then wait for them and read show or logs; ps lists the fleet; runs you start are your children. approvals lists what agents asked before using a tool; approve or deny the routine ones (never your own: the supervisor refuses).',
        };
      },
      ping: () => ({}),
      'tools/list': () => toolList(),
      'tools/call': (p, ctx) => callTool(client, p, ctx),
    },
    { batches: () => negotiated !== null && BATCH_VERSIONS.includes(negotiated), uncancellable: ['initialize'] },
  );
  if (orcr) (await (orcr as Promise<Orcr>).catch(() => null))?.close();
  return 0;
}

/** The client's name as it gave it at initialize, when it is a plain one (`claude-code`); null otherwise. */
function nameOf(info: unknown): string | null {
  const name = typeof info === 'object' && info !== null ? (info as { name?: unknown }).name : undefined;
  return typeof name === 'string' && /^[\w .@+-]{1,64}$/.test(name) ? name : null;
}

function answerer(client: string | null): Answerer {
  return { via: 'mcp', who: client === null ? `orcr mcp, pid ${process.pid}` : `${client}, orcr mcp pid ${process.pid}` };
}
