// `orcr mcp`: the Model Context Protocol on stdin/stdout, so an agent can run,
// watch and stop other runs with tools. The supervisor connection is made at
// the first tool call, not at start-up: a client lists tools without one.
// Runs made here start with this process's environment — the calling agent's,
// ORCR_RUN included when it is itself a run.

import { connect, type Orcr } from '../sdk/index.js';
import { serveJsonRpc } from './jsonrpc.js';
import { callTool, toolList } from './tools.js';

/** Versions of the protocol this server speaks, newest last. */
const PROTOCOL_VERSIONS = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25'];

export async function serveMcp(version: string): Promise<number> {
  let orcr: Promise<Orcr> | null = null;
  const client = (): Promise<Orcr> => {
    orcr ??= connect().catch((e: unknown) => {
      orcr = null; // a supervisor that could not start now may next time
      throw e;
    });
    return orcr;
  };
  await serveJsonRpc(process.stdin, process.stdout, {
    initialize: (p) => ({
      // The client's version when we speak it; else ours, and the client decides.
      protocolVersion: PROTOCOL_VERSIONS.includes(String(p.protocolVersion)) ? p.protocolVersion : PROTOCOL_VERSIONS.at(-1),
      capabilities: { tools: { listChanged: false } },
      serverInfo: { name: 'orcr', version },
      instructions: 'orcr supervises runs of coding agents and commands under caps and budgets. Start runs with run, then wait for them and read show or logs; runs you start are your children.',
    }),
    ping: () => ({}),
    'tools/list': () => toolList(),
    'tools/call': (p) => callTool(client, p),
  });
  if (orcr) (await (orcr as Promise<Orcr>).catch(() => null))?.close();
  return 0;
}
