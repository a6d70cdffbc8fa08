/**
 * Errors of the connectors package. Each carries a stable `code`; upstream HTTP failures also carry
 * `status`. No message or field ever holds a token or an upstream response body.
 *
 * @module
 */

/**
 * Options shared by the connector error constructors.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ConnectorError, type ConnectorErrorOptions } from "@memo/connectors";
 * const options: ConnectorErrorOptions = { status: 502, cause: new Error("bad gateway") };
 * const e = new ConnectorError("Cannot read page 2: HTTP 502", options);
 * assert.equal(e.status, 502);
 * assert.equal((e.cause as Error).message, "bad gateway");
 * ```
 */
export interface ConnectorErrorOptions {
  /** The underlying error. */
  cause?: unknown;
  /** Upstream HTTP status, when the failure came with one. */
  status?: number;
}

/**
 * Base class of every error a connector throws on purpose.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ConnectorError } from "@memo/connectors";
 * const e = new ConnectorError("Cannot read pages: the answer is not JSON", { status: 200 });
 * assert.equal(e.code, "CONNECTOR_ERROR");
 * assert.equal(e.status, 200);
 * ```
 */
export class ConnectorError extends Error {
  /** Stable machine-readable code. */
  readonly code: string = "CONNECTOR_ERROR";
  /** Upstream HTTP status, when there was one. */
  readonly status?: number;
  /** Creates the error; see the class documentation for its fields. */
  constructor(message: string, options: ConnectorErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "ConnectorError";
    if (options.status !== undefined) this.status = options.status;
  }
}

/**
 * A connector's configuration or options are unusable (a bad id, a token of the wrong form, an
 * unknown type). Raised before any request is sent.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ConnectorConfigError, ConnectorError } from "@memo/connectors";
 * const e = new ConnectorConfigError("Cannot read config: connectors must be an array");
 * assert.equal(e.code, "CONNECTOR_CONFIG");
 * assert.ok(e instanceof ConnectorError);
 * ```
 */
export class ConnectorConfigError extends ConnectorError {
  /** Stable machine-readable code. */
  override readonly code: string = "CONNECTOR_CONFIG";
  /** Creates the error; see the class documentation for its fields. */
  constructor(message: string, options: ConnectorErrorOptions = {}) {
    super(message, options);
    this.name = "ConnectorConfigError";
  }
}

/**
 * `only` named connector ids that the configuration does not hold.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { UnknownConnectorError } from "@memo/connectors";
 * const e = new UnknownConnectorError(["nope"], ["github", "notion"]);
 * assert.equal(e.message, "Cannot sync: unknown connector nope (configured: github, notion)");
 * assert.deepEqual(e.ids, ["nope"]);
 * ```
 */
export class UnknownConnectorError extends ConnectorError {
  /** Stable machine-readable code. */
  override readonly code: string = "UNKNOWN_CONNECTOR";
  /** The ids that were not found. */
  readonly ids: string[];
  /** The ids that are configured. */
  readonly known: string[];
  /** Creates the error; see the class documentation for its fields. */
  constructor(ids: readonly string[], known: readonly string[]) {
    const list = known.length ? known.join(", ") : "none";
    super(
      `Cannot sync: unknown connector${ids.length > 1 ? "s" : ""} ${ids.join(", ")} ` +
        `(configured: ${list})`,
    );
    this.name = "UnknownConnectorError";
    this.ids = [...ids];
    this.known = [...known];
  }
}

/**
 * A request got no complete answer within the timeout.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ConnectorTimeoutError } from "@memo/connectors";
 * const e = new ConnectorTimeoutError("Cannot read page 2: no answer within 30000 ms", 30000);
 * assert.equal(e.timeoutMs, 30000);
 * assert.equal(e.code, "CONNECTOR_TIMEOUT");
 * ```
 */
