/**
 * {@linkcode MemoCloudError}: the one error class of the Cloud API client, and the helpers that
 * keep its messages safe (one line, short, never the API key).
 *
 * @module
 */

/**
 * The codes of {@linkcode MemoCloudError}: the Cloud API's own error codes (`invalid_request` 400,
 * `unauthorized` 401, `forbidden` 403, `not_found` 404, `conflict` 409, `payload_too_large` 413,
 * `rate_limited` 429, `internal` 500), plus the client's:
 *
 * - `unavailable`: no usable answer (the server is down, the connection was reset, a 502/503/504,
 *   or an answer that is not the Cloud API's);
 * - `timeout`: no answer within `timeoutMs`, on every attempt;
 * - `config`: a configuration that cannot work (no base URL, no API key, a malformed id, or a
 *   `workspaceId` that is not the key's).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { MemoCloudClient, type MemoCloudErrorCode } from "@memo/mcp-server";
 * const client = new MemoCloudClient({
 *   baseUrl: "http://127.0.0.1:8788",
 *   apiKey: "k",
 *   fetch: () => Promise.resolve(Response.json({ error: { code: "unauthorized", message: "no" } }, {
 *     status: 401,
 *   })),
 * });
 * const code: MemoCloudErrorCode = await client.stats().catch((e) => e.code);
 * assert.equal(code, "unauthorized");
 * ```
 */
export type MemoCloudErrorCode =
  | "invalid_request"
  | "unauthorized"
  | "forbidden"
  | "not_found"
  | "conflict"
  | "payload_too_large"
  | "rate_limited"
  | "internal"
  | "unavailable"
  | "timeout"
  | "config";

/** The API's codes, by HTTP status, for an answer that names none. */
const CODE_OF_STATUS: Readonly<Record<number, MemoCloudErrorCode>> = {
  400: "invalid_request",
  401: "unauthorized",
  403: "forbidden",
  404: "not_found",
  409: "conflict",
  413: "payload_too_large",
  429: "rate_limited",
  500: "internal",
};

const KNOWN_CODES = new Set<string>([...Object.values(CODE_OF_STATUS), "unavailable", "timeout"]);

/**
 * Options of the {@linkcode MemoCloudError} constructor.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { MemoCloudError, type MemoCloudErrorOptions } from "@memo/mcp-server";
 * const options: MemoCloudErrorOptions = { status: 404, details: { id: "n1" } };
 * const e = new MemoCloudError("not_found", "Cannot get note n1: not found", options);
 * assert.equal(e.status, 404);
 * ```
 */
export interface MemoCloudErrorOptions {
  /** HTTP status of the answer; missing for transport and configuration failures. */
  status?: number;
  /** The API's `error.details` (an index, the current note …); never a secret. */
  details?: Record<string, unknown>;
  /** Attempts made (the first one and its retries). */
  attempts?: number;
  /** Seconds the server asked to wait (`Retry-After`), when it did. */
  retryAfterSeconds?: number;
  /** The underlying error (a network failure); never holds the key in its message. */
  cause?: unknown;
}

/**
 * An error of the Cloud API client: an error answer of the API, or a transport or configuration
 * failure. Its message is one line starting with "Cannot …", and it never holds the API key, so
 * `toSafeError` passes it on as it is.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { MemoCloudClient, MemoCloudError, toSafeError } from "@memo/mcp-server";
 * const client = new MemoCloudClient({
 *   baseUrl: "http://127.0.0.1:8788",
 *   apiKey: "mk_secret",
 *   fetch: () => Promise.resolve(new Response(null, { status: 401 })),
 * });
 * const error = await client.stats().catch((e) => e);
 * assert.ok(error instanceof MemoCloudError);
 * assert.equal(error.code, "unauthorized");
 * assert.equal(
 *   error.message,
 *   "Cannot reach the Memo Cloud API at http://127.0.0.1:8788: the API key was refused (401)",
 * );
 * assert.ok(!JSON.stringify(toSafeError(error)).includes("mk_secret"));
 * ```
 */
export class MemoCloudError extends Error {
  /** The API's error code, or `unavailable`, `timeout`, `config`. */
  readonly code: MemoCloudErrorCode;
  /** HTTP status of the answer, when there was one. */
  readonly status?: number;
  /** The API's `error.details`, when it sent some. */
  readonly details?: Record<string, unknown>;
  /** Attempts made, when the request was sent. */
  readonly attempts?: number;
  /** Seconds the server asked to wait, when it did. */
  readonly retryAfterSeconds?: number;

  /** Creates the error. */
  constructor(code: MemoCloudErrorCode, message: string, options: MemoCloudErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "MemoCloudError";
    this.code = code;
    if (options.status !== undefined) this.status = options.status;
    if (options.details !== undefined) this.details = options.details;
    if (options.attempts !== undefined) this.attempts = options.attempts;
    if (options.retryAfterSeconds !== undefined) {
      this.retryAfterSeconds = options.retryAfterSeconds;
    }
  }
}

/**
 * Whether `error` is a {@linkcode MemoCloudError} (by name, so also one from another copy of this
 * package), optionally with one of `codes`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { isMemoCloudError, MemoCloudError } from "@memo/mcp-server";
 * const e = new MemoCloudError("timeout", "Cannot reach the Memo Cloud API: no answer");
 * assert.ok(isMemoCloudError(e));
 * assert.ok(isMemoCloudError(e, "timeout", "unavailable"));
 * assert.ok(!isMemoCloudError(e, "not_found"));
 * assert.ok(!isMemoCloudError(new Error("x")));
 * ```
 */
export function isMemoCloudError(
  error: unknown,
  ...codes: MemoCloudErrorCode[]
): error is MemoCloudError {
  if (!(error instanceof Error) || error.name !== "MemoCloudError") return false;
  const code = (error as { code?: unknown }).code;
  return typeof code === "string" && (codes.length === 0 || codes.includes(code as never));
}

/**
 * The code of an error answer: the API's `error.code` when it is one of
 * {@linkcode MemoCloudErrorCode}, else the code of its status (`unavailable` for a status the API
 * does not use).
 */
export function codeOfAnswer(status: number, named: unknown): MemoCloudErrorCode {
  if (typeof named === "string" && KNOWN_CODES.has(named)) return named as MemoCloudErrorCode;
  return CODE_OF_STATUS[status] ?? (status >= 500 ? "unavailable" : "invalid_request");
}

/** Longest text taken from a server or a network error into a message. */
const MAX_REASON = 300;

/**
 * A text from outside (a server's message, a network error) made safe for a message: one line, at
 * most 300 characters, with every `secret` replaced by `[redacted]`.
 */
export function safeText(text: unknown, secrets: readonly (string | undefined)[]): string {
  let out = String(text ?? "");
  for (const secret of secrets) {
    if (secret && secret.trim()) {
      out = out.split(secret).join("[redacted]");
      if (secret.trim() !== secret) out = out.split(secret.trim()).join("[redacted]");
    }
  }
  // deno-lint-ignore no-control-regex
  out = out.replace(/[\u0000-\u001f\u007f]+/g, " ").replace(/\s+/g, " ").trim();
  return out.length > MAX_REASON ? `${out.slice(0, MAX_REASON - 1)}…` : out;
}
