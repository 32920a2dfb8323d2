/** orcr's version, as `orcr --version` and `orcr mcp`'s serverInfo say it. */
export const VERSION = '0.1.0';
