// The tools `orcr mcp` offers an agent, each a call of the SDK: those the
// method table offers (an entry's `tool`: ps, show, kill, send, each calling
// the SDK function the entry names), and, written here, those that take what
// no method does (run, wait, logs). Their arguments are the params of the
// methods those calls make, read from the method table (./tool-args.ts):
// their JSON Schema for the model and their check are the table's zod
// schemas. The run tool's is the run-spec line schema's own, the one the
// SDK's RunSpec type is read from: a field added there is offered here.
// Results are text content holding JSON, as the CLI's --json prints it; a
// refused call is a tool error the model can read.

import { z } from 'zod';
import { PRESET_NAMES } from '../agents/registry.js';
import { runSpecLineSchema } from '../config/run-spec.js';
import { METHOD_NAMES, METHODS, type MethodName, type MethodSpec, type ToolSpec } from '../protocol/methods.js';
import { OrcrError } from '../sdk/errors.js';
import type { Orcr } from '../sdk/client.js';
import type { RunSpec } from '../sdk/spec.js';
import { INVALID_PARAMS, RpcError, type CallContext } from './jsonrpc.js';
import { waitWithProgress } from './progress.js';
import { fromMethod, inputSchema, offeredArgs, specArgs, type ArgsFrom, type ToolArgs } from './tool-args.js';

export interface Tool {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  /** The method whose params the arguments are (null: the run tool's, a run spec). */
  from: ArgsFrom | null;
  /** The call the arguments make, once they are read (OrcrError `usage` if they cannot be): before any connection is made. */
  prepare: (args: Record<string, unknown>) => (orcr: Orcr, ctx: CallContext) => Promise<unknown>;
}

function tool<T>(t: { name: string; description: string; args: ToolArgs<T>; call: (orcr: Orcr, args: T, ctx: CallContext) => Promise<unknown> }): Tool {
  return {
    name: t.name,
    description: t.description,
    inputSchema: inputSchema(t.args.schema),
    from: t.args.from,
    prepare: (raw) => {
      const args = t.args.read(t.name, raw);
      return (orcr, ctx) => t.call(orcr, args, ctx);
    },
  };
}

// What no method takes: the SDK parses the wait's duration and reads the log's lines.
const TIMEOUT = z.string({ error: 'must be a string' }).describe('a duration: 500ms, 30s, 10m, 1h, 1h30m').optional();
const WHOLE = 'must be a whole number of at least 1';
const TAIL = z.number({ error: WHOLE }).int({ error: WHOLE }).min(1, { error: WHOLE }).describe('how many lines, from the end (default 100)').optional();
const STDERR = z.boolean({ error: 'must be true or false' }).describe("the run's error output instead of its output").optional();

/** The SDK function at a path (`show`, `server.status`), bound to what holds it. */
function sdkFunction(orcr: Orcr, path: string): (...args: unknown[]) => Promise<unknown> {
  const words = path.split('.');
  const owner = words.slice(0, -1).reduce<Record<string, unknown>>((o, w) => o[w] as Record<string, unknown>, orcr as unknown as Record<string, unknown>);
  const fn = owner[words.at(-1)!];
  if (typeof fn !== 'function') throw new Error(`the method table offers a tool over ${path}, which is no function of the SDK`);
  return (fn as (...args: unknown[]) => Promise<unknown>).bind(owner);
}

const camel = (name: string): string => name.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());

/** A tool a method table entry offers: its SDK function called with its args in their order, then its options (those given) as one object. */
function offered(spec: ToolSpec, method: MethodName): Tool {
  const args = Object.keys(spec.args ?? {});
  const options = Object.keys(spec.options ?? {});
  return tool({
    name: spec.name,
    description: spec.description,
    args: offeredArgs(method, { ...spec.args, ...spec.options }),
    call: (orcr, a) => {
      const given = Object.fromEntries(options.filter((o) => a[o] !== undefined).map((o) => [camel(o), a[o]]));
      return sdkFunction(orcr, spec.sdk)(...args.map((k) => a[k]), ...(spec.options ? [given] : []));
    },
  });
}

const OFFERED: readonly Tool[] = METHOD_NAMES.flatMap((m) => {
  const spec: MethodSpec = METHODS[m];
  return spec.tool ? [offered(spec.tool, m)] : [];
});

export const TOOLS: readonly Tool[] = [
  tool({
    name: 'run',
    description: `Start an agent or a command as an orcr run. It is queued and starts as the concurrency caps allow; the reply is the run (its uuid and name identify it). Give "provider" (a preset: ${PRESET_NAMES.join(', ')}, or one from config.json) with a "prompt", or "command" (argv). Then use wait, show or logs.`,
    args: specArgs<RunSpec>(runSpecLineSchema),
    call: (orcr, spec) => orcr.run(spec),
  }),
  tool({
    name: 'wait',
    description:
      'Wait until each run is idle (turn_complete), ended (its exit reason: completed, errored, killed, timeout, …) or blocked; with "timeout", a run still going then is "pending". Returns one {name, uuid, token} per run. Waiting on your own children lends them your slot. Without a timeout it waits as long as it takes: give the request a progressToken to get progress notifications meanwhile.',
    args: fromMethod('run.wait', { runs: 'refs' }, { required: ['runs'], own: { timeout: TIMEOUT } }),
    call: (orcr, a, ctx) => waitWithProgress(orcr, a.runs, a.timeout, ctx),
  }),
  tool({
    name: 'logs',
    description: "The last lines of a run's output as the agent wrote them (stderr: its error output).",
    args: fromMethod('run.resolve', { run: 'ref' }, { own: { tail: TAIL, stderr: STDERR } }),
    call: async (orcr, a) => ({ lines: await orcr.logs(a.run, { tail: a.tail, stderr: a.stderr }) }),
  }),
  ...OFFERED,
];

/** The answer to tools/list. */
export function toolList(): { tools: { name: string; description: string; inputSchema: Record<string, unknown> }[] } {
  return { tools: TOOLS.map(({ name, description, inputSchema }) => ({ name, description, inputSchema })) };
}

/** The answer to tools/call: the result as JSON text, or a tool error with the CLI's code and exit code. */
export async function callTool(
  orcr: () => Promise<Orcr>,
  params: Record<string, unknown>,
  ctx: CallContext,
): Promise<{ content: { type: 'text'; text: string }[]; isError?: boolean }> {
  if (typeof params.name !== 'string')
    throw new RpcError(INVALID_PARAMS, `tools/call needs "name", the tool to call (tools: ${TOOLS.map((t) => t.name).join(', ')})`);
  const tool = TOOLS.find((t) => t.name === params.name);
  if (!tool) throw new RpcError(INVALID_PARAMS, `unknown tool ${JSON.stringify(params.name)} (tools: ${TOOLS.map((t) => t.name).join(', ')})`);
  if (params.arguments !== undefined && params.arguments !== null && (typeof params.arguments !== 'object' || Array.isArray(params.arguments))) {
    throw new RpcError(INVALID_PARAMS, `"arguments" must be an object, got ${JSON.stringify(params.arguments)}`);
  }
  const args = (params.arguments ?? {}) as Record<string, unknown>;
  try {
    const call = tool.prepare(args);
    const result = await call(await orcr(), ctx);
    return { content: [{ type: 'text', text: JSON.stringify(result) }] };
  } catch (e) {
    if (!(e instanceof OrcrError)) throw e;
    return { content: [{ type: 'text', text: JSON.stringify({ error: { code: e.code, message: e.message, exit_code: e.exitCode } }) }], isError: true };
  }
}