export class ConnectorTimeoutError extends ConnectorError {
  /** Stable machine-readable code. */
  override readonly code: string = "CONNECTOR_TIMEOUT";
  /** The timeout that passed, in milliseconds. */
  readonly timeoutMs: number;
  /** Creates the error; see the class documentation for its fields. */
  constructor(message: string, timeoutMs: number, options: ConnectorErrorOptions = {}) {
    super(message, options);
    this.name = "ConnectorTimeoutError";
    this.timeoutMs = timeoutMs;
  }
}

/**
 * A request failed on the network: the connection was refused or reset, or broke while the answer
 * was read.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ConnectorNetworkError } from "@memo/connectors";
 * const e = new ConnectorNetworkError("Cannot read page 2: the connection was reset");
 * assert.equal(e.code, "CONNECTOR_NETWORK");
 * ```
 */
export class ConnectorNetworkError extends ConnectorError {
  /** Stable machine-readable code. */
  override readonly code: string = "CONNECTOR_NETWORK";
  /** Creates the error; see the class documentation for its fields. */
  constructor(message: string, options: ConnectorErrorOptions = {}) {
    super(message, options);
    this.name = "ConnectorNetworkError";
  }
}

/**
 * A failure of the repository host (GitHub): HTTP errors, fatal GraphQL errors (joined into one
 * message), broken paging.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { RepoHostError } from "@memo/connectors";
 * const e = new RepoHostError("Cannot read discussions of a/b: NOT_FOUND: no such repository", {
 *   errorTypes: ["NOT_FOUND"],
 * });
 * assert.equal(e.code, "REPO_HOST_ERROR");
 * assert.deepEqual(e.errorTypes, ["NOT_FOUND"]);
 * ```
 */
export class RepoHostError extends ConnectorError {
  /** Stable machine-readable code. */
  override readonly code: string = "REPO_HOST_ERROR";
  /** GraphQL error types, when the failure came as GraphQL errors. */
  readonly errorTypes?: string[];
  /** Creates the error; see the class documentation for its fields. */
  constructor(message: string, options: ConnectorErrorOptions & { errorTypes?: string[] } = {}) {
    super(message, options);
    this.name = "RepoHostError";
    if (options.errorTypes?.length) this.errorTypes = [...options.errorTypes];
  }
}

/**
 * The repository host answered 401: the token is missing or invalid.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { RepoHostAuthError } from "@memo/connectors";
 * const e = new RepoHostAuthError();
 * assert.equal(e.status, 401);
 * assert.match(e.message, /the token is missing or invalid/);
 * ```
 */
export class RepoHostAuthError extends RepoHostError {
  /** Stable machine-readable code. */
  override readonly code: string = "REPO_HOST_AUTH";
  /** Creates the error; see the class documentation for its fields. */
  constructor(
    message =
      "Cannot read GitHub discussions: the token is missing or invalid (HTTP 401); set MEMO_GITHUB_TOKEN or GITHUB_TOKEN",
    options: ConnectorErrorOptions = { status: 401 },
  ) {
    super(message, options);
    this.name = "RepoHostAuthError";
  }
}

/**
 * The repository host refused the request for its rate limit: HTTP 403 or 429, or a GraphQL
 * `RATE_LIMITED` error. `resetEpoch` is the UNIX time (in seconds) the budget resets, from
 * `x-ratelimit-reset`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { RepoHostRateLimitError } from "@memo/connectors";
 * const e = new RepoHostRateLimitError("Cannot read discussions: rate limited", {
 *   status: 403,
 *   resetEpoch: 1714560000,
 *   retryAfterSeconds: 60,
 * });
 * assert.equal(e.resetEpoch, 1714560000);
 * assert.equal(e.retryAfterSeconds, 60);
 * ```
 */
