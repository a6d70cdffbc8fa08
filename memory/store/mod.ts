/**
 * The store of notes: the {@linkcode MemoryStore} contract, the file store behind it, the
 * `notes.md` codec, the paths under the root and the lexical index's snapshot cache.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { memoPaths, parseNotes, serializeNote } from "./mod.ts";
 * const note = { id: "n1", title: "Deploys", body: "make deploy", labels: ["ops"], hash: "h", created: "2026-01-01T00:00:00.000Z", updated: "2026-01-01T00:00:00.000Z" };
 * assert.ok(parseNotes(serializeNote(note)).byId.has("n1"));
 * assert.ok(memoPaths("/tmp/x").notes.endsWith("notes.md"));
 * ```
 *
 * @module
 */

export * from "./store.ts";
export * from "./file_store.ts";
export * from "./file_store_options.ts";
export * from "./codec.ts";
export * from "./parse.ts";
export * from "./draft.ts";
export * from "./paths.ts";
export * from "./load_digest.ts";
export * from "./index_cache.ts";
export * from "./conflict_markers.ts";
