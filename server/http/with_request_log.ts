/**
 * The request log of a served endpoint (`memo serve`): one line per request, `memo: <ISO time>
 * <METHOD> <path> <status> <ms>ms`, filtered by level (`MEMO_LOG_LEVEL`: `error` 5xx, `warn` 4xx
 * and up, `info` all, `debug` also failure stacks). The path loses its query string; headers and
 * bodies are never logged, so neither is a bearer token. The lines go to an injected `log`
 * function: the entry point decides where they are written.
 *
 * @module
 */

import { JSON_RPC_CODES } from "../json_rpc_codes.ts";
import {
  defaultLogLevel,
  failureLine,
  LOG_LEVELS,
  type LogLevel,
  logPath,
  logsRequest,
  requestLine,
} from "../../platform/mod.ts";
import { httpErrorResponse } from "./responses.ts";

export { defaultLogLevel, LOG_LEVELS, type LogLevel };

/**
 * Options of {@linkcode withRequestLog}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { RequestLogOptions } from "./with_request_log.ts";
 *
 * const lines: string[] = [];
 * const options: RequestLogOptions = { level: "warn", log: (line) => lines.push(line) };
 * assert.equal(options.prefix, undefined); // "memo"
 * ```
 */
export interface RequestLogOptions {
  /** Which lines reach `log`. */
  level: LogLevel;
  /** Receives each line, without a newline. A sink that throws does not fail the request. */
  log: (line: string) => void;
  /**
   * The word before the colon.
   * @default "memo"
   */
  prefix?: string;
  /**
   * The clock.
   * @default () => new Date()
   */
  clock?: () => Date;
}

/**
 * Wraps `handle` so that each request is logged once its response (or, for a stream, its headers)
 * is ready. A handler that throws is logged as a failure and answered 500.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { withRequestLog } from "./with_request_log.ts";
 *
 * const lines: string[] = [];
 * const handle = withRequestLog(
 *   (request) => Promise.resolve(new Response(null, { status: request.method === "GET" ? 404 : 200 })),
 *   { level: "info", log: (line) => lines.push(line), clock: () => new Date(0) },
 * );
 * await handle(new Request("http://127.0.0.1:8787/mcp?token=s3cret", {
 *   method: "POST",
 *   headers: { authorization: "Bearer s3cret" },
 * }));
 * assert.deepEqual(lines, ["memo: 1970-01-01T00:00:00.000Z POST /mcp 200 0ms"]);
 *
 * const quiet: string[] = [];
 * const errorsOnly = withRequestLog(() => Promise.resolve(new Response(null, { status: 404 })), {
 *   level: "error",
 *   log: (line) => quiet.push(line),
 * });
 * await errorsOnly(new Request("http://127.0.0.1:8787/elsewhere"));
 * assert.deepEqual(quiet, []); // a 4xx is below `error`
 * ```
 */
export function withRequestLog(
  handle: (request: Request) => Promise<Response>,
  options: RequestLogOptions,
): (request: Request) => Promise<Response> {
  const { level } = options;
  const prefix = options.prefix ?? "memo";
  const clock = options.clock ?? (() => new Date());
  const log = (line: string) => {
    try {
      options.log(line);
    } catch {
      // A log sink that throws must not fail the request.
    }
  };
  return async (request) => {
    const start = clock();
    const path = logPath(request.url);
    let response: Response;
    try {
      response = await handle(request);
    } catch (e) {
      log(failureLine(prefix, clock(), request.method, path, e, level));
      response = httpErrorResponse(
        500,
        JSON_RPC_CODES.internalError,
        "Cannot answer the request: internal error",
        null,
      );
    }
    if (logsRequest(level, response.status)) {
      const end = clock();
      log(
        requestLine(
          prefix,
          end,
          request.method,
          path,
          response.status,
          end.getTime() - start.getTime(),
        ),
      );
    }
    return response;
  };
}
