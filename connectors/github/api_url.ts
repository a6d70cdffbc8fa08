/**
 * Where the repository-host connector sends its GraphQL requests.
 *
 * @module
 */

import { checkApiUrl } from "../_http.ts";
import { ConnectorConfigError } from "../errors.ts";

/** GitHub's GraphQL endpoint. */
export const GITHUB_GRAPHQL_URL = "https://api.github.com/graphql";

/**
 * Resolves the GraphQL endpoint from an `apiUrl`: GitHub.com by default; a
 * GitHub Enterprise Server base URL (`https://ghe.example.com`, `…/api`,
 * `…/api/v3`) becomes `…/api/graphql`; a URL already ending in `/graphql` is
 * kept.
 *
 * @example
 * ```ts
 * import { resolveGraphqlUrl } from "@memo/connectors";
 * resolveGraphqlUrl("https://ghe.example.com"); // "https://ghe.example.com/api/graphql"
 * resolveGraphqlUrl(); // "https://api.github.com/graphql"
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
