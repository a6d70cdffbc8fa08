/**
 * The repository-host connector (GitHub Discussions): the connector, its
 * GraphQL query and endpoint resolution.
 *
 * @module
 */

export * from "./connector.ts";
export * from "./query.ts";
export * from "./api_url.ts";
