// The CLI's usage errors are the clients' (src/client/usage-error.ts): the
// run flags the TUI parses too throw them.
export { UsageError } from '../client/usage-error.js';
