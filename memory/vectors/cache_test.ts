import assert from "node:assert/strict";
import { appendFile, readdir, readFile, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { EmbeddingCache } from "./cache.ts";
import { embeddingCachePath, modelSlug } from "./cache_format.ts";

const DIMS = 8;

function key(n: number): string {
  return n.toString(16).padStart(32, "0");
}

function vector(n: number, dims = DIMS): Float32Array {
  return Float32Array.from({ length: dims }, (_, i) => n + i / 10);
}

function entries(from: number, to: number) {
  const out = [];
  for (let n = from; n < to; n++) out.push({ key: key(n), vector: vector(n) });
  return out;
}

async function collect(cache: EmbeddingCache): Promise<Map<string, Float32Array>> {
  const seen = new Map<string, Float32Array>();
  await cache.refresh((k, v) => {
    assert.ok(!seen.has(k), `reported twice: ${k}`);
    seen.set(k, v);
  });
  return seen;
}

async function withDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "memo-embcache-" });
  try {
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

const RECORD = 4 + 16 + 4 * DIMS + 4;

Deno.test("EmbeddingCache: round trip, and a reopen sees every record", () =>
  withDir(async (dir) => {
    const cache = await EmbeddingCache.open(dir, "use-lite", DIMS);
    await cache.put(entries(0, 5));
    await cache.put(entries(5, 10));
    assert.equal(cache.size, 10);
    assert.deepEqual(await cache.read(key(3)), vector(3));
    assert.deepEqual(await collect(cache), new Map()); // its own puts are not news to it
    await cache.close();
    assert.equal((await stat(cache.path)).size, 24 + 8 + 10 * RECORD);

    const again = await EmbeddingCache.open(dir, "use-lite", DIMS);
    assert.equal(again.size, 0); // nothing parsed before the first refresh
    const seen = await collect(again);
    assert.equal(seen.size, 10);
    for (let n = 0; n < 10; n++) assert.deepEqual(seen.get(key(n)), vector(n));
    assert.equal(again.size, 10);
    assert.ok(again.has(key(9)));
    assert.deepEqual(await again.read(key(9)), vector(9));
    await again.put(entries(0, 10)); // all known: nothing written
    await again.close();
    assert.equal((await stat(cache.path)).size, 24 + 8 + 10 * RECORD);
  }));

Deno.test("EmbeddingCache: two instances appending alternately see each other's records", () =>
  withDir(async (dir) => {
    const a = await EmbeddingCache.open(dir, "use-lite", DIMS);
    const b = await EmbeddingCache.open(dir, "use-lite", DIMS);
    const seenByA = new Map<string, Float32Array>();
    const seenByB = new Map<string, Float32Array>();
    for (let round = 0; round < 4; round++) {
      await a.put(entries(round * 20, round * 20 + 10));
      await b.put(entries(round * 20 + 10, round * 20 + 20));
      for (const [k, v] of await collect(a)) seenByA.set(k, v);
      for (const [k, v] of await collect(b)) seenByB.set(k, v);
    }
    // Each saw exactly the other's 40 keys, with their vectors.
    assert.equal(seenByA.size, 40);
    assert.equal(seenByB.size, 40);
    for (const [k, v] of seenByA) assert.ok(parseInt(k, 16) % 20 >= 10 && v[0] === parseInt(k, 16));
    for (const [k] of seenByB) assert.ok(parseInt(k, 16) % 20 < 10);
    assert.equal(a.size, 80);
    assert.equal(b.size, 80);
    // A key put by one is not written again by the other once refreshed.
    const before = (await stat(a.path)).size;
    await b.put(entries(0, 1));
    assert.equal((await stat(a.path)).size, before);
    await a.close();
    await b.close();
  }));

Deno.test("EmbeddingCache: concurrent puts from two instances never interleave records", () =>
  withDir(async (dir) => {
    const a = await EmbeddingCache.open(dir, "m", DIMS);
    const b = await EmbeddingCache.open(dir, "m", DIMS);
    await Promise.all([
      ...Array.from({ length: 10 }, (_, i) => a.put(entries(i * 50, i * 50 + 50))),
      ...Array.from({ length: 10 }, (_, i) => b.put(entries(1000 + i * 50, 1000 + i * 50 + 50))),
    ]);
    await a.close();
    await b.close();
    const reader = await EmbeddingCache.open(dir, "m", DIMS);
    const seen = await collect(reader);
    assert.equal(seen.size, 1000);
    assert.equal((await stat(reader.path)).size, 24 + 1 + 1000 * RECORD);
    await reader.close();
  }));

Deno.test("EmbeddingCache: a torn tail is skipped, and records appended after it still parse", () =>
  withDir(async (dir) => {
    const cache = await EmbeddingCache.open(dir, "m", DIMS);
    await cache.put(entries(0, 3));
    await cache.close();
    const path = embeddingCachePath(dir, "m");
    const whole = await readFile(path);
    // A process killed mid-write: half a record at the end.
    await appendFile(path, whole.subarray(whole.length - RECORD, whole.length - RECORD / 2));
    const reader = await EmbeddingCache.open(dir, "m", DIMS);
    assert.equal((await collect(reader)).size, 3);
    // Another process appends after the torn bytes (the file is not truncated under it).
    const writer = await EmbeddingCache.open(dir, "m", DIMS);
    await writer.put(entries(3, 6));
    await writer.close();
    const more = await collect(reader);
    assert.deepEqual([...more.keys()], [key(3), key(4), key(5)]);
    assert.deepEqual(more.get(key(4)), vector(4));
    await reader.close();
    const fresh = await EmbeddingCache.open(dir, "m", DIMS);
    assert.equal((await collect(fresh)).size, 6);
    await fresh.close();
  }));

Deno.test("EmbeddingCache: a record with a flipped byte is skipped, the others are kept", () =>
  withDir(async (dir) => {
    const cache = await EmbeddingCache.open(dir, "m", DIMS);
    await cache.put(entries(0, 5));
    await cache.close();
    const path = embeddingCachePath(dir, "m");
    const bytes = await readFile(path);
    const header = bytes.length - 5 * RECORD;
    bytes[header + 2 * RECORD + 30] ^= 0x10; // inside record 2's vector
    bytes[header + 4 * RECORD + 1] ^= 0x01; // record 4's marker
    await writeFile(path, bytes);
    const reader = await EmbeddingCache.open(dir, "m", DIMS);
    const seen = await collect(reader);
    assert.deepEqual([...seen.keys()], [key(0), key(1), key(3)]);
    assert.equal(reader.has(key(2)), false);
    assert.equal(await reader.read(key(2)), undefined);
    // The damaged ones can be put again.
    await reader.put(entries(2, 3));
    assert.deepEqual(await reader.read(key(2)), vector(2));
    await reader.close();
  }));

Deno.test("EmbeddingCache: a damaged header rebuilds an empty file, and the cache works again", () =>
  withDir(async (dir) => {
    const first = await EmbeddingCache.open(dir, "m", DIMS);
    await first.put(entries(0, 4));
    await first.close();
    const path = embeddingCachePath(dir, "m");
    const bytes = await readFile(path);
    bytes.set(new TextEncoder().encode("garbage!"), 0);
    await writeFile(path, bytes);

    const cache = await EmbeddingCache.open(dir, "m", DIMS); // never throws on a corrupt file
    assert.deepEqual(await collect(cache), new Map());
    assert.equal(cache.has(key(0)), false); // so the caller embeds it again
    await cache.put(entries(0, 2));
    await cache.close();
    const reopened = await EmbeddingCache.open(dir, "m", DIMS);
    assert.equal((await collect(reopened)).size, 2);
    await reopened.close();
    // No temporary file is left behind.
    assert.deepEqual(await readdir(join(dir, ".memo", "cache", "embeddings")), [
      `${modelSlug("m")}.vec`,
    ]);
  }));

Deno.test("EmbeddingCache: an empty or short file is rebuilt", () =>
  withDir(async (dir) => {
    await (await EmbeddingCache.open(dir, "m", DIMS)).close();
    const path = embeddingCachePath(dir, "m");
    for (const content of [new Uint8Array(0), new Uint8Array(5)]) {
      await writeFile(path, content);
      const cache = await EmbeddingCache.open(dir, "m", DIMS);
      await cache.put(entries(0, 1));
      assert.deepEqual(await cache.read(key(0)), vector(0));
      await cache.close();
    }
  }));

Deno.test("EmbeddingCache: a file for other dimensions is rebuilt for these", () =>
  withDir(async (dir) => {
    const small = await EmbeddingCache.open(dir, "m", DIMS);
    await small.put(entries(0, 3));
    await small.close();
    const big = await EmbeddingCache.open(dir, "m", 16);
    assert.deepEqual(await collect(big), new Map());
    await big.put([{ key: key(1), vector: vector(1, 16) }]);
    await big.close();
    const again = await EmbeddingCache.open(dir, "m", 16);
    const seen = await collect(again);
    assert.deepEqual([...seen.values()], [vector(1, 16)]);
    await again.close();
  }));

Deno.test("EmbeddingCache: a process holding a replaced file reopens it", () =>
  withDir(async (dir) => {
    const old = await EmbeddingCache.open(dir, "m", DIMS);
    await old.put(entries(0, 2));
    const path = embeddingCachePath(dir, "m");
    await writeFile(path, "damaged"); // a new file at the path, as a rebuild leaves it
    const other = await EmbeddingCache.open(dir, "m", DIMS); // rebuilds it
    await other.put(entries(5, 6));
    // The old instance notices and reads the new file, and its puts land there.
    assert.deepEqual([...(await collect(old)).keys()], [key(5)]);
    await old.put(entries(7, 8));
    assert.deepEqual([...(await collect(other)).keys()], [key(7)]);
    await old.close();
    await other.close();
  }));

Deno.test("EmbeddingCache: one file per model, named by its slug", () =>
  withDir(async (dir) => {
    const a = await EmbeddingCache.open(dir, "use-lite", DIMS);
    const b = await EmbeddingCache.open(dir, "Xenova/all-MiniLM-L6-v2", DIMS);
    await a.put(entries(0, 1));
    assert.deepEqual(await collect(b), new Map());
    assert.match(b.path, /\/\.memo\/cache\/embeddings\/Xenova_all-MiniLM-L6-v2-[0-9a-f]{8}\.vec$/);
    assert.equal(modelSlug("use-lite"), `use-lite-${modelSlug("use-lite").slice(-8)}`);
    assert.notEqual(modelSlug("a b"), modelSlug("a_b"));
    await a.close();
    await b.close();
  }));

Deno.test("EmbeddingCache: the cache folder holds a .gitignore of *, kept when present", () =>
  withDir(async (dir) => {
    await (await EmbeddingCache.open(dir, "m", DIMS)).close();
    const gitignore = join(dir, ".memo", "cache", ".gitignore");
    assert.equal(await readFile(gitignore, "utf8"), "*\n");
    await writeFile(gitignore, "*\n# mine\n");
    await (await EmbeddingCache.open(dir, "m", DIMS)).close();
    assert.equal(await readFile(gitignore, "utf8"), "*\n# mine\n");
  }));

Deno.test("EmbeddingCache: bad keys and vectors are refused and nothing is written", () =>
  withDir(async (dir) => {
    const cache = await EmbeddingCache.open(dir, "m", DIMS);
    const size = (await stat(cache.path)).size;
    await assert.rejects(
      cache.put([...entries(0, 1), { key: "ABCDEF".repeat(5) + "00", vector: vector(1) }]),
      /Cannot cache embedding: the key must be 32 lowercase hex digits/,
    );
    await assert.rejects(
      cache.put([{ key: key(1), vector: new Float32Array(3) }]),
      /Cannot cache embedding: expected 8 dimensions, got 3/,
    );
    assert.equal((await stat(cache.path)).size, size);
    assert.equal(cache.size, 0);
    await cache.close();
  }));

Deno.test("EmbeddingCache: compact keeps the live records when the dead outnumber them", () =>
  withDir(async (dir) => {
    const cache = await EmbeddingCache.open(dir, "m", DIMS);
    await cache.put(entries(0, 10));
    const other = await EmbeddingCache.open(dir, "m", DIMS);
    assert.equal((await collect(other)).size, 10);
    const live = new Set([key(1), key(2), key(3)]);
    assert.equal(await cache.compact(new Set(entries(0, 6).map((e) => e.key))), false); // 6 vs 4
    assert.equal(await cache.compact(live), true);
    assert.equal(cache.size, 3);
    assert.equal((await stat(cache.path)).size, 24 + 1 + 3 * RECORD);
    assert.deepEqual(await cache.read(key(2)), vector(2));
    assert.equal(await cache.read(key(5)), undefined);
    await cache.put(entries(20, 21));
    // The other instance reopens the compacted file and learns it from its start.
    assert.deepEqual(
      [...(await collect(other)).keys()].sort(),
      [key(1), key(2), key(3), key(20)],
    );
    await cache.close();
    await other.close();
  }));

Deno.test("EmbeddingCache: a cold refresh of many records reads them in chunks", () =>
  withDir(async (dir) => {
    const dims = 512;
    const cache = await EmbeddingCache.open(dir, "m", dims);
    const batch = [];
    for (let n = 0; n < 3000; n++) batch.push({ key: key(n), vector: vector(n, dims) });
    await cache.put(batch); // about 6 MB: more than one 4 MB chunk
    await cache.close();
    const reader = await EmbeddingCache.open(dir, "m", dims);
    const seen = await collect(reader);
    assert.equal(seen.size, 3000);
    assert.deepEqual(seen.get(key(2999)), vector(2999, dims));
    await reader.close();
  }));
