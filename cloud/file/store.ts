/**
 * The file store of the reference Cloud API server, the default for one box. Under the data folder
 * (`MEMO_CLOUD_DATA_DIR`, `./memo-cloud-data` by default):
 *
 * - `<ws>/<p>/notes.md`: a project's notes, in memo's own format (with its lock `notes.md.lock`);
 * - `<ws>/<p>/changes.jsonl`: the project's change journal (revisions and the change feed), which
 *   follows `notes.md`: a hand edit of `notes.md`, or a crash between the two writes, is journaled
 *   at the next call;
 * - `<ws>/idempotency.jsonl`: the workspace's idempotency keys (24 h).
 *
 * Writes of a project are serialized within the process. **One server process per data folder**:
 * several instances (on one folder or not) need the PostgreSQL store.
 *
 * Projects are held in memory (their notes and recall index) within the index budget
 * (`MEMO_CLOUD_INDEX_BUDGET_MB`): the least recently used are closed, and read from their files
 * again at their next request.
 *
 * @module
 */

import { stat } from "node:fs/promises";
import { dirname, join } from "node:path";
import { MemoryValidationError } from "@memo/memory";
import { collectGarbage, prepareGarbageCollection } from "../../platform/mod.ts";
import { IndexBudget } from "../projects/budget.ts";
import { DEFAULT_INDEX_BUDGET_MB } from "../store.ts";
import type * as C from "../store.ts";
import { MemoCloudProject } from "../projects/memo_project.ts";
import { FileRevisionedStore } from "./_revisioned_store.ts";
import { FileIdempotencyStore } from "./_idempotency.ts";

export { FileRevisionedStore, type FileRevisionedStoreOptions } from "./_revisioned_store.ts";
export { FileIdempotencyStore, type FileIdempotencyStoreOptions } from "./_idempotency.ts";

const ID_PATTERN = /^[0-9a-z][0-9a-z_-]{0,63}$/;

/**
 * Options of {@linkcode FileCloudStore}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { FileCloudStoreOptions } from "./store.ts";
 *
 * const options: FileCloudStoreOptions = { dataDir: "./memo-cloud-data" };
 * assert.equal(options.dataDir, "./memo-cloud-data");
 * ```
 */
export interface FileCloudStoreOptions {
  /** The data folder (`MEMO_CLOUD_DATA_DIR`). Nothing is created in it before a write. */
  dataDir: string;
  /**
   * Source of the current time: notes' `created` and `updated`, new ids, the expiry of idempotency
   * keys.
   * @default () => new Date()
   */
  clock?: () => Date;
  /**
   * Memory for the projects held (notes and recall index), in MiB (`MEMO_CLOUD_INDEX_BUDGET_MB`).
   * @default {256}
   */
  indexBudgetMb?: number;
}

