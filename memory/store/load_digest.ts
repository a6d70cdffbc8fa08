/**
 * Internal: the digests a {@linkcode FileMemoryStore}'s load takes of the bytes of `notes.md` it
 * reads, for the `Memo` client to key its index snapshot on (see `index_cache.ts`) instead of
 * hashing 100 MB of note text again. Same bytes, same notes: the parse reads them the same way.
 *
 * The store offers them through a registry of this module, so that they add nothing to the
 * store's public surface: a `Memo` asks {@linkcode loadDigestsOf} for its store, and gets
 * nothing for any other store (it then keys its snapshot on the notes' text).
 *
 * @module
 */

import type { Note } from "../notes/note.ts";

/**
 * The SHA-256 of the first bytes of `notes.md` and the notes they hold.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { ContentDigest } from "./load_digest.ts";
 * const digest: ContentDigest = { bytes: 0, sha256: "e3b0c442", notes: 0, last: undefined };
 * assert.equal(digest.notes, 0);
 * ```
 */
export interface ContentDigest {
  /** How many bytes, from the start of the file, were hashed. */
  bytes: number;
  /** Their SHA-256, in hex. */
  sha256: string;
  /** How many notes those bytes hold: the store's first notes, in store order. */
  notes: number;
  /**
   * The last of those notes (the object the store holds), to check that a list of notes starts
   * with exactly them; undefined when they hold none.
   */
  last: Note | undefined;
}

/**
 * What a file store's load hashed. Both describe the store's first notes for as long as the
 * store only grows by appends; a rewrite or another full load drops them.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { LoadDigests } from "./load_digest.ts";
 * const none: LoadDigests = { whole: { bytes: 0, sha256: "", notes: 0, last: undefined } };
 * assert.equal(none.prefix, undefined);
 * ```
 */
export interface LoadDigests {
  /** Every byte the load read. */
  whole: ContentDigest;
  /** The first `mark` bytes asked for, when a section starts there (or the file ends there). */
  prefix?: ContentDigest;
}

/**
 * A store that can hash what its next full load reads.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { FileMemoryStore } from "./file_store.ts";
 * import { loadDigestsOf } from "./load_digest.ts";
 * const dir = await Deno.makeTempDir();
 * const store = new FileMemoryStore({ rootDir: dir });
 * await store.commit({ notes: [{ text: "hello" }] });
 * const digests = loadDigestsOf(store)!;
 * digests.request(); // the next full load hashes what it reads
 * await store.load();
 * assert.equal(digests.taken()?.whole.notes, 1);
 * await store.commit({ notes: [{ text: "appended" }] });
 * assert.equal(digests.taken()?.whole.notes, 1); // still the first note's bytes
 * await store.update(digests.taken()!.whole.last!.id, { text: "changed" });
 * assert.equal(digests.taken(), undefined); // a rewrite drops them
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export interface DigestingStore {
  /**
   * Asks the next full load to hash the bytes it reads, and also the first `mark` bytes when a
   * section starts there (a snapshot's extent). One load only.
   */
  request(mark?: number): void;
  /** What the last full load hashed, while its notes are still the store's first notes. */
  taken(): LoadDigests | undefined;
}

const stores = new WeakMap<object, DigestingStore>();

/**
 * Registers the digests of `store` (a store calls this on itself).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { loadDigestsOf, offerLoadDigests } from "./load_digest.ts";
 * const store = {};
 * offerLoadDigests(store, { request() {}, taken: () => undefined });
 * assert.ok(loadDigestsOf(store));
 * ```
 */
export function offerLoadDigests(store: object, digests: DigestingStore): void {
  stores.set(store, digests);
}

/**
 * The digests `store` offers; undefined for a store that offers none.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { loadDigestsOf } from "./load_digest.ts";
 * assert.equal(loadDigestsOf({}), undefined);
 * ```
 */
export function loadDigestsOf(store: object): DigestingStore | undefined {
  return stores.get(store);
}