export class RepoHostRateLimitError extends RepoHostError {
  /** Stable machine-readable code. */
  override readonly code: string = "REPO_HOST_RATE_LIMITED";
  /** UNIX epoch (seconds) when the rate limit resets, when the host said. */
  readonly resetEpoch?: number;
  /**
   * Seconds to wait, when the host sent a readable `retry-after` (secondary limits), in seconds or
   * as an HTTP date: see {@linkcode parseRetryAfter}.
   */
  readonly retryAfterSeconds?: number;
  /** Creates the error; see the class documentation for its fields. */
  constructor(
    message: string,
    options: ConnectorErrorOptions & {
      resetEpoch?: number;
      retryAfterSeconds?: number;
      errorTypes?: string[];
    } = {},
  ) {
    super(message, options);
    this.name = "RepoHostRateLimitError";
    if (options.resetEpoch !== undefined) this.resetEpoch = options.resetEpoch;
    if (options.retryAfterSeconds !== undefined) {
      this.retryAfterSeconds = options.retryAfterSeconds;
    }
  }
}

/**
 * A failure of the workspace (Notion): HTTP errors, pages not shared with the integration, broken
 * paging. `apiCode` is Notion's error code when known.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { WorkspaceError } from "@memo/connectors";
 * const e = new WorkspaceError("Cannot read Notion pages: HTTP 500", {
 *   status: 500,
 *   apiCode: "internal_server_error",
 * });
 * assert.equal(e.code, "WORKSPACE_ERROR");
 * assert.equal(e.apiCode, "internal_server_error");
 * ```
 */
export class WorkspaceError extends ConnectorError {
  /** Stable machine-readable code. */
  override readonly code: string = "WORKSPACE_ERROR";
  /** Notion's error code (`object_not_found`, `validation_error` …), when it sent one. */
  readonly apiCode?: string;
  /** Creates the error; see the class documentation for its fields. */
  constructor(message: string, options: ConnectorErrorOptions & { apiCode?: string } = {}) {
    super(message, options);
    this.name = "WorkspaceError";
    if (options.apiCode !== undefined) this.apiCode = options.apiCode;
  }
}

/**
 * The workspace answered 401 or 403: the token is invalid, or the page or database is not shared
 * with the integration. The message begins "authorization failed (401/403)".
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { WorkspaceAuthError } from "@memo/connectors";
 * const e = new WorkspaceAuthError(401, "unauthorized");
 * assert.match(e.message, /^authorization failed \(401\/403\)/);
 * assert.equal(e.status, 401);
 * ```
 */
export class WorkspaceAuthError extends WorkspaceError {
  /** Stable machine-readable code. */
  override readonly code: string = "WORKSPACE_AUTH";
  /** Creates the error; see the class documentation for its fields. */
  constructor(status: number, apiCode?: string) {
    super(
      `authorization failed (401/403): Notion answered HTTP ${status}${
        apiCode ? ` ${apiCode}` : ""
      }; the token is invalid, or the page or database is not shared with the integration`,
      { status, apiCode },
    );
    this.name = "WorkspaceAuthError";
  }
}

/**
 * The workspace answered 429. `retryAfterSeconds` comes from `retry-after`, given in seconds or as
 * an HTTP date (see {@linkcode parseRetryAfter}).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { WorkspaceRateLimitError } from "@memo/connectors";
 * const e = new WorkspaceRateLimitError(30);
 * assert.equal(e.retryAfterSeconds, 30);
 * assert.equal(e.message, "Cannot read Notion pages: rate limited (HTTP 429); retry after 30 s");
 * ```
 */
export class WorkspaceRateLimitError extends WorkspaceError {
  /** Stable machine-readable code. */
  override readonly code: string = "WORKSPACE_RATE_LIMITED";
  /** Seconds to wait before retrying, when Notion sent a readable `retry-after`. */
  readonly retryAfterSeconds?: number;
  /** Creates the error; see the class documentation for its fields. */
  constructor(retryAfterSeconds?: number) {
    super(
      `Cannot read Notion pages: rate limited (HTTP 429)${
        retryAfterSeconds !== undefined ? `; retry after ${retryAfterSeconds} s` : ""
      }`,
      { status: 429, apiCode: "rate_limited" },
    );
    this.name = "WorkspaceRateLimitError";
    if (retryAfterSeconds !== undefined) this.retryAfterSeconds = retryAfterSeconds;
  }
}
