// `orcr run`'s flag parser lives with the clients (src/client/run-args.ts),
// since the TUI's `n` parses the same flags; the CLI's imports stay as they were.
export * from '../client/run-args.js';
