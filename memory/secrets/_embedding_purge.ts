/**
 * Internal: dropping vectors from the on-disk embedding caches (`.memo/cache/embeddings/*.vec`,
 * every model, and the same in the other scopes' cache folders), so that nothing computed from a secret stays there after `memo scan --redact`.
 * Each file is rewritten without the records of the given keys, through a temporary file renamed
 * into place; a file that holds none of them is left alone. The layout is
 * `_embedding_cache_format.ts`'s.
 *
 * @module
 */

import { readdir, readFile, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { keyText, recordBytes, scanRecords } from "../vectors/cache_format.ts";
import { memoPaths } from "../store/paths.ts";

/** Bytes of a header before the model name; the name, then a 4-byte checksum, follow. */
const HEADER_FIXED = 20;
/** Where a record's key starts (after its 4-byte marker). */
const KEY_AT = 4;

/**
 * Removes the vectors of `keys` (embedding keys: `embeddingKey` of the embedded text) from every
 * embedding cache file of the project; returns how many records were removed.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { EmbeddingCache } from "../vectors/cache.ts";
 * import { purgeEmbeddings } from "./_embedding_purge.ts";
 * const dir = await Deno.makeTempDir();
 * const cache = await EmbeddingCache.open(dir, "m", 1);
 * const [a, b] = ["a", "b"].map((c) => c.repeat(32));
 * await cache.put([{ key: a, vector: new Float32Array([1]) }, { key: b, vector: new Float32Array([2]) }]);
 * await cache.close();
 * assert.equal(await purgeEmbeddings(dir, new Set([a])), 1);
 * const again = await EmbeddingCache.open(dir, "m", 1);
 * const keys: string[] = [];
 * await again.refresh((key) => keys.push(key));
 * assert.deepEqual(keys, [b]);
 * await again.close();
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export function purgeEmbeddings(rootDir: string, keys: ReadonlySet<string>): Promise<number> {
  return purgeEmbeddingsIn(memoPaths(rootDir).cache, keys);
}

/**
 * Removes the vectors of `keys` from every embedding cache file in a scope's cache folder
 * (`<cacheDir>/embeddings/*.vec`: `.memo/cache/local/`, `$MEMO_HOME/cache/`); returns how many
 * records were removed.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { EmbeddingCache } from "../vectors/cache.ts";
 * import { purgeEmbeddingsIn } from "./_embedding_purge.ts";
 * const home = await Deno.makeTempDir(); // $MEMO_HOME
 * const cache = await EmbeddingCache.openIn(`${home}/cache`, "m", 1);
 * await cache.put([{ key: "a".repeat(32), vector: new Float32Array([1]) }]);
 * await cache.close();
 * assert.equal(await purgeEmbeddingsIn(`${home}/cache`, new Set(["a".repeat(32)])), 1);
 * assert.equal(await purgeEmbeddingsIn(`${home}/nothing`, new Set(["a".repeat(32)])), 0);
 * await Deno.remove(home, { recursive: true });
 * ```
 */
export async function purgeEmbeddingsIn(
  cacheDir: string,
  keys: ReadonlySet<string>,
): Promise<number> {
  if (!keys.size) return 0;
  const folder = join(cacheDir, "embeddings");
  let names: string[];
  try {
    names = await readdir(folder);
  } catch {
    return 0; // no cache
  }
  let removed = 0;
  for (const name of names.filter((n) => n.endsWith(".vec"))) {
    removed += await purgeFile(join(folder, name), keys);
  }
  return removed;
}

async function purgeFile(path: string, keys: ReadonlySet<string>): Promise<number> {
  const bytes = new Uint8Array(await readFile(path));
  if (bytes.length < HEADER_FIXED + 4) return 0;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const dimensions = view.getUint32(12, true);
  const header = HEADER_FIXED + view.getUint32(16, true) + 4;
  if (header > bytes.length || dimensions === 0) return 0;
  const size = recordBytes(dimensions);
  const body = bytes.subarray(header);
  const bodyView = new DataView(body.buffer, body.byteOffset, body.byteLength);
  const keep: Uint8Array[] = [];
  let removed = 0;
  scanRecords(body, bodyView, body.length, size, (at) => {
    if (keys.has(keyText(body, at + KEY_AT))) removed++;
    else keep.push(body.subarray(at, at + size));
  });
  if (!removed) return 0;
  const out = new Uint8Array(header + keep.length * size);
  out.set(bytes.subarray(0, header), 0);
  keep.forEach((record, i) => out.set(record, header + i * size));
  const temp = `${path}.purge.${Math.random().toString(36).slice(2, 8)}.tmp`;
  await writeFile(temp, out);
  await rename(temp, path);
  return removed;
}
