/**
 * `@memo/memory`: the note model, the `notes.md` codec, the file store and the recall engines
 * behind memo. Everything writes through the {@linkcode Memo} client.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { openMemo } from "@memo/memory";
 * const dir = await Deno.makeTempDir();
 * const memo = await openMemo({ rootDir: dir });
 * await memo.remember({ text: "The staging database is db-stage-2", labels: ["infra"] });
 * const [hit] = await memo.recall("staging database");
 * assert.equal(hit.note.title, "The staging database is db-stage-2");
 * assert.deepEqual(hit.matched, ["staging", "database"]);
 * assert.ok(hit.score > 0);
 * await memo.close();
 * await Deno.remove(dir, { recursive: true });
 * ```
 *
 * @module
 */

export * from "./errors.ts";
export * from "./notes/note.ts";
export * from "./history/history.ts";
export * from "./history/types.ts";
export * from "./similarity.ts";
export { type TextFacts, type TextProfile, textProfile } from "./text_profile.ts";
export * from "./tidy.ts";
export * from "./store/draft.ts";
export * from "./store/paths.ts";
export * from "./notes/cursor.ts";
export * from "./notes/format.ts";
export * from "./store/store.ts";
export * from "./store/codec.ts";
export * from "./store/parse.ts";
export * from "./store/file_store.ts";
export type { FileMemoryStoreOptions } from "./store/file_store_options.ts";
export * from "./store/conflict_markers.ts";
export * from "./merge/mod.ts";
export * from "./scopes/mod.ts";
export * from "./recall/mod.ts";
export * from "./recall/fusion.ts";
export * from "./embed/mod.ts";
export * from "./secrets/mod.ts";
export * from "./vectors/auto_engine.ts";
export * from "./memo.ts";
export * from "./memo_types.ts";
export * from "./memo_options.ts";
// Types only: a value export would load vectors/ at start (tests/start_modules_test.ts).
export type { EmbeddingStatus, EmbedResult, MemoEmbedOptions } from "./vectors/embed_types.ts";
export * from "./notes/counts.ts";
export { lexicalSimilarNotes, type LexicalSimilarParts } from "./similar_notes.ts";
export { checkDraftLinks } from "./history_checks.ts";
export { correctNote, type HistoryWriteParts, supersedeNotes } from "./history_writes.ts";
export type { HistoryNeeds, HistoryView } from "./history_view.ts";

import type { HistoryWriteParts } from "./history_writes.ts";
import type { HistoryNeeds, HistoryView } from "./history_view.ts";
/** @deprecated Use {@linkcode HistoryNeeds}. */
export type TruthNeeds = HistoryNeeds;
/** @deprecated Use {@linkcode HistoryView}. */
export type TruthView = HistoryView;
/** @deprecated Use {@linkcode HistoryWriteParts}. */
export type TruthWriteParts = HistoryWriteParts;
