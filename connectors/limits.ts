/**
 * The connectors' limits: each page request times out after
 * {@linkcode REQUEST_TIMEOUT_MS}; the workspace (Notion) connector asks for
 * {@linkcode PAGE_SIZE} items in every request; the repository-host (GitHub)
 * connector asks for {@linkcode REPO_HOST_PAGE_SIZE} discussions unless told
 * otherwise.
 *
 * @module
 */

/**
 * Milliseconds each page request may take, headers and body together (both
 * connectors).
 *
 * @example
 * ```ts
 * import { REQUEST_TIMEOUT_MS } from "@memo/connectors";
 * console.log(REQUEST_TIMEOUT_MS); // 30000
 * ```
 */
export const REQUEST_TIMEOUT_MS = 30_000;

/**
 * Items per request of the workspace (Notion) connector, in every request it
 * sends: database queries, searches and block children alike.
 *
 * @example
 * ```ts
 * import { PAGE_SIZE } from "@memo/connectors";
 * console.log(PAGE_SIZE); // 25
 * ```
 */
export const PAGE_SIZE = 25;

/**
 * Default discussions per request of the repository-host (GitHub) connector;
 * `pageSize` may be 1 to {@linkcode REPO_HOST_MAX_PAGE_SIZE}.
 *
 * @example
 * ```ts
 * import { REPO_HOST_PAGE_SIZE } from "@memo/connectors";
 * console.log(REPO_HOST_PAGE_SIZE); // 50
 * ```
 */
export const REPO_HOST_PAGE_SIZE = 50;

/**
 * Largest `pageSize` of the repository-host connector (GitHub's own limit for
 * `first`).
 *
 * @example
 * ```ts
 * import { REPO_HOST_MAX_PAGE_SIZE } from "@memo/connectors";
 * console.log(REPO_HOST_MAX_PAGE_SIZE); // 100
 * ```
 */
export const REPO_HOST_MAX_PAGE_SIZE = 100;
