/**
 * The PostgreSQL store of the reference Cloud API server, used when `MEMO_CLOUD_DATABASE_URL` is
 * set: any number of server instances share one database. {@linkcode PostgresCloudStore} opens the
 * pool and applies the schema migrations; {@linkcode PostgresMemoryStore} is the `MemoryStore` of
 * one project, with revisions and the change feed. Each instance holds the recall indexes of the
 * projects it serves within its index budget, loads them from index snapshots kept in the database
 * (`_live_index.ts`), and counts the rate limit in the database too, so that every instance shares
 * it (`_rate_limit.ts`).
 *
 * Import this module lazily (`await import(...)`): it loads the driver (`npm:postgres`).
 *
 * How writes stay ordered: every write of a project runs in one transaction that first locks the
 * project's row in `memo_projects` (`SELECT … FOR UPDATE`), so the writers of a project take turns,
 * and the change numbers (`seq`) they take from that row are in commit order. A reader that follows
 * the feed with `seq > token` therefore never skips a change.
 *
 * @module
 */

import type { Sql } from "postgres";
import { MemoryValidationError } from "@memo/memory";
import { collectGarbage, prepareGarbageCollection, unrefTimer } from "../../platform/mod.ts";
import { IndexBudget } from "../projects/budget.ts";
import { connectPostgres } from "./_connect.ts";
import { migrate, SCHEMA_VERSION } from "./_migrations.ts";
import { PostgresIdempotencyStore } from "./idempotency.ts";
import { PostgresMemoryStore } from "./memory_store.ts";
import {
  DEFAULT_SNAPSHOT_POLICY,
  type PgIndexContext,
  type SnapshotPolicy,
} from "./_live_index.ts";
import { PostgresCloudProject } from "./_project.ts";
import { PostgresRateLimiter } from "./_rate_limit.ts";
import { snapshotFormat } from "../projects/index_snapshot.ts";
import {
  type CloudInstanceStats,
  type CloudProject,
  type CloudReadiness,
  type CloudStore,
  DEFAULT_INDEX_BUDGET_MB,
} from "../store.ts";

export { PostgresMemoryStore, type PostgresMemoryStoreOptions } from "./memory_store.ts";
export type { SnapshotPolicy } from "./_live_index.ts";

/** Project objects kept between requests (each is small; the indexes are in the budget). */
const PROJECT_OBJECTS = 10_000;
/** How long after a snapshot copy took the spare connection the next one is connected, in ms. */
const SPARE_DELAY_MS = 1000;
/** How long the readiness check waits for the database, in ms. */
const READY_TIMEOUT_MS = 2000;

/**
 * Options of {@linkcode PostgresCloudStore.open}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { PostgresCloudStoreOptions } from "./store.ts";
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
  /**
   * Memory for the projects' recall indexes, in MiB (`MEMO_CLOUD_INDEX_BUDGET_MB`).
   * @default {256}
   */
  indexBudgetMb?: number;
  /**
   * When index snapshots are written (minimum notes, changes behind, delay); `false` never writes
   * any (snapshots written by other instances are still read).
   * @default {{ minNotes: 1000, minChanges: 1000, changeRatio: 0.1, delayMs: 100 }}
   */
  snapshots?: Partial<SnapshotPolicy> | false;
  /** Receives a line for each failure of background work (snapshot writes). */
  log?: (line: string) => void;
}

