// The tools `orcr mcp` offers an agent: run, wait, show, logs, send, kill,
// ps, each a call of the SDK. Inputs are described by JSON Schema for the
// model, and checked here as the schema says (a schema is advice to a model,
// not a guarantee; the SDK and the supervisor check every value again). The
// run tool's is the run-spec line schema's own (z.toJSONSchema), the one the
// SDK's RunSpec type is read from: a field added there is offered here.
// Results are text content holding JSON, as the CLI's --json prints it; a
// refused call is a tool error the model can read.

import { z } from 'zod';
import { PRESET_NAMES } from '../agents/registry.js';
import { runSpecLineSchema } from '../config/run-spec.js';
import { RUN_STATUSES } from '../core/types.js';
import { OrcrError } from '../sdk/errors.js';
import type { ListOptions, Orcr } from '../sdk/client.js';
import type { RunSpec } from '../sdk/spec.js';
import { INVALID_PARAMS, RpcError, type CallContext } from './jsonrpc.js';
import { waitWithProgress } from './progress.js';

interface Tool {
  name: string;
  description: string;
  inputSchema: { type: 'object'; properties: Record<string, unknown>; required?: string[]; additionalProperties: false };
  call: (orcr: Orcr, args: Record<string, unknown>, ctx: CallContext) => Promise<unknown>;
}

const RUN_REF = { type: 'string', description: 'a run: its uuid, a unique uuid prefix (4+ characters), or its name' };
const RUN_REFS = { type: 'array', items: RUN_REF, minItems: 1 };
const DURATION = { type: 'string', description: 'a duration: 500ms, 30s, 10m, 1h, 1h30m' };

function str(args: Record<string, unknown>, key: string): string {
  const v = args[key];
  if (typeof v !== 'string' || v === '') throw new OrcrError('usage', `"${key}" must be a non-empty string`);
  return v;
}

function strs(args: Record<string, unknown>, key: string): string[] {
  const v = args[key];
  if (!Array.isArray(v) || v.length === 0 || !v.every((s) => typeof s === 'string')) throw new OrcrError('usage', `"${key}" must be a non-empty array of run names or uuids`);
  return v as string[];
}

// An optional argument given as null is taken as not given: models send null for "none".
function optional<T>(args: Record<string, unknown>, key: string, type: 'string' | 'number' | 'boolean'): T | undefined {
  const v = args[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== type) throw new OrcrError('usage', `"${key}" must be a ${type}`);
  return v as T;
}

function wholeNumber(args: Record<string, unknown>, key: string, min: number): number | undefined {
  const v = args[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min) throw new OrcrError('usage', `"${key}" must be a whole number of at least ${min}, got ${JSON.stringify(v)}`);
  return v;
}

/**
 * The run spec as JSON Schema, from its zod schema, as a model reads it: the
 * input side, no $schema of its own, and a value of two types (a duration:
 * text or milliseconds) as anyOf, which strict validators take.
 */
function runInputSchema(): Tool['inputSchema'] {
  const { $schema: _, ...schema } = anyOfTypes(z.toJSONSchema(runSpecLineSchema, { io: 'input' })) as Record<string, unknown>;
  return schema as Tool['inputSchema'];
}

/** `{"type": ["number", "string"]}` → `{"anyOf": [{"type": "number"}, {"type": "string"}]}`, everywhere in a schema. */
function anyOfTypes(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(anyOfTypes);
  if (node === null || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) {
    if (k === 'type' && Array.isArray(v)) out.anyOf = v.map((type: unknown) => ({ type }));
    else out[k] = anyOfTypes(v);
  }
  return out;
}