/**
 * A {@linkcode CloudStore} in files; see the module doc.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { FileCloudStore } from "./store.ts";
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
export class FileCloudStore implements C.CloudStore {
  /** Always `file`. */
  readonly kind = "file" as const;
  /** Idempotency keys, in `<dataDir>/<ws>/idempotency.jsonl`. */
  readonly idempotency: FileIdempotencyStore;
  /** The data folder. */
  readonly dataDir: string;
  readonly #clock: (() => Date) | undefined;
  readonly #budget: IndexBudget;
  #closed = false;

  /** Creates the store; nothing is read until the first call. */
  constructor(options: FileCloudStoreOptions) {
    if (!options || typeof options.dataDir !== "string" || options.dataDir === "") {
      throw new MemoryValidationError("Cannot open the file store: dataDir must be a path");
    }
    const budget = options.indexBudgetMb ?? DEFAULT_INDEX_BUDGET_MB;
    if (!(typeof budget === "number" && budget > 0 && Number.isFinite(budget))) {
      throw new MemoryValidationError(
        "Cannot open the file store: indexBudgetMb must be a number above 0",
      );
    }
    this.dataDir = options.dataDir;
    this.#clock = options.clock;
    this.#budget = new IndexBudget(Math.round(budget * 1024 * 1024), {
      collect: (idle) => collectGarbage({ release: idle }),
    });
    void prepareGarbageCollection(); // the budget's collections load what they need now
    this.idempotency = new FileIdempotencyStore({ dataDir: this.dataDir, clock: options.clock });
  }

  /** The project; it is opened (read from its files) at its first call, within the budget. */
  project(workspaceId: string, projectId: string): Promise<C.CloudProject> {
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
    const dir = join(this.dataDir, workspaceId, projectId);
    const open = () => new MemoCloudProject(new FileRevisionedStore({ dir, clock: this.#clock }));
    return Promise.resolve(new HeldProject(this.#budget, `${workspaceId}/${projectId}`, open));
  }

  /** Ready when the data folder, or the folder it will be made in, can be read. */
  async ready(): Promise<C.CloudReadiness> {
    for (const path of [this.dataDir, dirname(this.dataDir)]) {
      try {
        if ((await stat(path)).isDirectory()) return { ready: true };
        return { ready: false, reason: "the data folder is not a folder" };
      } catch (e) {
        if ((e as { code?: string }).code !== "ENOENT") break;
      }
    }
    return { ready: false, reason: "the data folder cannot be read" };
  }

  /** The instance's figures: the projects held within the budget. */
  stats(): C.CloudInstanceStats {
    return { index: this.#budget.stats() };
  }

  /** Waits for pending writes and releases every project. */
  async close(): Promise<void> {
    this.#closed = true;
    await this.#budget.close();
    await this.idempotency.close();
  }
}

/**
 * A project of the file store as the handler sees it: each call runs on the project the budget
 * holds (opening it when it is not held).
 */
class HeldProject implements C.CloudProject {
  readonly #budget: IndexBudget;
  readonly #key: string;
  readonly #open: () => MemoCloudProject;

  constructor(budget: IndexBudget, key: string, open: () => MemoCloudProject) {
    this.#budget = budget;
    this.#key = key;
    this.#open = open;
  }

  #run<T>(fn: (project: MemoCloudProject) => Promise<T>): Promise<T> {
    return this.#budget.use(this.#key, this.#open, fn);
  }

  upsert(
    drafts: readonly C.CloudDraft[],
    options?: { signal?: AbortSignal },
  ): Promise<C.CloudWriteResult[]> {
    return this.#run((p) => p.upsert(drafts, options));
  }
  get(id: string): Promise<C.CloudNote | undefined> {
    return this.#run((p) => p.get(id));
  }
  update(id: string, patch: C.NotePatch, ifMatch?: number): Promise<C.CloudNote | undefined> {
    return this.#run((p) => p.update(id, patch, ifMatch));
  }
  remove(id: string, ifMatch?: number): Promise<C.CloudNote | undefined> {
    return this.#run((p) => p.remove(id, ifMatch));
  }
  removeMany(selector: C.CloudDeleteSelector): Promise<C.CloudDeleteResult> {
    return this.#run((p) => p.removeMany(selector));
  }
  list(
    options: C.CloudListOptions,
  ): Promise<{ notes: C.CloudNote[]; nextCursor?: string; total: number }> {
    return this.#run((p) => p.list(options));
  }
  recall(query: string, options: C.CloudRecallOptions): Promise<C.CloudRecallHit[]> {
    return this.#run((p) => p.recall(query, options));
  }
  remember(draft: C.NoteDraft): Promise<C.CloudRememberResult> {
    return this.#run((p) => p.remember(draft));
  }
  correct(input: C.CorrectInput): Promise<C.CloudSupersedeResult> {
    return this.#run((p) => p.correct(input));
  }
  supersede(input: C.SupersedeInput): Promise<C.CloudSupersedeResult> {
    return this.#run((p) => p.supersede(input));
  }
  tidy(): Promise<C.TidyPlan> {
    return this.#run((p) => p.tidy());
  }
  applyTidy(plan: C.TidyPlan): Promise<C.CloudTidyApplyResult> {
    return this.#run((p) => p.applyTidy(plan));
  }
  changes(since: number, limit: number): Promise<{ changes: C.CloudChange[]; hasMore: boolean }> {
    return this.#run((p) => p.changes(since, limit));
  }
  revision(): Promise<number> {
    return this.#run((p) => p.revision());
  }
  stats(): Promise<C.CloudStats> {
    return this.#run((p) => p.stats());
  }
}
