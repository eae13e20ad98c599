/** Thrown for bad command lines; the CLI prints the message and exits with status 2. */
export class UsageError extends Error {}

/**
 * Thrown when `serve` cannot start (a missing `--open` file or plugin folder, the port in use, no editor binary);
 * the CLI prints its message as one line and exits with status 1, nothing logged after it.
 */
export class StartupError extends Error {}
