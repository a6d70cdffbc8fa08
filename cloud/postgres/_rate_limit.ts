/**
 * Internal: {@linkcode PostgresRateLimiter}, the rate limit every instance of the PostgreSQL store
 * shares: one row per API key (a hash of it) in the unlogged table `memo_rate_limits`, counted by
 * one `INSERT … ON CONFLICT DO UPDATE` per request. Windows are whole seconds of the database's
 * clock, so that instances whose clocks drift still count in the same window (a handler given a
 * clock, as tests do, names the window itself). A request that arrives late, in a window already
 * past, counts in the current one.
 *
 * @module
 */

import type { Sql } from "postgres";
import { decide, type RateDecision, type RateLimiter } from "../rate_limit.ts";

/**
 * Counts in PostgreSQL; see the module doc.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { PostgresCloudStore } from "./store.ts";
 * import { startPostgres } from "../../tests/_postgres.ts";
 *
 * const pg = await startPostgres();
 * const a = await PostgresCloudStore.open({ url: pg.url, max: 1 });
 * const b = await PostgresCloudStore.open({ url: pg.url, max: 1 }); // another instance
 * try {
 *   const now = Date.parse("2026-01-01T00:00:00.200Z");
 *   assert.equal((await a.rateLimiter.take("key-hash", 2, now)).allowed, true);
 *   assert.equal((await b.rateLimiter.take("key-hash", 2, now)).allowed, true);
 *   const third = await a.rateLimiter.take("key-hash", 2, now);
 *   assert.deepEqual(third, { allowed: false, remaining: 0, resetSeconds: 1 });
 *   assert.equal((await b.rateLimiter.take("key-hash", 2, now + 1000)).allowed, true);
 * } finally {
 *   await a.close();
 *   await b.close();
 *   await pg.stop();
 * }
 * ```
 */
export class PostgresRateLimiter implements RateLimiter {
  /** Counts are shared by every instance on the database. */
  readonly shared = true;
  readonly #sql: Sql;

  /** A limiter on the pool `sql` (migrated to schema version 4 or later). */
  constructor(sql: Sql) {
    this.#sql = sql;
  }

  /** {@linkcode RateLimiter.take}: one round trip. */
  async take(key: string, limit: number, now?: number): Promise<RateDecision> {
    const [row] = await this.#sql<{ count: number; win: string; ms: number }[]>`
      WITH t AS (
        SELECT coalesce(${now ?? null}::float8, extract(epoch from clock_timestamp()) * 1000) AS ms
      )
      INSERT INTO memo_rate_limits AS r (key, win, count)
      SELECT ${key}, floor(t.ms / 1000)::int8, 1 FROM t
      ON CONFLICT (key) DO UPDATE SET
        count = CASE WHEN EXCLUDED.win <= r.win THEN r.count + 1 ELSE 1 END,
        win = greatest(r.win, EXCLUDED.win)
      RETURNING count, win, (SELECT ms FROM t)::float8 AS ms`;
    const windowStart = Number(row.win) * 1000;
    return decide(row.count, limit, windowStart, Math.max(windowStart, Number(row.ms)));
  }
}
