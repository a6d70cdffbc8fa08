/**
 * The Cloud API's one error shape, `{ error: { code, message, details? } }`,
 * its codes and statuses, and JSON answers.
 *
 * @module
 */

/** The HTTP status of each error code of the Cloud API. */
export const ERROR_STATUS = {
  invalid_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  payload_too_large: 413,
  rate_limited: 429,
  internal: 500,
} as const;

/** The error codes of the Cloud API: those of {@linkcode ERROR_STATUS}. */
export type CloudErrorCode = keyof typeof ERROR_STATUS;

/** The message of every `internal` answer: the cause is logged, never sent. */
export const INTERNAL_MESSAGE = "Cannot answer the request: the server failed; see its log";

/**
 * An answer the handler refuses a request with.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { CloudApiError, errorResponse } from "./errors.ts";
 *
 * const response = errorResponse(new CloudApiError("not_found", "Cannot read the note: no note n1"));
 * assert.equal(response.status, 404);
 * assert.equal((await response.json()).error.code, "not_found");
 * ```
 */
export class CloudApiError extends Error {
  /** The error code. */
  readonly code: CloudErrorCode;
  /** The HTTP status of the code. */
  readonly status: number;
  /** Extra facts for the client; never secrets. */
  readonly details?: Record<string, unknown>;
  /** Extra headers of the answer (`WWW-Authenticate`, `Retry-After`). */
  readonly headers?: Record<string, string>;

  constructor(
    code: CloudErrorCode,
    message: string,
    options: { details?: Record<string, unknown>; headers?: Record<string, string> } = {},
  ) {
    super(message);
    this.name = "CloudApiError";
    this.code = code;
    this.status = ERROR_STATUS[code];
    if (options.details !== undefined) this.details = options.details;
    if (options.headers !== undefined) this.headers = options.headers;
  }
}

/** The `Content-Type` of every answer. */
export const JSON_CONTENT_TYPE = "application/json; charset=utf-8";

/** A JSON answer whose body is already serialized. */
export function jsonTextResponse(
  status: number,
  text: string,
  headers: Record<string, string> = {},
): Response {
  return new Response(text, {
    status,
    headers: { "content-type": JSON_CONTENT_TYPE, "cache-control": "no-store", ...headers },
  });
}

/** A JSON answer. */
export function jsonResponse(
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): Response {
  return jsonTextResponse(status, JSON.stringify(body), headers);
}

/** The JSON text of an error body. */
export function errorText(
  code: CloudErrorCode,
  message: string,
  details?: Record<string, unknown>,
): string {
  return JSON.stringify({
    error: details === undefined ? { code, message } : { code, message, details },
  });
}

/** The answer of a {@linkcode CloudApiError}. */
export function errorResponse(error: CloudApiError): Response {
  return jsonTextResponse(
    error.status,
    errorText(error.code, error.message, error.details),
    error.headers,
  );
}
