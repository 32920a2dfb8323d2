// The agents room's public surface: the registered agent protocols (each one
// record: detection, adapter, input, resume, take-over, account, preset,
// mock), adapters that turn an agent's output lines into normalized signals,
// protocol detection, and the signal fold.

export type { Adapter, AdapterOptions, ExtendedAdapter, ExtendedSignal, ModelTurnSignal, Signal } from './signals.js';
export type { AgentProtocol } from './protocol.js';
export { AGENT_PROTOCOLS, agentProtocol, createAdapter, PROTOCOLS, type ProtocolName } from './registry.js';
export { detectProtocol } from './detect.js';
export { createDetectingAdapter, type DetectingAdapter, type DetectingOptions } from './detecting.js';
export { createClaudeAdapter } from './claude/index.js';
export { createCodexAdapter } from './codex.js';
export { createGeminiAdapter } from './gemini.js';
export { createJsonlAdapter } from './jsonl.js';
export { createPlainAdapter } from './plain.js';
export { foldSignals, type SignalFold } from './fold.js';
export { acceptsInput, inputLine } from './input.js';
