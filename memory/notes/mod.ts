/**
 * The note model: notes, drafts and patches, their ids and content hashes, counts by label and
 * source, list cursors, and the key that matches a note's text however it is spelt.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { contentHash, decodeCursor, encodeCursor, textKey } from "./mod.ts";
 * assert.equal(contentHash({ title: "t", body: "b", labels: ["x"] }).length, 32);
 * assert.deepEqual(decodeCursor(encodeCursor({ id: "a", position: 3 })), { id: "a", position: 3 });
 * assert.equal(textKey("Deploys run on *Fridays*!"), textKey("deploys run on fridays"));
 * ```
 *
 * @module
 */

export * from "./note.ts";
export * from "./counts.ts";
export * from "./cursor.ts";
export * from "./text_key.ts";
export * from "./format.ts";
