/**
 * Internal: what the Cloud API server says about the instance itself, beside the API:
 *
 * - `GET /readyz`, the readiness check a load balancer follows: 200 `{"status":"ready"}` when the
 *   store can serve (PostgreSQL answers and holds every migration this build needs), 503
 *   `{"status":"unready", "reason":…}` otherwise and while the instance drains before it stops. No
 *   key; GET and HEAD only. `/healthz` stays the liveness check.
 * - `GET /v1/stats` for operators ({@linkcode instanceStats}): the version, the store, the uptime,
 *   the index budget's figures, the process's memory beside them, the snapshot work and the rate
 *   limit.
 *
 * @module
 */

import { urlPath } from "../platform/healthz.ts";
import { memoryUsage } from "../platform/memory.ts";
import { VERSION } from "../version.ts";
import { jsonResponse } from "./errors.ts";
import type { RateLimiter } from "./rate_limit.ts";
import type { CloudStore } from "./store.ts";

/** The path of the readiness check. */
export const READYZ_PATH = "/readyz";

/**
 * The answer to `request` when its path is {@linkcode READYZ_PATH}, else undefined. `draining()` is
 * true once the instance stopped taking work.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { readyzResponse } from "./_instance.ts";
 * import type { CloudStore } from "./store.ts";
 *
 * const store = { ready: () => Promise.resolve({ ready: true }) } as unknown as CloudStore;
 * const ok = await readyzResponse(new Request("http://x/readyz"), store, () => false);
 * assert.equal(ok?.status, 200);
 * const draining = await readyzResponse(new Request("http://x/readyz"), store, () => true);
 * assert.equal(draining?.status, 503);
 * assert.equal(await readyzResponse(new Request("http://x/v1/health"), store, () => false), undefined);
 * ```
 */
export async function readyzResponse(
  request: Request,
  store: CloudStore,
  draining: () => boolean,
): Promise<Response | undefined> {
  if (urlPath(request.url) !== READYZ_PATH) return undefined;
  if (request.method !== "GET" && request.method !== "HEAD") {
    return jsonResponse(405, {
      status: "error",
      message: `Cannot answer ${request.method} ${READYZ_PATH}: use GET or HEAD`,
    }, { allow: "GET, HEAD" });
  }
  if (draining()) {
    return jsonResponse(503, { status: "unready", reason: "the instance is shutting down" });
  }
  const readiness = store.ready ? await store.ready() : { ready: true };
  return readiness.ready
    ? jsonResponse(200, { status: "ready" })
    : jsonResponse(503, { status: "unready", reason: readiness.reason ?? "not ready" });
}

/**
 * The body of `GET /v1/stats`: this instance's figures (each instance answers for itself).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { instanceStats } from "./_instance.ts";
 * import { MemoryRateLimiter } from "./rate_limit.ts";
 * import type { CloudStore } from "./store.ts";
 *
 * const store = { kind: "file" } as CloudStore;
 * const stats = instanceStats(store, 0, { limit: 100, limiter: new MemoryRateLimiter() });
 * assert.equal(stats.store, "file");
 * assert.deepEqual(stats.rateLimit, { limit: 100, shared: false });
 * ```
 */
export function instanceStats(
  store: CloudStore,
  startedAt: number,
  rate: { limit: number; limiter: RateLimiter },
  now: number = Date.now(),
): Record<string, unknown> {
  const figures = store.stats?.();
  const out: Record<string, unknown> = {
    version: VERSION,
    store: store.kind,
    uptimeSeconds: Math.max(0, Math.floor((now - startedAt) / 1000)),
  };
  if (figures) {
    out.index = figures.index;
    if (figures.snapshots) out.snapshots = figures.snapshots;
  }
  const memory = memoryUsage();
  out.memory = {
    rssBytes: memory.rss,
    heapTotalBytes: memory.heapTotal,
    heapUsedBytes: memory.heapUsed,
    externalBytes: memory.external,
  };
  out.rateLimit = { limit: rate.limit, shared: rate.limiter.shared };
  return out;
}
