// A tool's arguments, read from the method table: each argument is a param of
// the method the tool's SDK call makes, its zod schema the table's, so the
// JSON Schema a model reads and the check its values get are the table's,
// under the name a model is told (`run`, where the method says `ref`). A tool
// may require what its method leaves optional (wait takes runs; the method
// takes runs or all), and may add what no method takes because the client
// does that work (a wait's timeout as text, the lines of a log): those are
// declared with zod beside the tool. The run tool's arguments are the
// run-spec line schema's, checked by the line's own rules in the SDK.
//
// A schema is advice to a model, not a guarantee: values are checked here,
// and the SDK and the supervisor check them again.

import { z } from 'zod';
import { jsonProblemText } from '../config/run-spec.js';
import { METHODS, type MethodName, type Methods } from '../protocol/methods.js';
import { OrcrError } from '../sdk/errors.js';

type ShapeOf<M extends MethodName> = Methods[M]['params'] extends z.ZodObject<infer S> ? S : never;
type ParamOf<M extends MethodName> = keyof ShapeOf<M> & string;
type Unwrapped<T> = T extends z.ZodOptional<infer I> ? I : T;

/** Which method's params a tool's arguments are: argument → param. */
export interface ArgsFrom {
  method: MethodName;
  params: Readonly<Record<string, string>>;
  /** Arguments of the tool's own, taken by no method. */
  own: readonly string[];
}

export interface ToolArgs<T> {
  schema: z.ZodObject;
  /** null: the run tool, whose arguments are a run spec's. */
  from: ArgsFrom | null;
  /** The arguments as the call takes them, or OrcrError `usage` saying what is wrong, in the argument's name. */
  read(tool: string, raw: Record<string, unknown>): T;
}

/**
 * The arguments `params` names (argument → the method's param), the ones in
 * `required` required even where the method has them optional, and `own`.
 */
export function fromMethod<
  M extends MethodName,
  A extends Record<string, ParamOf<M>>,
  R extends keyof A & string = never,
  O extends z.ZodRawShape = Record<never, never>,
>(
  method: M,
  params: A,
  opts: { required?: readonly R[]; own?: O } = {},
): ToolArgs<z.output<z.ZodObject<{ [K in keyof A]: K extends R ? Unwrapped<ShapeOf<M>[A[K]]> : ShapeOf<M>[A[K]] } & O>>> {
  return argsOf(method, params, opts) as never;
}

/** The arguments of a tool the method table offers (its entry's `tool`): the params it names, under the tool's names. */
export function offeredArgs(method: MethodName, params: Readonly<Record<string, string>>): ToolArgs<Record<string, unknown>> {
  return argsOf(method, params, {});
}

function argsOf(
  method: MethodName,
  params: Readonly<Record<string, string>>,
  opts: { required?: readonly string[]; own?: z.ZodRawShape },
): ToolArgs<Record<string, unknown>> {
  const table = (METHODS[method].params as z.ZodObject).shape;
  const shape: Record<string, z.ZodType> = {};
  for (const [arg, param] of Object.entries(params)) {
    const field = table[param]!;
    shape[arg] = opts.required?.includes(arg) && field instanceof z.ZodOptional ? field.unwrap() : field;
  }
  const schema = z.object({ ...shape, ...opts.own }).strict();
  return {
    schema,
    from: { method, params, own: Object.keys(opts.own ?? {}) },
    read: (tool, raw) => {
      // Models send null for "none": an argument given as null is taken as not given (an unknown one is still refused).
      const given = Object.fromEntries(Object.entries(raw).filter(([k, v]) => v !== null || !Object.hasOwn(schema.shape, k)));
      const r = schema.safeParse(given);
      if (!r.success) throw new OrcrError('usage', problemText(tool, schema, r.error, given));
      return r.data;
    },
  };
}

/** The run tool's: a run spec as a `--from` line writes it; the SDK's run() checks the values with the line's rules. */
export function specArgs<T>(schema: z.ZodObject): ToolArgs<T> {
  return {
    schema,
    from: null,
    read: (tool, raw) => {
      const unknown = Object.keys(raw).filter((k) => !Object.hasOwn(schema.shape, k));
      if (unknown.length > 0) throw new OrcrError('usage', unknownText(tool, schema, unknown));
      return raw as T;
    },
  };
}

function unknownText(tool: string, schema: z.ZodObject, keys: readonly string[]): string {
  return `${tool} takes no argument ${keys.map((k) => JSON.stringify(k)).join(', ')} (it takes: ${Object.keys(schema.shape).join(', ')})`;
}

/** `"tail" must be a whole number of at least 1, got 1.5`: an unknown argument first (usually a misspelling), else the first problem. */
function problemText(tool: string, schema: z.ZodObject, error: z.ZodError, args: Record<string, unknown>): string {
  const unknown = error.issues.find((i) => i.code === 'unrecognized_keys');
  if (unknown) return unknownText(tool, schema, unknown.keys);
  const issue = error.issues[0]!;
  const [field, ...inside] = issue.path.map(String);
  if (field === undefined || inside.length === 0) return jsonProblemText({ field: field ?? null, message: issue.message }, args);
  // Inside an argument (an item of runs): named with its place, and the value there.
  let value: unknown = args[field];
  for (const k of inside) value = (value as Record<string, unknown>)[k];
  const place = `${field}[${inside.join('][')}]`;
  return jsonProblemText({ field: place, message: issue.message }, { [place]: value });
}

/**
 * The arguments as JSON Schema, as a model reads them: the input side, no
 * $schema of its own, and a value of two types (a duration: text or
 * milliseconds) as anyOf, which strict validators take.
 */
export function inputSchema(schema: z.ZodObject): Record<string, unknown> {
  const { $schema: _, ...out } = anyOfTypes(z.toJSONSchema(schema, { io: 'input' })) as Record<string, unknown>;
  return out;
}

/** `{"type": ["number", "string"]}` → `{"anyOf": [{"type": "number"}, {"type": "string"}]}`, everywhere in a schema. */
export function anyOfTypes(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(anyOfTypes);
  if (node === null || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) {
    if (k === 'type' && Array.isArray(v)) out.anyOf = v.map((type: unknown) => ({ type }));
    else out[k] = anyOfTypes(v);
  }
  return out;
}
