// The frame check is the clients' (src/client/frame.ts): the SDK and `orcr
// mcp` refuse a request too large to send in the same words as the CLI.
export { checkFrame } from '../client/frame.js';
