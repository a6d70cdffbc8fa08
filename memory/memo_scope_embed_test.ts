/**
 * The embedding cache per scope (issue 32): a `Memo` serving scopes keeps each note's vector in
 * its own scope's cache (`.memo/cache/` for project, `.memo/cache/local/` for local,
 * `$MEMO_HOME/cache/` for user), reads them back without embedding, copies a moved note's vector
 * into its new scope's cache without embedding it again, and a redaction cleans every scope's
 * cache. A deterministic embedder counts what it computes.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { type Embedder, embeddingKey, embeddingText, type Note, openMemo } from "./mod.ts";
import type { MemoOptions } from "./memo_options.ts";
import { EmbeddingCache } from "./vectors/cache.ts";
import { sanitizedTest as test } from "../testing/sanitized.ts";

/** A deterministic embedder (a text's vector counts its letters a, e, o) that counts texts. */
function toyEmbedder(): Embedder & { texts: number } {
  const embedder = {
    model: "toy",
    dimensions: 4,
    texts: 0,
    embed(texts: readonly string[]) {
      embedder.texts += texts.length;
      return Promise.resolve(texts.map((t) => {
        const count = (c: string) => t.split(c).length - 1;
        return new Float32Array([count("a"), count("e"), count("o"), 0.1]);
      }));
    },
  };
  return embedder;
}

/** The keys a scope's cache file holds (`cacheDir`: the scope's cache folder). */
async function cachedKeys(cacheDir: string): Promise<Set<string>> {
  const keys = new Set<string>();
  const exists = await Deno.stat(join(cacheDir, "embeddings")).then(() => true, () => false);
  if (!exists) return keys;
  const cache = await EmbeddingCache.openIn(cacheDir, "toy", 4);
  await cache.refresh((key) => keys.add(key));
  await cache.close();
  return keys;
}

const keyOf = (note: Note) => embeddingKey(embeddingText(note));

async function setup() {
  const dir = await Deno.makeTempDir({ prefix: "memo-scope-embed-" });
  const home = join(dir, "home");
  const caches = {
    project: join(dir, ".memo", "cache"),
    local: join(dir, ".memo", "cache", "local"),
    user: join(home, "cache"),
  };
  const options = (embedder: Embedder): MemoOptions => ({
    rootDir: dir,
    scopes: { memoHome: home },
    embedder,
    embedInBackground: false,
    secrets: "allow",
  });
  return { dir, home, caches, options };
}

test("each scope's vectors are kept in its own cache and read back without embedding", async () => {
  const { dir, caches, options } = await setup();
  const first = toyEmbedder();
  const memo = await openMemo(options(first));
  const { note: project } = await memo.remember({ text: "Deploys go out on Fridays" });
  const { note: local } = await memo.remember({
    text: "My checkout uses port 8080",
    scope: "local",
  });
  const { note: user } = await memo.remember({ text: "Prefers tabs over spaces", scope: "user" });
  assert.deepEqual(await memo.embed(), { embedded: 3, total: 3, computed: 3 });
  await memo.close();

  const [p, l, u] = [project, local, user].map(keyOf);
  // The project's cache file holds its own note alone (the local cache lives in its subfolder).
  assert.deepEqual(await cachedKeys(caches.project), new Set([p]));
  assert.deepEqual(await cachedKeys(caches.local), new Set([l]));
  assert.deepEqual(await cachedKeys(caches.user), new Set([u]));

  const second = toyEmbedder();
  const again = await openMemo(options(second));
  assert.deepEqual(await again.embed(), { embedded: 3, total: 3, computed: 0 });
  assert.equal(second.texts, 0);
  const hits = await again.recall("tabs spaces", { engine: "vector", limit: 3 });
  assert.deepEqual(hits.map((h) => h.note.id).sort(), [project.id, local.id, user.id].sort());
  assert.equal(second.texts, 1); // the query alone
  await again.close();
  await Deno.remove(dir, { recursive: true });
});

