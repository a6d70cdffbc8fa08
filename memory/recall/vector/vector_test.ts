import assert from "node:assert/strict";
import { MemoryValidationError } from "../../errors.ts";
import { type VectorHit, VectorIndex } from "./vector.ts";
import { pickHighest } from "./_codes.ts";
import { hammingDistances, popcount16 } from "./_hamming.ts";
import { rng } from "../../../bench/_rng.ts";

function randomVectors(count: number, dims: number, seed: number): Float32Array[] {
  const random = rng(seed);
  return Array.from({ length: count }, () => {
    const v = new Float32Array(dims);
    for (let i = 0; i < dims; i++) {
      v[i] = Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
    }
    return v;
  });
}

/** Exact float32 cosine top-k, ties by id. */
function bruteForce(
  vectors: Map<string, Float32Array>,
  query: Float32Array,
  limit: number,
  filter: (id: string) => boolean = () => true,
): VectorHit[] {
  const norm = (v: Float32Array) => Math.sqrt(v.reduce((sum, x) => sum + x * x, 0));
  const queryNorm = norm(query);
  const hits: VectorHit[] = [];
  for (const [id, v] of vectors) {
    if (!filter(id)) continue;
    let dot = 0;
    for (let i = 0; i < v.length; i++) dot += v[i] * query[i];
    const n = norm(v) * queryNorm;
    hits.push({ id, similarity: n > 0 ? dot / n : 0 });
  }
  hits.sort((a, b) => b.similarity - a.similarity || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return hits.slice(0, limit);
}

/** `got` ranks like `want`, except where int8 precision moves similarities closer than 0.01. */
function assertSameRanking(got: VectorHit[], want: VectorHit[]): void {
  assert.equal(got.length, want.length);
  for (let k = 0; k < got.length; k++) {
    assert.ok(Math.abs(got[k].similarity - want[k].similarity) < 0.01, `rank ${k}`);
    if (got[k].id !== want[k].id) {
      const other = want.find((hit) => hit.id === got[k].id);
      assert.ok(other && Math.abs(other.similarity - want[k].similarity) < 0.01, `rank ${k}`);
    }
  }
  assert.equal(new Set(got.map((h) => h.id)).size, got.length);
}

function fill(index: VectorIndex, vectors: Float32Array[]): Map<string, Float32Array> {
  const byId = new Map<string, Float32Array>();
  vectors.forEach((v, i) => {
    const id = `n${String(i).padStart(4, "0")}`;
    index.set(id, v);
    byId.set(id, v);
  });
  return byId;
}

Deno.test("VectorIndex: exact top-k equals a float32 brute force on a small set", () => {
  const dims = 64;
  const index = new VectorIndex(dims);
  const byId = fill(index, randomVectors(300, dims, 1));
  for (const query of randomVectors(20, dims, 2)) {
    assertSameRanking(index.search(query, { limit: 10 }), bruteForce(byId, query, 10));
  }
});

Deno.test("VectorIndex: similarities are cosines of the normalised vectors", () => {
  const index = new VectorIndex(3);
  index.set("a", new Float32Array([10, 0, 0]));
  index.set("b", new Float32Array([0, -0.5, 0]));
  index.set("c", new Float32Array([1, 1, 0]));
  const hits = index.search(new Float32Array([2, 0, 0]), { limit: 3 });
  assert.deepEqual(hits.map((h) => h.id), ["a", "c", "b"]);
  assert.ok(Math.abs(hits[0].similarity - 1) < 1e-3);
  assert.ok(Math.abs(hits[1].similarity - Math.SQRT1_2) < 1e-2);
  assert.ok(Math.abs(hits[2].similarity) < 1e-6);
  for (const hit of hits) assert.ok(hit.similarity >= -1 && hit.similarity <= 1);
});

Deno.test("VectorIndex: the two-pass search finds the near neighbours in a large set", () => {
  const dims = 128;
  const index = new VectorIndex(dims, { candidates: 200 });
  const vectors = randomVectors(3000, dims, 3);
  const byId = fill(index, vectors);
  // Queries near stored vectors (as real embeddings are): the first pass must keep them.
  const random = rng(4);
  let found = 0;
  for (let q = 0; q < 20; q++) {
    const target = vectors[q * 97];
    const query = target.map((x) => x + (random() - 0.5) * 0.5);
    const want = bruteForce(byId, query, 10).map((h) => h.id);
    const got = index.search(query, { limit: 10 }).map((h) => h.id);
    assert.equal(got[0], want[0]);
    found += got.filter((id) => want.includes(id)).length;
  }
  assert.ok(found >= 0.8 * 200, `recall@10 ${found / 200}`);
});

Deno.test("VectorIndex: a filter applies before ranking", () => {
  const dims = 32;
  const index = new VectorIndex(dims, { candidates: 50 });
  const byId = fill(index, randomVectors(2000, dims, 5));
  const filter = (id: string) => id.endsWith("7");
  for (const query of randomVectors(5, dims, 6)) {
    const got = index.search(query, { limit: 10, filter });
    assert.equal(got.length, 10); // 200 pass: the limit is met although most near ones are filtered
    assert.ok(got.every((h) => filter(h.id)));
    assertSameRanking(got, bruteForce(byId, query, 10, filter));
    // limit 2: 80 candidates, fewer than the 200 that pass, so the first pass runs on those only.
    const two = index.search(query, { limit: 2, filter });
    assert.equal(two.length, 2);
    assert.ok(two.every((h) => filter(h.id)));
  }
  const few = index.search(randomVectors(1, dims, 7)[0], {
    limit: 10,
    filter: (id) => id === "n0042",
  });
  assert.deepEqual(few.map((h) => h.id), ["n0042"]);
  assert.deepEqual(
    index.search(randomVectors(1, dims, 7)[0], { limit: 10, filter: () => false }),
    [],
  );
});

Deno.test("VectorIndex: ties are ordered by id ascending", () => {
  const index = new VectorIndex(2);
  for (const id of ["d", "b", "e", "a", "c"]) index.set(id, new Float32Array([1, 1]));
  index.set("z", new Float32Array([1, 0]));
  const hits = index.search(new Float32Array([1, 1]), { limit: 4 });
  assert.deepEqual(hits.map((h) => h.id), ["a", "b", "c", "d"]);
  assert.ok(hits.every((h) => h.similarity === hits[0].similarity));
  // With the first pass (more vectors than candidates), ties are ordered among the candidates.
  const big = new VectorIndex(2, { candidates: 1 });
  for (let i = 199; i >= 0; i--) {
    big.set(`id${String(i).padStart(3, "0")}`, new Float32Array([2, 2]));
  }
  const cut = big.search(new Float32Array([1, 1]), { limit: 3 }).map((h) => h.id);
  assert.equal(cut.length, 3);
  assert.deepEqual(cut, [...cut].sort());
});

Deno.test("VectorIndex: remove, replace and clear", () => {
  const index = new VectorIndex(2);
  index.set("a", new Float32Array([1, 0]));
  index.set("b", new Float32Array([0, 1]));
  index.set("a", new Float32Array([0, 1])); // replaced: now the same as b
  assert.equal(index.size, 2);
  let hits = index.search(new Float32Array([1, 0]), { limit: 2 });
  assert.ok(hits.every((h) => Math.abs(h.similarity) < 1e-6));
  index.remove("b");
  assert.equal(index.has("b"), false);
  assert.equal(index.size, 1);
  hits = index.search(new Float32Array([0, 1]), { limit: 5 });
  assert.deepEqual(hits.map((h) => h.id), ["a"]);
  index.remove("missing");
  index.clear();
  assert.equal(index.size, 0);
  assert.equal(index.has("a"), false);
  assert.deepEqual(index.search(new Float32Array([0, 1]), { limit: 5 }), []);
  index.set("c", new Float32Array([0, 1])); // usable after clear
  assert.deepEqual(index.search(new Float32Array([0, 1]), { limit: 5 }).map((h) => h.id), ["c"]);
});

Deno.test("VectorIndex: removed slots are reused and do not come back", () => {
  const index = new VectorIndex(4);
  const vectors = randomVectors(64, 4, 8);
  fill(index, vectors); // exactly the first capacity
  const bytes = index.bytes;
  for (let i = 0; i < 32; i++) index.remove(`n${String(i).padStart(4, "0")}`);
  for (let i = 0; i < 32; i++) index.set(`m${i}`, vectors[i]);
  assert.equal(index.size, 64);
  assert.equal(index.bytes, bytes); // the freed slots took them: no growth
  const ids = index.search(vectors[0], { limit: 100 }).map((h) => h.id);
  assert.equal(ids.length, 64);
  assert.ok(ids.every((id) => id.startsWith("m") || Number(id.slice(1)) >= 32));
  assert.equal(ids[0], "m0");
  index.set("extra", vectors[1]);
  assert.ok(index.bytes > bytes); // now it grows
});

Deno.test("VectorIndex: limit edge cases", () => {
  const index = new VectorIndex(8);
  const byId = fill(index, randomVectors(30, 8, 9));
  const query = randomVectors(1, 8, 10)[0];
  const one = index.search(query, { limit: 1 });
  assert.equal(one.length, 1);
  assert.equal(one[0].id, bruteForce(byId, query, 1)[0].id);
  const all = index.search(query, { limit: 1000 });
  assert.equal(all.length, 30);
  for (let k = 1; k < all.length; k++) assert.ok(all[k - 1].similarity >= all[k].similarity);
  assert.equal(index.search(query, { limit: Infinity }).length, 30);
  assert.deepEqual(index.search(query, { limit: 0 }), []);
  assert.deepEqual(index.search(query, { limit: -3 }), []);
  assert.deepEqual(index.search(query, { limit: NaN }), []);
  assert.equal(index.search(query, { limit: 2.7 }).length, 2);
});

Deno.test("VectorIndex: zero vectors give similarity 0, never NaN", () => {
  const index = new VectorIndex(3);
  index.set("zero", new Float32Array(3));
  index.set("x", new Float32Array([1, 0, 0]));
  let hits = index.search(new Float32Array([1, 0, 0]), { limit: 2 });
  assert.deepEqual(hits.map((h) => h.id), ["x", "zero"]);
  assert.equal(hits[1].similarity, 0);
  hits = index.search(new Float32Array(3), { limit: 2 });
  assert.deepEqual(hits, [{ id: "x", similarity: 0 }, { id: "zero", similarity: 0 }]);
  const big = new VectorIndex(3, { candidates: 1 }); // the first pass with a zero query
  for (let i = 0; i < 100; i++) {
    big.set(`v${String(i).padStart(3, "0")}`, new Float32Array([i, 1, 0]));
  }
  hits = big.search(new Float32Array(3), { limit: 2 });
  assert.deepEqual(hits, [{ id: "v000", similarity: 0 }, { id: "v001", similarity: 0 }]);
});

Deno.test("VectorIndex: wrong dimensions and non-finite values are refused clearly", () => {
  const index = new VectorIndex(512);
  assert.throws(() => index.set("a", new Float32Array(3)), (error: unknown) => {
    assert.ok(error instanceof MemoryValidationError);
    assert.equal(error.message, "Cannot index vector: expected 512 dimensions, got 3");
    return true;
  });
  assert.throws(
    () => index.search(new Float32Array(3), { limit: 1 }),
    {
      name: "MemoryValidationError",
      message: "Cannot search vectors: expected 512 dimensions, got 3",
    },
  );
  const bad = new Float32Array(512);
  bad[7] = NaN;
  assert.throws(
    () => index.set("a", bad),
    /Cannot index vector: it holds a value that is not finite/,
  );
  bad[7] = Infinity;
  assert.throws(() => index.search(bad, { limit: 1 }), /Cannot search vectors: it holds/);
  // A refused vector leaves nothing behind: no phantom slot, the old vector of a held id kept.
  const good = new Float32Array(512).fill(1);
  index.set("held", good);
  assert.throws(() => index.set("held", bad), MemoryValidationError);
  assert.throws(() => index.set("new", bad), MemoryValidationError);
  assert.deepEqual(index.search(good, { limit: 5 }).map((h) => h.id), ["held"]);
  assert.ok(index.search(good, { limit: 1 })[0].similarity > 0.999);
  index.remove("held");
  assert.throws(() => index.set("", new Float32Array(512)), /the id must be a non-empty string/);
  assert.throws(() => new VectorIndex(4, { candidates: 0 }), MemoryValidationError);
  assert.equal(index.size, 0);
});

Deno.test("VectorIndex: search on an empty index returns nothing", () => {
  const index = new VectorIndex(4);
  assert.deepEqual(index.search(new Float32Array(4), { limit: 10 }), []);
  index.set("a", new Float32Array([1, 2, 3, 4]));
  index.remove("a");
  assert.deepEqual(index.search(new Float32Array([1, 2, 3, 4]), { limit: 10 }), []);
});

Deno.test("VectorIndex: dimensions that are not a multiple of 32 or of 4", () => {
  for (const dims of [1, 5, 33, 100]) {
    const index = new VectorIndex(dims, { candidates: 5 });
    const byId = fill(index, randomVectors(50, dims, dims));
    const query = randomVectors(1, dims, 11)[0];
    const got = index.search(query, { limit: 50 });
    assert.equal(got.length, 50);
    const want = bruteForce(byId, query, 50);
    assert.ok(Math.abs(got[0].similarity - want[0].similarity) < 0.02, `dims ${dims}`);
  }
});

Deno.test("_vector_codes: pickHighest keeps the highest scores and exactly `take` of them", () => {
  const histogram = new Int32Array(4096);
  const random = rng(12);
  const scores = new Int32Array(5000).map(() => Math.floor(random() * 2000) - 1000);
  const picked = new Int32Array(300);
  assert.equal(pickHighest(scores, 5000, 300, histogram, picked), 300);
  const threshold = [...scores].sort((a, b) => b - a)[299];
  const got = [...picked].map((k) => scores[k]);
  assert.ok(got.every((s) => s >= threshold - 1)); // bucket width is below 1 here
  assert.equal(new Set(picked).size, 300);
  const same = new Int32Array(10).fill(7);
  assert.equal(pickHighest(same, 10, 3, histogram, picked), 3);
  assert.deepEqual([...picked.subarray(0, 3)], [0, 1, 2]);
});

Deno.test("_vector_codes: Hamming distances through the 16-bit table", () => {
  const out = new Int32Array(1);
  hammingDistances(
    new Uint32Array([0xf0f0f0f0, 0x1]),
    2,
    new Uint32Array([0, 0]),
    new Int32Array([0]),
    1,
    out,
    popcount16(),
  );
  assert.equal(out[0], 17);
});
