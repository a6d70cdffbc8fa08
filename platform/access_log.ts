/**
 * The request log that `memo serve` and the reference Cloud API server share: one line per request,
 * `<prefix>: <ISO time> <METHOD> <path> <status> <ms>ms` (the path without its query string; never
 * a header or a body), filtered by `MEMO_LOG_LEVEL`: `error` keeps 5xx lines, `warn` also 4xx,
 * `info` every request, `debug` also the stacks of failures. Failures (what a 500 hides) are logged
 * at every level.
 *
 * @module
 */

import { LOG_LEVELS, type LogLevel } from "../env.ts";
import { urlPath } from "./healthz.ts";

export { LOG_LEVELS, type LogLevel };

/**
 * The default level: `warn` on a terminal, `info` otherwise.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { defaultLogLevel } from "./access_log.ts";
 *
 * assert.equal(defaultLogLevel(true), "warn");
 * assert.equal(defaultLogLevel(false), "info");
 * ```
 */
export function defaultLogLevel(stderrIsTerminal: boolean): LogLevel {
  return stderrIsTerminal ? "warn" : "info";
}

/**
 * Whether a request answered with `status` is logged at `level`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { logsRequest } from "./access_log.ts";
 *
 * assert.equal(logsRequest("error", 404), false);
 * assert.equal(logsRequest("warn", 404), true);
 * assert.equal(logsRequest("warn", 200), false);
 * assert.equal(logsRequest("info", 200), true);
 * ```
 */
export function logsRequest(level: LogLevel, status: number): boolean {
  if (level === "error") return status >= 500;
  if (level === "warn") return status >= 400;
  return true;
}

/**
 * The path of a request URL without its query string or fragment.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { logPath } from "./access_log.ts";
 *
 * assert.equal(logPath("http://127.0.0.1:8787/mcp?token=secret#x"), "/mcp");
 * assert.equal(logPath("not a url"), "/");
 * ```
 */
export function logPath(url: string): string {
  return urlPath(url) ?? "/";
}

/**
 * The line of one request.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { requestLine } from "./access_log.ts";
 *
 * const line = requestLine("memo", new Date(0), "POST", "/mcp", 200, 3);
 * assert.equal(line, "memo: 1970-01-01T00:00:00.000Z POST /mcp 200 3ms");
 * ```
 */
export function requestLine(
  prefix: string,
  time: Date,
  method: string,
  path: string,
  status: number,
  ms: number,
): string {
  return `${prefix}: ${isoOf(time)} ${method} ${path} ${status} ${Math.max(0, ms)}ms`;
}

/** The last time written, and its ISO text: a busy server logs many requests a millisecond. */
let lastMs = NaN;
let lastIso = "";

/** `time.toISOString()`, kept for the millisecond it names (an invalid date still throws). */
function isoOf(time: Date): string {
  const ms = time.getTime();
  if (ms !== lastMs) {
    lastIso = time.toISOString();
    lastMs = ms;
  }
  return lastIso;
}

/**
 * The line of a failure that a 500 answer hides; the stack too at `debug`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { failureLine } from "./access_log.ts";
 *
 * const line = failureLine("memo", new Date(0), "GET", "/", new TypeError("boom"), "info");
 * assert.equal(line, "memo: 1970-01-01T00:00:00.000Z error GET /: TypeError: boom");
 * ```
 */
export function failureLine(
  prefix: string,
  time: Date,
  method: string,
  path: string,
  error: unknown,
  level: LogLevel,
): string {
  const text = error instanceof Error
    ? (level === "debug" && error.stack ? error.stack : `${error.name}: ${error.message}`)
    : String(error);
  return `${prefix}: ${time.toISOString()} error ${method} ${path}: ${text}`;
}
