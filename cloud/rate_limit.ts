/**
 * Requests per second per API key, in fixed one-second windows. {@linkcode RateLimiter} is what the
 * handler asks; {@linkcode MemoryRateLimiter} counts in this process (the file store: one
 * instance), and the PostgreSQL store shares its counts through the database
 * (`postgres/_rate_limit.ts`), so that every instance together admits the configured rate.
 *
 * The answers carry the fields of the IETF HTTPAPI draft "RateLimit header fields for HTTP"
 * (draft-ietf-httpapi-ratelimit-headers-10): `RateLimit-Policy: "default";q=<limit>;w=1` and
 * `RateLimit: "default";r=<remaining>;t=<seconds to the next window>`, plus `Retry-After` on a 429
 * ({@linkcode rateLimitHeaders}).
 *
 * @module
 */

/**
 * What a limiter decided for one request.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { RateDecision } from "./rate_limit.ts";
 *
 * const decision: RateDecision = { allowed: false, remaining: 0, resetSeconds: 1 };
 * assert.equal(decision.allowed, false);
 * ```
 */
export interface RateDecision {
  /** Whether the request may run. */
  allowed: boolean;
  /** Requests left in the window after this one. */
  remaining: number;
  /** Whole seconds until the window resets (at least 1). */
  resetSeconds: number;
}

/**
 * Counts requests per key within a limit per second.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { RateLimiter } from "./rate_limit.ts";
 *
 * const open: RateLimiter = {
 *   shared: false,
 *   take: (_key, limit) => Promise.resolve({ allowed: true, remaining: limit - 1, resetSeconds: 1 }),
 * };
 * assert.equal((await open.take("k", 10)).remaining, 9);
 * ```
 */
export interface RateLimiter {
  /** Whether the counts are shared by every instance (`GET /v1/stats` says so). */
  readonly shared: boolean;
  /**
   * Counts one request of `key` (a hash of the API key, never the key) against `limit` per second;
   * `now` (ms since the epoch) names the window, by default the limiter's own clock.
   */
  take(key: string, limit: number, now?: number): Promise<RateDecision>;
}

/**
 * The decision of one count in the window starting at `windowStart` (ms) when it is the `count`-th
 * request of the window.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { decide } from "./rate_limit.ts";
 *
 * assert.deepEqual(decide(3, 2, 5_000, 5_250), { allowed: false, remaining: 0, resetSeconds: 1 });
 * assert.deepEqual(decide(1, 2, 5_000, 5_250), { allowed: true, remaining: 1, resetSeconds: 1 });
 * ```
 */
export function decide(
  count: number,
  limit: number,
  windowStart: number,
  now: number,
): RateDecision {
  return {
    allowed: count <= limit,
    remaining: Math.max(0, limit - count),
    resetSeconds: Math.max(1, Math.ceil((windowStart + 1000 - now) / 1000)),
  };
}

/**
 * Counts in this process, in windows of the injected clock.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { MemoryRateLimiter } from "./rate_limit.ts";
 *
 * const limiter = new MemoryRateLimiter(() => new Date(1_000));
 * assert.equal((await limiter.take("k", 1)).allowed, true);
 * assert.equal((await limiter.take("k", 1)).allowed, false);
 * assert.equal((await limiter.take("k", 1, 2_000)).allowed, true); // the next window
 * ```
 */
export class MemoryRateLimiter implements RateLimiter {
  /** Counts are this process's own. */
  readonly shared = false;
  readonly #clock: () => Date;
  readonly #windows = new Map<string, { start: number; count: number }>();

  /** A limiter on `clock`. */
  constructor(clock: () => Date = () => new Date()) {
    this.#clock = clock;
  }

  /** {@linkcode RateLimiter.take}. */
  take(key: string, limit: number, now: number = this.#clock().getTime()): Promise<RateDecision> {
    const start = Math.floor(now / 1000) * 1000;
    let window = this.#windows.get(key);
    if (!window || window.start < start) {
      window = { start, count: 0 };
      this.#windows.set(key, window);
    }
    window.count++;
    return Promise.resolve(decide(window.count, limit, window.start, now));
  }
}

/**
 * The headers of an answer counted by the limiter: `RateLimit-Policy` and `RateLimit` always,
 * `Retry-After` when refused.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { rateLimitHeaders } from "./rate_limit.ts";
 *
 * assert.deepEqual(rateLimitHeaders(100, { allowed: false, remaining: 0, resetSeconds: 1 }), {
 *   "ratelimit-policy": '"default";q=100;w=1',
 *   ratelimit: '"default";r=0;t=1',
 *   "retry-after": "1",
 * });
 * ```
 */
export function rateLimitHeaders(limit: number, decision: RateDecision): Record<string, string> {
  const headers: Record<string, string> = {
    "ratelimit-policy": `"default";q=${limit};w=1`,
    ratelimit: `"default";r=${decision.remaining};t=${decision.resetSeconds}`,
  };
  if (!decision.allowed) headers["retry-after"] = String(decision.resetSeconds);
  return headers;
}
