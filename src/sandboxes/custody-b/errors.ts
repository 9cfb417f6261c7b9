/** An answer of the provider: `{error: {message}}` with the status (what the SDK reads). */
export class SandboxError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}
