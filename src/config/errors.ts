/** config.json is invalid: the message names the file and the key. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}
