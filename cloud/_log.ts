/**
 * Internal: the server's log lines, from the request log it shares with
 * `memo serve` (`../platform/access_log.ts`), with the prefix `memo-cloud`: one line
 * per request, `memo-cloud: <ISO time> <METHOD> <path> <status> <ms>ms`,
 * filtered by level: `error` keeps 5xx lines, `warn` also 4xx, `info` every
 * request, `debug` also the stacks of failures. Failures (what a 500 hides)
 * are logged at every level.
 *
 * @module
 */

import {
  failureLine as sharedFailureLine,
  LOG_LEVELS,
  type LogLevel,
  logsRequest,
  requestLine as sharedRequestLine,
} from "../platform/mod.ts";

/** How much the server logs. */
export type CloudLogLevel = LogLevel;

/** The levels, least to most. */
export const CLOUD_LOG_LEVELS: readonly CloudLogLevel[] = LOG_LEVELS;

export { logsRequest };

/** The line of one request. */
export function requestLine(
  time: Date,
  method: string,
  path: string,
  status: number,
  ms: number,
): string {
  return sharedRequestLine("memo-cloud", time, method, path, status, ms);
}

/** The line of a failure that a 500 answer hides; the stack too at `debug`. */
export function failureLine(
  time: Date,
  method: string,
  path: string,
  error: unknown,
  level: CloudLogLevel,
): string {
  return sharedFailureLine("memo-cloud", time, method, path, error, level);
}