/**
 * The Cloud API's store on PostgreSQL: projects (their notes in {@linkcode PostgresMemoryStore}s,
 * their recall indexes held within the instance's budget), idempotency keys and the shared rate
 * limit, in one database that any number of server instances share.
 * {@linkcode PostgresCloudStore.open} connects and applies the pending schema migrations.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { PostgresCloudStore } from "./store.ts";
 * import { startPostgres } from "../../tests/_postgres.ts";
 *
 * const pg = await startPostgres();
 * const store = await PostgresCloudStore.open({ url: pg.url, max: 2, indexBudgetMb: 64 });
 * try {
 *   assert.equal(store.kind, "postgres");
 *   const project = await store.project("team", "default");
 *   const [result] = await project.upsert([{ text: "The staging database is db-stage-2" }]);
 *   assert.equal(result.status, "written");
 *   const [hit] = await project.recall("staging database", { limit: 5 });
 *   assert.equal(hit.note.id, result.note.id);
 *   assert.equal((await project.stats()).revision, result.note.revision);
 *   assert.deepEqual(await store.ready(), { ready: true });
 *   assert.equal(store.stats().index.projects, 1);
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
  /** The rate limit, shared with every instance on the database. */
  readonly rateLimiter: PostgresRateLimiter;
  /** The connection pool (for tests and tools; the store owns it). */
  readonly sql: Sql;
  readonly #clock: () => Date;
  readonly #context: PgIndexContext;
  /** Project objects, least recently used first. */
  readonly #projects = new Map<string, PostgresCloudProject>();
  #closed = false;

  private constructor(
    sql: Sql,
    options: PostgresCloudStoreOptions,
    dedicated: () => Sql,
  ) {
    this.sql = sql;
    this.#clock = options.clock ?? (() => new Date());
    this.idempotency = new PostgresIdempotencyStore({ sql, clock: this.#clock });
    this.rateLimiter = new PostgresRateLimiter(sql);
    const budgetMb = options.indexBudgetMb ?? DEFAULT_INDEX_BUDGET_MB;
    void prepareGarbageCollection(); // the budget's collections load what they need now
    this.#context = {
      sql,
      dedicated,
      budget: new IndexBudget(Math.round(budgetMb * 1024 * 1024), {
        collect: (idle) => collectGarbage({ release: idle }),
      }),
      format: snapshotFormat(SCHEMA_VERSION),
      snapshots: options.snapshots === false
        ? undefined
        : { ...DEFAULT_SNAPSHOT_POLICY, ...options.snapshots },
      counters: { loaded: 0, rejected: 0, built: 0, written: 0, skipped: 0, failed: 0 },
      background: new Set(),
      log: options.log,
      clock: this.#clock,
      transient: { tail: Promise.resolve() },
    };
  }

  /**
   * Connects (a pool of `max` connections) and applies the pending schema migrations; safe when
   * several servers start at once.
   */
  static async open(options: PostgresCloudStoreOptions): Promise<PostgresCloudStore> {
    const max = options.max ?? 10;
    if (!Number.isInteger(max) || max < 1) {
      throw new MemoryValidationError("Cannot open the PostgreSQL store: max must be at least 1");
    }
    const budget = options.indexBudgetMb ?? DEFAULT_INDEX_BUDGET_MB;
    if (!(typeof budget === "number" && budget > 0 && Number.isFinite(budget))) {
      throw new MemoryValidationError(
        "Cannot open the PostgreSQL store: indexBudgetMb must be a number above 0",
      );
    }
    let sql: Sql;
    const connect = (size: number) => connectPostgres(options.url, { max: size });
    try {
      sql = connect(max);
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
    // Each snapshot copy gets a connection of its own, closed after it. One is kept connected ahead
    // of need from the start, so that a cold load (the first one too) does not wait for a new
    // backend (tens of ms). The next one is connected a while after one is taken, not during the
    // copy that took it: a new backend and its handshake would take the CPU from that copy.
    const warm = () => {
      const next = connect(1);
      next`SELECT 1`.catch(() => {});
      return next;
    };
    let spare: Sql | undefined = warm();
    let timer: ReturnType<typeof setTimeout> | undefined;
    let ended = false;
    const dedicated = () => {
      const taken = spare ?? connect(1);
      spare = undefined;
      if (timer === undefined && !ended) {
        timer = setTimeout(() => {
          timer = undefined;
          if (!ended) spare ??= warm();
        }, SPARE_DELAY_MS);
        unrefTimer(timer);
      }
      return taken;
    };
    const store = new PostgresCloudStore(sql, options, dedicated);
    store.#endSpare = () => {
      ended = true;
      clearTimeout(timer);
      return spare?.end({ timeout: 1 }).catch(() => {});
    };
    return store;
  }

  #endSpare: () => Promise<void> | undefined = () => undefined;

  /** The project `projectId` of workspace `workspaceId`. */
  project(workspaceId: string, projectId: string): Promise<CloudProject> {
    if (this.#closed) {
      return Promise.reject(new Error("Cannot open a project: the store is closed"));
    }
    const key = `${workspaceId}/${projectId}`;
    let project = this.#projects.get(key);
    if (project) this.#projects.delete(key);
    else {
      const store = new PostgresMemoryStore({
        sql: this.sql,
        workspaceId,
        projectId,
        clock: this.#clock,
      });
      project = new PostgresCloudProject(store, this.#context, key);
      if (this.#projects.size >= PROJECT_OBJECTS) {
        this.#projects.delete(this.#projects.keys().next().value!);
      }
    }
    this.#projects.set(key, project);
    return Promise.resolve(project);
  }

  /**
   * Ready to serve: the database answers within 2 s and holds every migration this build knows (a
   * newer schema, from a newer instance during a rolling upgrade, is ready too: migrations only
   * add).
   */
  async ready(): Promise<CloudReadiness> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      const check = this.sql<{ version: number | null }[]>`
        SELECT max(version) AS version FROM memo_schema_migrations`;
      const late = new Promise<"late">((resolve) => {
        timer = setTimeout(() => resolve("late"), READY_TIMEOUT_MS);
      });
      const answer = await Promise.race([check, late]);
      if (answer === "late") return { ready: false, reason: "the database does not answer" };
      const version = Number(answer[0]?.version ?? 0);
      if (version < SCHEMA_VERSION) {
        return {
          ready: false,
          reason:
            `the database schema is at version ${version}, this server needs ${SCHEMA_VERSION}`,
        };
      }
      return { ready: true };
    } catch {
      // The driver's message may name the host; the reason stays generic.
      return { ready: false, reason: "the database cannot be reached" };
    } finally {
      clearTimeout(timer);
    }
  }

  /** The instance's figures: its index budget and its snapshot work. */
  stats(): CloudInstanceStats {
    return {
      index: this.#context.budget.stats(),
      snapshots: { ...this.#context.counters },
    };
  }

  /** Waits for snapshot writes under way, drops the indexes and ends the pool. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#projects.clear();
    await Promise.all(this.#context.background);
    await this.#context.budget.close();
    await this.#endSpare();
    await this.sql.end({ timeout: 5 });
  }
}
