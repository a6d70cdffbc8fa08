/**
 * The safe facts of an error, for a run's result: name, message and own fields, with secrets
 * scrubbed.
 *
 * @module
 */

import { redactSecrets } from "./kit/text.ts";

/**
 * A failed error, as safe facts: name, message and fields like `resetEpoch`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import {
 *   type ConnectorErrorInfo,
 *   describeError,
 *   WorkspaceRateLimitError,
 * } from "@memo/connectors";
 * const info: ConnectorErrorInfo = describeError(new WorkspaceRateLimitError(30));
 * assert.equal(info.name, "WorkspaceRateLimitError");
 * assert.equal(info.code, "WORKSPACE_RATE_LIMITED");
 * assert.equal(info.retryAfterSeconds, 30);
 * ```
 */
export interface ConnectorErrorInfo {
  /** Error class name (`RepoHostRateLimitError` …). */
  name: string;
  /** The message (never holds a token or a response body). */
  message: string;
  /** Fields of the error: `code`, `status`, `resetEpoch`, `retryAfterSeconds` … */
  [field: string]: unknown;
}

/**
 * The safe facts of an error for `RunConnectorsResult.errors`: its name, message and own fields
 * (`code`, `status`, `resetEpoch`, `retryAfterSeconds` …), with any of `secrets` scrubbed.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { describeError, RepoHostRateLimitError } from "@memo/connectors";
 * const info = describeError(
 *   new RepoHostRateLimitError("rate limited for ghp_secret", { resetEpoch: 1714560000 }),
 *   ["ghp_secret"],
 * );
 * assert.equal(info.name, "RepoHostRateLimitError");
 * assert.equal(info.resetEpoch, 1714560000);
 * assert.equal(info.message, "rate limited for [redacted]");
 * ```
 */
export function describeError(e: unknown, secrets: readonly string[] = []): ConnectorErrorInfo {
  const scrub = (s: string) => redactSecrets(s, secrets);
  if (!(e instanceof Error)) return { name: "Error", message: scrub(String(e)) };
  const info: ConnectorErrorInfo = { name: e.name || "Error", message: scrub(e.message) };
  for (const [key, value] of Object.entries(e)) {
    if (key === "name" || key === "message" || key === "stack" || key === "cause") continue;
    if (typeof value === "number" || typeof value === "boolean") info[key] = value;
    else if (typeof value === "string") info[key] = scrub(value);
    else if (Array.isArray(value) && value.every((v) => typeof v === "string")) {
      info[key] = value.map(scrub);
    }
  }
  return info;
}
