// The agent protocols orcr speaks, registered once: each is its record
// (protocol.ts) in its own module. Every list of protocols derives from this
// one — their names (`--protocol`, the zod enums, the TUI's filter), the
// built-in presets, the mock agent's formats, the messages that name those
// which take input or report their cost. A new protocol is its module, a line
// here, its mock renderer and its tests.
//
// The order is the order names are listed in (the agent CLIs', then orcr's
// own, then plain output); detection does not depend on it (the surest claim
// wins, protocol.ts' CERTAINTY).

import type { Protocol } from '../core/types.js';
import { acp } from './acp/index.js';
import { claude } from './claude/index.js';
import { codex } from './codex.js';
import { codexApp } from './codex-app/index.js';
import { gemini } from './gemini.js';
import { jsonl } from './jsonl.js';
import { plain } from './plain.js';
import type { AgentProtocol } from './protocol.js';
import type { Adapter, AdapterOptions, ExtendedAdapter, PlainAdapterOptions } from './signals.js';

const REGISTERED = [claude, codex, codexApp, gemini, acp, jsonl, plain] as const;

/** A registered protocol's name. */
export type ProtocolName = (typeof REGISTERED)[number]['name'];

/** Every registered protocol's name, in the registry's order. */
export const PROTOCOLS = REGISTERED.map((p) => p.name) as unknown as readonly [ProtocolName, ...ProtocolName[]];

export const AGENT_PROTOCOLS: readonly AgentProtocol[] = REGISTERED;

const BY_NAME: ReadonlyMap<string, AgentProtocol> = new Map(AGENT_PROTOCOLS.map((p) => [p.name, p]));

/** The record of a protocol, by name; null for none, or a name no longer registered. */
export function agentProtocol(name: Protocol | null | undefined): AgentProtocol | null {
  return (name !== null && name !== undefined && BY_NAME.get(name)) || null;
}

export function isProtocol(name: string): name is ProtocolName {
  return BY_NAME.has(name);
}

/** The names of the protocols that have something: `protocolsWith((p) => p.reportsCost)`. */
export function protocolsWith(has: (p: AgentProtocol) => boolean): ProtocolName[] {
  return REGISTERED.filter(has).map((p) => p.name);
}

/** A record's built-in preset's name: its own, or its protocol's. */
const presetName = (p: AgentProtocol): string | null => (p.preset ? (p.preset.name ?? p.name) : null);

const BY_PRESET: ReadonlyMap<string, AgentProtocol> = new Map(AGENT_PROTOCOLS.flatMap((p) => (p.preset ? [[presetName(p)!, p] as const] : [])));

/** The protocol whose built-in preset is named `provider` (a preset is named for its protocol, or as its record says), or null. */
export function presetProtocol(provider: string): AgentProtocol | null {
  return BY_PRESET.get(provider) ?? null;
}

/** The built-in presets' names. */
export const PRESET_NAMES: readonly string[] = AGENT_PROTOCOLS.flatMap((p) => presetName(p) ?? []);

/** The formats orcr-mock-agent speaks (`--format NAME`): the protocols with a mock renderer. */
export const MOCK_FORMATS: readonly ProtocolName[] = protocolsWith((p) => p.mock !== undefined);

/** The formats in which orcr-mock-agent asks before it acts (`--scenario ask`): their protocol carries requests and answers. */
export const ASKING_MOCK_FORMATS: readonly ProtocolName[] = protocolsWith((p) => p.mock !== undefined && p.approvals !== undefined);

/** Its agents report their own cost (else: tokens × a configured price). */
export function reportsOwnCost(protocol: Protocol | null | undefined): boolean {
  return agentProtocol(protocol)?.reportsCost === true;
}

/**
 * With `{ modelTurns: true }` the adapter also emits `model_turn` boundaries
 * (claude, codex, gemini; orcr's jsonl and plain have none: their turns are
 * the unit). `now` is the clock for limits stated as a time of day. An
 * unknown name (e.g. from an old journal row) degrades to plain text.
 */
export function createAdapter(protocol: Protocol, options?: PlainAdapterOptions): Adapter;
export function createAdapter(protocol: Protocol, options: AdapterOptions): ExtendedAdapter;
export function createAdapter(protocol: Protocol, options?: AdapterOptions): Adapter | ExtendedAdapter {
  return (agentProtocol(protocol) ?? plain).adapter(options ?? {});
}
