/** A mistake in how a verb was called: reported with the verb's usage, exit code 2. */
export class UsageError extends Error {
  constructor(
    message: string,
    readonly verb?: string,
  ) {
    super(message);
  }
}