export const TOOLS: readonly Tool[] = [
  {
    name: 'run',
    description:
      `Start an agent or a command as an orcr run. It is queued and starts as the concurrency caps allow; the reply is the run (its uuid and name identify it). Give "provider" (a preset: ${PRESET_NAMES.join(', ')}, or one from config.json) with a "prompt", or "command" (argv). Then use wait, show or logs.`,
    inputSchema: runInputSchema(),
    call: (orcr, args) => orcr.run(args as RunSpec),
  },
  {
    name: 'wait',
    description:
      'Wait until each run is idle (turn_complete), ended (its exit reason: completed, errored, killed, timeout, …) or blocked; with "timeout", a run still going then is "pending". Returns one {name, uuid, token} per run. Waiting on your own children lends them your slot. Without a timeout it waits as long as it takes: give the request a progressToken to get progress notifications meanwhile.',
    inputSchema: { type: 'object', properties: { runs: RUN_REFS, timeout: DURATION }, required: ['runs'], additionalProperties: false },
    call: (orcr, args, ctx) => waitWithProgress(orcr, strs(args, 'runs'), optional<string>(args, 'timeout', 'string'), ctx),
  },
  {
    name: 'show',
    description: 'A run: status, exit reason, turns, tokens, cost, budgets, its last text and tool.',
    inputSchema: { type: 'object', properties: { run: RUN_REF }, required: ['run'], additionalProperties: false },
    call: (orcr, args) => orcr.show(str(args, 'run')),
  },
  {
    name: 'logs',
    description: "The last lines of a run's output as the agent wrote them (stderr: its error output).",
    inputSchema: {
      type: 'object',
      properties: { run: RUN_REF, tail: { type: 'integer', minimum: 1, description: 'how many lines, from the end (default 100)' }, stderr: { type: 'boolean' } },
      required: ['run'],
      additionalProperties: false,
    },
    call: async (orcr, args) => ({ lines: await orcr.logs(str(args, 'run'), { tail: wholeNumber(args, 'tail', 1), stderr: optional<boolean>(args, 'stderr', 'boolean') }) }),
  },
  {
    name: 'send',
    description: 'Send input to an idle interactive run: it starts a new turn on it.',
    inputSchema: { type: 'object', properties: { run: RUN_REF, text: { type: 'string' } }, required: ['run', 'text'], additionalProperties: false },
    call: (orcr, args) => orcr.send(str(args, 'run'), str(args, 'text')),
  },
  {
    name: 'kill',
    description: 'Stop runs: a queued one is canceled, a live one gets TERM, then KILL after the grace period (at once with force).',
    inputSchema: { type: 'object', properties: { runs: RUN_REFS, force: { type: 'boolean' } }, required: ['runs'], additionalProperties: false },
    call: (orcr, args) => orcr.kill(strs(args, 'runs'), { force: optional<boolean>(args, 'force', 'boolean') }),
  },
  {
    name: 'ps',
    description: 'The runs of this home, oldest first, as `orcr ps --json` lists them: the active ones (queued, starting, working, idle, blocked) by default; "all" adds ended ones. Filter by "status" or "provider".',
    inputSchema: {
      type: 'object',
      properties: {
        all: { type: 'boolean', description: 'ended runs too (default: active runs only)' },
        status: { type: 'string', enum: [...RUN_STATUSES], description: 'only runs in this status (ended needs all)' },
        provider: { type: 'string', description: 'only runs of this provider' },
      },
      additionalProperties: false,
    },
    call: (orcr, args) =>
      orcr.list({ all: optional<boolean>(args, 'all', 'boolean'), status: optional<string>(args, 'status', 'string') as ListOptions['status'], provider: optional<string>(args, 'provider', 'string') }),
  },
];

/** Arguments a tool's schema does not name are refused (its schema says additionalProperties: false). */
function checkNames(tool: Tool, args: Record<string, unknown>): void {
  const known = Object.keys(tool.inputSchema.properties);
  const unknown = Object.keys(args).filter((k) => !known.includes(k));
  if (unknown.length > 0) {
    throw new OrcrError('usage', `${tool.name} takes no argument ${unknown.map((k) => JSON.stringify(k)).join(', ')} (it takes: ${known.join(', ')})`);
  }
}

/** The answer to tools/list. */
export function toolList(): { tools: { name: string; description: string; inputSchema: Record<string, unknown> }[] } {
  return { tools: TOOLS.map(({ name, description, inputSchema }) => ({ name, description, inputSchema })) };
}

/** The answer to tools/call: the result as JSON text, or a tool error with the CLI's code and exit code. */
export async function callTool(orcr: () => Promise<Orcr>, params: Record<string, unknown>, ctx: CallContext): Promise<{ content: { type: 'text'; text: string }[]; isError?: boolean }> {
  if (typeof params.name !== 'string') throw new RpcError(INVALID_PARAMS, `tools/call needs "name", the tool to call (tools: ${TOOLS.map((t) => t.name).join(', ')})`);
  const tool = TOOLS.find((t) => t.name === params.name);
  if (!tool) throw new RpcError(INVALID_PARAMS, `unknown tool ${JSON.stringify(params.name)} (tools: ${TOOLS.map((t) => t.name).join(', ')})`);
  if (params.arguments !== undefined && params.arguments !== null && (typeof params.arguments !== 'object' || Array.isArray(params.arguments))) {
    throw new RpcError(INVALID_PARAMS, `"arguments" must be an object, got ${JSON.stringify(params.arguments)}`);
  }
  const args = (params.arguments ?? {}) as Record<string, unknown>;
  try {
    checkNames(tool, args);
    const result = await tool.call(await orcr(), args, ctx);
    return { content: [{ type: 'text', text: JSON.stringify(result) }] };
  } catch (e) {
    if (!(e instanceof OrcrError)) throw e;
    return { content: [{ type: 'text', text: JSON.stringify({ error: { code: e.code, message: e.message, exit_code: e.exitCode } }) }], isError: true };
  }
}
