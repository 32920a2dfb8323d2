// The input schemas `orcr mcp` lists are the method table's: a tool that
// makes a method's call takes that method's params (the same JSON Schema,
// under the tool's names), and the run tool takes the run-spec line. Read
// from a real `orcr mcp` under the official MCP client, as an agent lists
// them; no supervisor is needed to list tools.

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { runSpecLineSchema } from '../../src/config/run-spec.js';
import { RUN_STATUSES } from '../../src/core/types.js';
import { anyOfTypes } from '../../src/mcp/tool-args.js';
import { TOOLS } from '../../src/mcp/tools.js';
import { METHODS } from '../../src/protocol/methods.js';
import { CLI, NODE, useHomes } from '../support/harness.js';

const home = useHomes();
const clients: Client[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) await c.close().catch(() => undefined);
});

interface ObjectSchema {
  type: string;
  properties: Record<string, unknown>;
  required?: string[];
  additionalProperties?: boolean;
}

/** A zod schema as the tools describe theirs: JSON Schema of the input side, without $schema. */
function jsonOf(schema: z.ZodType): ObjectSchema {
  const { $schema: _, ...out } = anyOfTypes(z.toJSONSchema(schema, { io: 'input' })) as Record<string, unknown>;
  return out as unknown as ObjectSchema;
}

async function listed(): Promise<Map<string, ObjectSchema>> {
  const h = home();
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(h.env)) if (typeof v === 'string') env[k] = v;
  const client = new Client({ name: 'orcr-test', version: '1.0.0' });
  await client.connect(new StdioClientTransport({ command: NODE, args: [CLI, 'mcp'], env, cwd: h.dir, stderr: 'pipe' }));
  clients.push(client);
  const { tools } = await client.listTools();
  return new Map(tools.map((t) => [t.name, t.inputSchema as unknown as ObjectSchema]));
}

describe("orcr mcp's input schemas", () => {
  it("are the method table's params, under the tools' names; the run tool's is the run-spec line's", async () => {
    const schemas = await listed();
    expect([...schemas.keys()].sort()).toEqual(TOOLS.map((t) => t.name).sort());
    for (const t of TOOLS) {
      const schema = schemas.get(t.name)!;
      expect(schema.additionalProperties, `${t.name} takes no unknown argument`).toBe(false);
      if (t.from === null) {
        expect(schema, t.name).toEqual(jsonOf(runSpecLineSchema));
        continue;
      }
      const method = jsonOf(METHODS[t.from.method].params);
      for (const [arg, param] of Object.entries(t.from.params)) {
        expect(method.properties, `${t.from.method} has ${param}`).toHaveProperty([param]);
        expect(schema.properties[arg], `${t.name}.${arg} is ${t.from.method}'s ${param}`).toEqual(method.properties[param]);
        // A tool may require what its method leaves optional, never the other way round.
        if (method.required?.includes(param)) expect(schema.required ?? [], `${t.name}.${arg} is required as ${param} is`).toContain(arg);
      }
      expect(Object.keys(schema.properties).sort(), t.name).toEqual([...Object.keys(t.from.params), ...t.from.own].sort());
    }
  });

  it('take, beside the table, only what no method takes (the client does that work), and name the run statuses', async () => {
    const schemas = await listed();
    // A tool that takes an argument no method does is named here: one more is a choice, not a slip.
    const own = Object.fromEntries(TOOLS.filter((t) => t.from !== null && t.from.own.length > 0).map((t) => [t.name, [...t.from!.own]]));
    expect(own).toEqual({ wait: ['timeout'], logs: ['tail', 'stderr'] });
    expect(schemas.get('ps')!.properties.status).toMatchObject({ type: 'string', enum: [...RUN_STATUSES] });
    expect(schemas.get('wait')!.required).toEqual(['runs']);
  });

  it("check arguments with the table's schemas, in the tool's names: null is not given, an unknown argument or a bad item is named", () => {
    const read = (name: string, args: Record<string, unknown>): unknown => {
      try {
        TOOLS.find((t) => t.name === name)!.prepare(args);
        return 'ok';
      } catch (e) {
        return (e as Error).message;
      }
    };
    expect(read('ps', { all: null, status: null, provider: null })).toBe('ok');
    expect(read('show', { run: 'x', verbose: null })).toBe('show takes no argument "verbose" (it takes: run)');
    expect(read('kill', { runs: ['a', 7] })).toBe('"runs[1]" must be a string: a run\'s uuid, a unique uuid prefix or its name, got 7');
    expect(read('ps', { status: 'done' })).toBe('"status" must be one of queued, starting, working, idle, blocked, ended, got "done"');
    expect(read('kill', { runs: ['a'], force: 'yes' })).toBe('"force" must be true or false, got "yes"');
  });
});
