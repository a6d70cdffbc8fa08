/**
 * Idempotency keys of the PostgreSQL store, in `memo_idempotency`
 * (see `_migrations.ts`). Shared by every instance on the database: a key
 * claimed by one server is pending, replayed or refused on every other.
 *
 * Times come from the injected clock and are passed as parameters (never the
 * database's `now()`), so that tests can move time.
 *
 * @module
 */

import type { Sql } from "postgres";
import type { IdempotencyClaim, IdempotencyStore, IdempotentAnswer } from "../store.ts";

/** How long an answered key is kept: 24 h. */
const KEEP_MS = 24 * 60 * 60 * 1000;
/** How long a claim may stay pending before another request may take the key: 60 s. */
const PENDING_MS = 60 * 1000;
/** How often expired rows are deleted (at most), from a claim: every 10 min. */
const PRUNE_EVERY_MS = 10 * 60 * 1000;

/**
 * Options of {@linkcode PostgresIdempotencyStore}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { PostgresIdempotencyOptions } from "./idempotency.ts";
 *
 * const options: Omit<PostgresIdempotencyOptions, "sql"> = { clock: () => new Date(0) };
 * assert.equal(options.clock?.().getTime(), 0);
 * ```
 */
export interface PostgresIdempotencyOptions {
  /** The connection pool (migrated). */
  sql: Sql;
  /**
   * The clock.
   * @default () => new Date()
   */
  clock?: () => Date;
}

interface KeyRow {
  fingerprint: string;
  state: "pending" | "done";
  status: number | null;
  body: string | null;
  claimed_at: Date;
  completed_at: Date | null;
}

/**
 * Idempotency keys in PostgreSQL: answered keys are kept 24 h after their
 * answer, a claim pending for more than 60 s may be taken again, and expired
 * rows are deleted now and then (at most every 10 minutes, from a claim).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * // deno-lint-ignore no-import-prefix -- example only
 * import postgres from "npm:postgres@3.4.9";
 * import { migrate } from "./_migrations.ts";
 * import { PostgresIdempotencyStore } from "./idempotency.ts";
 * import { startPostgres } from "../../tests/_postgres.ts";
 *
 * const pg = await startPostgres();
 * const sql = postgres(pg.url, { max: 2, onnotice: () => {} });
 * try {
 *   await migrate(sql);
 *   const keys = new PostgresIdempotencyStore({ sql });
 *   assert.deepEqual(await keys.claim("team", "k1", "fp"), { kind: "claimed" });
 *   assert.deepEqual(await keys.claim("team", "k1", "fp"), { kind: "pending" });
 *   await keys.complete("team", "k1", { status: 201, body: "{}" }, "fp");
 *   assert.deepEqual(await keys.claim("team", "k1", "fp"), {
 *     kind: "replay",
 *     answer: { status: 201, body: "{}" },
 *   });
 *   assert.deepEqual(await keys.claim("team", "k1", "other"), { kind: "mismatch" });
 * } finally {
 *   await sql.end();
 *   await pg.stop();
 * }
 * ```
 */
export class PostgresIdempotencyStore implements IdempotencyStore {
  readonly #sql: Sql;
  readonly #clock: () => Date;
  #prunedAt = -Infinity;

  /** Creates the store over a migrated pool. */
  constructor(options: PostgresIdempotencyOptions) {
    this.#sql = options.sql;
    this.#clock = options.clock ?? (() => new Date());
  }

  /** Claims `key` for a request with this fingerprint; see {@linkcode IdempotencyStore.claim}. */
  async claim(workspaceId: string, key: string, fingerprint: string): Promise<IdempotencyClaim> {
    const now = this.#clock();
    if (now.getTime() - this.#prunedAt >= PRUNE_EVERY_MS) await this.prune();
    const expired = new Date(now.getTime() - KEEP_MS);
    const stale = new Date(now.getTime() - PENDING_MS);
    // A released key can vanish between the two statements: then the insert is tried again.
    for (let attempt = 0; attempt < 3; attempt++) {
      // New, or expired (answered more than 24 h ago), or abandoned (pending for over 60 s): taken.
      const taken = await this.#sql`
        INSERT INTO memo_idempotency AS i (workspace, key, fingerprint, state, claimed_at)
        VALUES (${workspaceId}, ${key}, ${fingerprint}, 'pending', ${now})
        ON CONFLICT (workspace, key) DO UPDATE
          SET fingerprint = EXCLUDED.fingerprint, state = 'pending', status = NULL, body = NULL,
            claimed_at = EXCLUDED.claimed_at, completed_at = NULL
          WHERE (i.state = 'done' AND i.completed_at <= ${expired})
            OR (i.state = 'pending' AND i.claimed_at <= ${stale})
        RETURNING 1`;
      if (taken.length) return { kind: "claimed" };
      const [row] = await this.#sql<KeyRow[]>`
        SELECT fingerprint, state, status, body, claimed_at, completed_at
        FROM memo_idempotency WHERE workspace = ${workspaceId} AND key = ${key}`;
      if (!row) continue;
      if (row.fingerprint !== fingerprint) return { kind: "mismatch" };
      if (row.state === "pending") return { kind: "pending" };
      return { kind: "replay", answer: { status: Number(row.status), body: row.body ?? "" } };
    }
    return { kind: "pending" };
  }

  /** Records the answer of a claimed key. */
  async complete(
    workspaceId: string,
    key: string,
    answer: IdempotentAnswer,
    fingerprint: string,
  ): Promise<void> {
    await this.#sql`
      UPDATE memo_idempotency
      SET state = 'done', status = ${answer.status}, body = ${answer.body},
        completed_at = ${this.#clock()}
      WHERE workspace = ${workspaceId} AND key = ${key} AND state = 'pending'
        AND fingerprint = ${fingerprint}`;
  }

  /** Frees a claimed key without an answer. */
  async release(workspaceId: string, key: string, fingerprint: string): Promise<void> {
    await this.#sql`
      DELETE FROM memo_idempotency
      WHERE workspace = ${workspaceId} AND key = ${key} AND state = 'pending'
        AND fingerprint = ${fingerprint}`;
  }

  /** {@linkcode IdempotencyStore.purge}: one `DELETE` of the answered keys. */
  async purge(before: Date): Promise<number> {
    const result = await this.#sql`
      DELETE FROM memo_idempotency WHERE state = 'done' AND completed_at < ${before}`;
    return result.count;
  }

  /**
   * Deletes the keys answered more than 24 h ago and the claims left pending
   * for 24 h; returns how many. {@linkcode claim} calls it now and then.
   */
  async prune(): Promise<number> {
    const now = this.#clock();
    this.#prunedAt = now.getTime();
    const cutoff = new Date(now.getTime() - KEEP_MS);
    const result = await this.#sql`
      DELETE FROM memo_idempotency WHERE coalesce(completed_at, claimed_at) <= ${cutoff}`;
    return result.count;
  }
}