test("a moved note's vector is copied into its new scope's cache, not embedded again", async () => {
  const { dir, caches, options } = await setup();
  const first = toyEmbedder();
  const memo = await openMemo(options(first));
  const { note } = await memo.remember({ text: "Prefers short commit messages", scope: "user" });
  const { note: twice } = await memo.remember({ text: "Same words in two scopes" });
  await memo.remember({ text: "Same words in two scopes", scope: "local" });
  // A text held in two scopes is embedded once, and cached in both.
  assert.deepEqual(await memo.embed(), { embedded: 3, total: 3, computed: 2 });
  await memo.update(note.id, { scope: "project" });
  assert.deepEqual(await memo.embed(), { embedded: 3, total: 3, computed: 0 });
  assert.equal(first.texts, 2);
  await memo.close();
  const key = keyOf(note);
  const same = keyOf(twice);
  assert.ok((await cachedKeys(caches.project)).has(key));
  assert.ok((await cachedKeys(caches.local)).has(same));
  assert.ok((await cachedKeys(caches.project)).has(same));

  const second = toyEmbedder();
  const again = await openMemo(options(second));
  assert.deepEqual(await again.embed(), { embedded: 3, total: 3, computed: 0 });
  assert.equal(second.texts, 0);
  await again.close();
  await Deno.remove(dir, { recursive: true });
});

test("a redaction cleans the vectors of the old text out of every scope's cache", async () => {
  const { dir, caches, options } = await setup();
  const memo = await openMemo(options(toyEmbedder()));
  const secret = "CI uses glpat-Zr8vQ2mW4kT9xN1pLc7H";
  const { note: user } = await memo.remember({ text: secret, scope: "user" });
  const { note: local } = await memo.remember({ text: `${secret} here`, scope: "local" });
  await memo.embed();
  assert.ok((await cachedKeys(caches.user)).has(keyOf(user)));
  assert.ok((await cachedKeys(caches.local)).has(keyOf(local)));
  const found = await memo.scanSecrets({ redact: true });
  assert.deepEqual(found.redacted.sort(), [user.id, local.id].sort());
  await memo.close();
  assert.equal((await cachedKeys(caches.user)).has(keyOf(user)), false);
  assert.equal((await cachedKeys(caches.local)).has(keyOf(local)), false);
  await Deno.remove(dir, { recursive: true });
});

test("a project-only client keeps its cache where it was and creates no other", async () => {
  const { dir, home, caches } = await setup();
  const memo = await openMemo({ rootDir: dir, embedder: toyEmbedder(), embedInBackground: false });
  const { note } = await memo.remember({ text: "Deploys go out on Fridays" });
  assert.deepEqual(await memo.embed(), { embedded: 1, total: 1, computed: 1 });
  await memo.close();
  assert.deepEqual(await cachedKeys(caches.project), new Set([keyOf(note)]));
  assert.equal(await Deno.stat(caches.local).then(() => true, () => false), false);
  assert.equal(await Deno.stat(home).then(() => true, () => false), false);
  await Deno.remove(dir, { recursive: true });
});

test("auto without background work reads the vectors of a user-only memory from $MEMO_HOME", async () => {
  const { dir, options } = await setup();
  const memo = await openMemo(options(toyEmbedder()));
  await memo.remember({ text: "Prefers tabs over spaces", scope: "user" });
  await memo.embed();
  await memo.close();
  // The `memo` command's short commands: `auto` takes what the caches hold, embeds no note.
  const second = toyEmbedder();
  const again = await openMemo(options(second));
  assert.equal(again.embeddingStatus().embedded, 0);
  await again.recall("tabs", { engine: "auto" });
  assert.equal(again.embeddingStatus().embedded, 1);
  assert.equal(second.texts, 1); // the query alone
  await again.close();
  await Deno.remove(dir, { recursive: true });
});

test("a user scope whose cache folder cannot be made keeps its vectors in memory", async () => {
  const { dir, home, caches, options } = await setup();
  await Deno.mkdir(home, { recursive: true });
  await Deno.writeTextFile(caches.user, "a file where the cache folder would be");
  const memo = await openMemo(options(toyEmbedder()));
  const { note } = await memo.remember({ text: "Prefers tabs over spaces", scope: "user" });
  await memo.remember({ text: "Deploys go out on Fridays" });
  assert.deepEqual(await memo.embed(), { embedded: 2, total: 2, computed: 2 });
  assert.equal(
    (await memo.recall("tabs spaces", { engine: "vector", limit: 1 }))[0].note.id,
    note.id,
  );
  await memo.close();
  assert.equal(await Deno.readTextFile(caches.user), "a file where the cache folder would be");
  await Deno.remove(dir, { recursive: true });
});
