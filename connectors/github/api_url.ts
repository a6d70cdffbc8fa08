/**
 * Where the repository-host connector sends its GraphQL requests.
 *
 * @module
 */

import { checkApiUrl } from "../kit/http.ts";
import { ConnectorConfigError } from "../errors.ts";

/**
 * GitHub's GraphQL endpoint.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { GITHUB_GRAPHQL_URL, resolveGraphqlUrl } from "@memo/connectors";
 * assert.equal(GITHUB_GRAPHQL_URL, "https://api.github.com/graphql");
 * assert.equal(resolveGraphqlUrl(), GITHUB_GRAPHQL_URL);
 * ```
 */
export const GITHUB_GRAPHQL_URL = "https://api.github.com/graphql";

/**
 * Resolves the GraphQL endpoint from an `apiUrl`: GitHub.com by default; a GitHub Enterprise Server
 * base URL (`https://ghe.example.com`, `…/api`, `…/api/v3`) becomes `…/api/graphql`; a URL already
 * ending in `/graphql` is kept.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { resolveGraphqlUrl } from "@memo/connectors";
 * const ghe = "https://ghe.example.com/api/graphql";
 * assert.equal(resolveGraphqlUrl("https://ghe.example.com"), ghe);
 * assert.equal(resolveGraphqlUrl("https://ghe.example.com/api/v3"), ghe);
 * assert.equal(resolveGraphqlUrl(), "https://api.github.com/graphql");
 * ```
 */
export function resolveGraphqlUrl(apiUrl?: string): string {
  if (apiUrl === undefined || String(apiUrl).trim() === "") return GITHUB_GRAPHQL_URL;
  const url = checkApiUrl(apiUrl, "the GitHub", (m) => new ConnectorConfigError(m));
  const path = url.pathname.replace(/\/+$/, "");
  if (/\/graphql$/i.test(path)) url.pathname = path;
  else if (url.hostname.toLowerCase() === "api.github.com") url.pathname = "/graphql";
  else if (path === "" || /^\/api(\/v3)?$/i.test(path)) url.pathname = "/api/graphql";
  else url.pathname = `${path}/graphql`;
  return url.href;
}
