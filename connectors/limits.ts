/**
 * The connectors' limits: the request timeout and the page sizes.
 *
 * @module
 */

/**
 * Milliseconds each page request may take, headers and body together (both connectors).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { REQUEST_TIMEOUT_MS } from "@memo/connectors";
 * assert.equal(REQUEST_TIMEOUT_MS, 30_000);
 * ```
 */
export const REQUEST_TIMEOUT_MS = 30_000;

/**
 * Items per request of the workspace (Notion) connector, in every request it sends: database
 * queries, searches and block children alike.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { PAGE_SIZE } from "@memo/connectors";
 * assert.equal(PAGE_SIZE, 25);
 * ```
 */
export const PAGE_SIZE = 25;

/**
 * Default discussions per request of the repository-host (GitHub) connector; `pageSize` may be 1 to
 * {@linkcode REPO_HOST_MAX_PAGE_SIZE}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { REPO_HOST_PAGE_SIZE, RepoHostConnector } from "@memo/connectors";
 * assert.equal(REPO_HOST_PAGE_SIZE, 50);
 * assert.equal(new RepoHostConnector({ repositories: ["o/r"] }).pageSize, REPO_HOST_PAGE_SIZE);
 * ```
 */
export const REPO_HOST_PAGE_SIZE = 50;

/**
 * Largest `pageSize` of the repository-host connector (GitHub's own limit for `first`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import {
 *   ConnectorConfigError,
 *   REPO_HOST_MAX_PAGE_SIZE,
 *   RepoHostConnector,
 * } from "@memo/connectors";
 * assert.equal(REPO_HOST_MAX_PAGE_SIZE, 100);
 * assert.throws(
 *   () => new RepoHostConnector({ repositories: ["o/r"], pageSize: 101 }),
 *   ConnectorConfigError,
 * );
 * ```
 */
export const REPO_HOST_MAX_PAGE_SIZE = 100;
