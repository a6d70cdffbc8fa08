/**
 * The file store of the reference Cloud API server, the default for one box.
 * Under the data folder (`MEMO_CLOUD_DATA_DIR`, `./memo-cloud-data` by
 * default):
 *
 * - `<ws>/<p>/notes.md`: a project's notes, in memo's own format (with its lock
 *   `notes.md.lock`);
 * - `<ws>/<p>/changes.jsonl`: the project's change journal (revisions and the
 *   change feed), which follows `notes.md`: a hand edit of `notes.md`, or a
 *   crash between the two writes, is journaled at the next call;
 * - `<ws>/idempotency.jsonl`: the workspace's idempotency keys (24 h).
 *
 * Writes of a project are serialized within the process. **One server process
 * per data folder**: several instances (on one folder or not) need the
 * PostgreSQL store.
 *
 * @module
 */

import { join } from "node:path";
import { MemoryValidationError } from "@memo/memory";
import type { CloudProject, CloudStore } from "./store.ts";
import { MemoCloudProject } from "./_project.ts";
import { FileRevisionedStore } from "./_file_revisioned_store.ts";
import { FileIdempotencyStore } from "./_idempotency_file.ts";

export { FileRevisionedStore, type FileRevisionedStoreOptions } from "./_file_revisioned_store.ts";
export { FileIdempotencyStore, type FileIdempotencyStoreOptions } from "./_idempotency_file.ts";

const ID_PATTERN = /^[0-9a-z][0-9a-z_-]{0,63}$/;

/**
 * Options of {@linkcode FileCloudStore}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { FileCloudStoreOptions } from "./file_store.ts";
 *
 * const options: FileCloudStoreOptions = { dataDir: "./memo-cloud-data" };
 * assert.equal(options.dataDir, "./memo-cloud-data");
 * ```
 */
export interface FileCloudStoreOptions {
  /** The data folder (`MEMO_CLOUD_DATA_DIR`). Nothing is created in it before a write. */
  dataDir: string;
  /**
   * Source of the current time: notes' `created` and `updated`, new ids, the expiry of
   * idempotency keys.
   * @default () => new Date()
   */
  clock?: () => Date;
}

/**
 * A {@linkcode CloudStore} in files; see the module doc.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { FileCloudStore } from "./file_store.ts";
 *
 * const dataDir = await Deno.makeTempDir();
 * const store = new FileCloudStore({ dataDir });
 * const project = await store.project("team", "default");
 * const [written] = await project.upsert([{ text: "Deploys run with make deploy" }]);
 * assert.equal(written.status, "written");
 * assert.equal(written.note.revision, 1);
 * assert.ok((await Deno.readTextFile(`${dataDir}/team/default/notes.md`)).includes("make deploy"));
 * assert.equal((await project.stats()).revision, 1);
 * await store.close();
 * await Deno.remove(dataDir, { recursive: true });
 * ```
 */
export class FileCloudStore implements CloudStore {
  /** Always `file`. */
  readonly kind = "file" as const;
  /** Idempotency keys, in `<dataDir>/<ws>/idempotency.jsonl`. */
  readonly idempotency: FileIdempotencyStore;
  /** The data folder. */
  readonly dataDir: string;
  readonly #clock: (() => Date) | undefined;
  readonly #projects = new Map<string, MemoCloudProject>();
  #closed = false;

  /** Creates the store; nothing is read until the first call. */
  constructor(options: FileCloudStoreOptions) {
    if (!options || typeof options.dataDir !== "string" || options.dataDir === "") {
      throw new MemoryValidationError("Cannot open the file store: dataDir must be a path");
    }
    this.dataDir = options.dataDir;
    this.#clock = options.clock;
    this.idempotency = new FileIdempotencyStore({ dataDir: this.dataDir, clock: options.clock });
  }

  /** The project (one instance per project, kept until {@linkcode FileCloudStore.close}). */
  project(workspaceId: string, projectId: string): Promise<CloudProject> {
    if (this.#closed) {
      return Promise.reject(new Error("Cannot open a project: the store is closed"));
    }
    for (const id of [workspaceId, projectId]) {
      if (typeof id !== "string" || !ID_PATTERN.test(id)) {
        return Promise.reject(
          new MemoryValidationError(`Cannot open a project: ${JSON.stringify(id)} is not an id`),
        );
      }
    }
    const key = `${workspaceId}/${projectId}`;
    let project = this.#projects.get(key);
    if (!project) {
      const dir = join(this.dataDir, workspaceId, projectId);
      project = new MemoCloudProject(new FileRevisionedStore({ dir, clock: this.#clock }));
      this.#projects.set(key, project);
    }
    return Promise.resolve(project);
  }

  /** Waits for pending writes and releases every project. */
  async close(): Promise<void> {
    this.#closed = true;
    const projects = [...this.#projects.values()];
    this.#projects.clear();
    await Promise.all(projects.map((p) => p.close()));
    await this.idempotency.close();
  }
}
