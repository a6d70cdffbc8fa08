/**
 * Test helper for the secrets guard's path tests: asserts that no value of the corpus appears in
 * a text, reads every file under a project's `.memo/`, and a toy embedder that fills the
 * embedding cache without loading a model.
 *
 * @module
 */

import assert from "node:assert/strict";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { type Embedder, memoPaths } from "@memo/memory";
import { EmbeddingCache } from "../memory/vectors/cache.ts";
import type { CorpusSecret } from "../testing/secrets_corpus.ts";

/** Fails naming the secret (its rule and name, never its value) when `text` holds any value. */
export function assertNoSecret(text: string, corpus: readonly CorpusSecret[], where: string): void {
  for (const s of corpus) {
    if (text.includes(s.value)) assert.fail(`${where} holds the ${s.name} (${s.rule})`);
  }
}

/**
 * Every file under `dir`, as text (binary files decoded loosely), with its path. A file that a
 * runtime's background write renames away between the listing and its read (a `….tmp`) makes the
 * walk start again, so that the file it became is read too.
 *
 * Throws when there is nothing to look at (`dir` missing, or holding no file): a scan of nothing
 * finds nothing, and a check built on it would pass for the wrong reason.
 */
export async function filesUnder(dir: string): Promise<{ path: string; text: string }[]> {
  for (let attempt = 1;; attempt++) {
    const out: { path: string; text: string }[] = [];
    let entries;
    try {
      entries = await readdir(dir, { withFileTypes: true, recursive: true });
    } catch (error) {
      if ((error as { code?: string }).code !== "ENOENT") throw error;
      throw new Error(`Nothing to scan: ${dir} does not exist`);
    }
    let moved = false;
    for (const e of entries) {
      if (!e.isFile()) continue;
      const path = join(e.parentPath ?? (e as unknown as { path: string }).path, e.name);
      try {
        out.push({ path, text: new TextDecoder().decode(await readFile(path)) });
      } catch (error) {
        if ((error as { code?: string }).code !== "ENOENT" || attempt === 20) throw error;
        moved = true;
        break;
      }
    }
    if (moved) continue;
    if (out.length === 0) throw new Error(`Nothing to scan: ${dir} holds no file`);
    return out;
  }
}

/**
 * Asserts that no file under `<rootDir>/.memo/` holds a value of the corpus. The notes file must
 * be among the files read (else the check looked in the wrong place, and would pass for it).
 */
export async function assertNoSecretOnDisk(
  rootDir: string,
  corpus: readonly CorpusSecret[],
): Promise<void> {
  const files = await filesUnder(join(rootDir, ".memo"));
  const notes = memoPaths(rootDir).notes;
  if (!files.some((f) => f.path === notes)) {
    assert.fail(`Nothing to scan: ${notes} is missing (read only ${files.map((f) => f.path)})`);
  }
  for (const { path, text } of files) assertNoSecret(text, corpus, path);
}

/** A deterministic 4-dimension embedder: what the cache holds without a model. */
export const TOY_EMBEDDER: Embedder = {
  model: "toy",
  dimensions: 4,
  embed: (texts) =>
    Promise.resolve(texts.map((t) => new Float32Array([t.length % 7, t.length % 5, 1, 0.5]))),
};

/** The keys the toy model's embedding cache holds in `rootDir`. */
export async function toyCacheKeys(rootDir: string): Promise<string[]> {
  const cache = await EmbeddingCache.open(rootDir, TOY_EMBEDDER.model, TOY_EMBEDDER.dimensions);
  const keys: string[] = [];
  try {
    await cache.refresh((key) => void keys.push(key));
  } finally {
    await cache.close();
  }
  return keys;
}
