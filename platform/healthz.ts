/**
 * `GET /healthz`, the liveness check that `memo serve`, the `http.ts` default export and the
 * reference Cloud API server answer alike: 200 with `{"status":"ok"}` and `cache-control:
 * no-store`, for GET and HEAD, with no authentication and no Host or Origin rule, since it reveals
 * nothing (no counts, no version, no data). Other methods get 405.
 *
 * @module
 */

/**
 * The path of the liveness check.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { HEALTHZ_PATH } from "./healthz.ts";
 *
 * assert.equal(HEALTHZ_PATH, "/healthz");
 * ```
 */
export const HEALTHZ_PATH = "/healthz";

const BODY = '{"status":"ok"}';

/**
 * The path of `url`, or undefined when it does not parse: how a probe such as `/healthz` or
 * `/readyz` tells its requests from everyone else's, and what the request log shows.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { urlPath } from "./healthz.ts";
 *
 * assert.equal(urlPath("http://x/readyz?full=1"), "/readyz");
 * assert.equal(urlPath("not a url"), undefined);
 * ```
 */
export function urlPath(url: string): string | undefined {
  // A server sees the same URL request after request: the last one's path is kept (parsing a URL
  // is most of what this check costs a request).
  if (url === lastUrl) return lastPath;
  let path: string | undefined;
  try {
    path = new URL(url).pathname;
  } catch {
    path = undefined;
  }
  lastUrl = url;
  lastPath = path;
  return path;
}

let lastUrl: string | undefined;
let lastPath: string | undefined;

/**
 * The answer to `request` when its path is {@linkcode HEALTHZ_PATH}, else undefined (the request is
 * someone else's).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { healthzResponse } from "./healthz.ts";
 *
 * const ok = healthzResponse(new Request("http://memo.example.com/healthz"))!;
 * assert.equal(ok.status, 200);
 * assert.equal(ok.headers.get("cache-control"), "no-store");
 * assert.deepEqual(await ok.json(), { status: "ok" });
 * const post = healthzResponse(new Request("http://x/healthz", { method: "POST" }))!;
 * assert.equal(post.status, 405);
 * assert.equal(post.headers.get("allow"), "GET, HEAD");
 * await post.body?.cancel();
 * assert.equal(healthzResponse(new Request("http://x/mcp")), undefined);
 * ```
 */
export function healthzResponse(request: Request): Response | undefined {
  if (urlPath(request.url) !== HEALTHZ_PATH) return undefined;
  const method = request.method;
  if (method !== "GET" && method !== "HEAD") {
    return new Response(
      JSON.stringify({
        status: "error",
        message: `Cannot answer ${method} ${HEALTHZ_PATH}: use GET or HEAD`,
      }),
      {
        status: 405,
        headers: {
          allow: "GET, HEAD",
          "content-type": "application/json",
          "cache-control": "no-store",
        },
      },
    );
  }
  return new Response(method === "HEAD" ? null : BODY, {
    status: 200,
    headers: {
      "content-type": "application/json",
      "content-length": String(BODY.length),
      "cache-control": "no-store",
    },
  });
}
