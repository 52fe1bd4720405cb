/** A command line the CLI cannot run: its message is printed with a pointer to `--help`, and the exit code is 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** Exit codes of `pay-checkout`. */
export const EXIT = {
  /** Done; for check-relay: every check conforms. */
  ok: 0,
  /** check-relay: a fault, or a check that could not run; sandbox: it could not start. */
  failed: 1,
  /** Bad arguments. */
  usage: 2,
} as const;

/** An integer option within bounds, or a {@link UsageError} naming it. */
export function integerOption(
  name: string,
  value: string | undefined,
  fallback: number,
  min: number,
  max: number,
): number {
  if (value === undefined) return fallback;
  const number = /^\d+$/.test(value.trim()) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(number) || number < min || number > max) {
    throw new UsageError(
      `--${name} must be a whole number from ${min} to ${max}; got ${JSON.stringify(value)}.`,
    );
  }
  return number;
}
