/**
 * Internal: the load of a `Memo` client. The store parses its notes while the index snapshot
 * (`store/index_cache.ts`) is read; the lexical index is restored from the snapshot when it fits (the
 * appended notes, if any, are added to it) or else built; then the snapshot is written again when
 * it is stale. A file store hashes the bytes it reads for the snapshot's key
 * (`store/load_digest.ts`): first the snapshot's header says how many bytes it was taken of.
 *
 * @module
 */

import { dirname } from "node:path";
import type { MemoryStore, StoreLoadReport } from "./store/store.ts";
import type { LexicalIndex } from "./recall/types.ts";
import type { Bm25Index, Bm25LexicalIndex } from "./recall/lexical/lexical.ts";
import {
  indexCachePath,
  readSnapshotFile,
  readSnapshotHead,
  restoreIndex,
  snapshotExtent,
  type SnapshotKeying,
  writeIndexCache,
} from "./store/index_cache.ts";
import { loadDigestsOf } from "./store/load_digest.ts";
import { memoPaths } from "./store/paths.ts";
import type { NoteMirror } from "./_note_mirror.ts";
import type { Note } from "./notes/note.ts";
import type { MemoOptions } from "./memo_options.ts";

/**
 * Where a client keeps its index snapshot, and whether it rewrites it after every build.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { SnapshotPlan } from "./_memo_load.ts";
 * const plan: SnapshotPlan = { path: "/p/.memo/cache/lexical-index.bin", memoryDir: "/p/.memo/memory", always: false };
 * assert.equal(plan.always, false);
 * ```
 */
export interface SnapshotPlan {
  path: string;
  /** The folder of notes.md (no snapshot is written outside a project). */
  memoryDir: string;
  /** Write the snapshot after every build (`indexCache: "always"`). */
  always: boolean;
}

/**
 * The snapshot plan of a client, or undefined when it keeps none: `indexCache` is false, the
 * index is the caller's, or the client does not own the project's files (`ownFiles`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { snapshotPlan } from "./_memo_load.ts";
 * assert.deepEqual(snapshotPlan({ indexCache: "always" }, "/p", true), {
 *   path: "/p/.memo/cache/lexical-index.bin", memoryDir: "/p/.memo/memory", always: true,
 * });
 * assert.equal(snapshotPlan({ indexCache: false }, "/p", true), undefined);
 * assert.equal(snapshotPlan({}, "/p", false), undefined);
 * ```
 */
export function snapshotPlan(
  options: MemoOptions,
  rootDir: string,
  ownFiles: boolean,
): SnapshotPlan | undefined {
  const mode = options.indexCache ?? true;
  if (mode === false || options.index || !ownFiles) return undefined;
  return {
    path: indexCachePath(rootDir),
    memoryDir: dirname(memoPaths(rootDir).notes),
    always: mode === "always",
  };
}

/**
 * Loads the store into `mirror` and `index` (merged at the end, so that the first recall does not
 * pay for it). Returns the store's report, and the snapshot's write when it was stale: the
 * snapshot is taken before this returns, and writing it never rejects.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { FileMemoryStore } from "./store/file_store.ts";
 * import { createLexicalIndex } from "./recall/lexical/lexical.ts";
 * import { ChangeFeed } from "./_change_feed.ts";
 * import { NoteMirror } from "./_note_mirror.ts";
 * import { loadNotes, snapshotPlan } from "./_memo_load.ts";
 * const dir = await Deno.makeTempDir();
 * const store = new FileMemoryStore({ rootDir: dir });
 * await store.load();
 * await store.commit({ notes: [{ text: "Deploys run with make deploy" }] });
 * const index = createLexicalIndex();
 * const mirror: NoteMirror = new NoteMirror({
 *   store, index, embeddings: { upsert() {}, remove() {}, clear() {} }, answers: { clear() {} },
 *   feed: new ChangeFeed(() => mirror.sync(), 250),
 * });
 * const plan = snapshotPlan({ indexCache: "always" }, dir, true);
 * const { report, write } = await loadNotes(store, mirror, index, plan);
 * assert.deepEqual(report.issues, []);
 * assert.equal(mirror.notes.size, 1);
 * await write;
 * assert.ok((await Deno.stat(plan!.path)).size > 0);
 * await store.close?.();
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function loadNotes(
  store: MemoryStore,
  mirror: NoteMirror,
  index: LexicalIndex,
  cache: SnapshotPlan | undefined,
): Promise<{ report: StoreLoadReport; write?: Promise<void> }> {
  // A file store hashes what it reads, also up to where the snapshot on disk ends.
  const digests = cache && loadDigestsOf(store);
  if (digests) digests.request(snapshotExtent(readSnapshotHead(cache.path)?.key));
  // The snapshot is read while the store parses; whether it fits is known after.
  const snapshot = cache && readSnapshotFile(cache.path);
  const report = await store.load();
  const keying = (digest: "whole" | "prefix"): SnapshotKeying =>
    digests ? { by: "file", digest: digests.taken()?.[digest] } : { by: "notes" };
  let started = performance.now();
  let restored = 0;
  let total = 0;
  let write: Promise<void> | undefined;
  await mirror.sync(
    snapshot && (async (notes) => {
      restored = restoreIndex(await snapshot, index as Bm25Index, notes, keying("prefix"));
      total = notes.length;
      // From here on, only the appended notes (if any) are built.
      if (restored) started = performance.now();
      // Notes of other scopes follow the project's (a scoped store): the snapshot holds the
      // project's alone, so it is taken before they join the index.
      const own = projectNotes(notes);
      if (own === notes.length) return restored;
      for (let i = restored; i < own; i++) index.add(notes[i]);
      (index as Partial<Bm25LexicalIndex>).flush?.();
      if (isStale(restored, performance.now() - started, own, cache)) {
        write = writeIndexCache(cache.path, cache.memoryDir, index as Bm25Index, keying("whole"));
      }
      restored = -1;
      return own;
    }),
  );
  if (restored === -1) {
    // The other scopes' notes are merged too, as a build merges every note: a note pending in the
    // log sums its terms in another order, and would score a bit apart from the same note held
    // by the project (one ranking across scopes).
    (index as Partial<Bm25LexicalIndex>).flush?.();
    return write ? { report, write } : { report };
  }
  // After a restore, only adding the appended notes counts: the merge below is a pass over all
  // postings however few notes were appended, and counting it would rewrite the (large)
  // snapshot after every small append. (Merging keeps scores bit-identical to a build.)
  const added = performance.now() - started;
  (index as Partial<Bm25LexicalIndex>).flush?.();
  const elapsed = restored ? added : performance.now() - started;
  if (cache && isStale(restored, elapsed, total, cache)) {
    // The snapshot is taken now; writing it does not hold up the open (close() waits for it).
    const write = writeIndexCache(cache.path, cache.memoryDir, index as Bm25Index, keying("whole"));
    return { report, write };
  }
  return { report };
}

/** Whether a snapshot of `total` notes, `restored` of them from the old one, is worth writing. */
function isStale(restored: number, elapsedMs: number, total: number, cache: SnapshotPlan): boolean {
  const slow = elapsedMs >= 200;
  const appended = total - restored; // added to a restored index
  return restored === 0
    ? cache.always || slow
    : appended > 0 && (cache.always || slow || appended * 10 > total);
}

/** How many of `notes` come before the first note of another scope than the project's. */
function projectNotes(notes: readonly Note[]): number {
  for (let i = notes.length - 1; i >= 0; i--) {
    if (notes[i].scope === undefined) return i + 1;
  }
  return 0;
}
