/**
 * The file store of the reference Cloud API server, the default for one box:
 * {@linkcode FileCloudStore} keeps each project as memo's own `notes.md` and a
 * change journal under a data folder, and the idempotency keys of each
 * workspace in a file ({@linkcode FileIdempotencyStore}).
 *
 * @example Open a store in a temporary folder
 * ```ts
 * import assert from "node:assert/strict";
 * import { FileCloudStore } from "./mod.ts";
 *
 * const dataDir = await Deno.makeTempDir();
 * const store = new FileCloudStore({ dataDir });
 * const project = await store.project("team", "app");
 * assert.equal((await project.stats()).revision, 0);
 * await store.close();
 * await Deno.remove(dataDir, { recursive: true });
 * ```
 *
 * @module
 */

export {
  FileCloudStore,
  type FileCloudStoreOptions,
  FileIdempotencyStore,
  type FileIdempotencyStoreOptions,
  FileRevisionedStore,
  type FileRevisionedStoreOptions,
} from "./store.ts";
