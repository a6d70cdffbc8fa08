/**
 * Internal: the server's log lines. One line per request,
 * `memo-cloud: <ISO time> <METHOD> <path> <status> <ms>ms`, filtered by level:
 * `error` keeps 5xx lines, `warn` also 4xx, `info` every request, `debug`
 * also the stacks of failures. Failures (what a 500 hides) are logged at
 * every level.
 *
 * @module
 */

/** How much the server logs. */
export type CloudLogLevel = "error" | "warn" | "info" | "debug";

/** The levels, least to most. */
export const CLOUD_LOG_LEVELS: readonly CloudLogLevel[] = ["error", "warn", "info", "debug"];

/** Whether a request answered with `status` is logged at `level`. */
export function logsRequest(level: CloudLogLevel, status: number): boolean {
  if (level === "error") return status >= 500;
  if (level === "warn") return status >= 400;
  return true;
}

/** The line of one request. */
export function requestLine(
  time: Date,
  method: string,
  path: string,
  status: number,
  ms: number,
): string {
  return `memo-cloud: ${time.toISOString()} ${method} ${path} ${status} ${Math.max(0, ms)}ms`;
}

/** The line of a failure that a 500 answer hides; the stack too at `debug`. */
export function failureLine(
  time: Date,
  method: string,
  path: string,
  error: unknown,
  level: CloudLogLevel,
): string {
  const text = error instanceof Error
    ? (level === "debug" && error.stack ? error.stack : `${error.name}: ${error.message}`)
    : String(error);
  return `memo-cloud: ${time.toISOString()} error ${method} ${path}: ${text}`;
}
