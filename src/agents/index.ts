// The agents room's public surface: the registered agent protocols (each one
// record: detection, adapter, input, resume, take-over, account, preset,
// mock), adapters that turn an agent's output lines into normalized signals,
// protocol detection, and the signal fold.

export type { ExtendedAdapter } from './signals.js';
export { AGENT_PROTOCOLS, agentProtocol, createAdapter, PROTOCOLS } from './registry.js';
export { detectProtocol } from './detect.js';
export { createDetectingAdapter } from './detecting.js';
export { createClaudeAdapter } from './claude/index.js';
export { createCodexAdapter } from './codex.js';
export { createGeminiAdapter } from './gemini.js';
export { createJsonlAdapter } from './jsonl.js';
export { createPlainAdapter } from './plain.js';
export { foldSignals } from './fold.js';
