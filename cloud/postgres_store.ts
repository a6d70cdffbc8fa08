/**
 * The PostgreSQL store of the reference Cloud API server, used when
 * `MEMO_CLOUD_DATABASE_URL` is set: any number of server instances share one
 * database. {@linkcode PostgresCloudStore} opens the pool and applies the
 * schema migrations; {@linkcode PostgresMemoryStore} is the `MemoryStore` of
 * one project, with revisions and the change feed.
 *
 * Import this module lazily (`await import(...)`): it loads the driver
 * (`npm:postgres`).
 *
 * How writes stay ordered: every write of a project runs in one transaction
 * that first locks the project's row in `memo_projects` (`SELECT … FOR
 * UPDATE`), so the writers of a project take turns, and the change numbers
 * (`seq`) they take from that row are in commit order. A reader that follows
 * the feed with `seq > token` therefore never skips a change.
 *
 * @module
 */

import postgres, { type Sql } from "postgres";
import { MemoryValidationError } from "@memo/memory";
import { MemoCloudProject } from "./_project.ts";
import { migrate } from "./_migrations.ts";
import { PostgresIdempotencyStore } from "./_pg_idempotency.ts";
import { PostgresMemoryStore } from "./_pg_memory_store.ts";
import type { CloudProject, CloudStore } from "./store.ts";

export { PostgresMemoryStore, type PostgresMemoryStoreOptions } from "./_pg_memory_store.ts";

/**
 * Options of {@linkcode PostgresCloudStore.open}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { PostgresCloudStoreOptions } from "./postgres_store.ts";
 *
 * const options: PostgresCloudStoreOptions = { url: "postgres://memo@127.0.0.1/memo", max: 4 };
 * assert.equal(options.max, 4);
 * ```
 */
export interface PostgresCloudStoreOptions {
  /** Connection URL (`MEMO_CLOUD_DATABASE_URL`). Never logged nor put in an error. */
  url: string;
  /**
   * Connections in the pool.
   * @default 10
   */
  max?: number;
  /**
   * The clock (note times, idempotency expiry).
   * @default () => new Date()
   */
  clock?: () => Date;
}

/**
 * The Cloud API's store on PostgreSQL: projects as {@linkcode PostgresMemoryStore}s
 * behind `MemoCloudProject`, and idempotency keys, in one database that any
 * number of server instances share. {@linkcode PostgresCloudStore.open}
 * connects and applies the pending schema migrations.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { PostgresCloudStore } from "./postgres_store.ts";
 * import { startPostgres } from "../tests/_postgres.ts";
 *
 * const pg = await startPostgres();
 * const store = await PostgresCloudStore.open({ url: pg.url, max: 2 });
 * try {
 *   assert.equal(store.kind, "postgres");
 *   const project = await store.project("team", "default");
 *   const [result] = await project.upsert([{ text: "The staging database is db-stage-2" }]);
 *   assert.equal(result.status, "written");
 *   const [hit] = await project.recall("staging database", { limit: 5 });
 *   assert.equal(hit.note.id, result.note.id);
 *   assert.equal((await project.stats()).revision, result.note.revision);
 * } finally {
 *   await store.close();
 *   await pg.stop();
 * }
 * ```
 */
export class PostgresCloudStore implements CloudStore {
  /** Always `postgres`. */
  readonly kind = "postgres" as const;
  /** The idempotency keys. */
  readonly idempotency: PostgresIdempotencyStore;
  /** The connection pool (for tests and tools; the store owns it). */
  readonly sql: Sql;
  readonly #clock: () => Date;
  readonly #projects = new Map<string, { project: CloudProject; store: PostgresMemoryStore }>();

  private constructor(sql: Sql, clock: () => Date) {
    this.sql = sql;
    this.#clock = clock;
    this.idempotency = new PostgresIdempotencyStore({ sql, clock });
  }

  /**
   * Connects (a pool of `max` connections) and applies the pending schema
   * migrations; safe when several servers start at once.
   */
  static async open(options: PostgresCloudStoreOptions): Promise<PostgresCloudStore> {
    const max = options.max ?? 10;
    if (!Number.isInteger(max) || max < 1) {
      throw new MemoryValidationError("Cannot open the PostgreSQL store: max must be at least 1");
    }
    let sql: Sql;
    try {
      sql = postgres(options.url, { max, onnotice: () => {}, connect_timeout: 10 });
    } catch {
      // The driver's message would quote the URL, password included.
      throw new Error("Cannot open the PostgreSQL store: the database URL is not valid");
    }
    try {
      await migrate(sql);
    } catch (e) {
      await sql.end({ timeout: 1 }).catch(() => {});
      const reason = e instanceof Error ? e.message : String(e);
      throw new Error(`Cannot open the PostgreSQL store: ${reason}`, { cause: e });
    }
    return new PostgresCloudStore(sql, options.clock ?? (() => new Date()));
  }

  /** The project `projectId` of workspace `workspaceId`, one object per project. */
  project(workspaceId: string, projectId: string): Promise<CloudProject> {
    const key = `${workspaceId}/${projectId}`;
    let entry = this.#projects.get(key);
    if (!entry) {
      const store = new PostgresMemoryStore({
        sql: this.sql,
        workspaceId,
        projectId,
        clock: this.#clock,
      });
      entry = { project: new MemoCloudProject(store), store };
      this.#projects.set(key, entry);
    }
    return Promise.resolve(entry.project);
  }

  /** Closes the projects and ends the pool. */
  async close(): Promise<void> {
    const projects = [...this.#projects.values()];
    this.#projects.clear();
    for (const { project, store } of projects) {
      await (project as { close?: () => Promise<void> }).close?.();
      await store.close();
    }
    await this.sql.end({ timeout: 5 });
  }
}
