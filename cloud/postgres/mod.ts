/**
 * The PostgreSQL store of the reference Cloud API server, used when `MEMO_CLOUD_DATABASE_URL` is
 * set: {@linkcode PostgresCloudStore} (the pool, the schema migrations, the projects held within
 * the index budget, the shared rate limit), {@linkcode PostgresMemoryStore} (one project's notes,
 * revisions and change feed) and {@linkcode PostgresIdempotencyStore}.
 *
 * Importing it loads the driver (`npm:postgres`): `../open_store.ts` imports `store.ts` lazily,
 * only when a database URL is configured.
 *
 * @example The store's classes
 * ```ts
 * import assert from "node:assert/strict";
 * import { PostgresCloudStore, PostgresIdempotencyStore, PostgresMemoryStore } from "./mod.ts";
 *
 * assert.equal(typeof PostgresCloudStore.open, "function");
 * assert.equal(typeof PostgresMemoryStore, "function");
 * assert.equal(typeof PostgresIdempotencyStore, "function");
 * ```
 *
 * @module
 */

export {
  PostgresCloudStore,
  type PostgresCloudStoreOptions,
  type SnapshotPolicy,
} from "./store.ts";
export { PostgresMemoryStore, type PostgresMemoryStoreOptions } from "./memory_store.ts";
export { type PostgresIdempotencyOptions, PostgresIdempotencyStore } from "./idempotency.ts";
