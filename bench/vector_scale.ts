/**
 * Scale benchmark of vector recall (issue 13): memo's `VectorIndex` against an exact float32
 * brute-force scan (the peer, measured in the same run), on seeded random unit vectors of the
 * model's dimension (512) — the hard case for sign codes, since random vectors have no clear
 * neighbours. Each side builds in its own child process (run with `--expose-gc`), so each RSS is
 * its own. Reports build time, search p50/p95 (limit 10), recall@10 against the peer's exact
 * answers, the bytes the index holds and the RSS the vectors add (after a GC, against the same
 * process before building).
 *
 * Then, at the largest size, the first passes compared on the same codes (Hamming distance with
 * a 16-bit table or a SWAR popcount, and the asymmetric table score that the index uses): time
 * per query and recall@10 after int8 rescoring of K candidates. And the embedding cache: write
 * 100,000 records in batches of 64, then a cold open + refresh in a fresh process, file size and
 * that process's RSS.
 *
 * Run: deno run -A bench/vector_scale.ts [--sizes 10000,100000] [--queries 200] [--dims 512]
 *   [--cache-records 100000] [--no-first-pass] [--json out.json]
 *
 * @module
 */

import process from "node:process";
import { parseArgs } from "node:util";
import { readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { DEFAULT_VECTOR_CANDIDATES, VectorIndex } from "../memory/recall/vector/vector.ts";
import {
  codeStride,
  encodeVector,
  HISTOGRAM_BUCKETS,
  int8Scores,
  pickHighest,
  signScores,
  signTable,
  signWords,
} from "../memory/recall/vector/_codes.ts";
import { hammingDistances, popcount16 } from "../memory/recall/vector/_hamming.ts";
import { EmbeddingCache } from "../memory/vectors/cache.ts";
import { rng } from "./_rng.ts";
import { percentile } from "./_report.ts";

const LIMIT = 10;
const WARMUP = 20;

/**
 * Seeded random unit vectors, one at a time (Box–Muller normals, normalised), written into `into`
 * when given (so that generating 100,000 of them leaves no garbage to skew the RSS).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { unitVectors } from "./vector_scale.ts";
 * const next = unitVectors(4, 1);
 * const v = next();
 * assert.ok(Math.abs(Math.hypot(...v) - 1) < 1e-5);
 * assert.deepEqual(unitVectors(4, 1)(), v); // same seed, same vectors
 * ```
 */
export function unitVectors(
  dims: number,
  seed: number,
): (into?: Float32Array) => Float32Array {
  const random = rng(seed);
  return (into) => {
    const v = into ?? new Float32Array(dims);
    let sum = 0;
    for (let i = 0; i < dims; i++) {
      const x = Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
      v[i] = x;
      sum += x * x;
    }
    const inverse = 1 / Math.sqrt(sum);
    for (let i = 0; i < dims; i++) v[i] *= inverse;
    return v;
  };
}

/** Top-`limit` ids per query, best first. */
type Answers = number[][];

interface SideResult {
  side: "memo" | "peer";
  size: number;
  build_ms: number;
  search_p50_ms: number;
  search_p95_ms: number;
  bytes: number;
  rss_before_mb: number;
  rss_after_mb: number;
  rss_added_mb: number;
  answers: Answers;
}

function gc(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

function rssMb(): number {
  gc();
  return process.memoryUsage().rss / 2 ** 20;
}

function queries(dims: number, count: number): Float32Array[] {
  const next = unitVectors(dims, 7);
  return Array.from({ length: count + WARMUP }, () => next());
}

function timed(count: number, search: (k: number) => number[]): {
  p50: number;
  p95: number;
  answers: Answers;
} {
  for (let k = 0; k < WARMUP; k++) search(count + k);
  const times: number[] = [];
  const answers: Answers = [];
  for (let k = 0; k < count; k++) {
    const start = performance.now();
    answers.push(search(k));
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  return { p50: percentile(times, 0.5), p95: percentile(times, 0.95), answers };
}

/**
 * Feeds the `size` seeded vectors to `take` in chunks of 1,000 and returns the milliseconds spent
 * in `take` (generating the vectors is not timed).
 */
function inChunks(
  size: number,
  dims: number,
  take: (chunk: Float32Array[], from: number) => void,
): number {
  const next = unitVectors(dims, 1);
  const buffer = new Float32Array(1000 * dims);
  const views = Array.from({ length: 1000 }, (_, k) => buffer.subarray(k * dims, (k + 1) * dims));
  let elapsed = 0;
  for (let from = 0; from < size; from += 1000) {
    const chunk = views.slice(0, Math.min(1000, size - from));
    for (const view of chunk) next(view);
    const start = performance.now();
    take(chunk, from);
    elapsed += performance.now() - start;
  }
  return elapsed;
}

/** Child: memo's index. */
function memoSide(size: number, dims: number, queryCount: number): SideResult {
  const qs = queries(dims, queryCount);
  const before = rssMb();
  const index = new VectorIndex(dims);
  const build = inChunks(size, dims, (chunk, from) => {
    for (let k = 0; k < chunk.length; k++) index.set(String(from + k), chunk[k]);
  });
  const after = rssMb();
  const { p50, p95, answers } = timed(
    queryCount,
    (k) => index.search(qs[k], { limit: LIMIT }).map((hit) => Number(hit.id)),
  );
  return {
    side: "memo",
    size,
    build_ms: build,
    search_p50_ms: p50,
    search_p95_ms: p95,
    bytes: index.bytes,
    rss_before_mb: before,
    rss_after_mb: after,
    rss_added_mb: after - before,
    answers,
  };
}

/** Exact top-`limit` of `scores[0..count)`, ties by position. */
function topPositions(scores: Float64Array | Float32Array, count: number, limit: number): number[] {
  const top: number[] = [];
  for (let n = 0; n < count; n++) {
    const s = scores[n];
    if (top.length === limit && s <= scores[top[limit - 1]]) continue;
    let i = top.length < limit ? top.length : limit - 1;
    while (i > 0 && scores[top[i - 1]] < s) {
      top[i] = top[i - 1];
      i--;
    }
    top[i] = n;
  }
  return top;
}

/** Child: the peer, an exact float32 scan over one contiguous array. */
function peerSide(size: number, dims: number, queryCount: number): SideResult {
  const qs = queries(dims, queryCount);
  const before = rssMb();
  let data = new Float32Array(0);
  const build = inChunks(size, dims, (chunk, from) => {
    if (from === 0) data = new Float32Array(size * dims);
    for (let k = 0; k < chunk.length; k++) data.set(chunk[k], (from + k) * dims);
  });
  const after = rssMb();
  const scores = new Float32Array(size);
  const { p50, p95, answers } = timed(queryCount, (k) => {
    const q = qs[k];
    for (let n = 0, at = 0; n < size; n++, at += dims) {
      let dot = 0;
      for (let i = 0; i < dims; i++) dot += q[i] * data[at + i];
      scores[n] = dot;
    }
    return topPositions(scores, size, LIMIT);
  });
  return {
    side: "peer",
    size,
    build_ms: build,
    search_p50_ms: p50,
    search_p95_ms: p95,
    bytes: data.byteLength,
    rss_before_mb: before,
    rss_after_mb: after,
    rss_added_mb: after - before,
    answers,
  };
}

interface FirstPassResult {
  size: number;
  hamming_lut_ms: number;
  hamming_swar_ms: number;
  asymmetric_ms: number;
  int8_per_1000_ms: number;
  recall: { candidates: number; hamming: number; asymmetric: number }[];
  int8_exhaustive_recall: number;
}

/** Child: the first passes compared on the same codes, against the peer's answers. */
function firstPassSide(size: number, dims: number, queryCount: number, truth: Answers) {
  const words = signWords(dims);
  const stride = codeStride(dims);
  const signs = new Uint32Array(size * words);
  const codes = new Int8Array(size * stride);
  const codeWords = new Int32Array(codes.buffer);
  const inverse = new Float32Array(size);
  const next = unitVectors(dims, 1);
  for (let n = 0; n < size; n++) {
    inverse[n] = encodeVector(next(), signs, n * words, codes, n * stride);
  }
  const qs = queries(dims, queryCount);
  const slots = Int32Array.from({ length: size }, (_, n) => n);
  const first = new Int32Array(size);
  const table = new Int32Array(words * 1024);
  const bits = popcount16();
  const q64 = new Float64Array(stride);
  const querySigns = new Uint32Array(words);
  const prepare = (q: Float32Array) => {
    q64.set(q);
    querySigns.fill(0);
    for (let i = 0; i < dims; i++) if (q[i] > 0) querySigns[i >>> 5] |= 1 << (i & 31);
  };
  const swar = () => {
    for (let n = 0; n < size; n++) {
      const at = n * words;
      let distance = 0;
      for (let w = 0; w < words; w++) {
        let x = signs[at + w] ^ querySigns[w];
        x = x - ((x >>> 1) & 0x55555555);
        x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
        x = (x + (x >>> 4)) & 0x0f0f0f0f;
        distance += Math.imul(x, 0x01010101) >>> 24;
      }
      first[n] = distance;
    }
  };
  const time = (run: () => void) => {
    const times: number[] = [];
    for (let k = 0; k < queryCount + WARMUP; k++) {
      prepare(qs[k]);
      const start = performance.now();
      run();
      if (k >= WARMUP) times.push(performance.now() - start);
    }
    times.sort((a, b) => a - b);
    return percentile(times, 0.5);
  };
  const hammingLut = time(() =>
    hammingDistances(signs, words, querySigns, slots, size, first, bits)
  );
  const hammingSwar = time(swar);
  const asymmetric = time(() => {
    signTable(q64, dims, table);
    signScores(signs, words, table, slots, size, first);
  });
  const scores = new Float64Array(size);
  const int8All = time(() => int8Scores(codeWords, stride, inverse, q64, slots, size, scores));
  const candidatesList = [400, 1000, 2000, 4000, 8000, 16000].filter((k) => k < size);
  const found = candidatesList.map(() => ({ hamming: 0, asymmetric: 0 }));
  let exhaustive = 0;
  const histogram = new Int32Array(HISTOGRAM_BUCKETS);
  const picked = new Int32Array(size);
  const candidates = new Int32Array(size);
  const recallOf = (top: number[], k: number) => top.filter((n) => truth[k].includes(n)).length;
  for (let k = 0; k < queryCount; k++) {
    prepare(qs[k]);
    int8Scores(codeWords, stride, inverse, q64, slots, size, scores);
    exhaustive += recallOf(topPositions(scores, size, LIMIT), k);
    for (const kind of ["hamming", "asymmetric"] as const) {
      if (kind === "hamming") {
        hammingDistances(signs, words, querySigns, slots, size, first, bits);
        for (let n = 0; n < size; n++) first[n] = -first[n]; // nearest first
      } else {
        signTable(q64, dims, table);
        signScores(signs, words, table, slots, size, first);
      }
      candidatesList.forEach((take, j) => {
        const count = pickHighest(first, size, take, histogram, picked);
        for (let c = 0; c < count; c++) candidates[c] = picked[c];
        int8Scores(codeWords, stride, inverse, q64, candidates, count, scores);
        const top = topPositions(scores, count, LIMIT).map((c) => candidates[c]);
        found[j][kind] += recallOf(top, k);
      });
    }
  }
  const total = queryCount * LIMIT;
  const result: FirstPassResult = {
    size,
    hamming_lut_ms: hammingLut,
    hamming_swar_ms: hammingSwar,
    asymmetric_ms: asymmetric,
    int8_per_1000_ms: (int8All * 1000) / size,
    recall: candidatesList.map((c, j) => ({
      candidates: c,
      hamming: found[j].hamming / total,
      asymmetric: found[j].asymmetric / total,
    })),
    int8_exhaustive_recall: exhaustive / total,
  };
  return result;
}

function key(n: number): string {
  return n.toString(16).padStart(32, "0");
}

interface CacheResult {
  records: number;
  write_ms: number;
  file_mb: number;
  open_refresh_ms?: number;
  rss_after_refresh_mb?: number;
  rss_added_mb?: number;
}

/** Child: writes the cache (phase "cache-write") or opens and refreshes it cold ("cache-read"). */
async function cacheSide(dir: string, records: number, dims: number, write: boolean) {
  if (write) {
    const cache = await EmbeddingCache.open(dir, "bench-model", dims);
    const next = unitVectors(dims, 3);
    let elapsed = 0; // in put only, not in generating the vectors
    for (let n = 0; n < records; n += 64) {
      const batch = [];
      for (let k = n; k < Math.min(records, n + 64); k++) {
        batch.push({ key: key(k), vector: next() });
      }
      const start = performance.now();
      await cache.put(batch);
      elapsed += performance.now() - start;
    }
    await cache.close();
    const size = (await Deno.stat(cache.path)).size;
    return { records, write_ms: elapsed, file_mb: size / 2 ** 20 };
  }
  const before = rssMb();
  const start = performance.now();
  const cache = await EmbeddingCache.open(dir, "bench-model", dims);
  let seen = 0;
  await cache.refresh(() => seen++);
  const elapsed = performance.now() - start;
  if (seen !== records) {
    throw new Error(`Cannot bench the cache: refresh saw ${seen} of ${records}`);
  }
  const after = rssMb();
  await cache.close();
  return { open_refresh_ms: elapsed, rss_after_refresh_mb: after, rss_added_mb: after - before };
}

async function child(args: string[]): Promise<unknown> {
  const out = await new Deno.Command(Deno.execPath(), {
    // --no-lock: the bench imports only local modules.
    args: [
      "run",
      "-A",
      "--no-lock",
      "--v8-flags=--expose-gc",
      new URL(import.meta.url).pathname,
      ...args,
    ],
    stderr: "inherit",
  }).output();
  if (!out.success) throw new Error(`Cannot run the bench phase ${args.join(" ")}`);
  return JSON.parse(new TextDecoder().decode(out.stdout));
}

const fmt = (x: number, digits = 2) => x.toFixed(digits);
const mb = (x: number) => `${x.toFixed(1)} MB`;

async function main(): Promise<void> {
  const { values } = parseArgs({
    args: Deno.args,
    options: {
      sizes: { type: "string", default: "10000,100000" },
      queries: { type: "string", default: "200" },
      dims: { type: "string", default: "512" },
      "cache-records": { type: "string", default: "100000" },
      "no-first-pass": { type: "boolean", default: false },
      json: { type: "string" },
      phase: { type: "string" },
      size: { type: "string" },
      truth: { type: "string" },
      dir: { type: "string" },
    },
  });
  const dims = Number(values.dims);
  const queryCount = Number(values.queries);
  if (values.phase) {
    const size = Number(values.size);
    let result: unknown;
    if (values.phase === "memo") result = memoSide(size, dims, queryCount);
    else if (values.phase === "peer") result = peerSide(size, dims, queryCount);
    else if (values.phase === "first-pass") {
      const truth = JSON.parse(await readFile(values.truth!, "utf8")) as Answers;
      result = firstPassSide(size, dims, queryCount, truth);
    } else {
      result = await cacheSide(values.dir!, size, dims, values.phase === "cache-write");
    }
    process.stdout.write(JSON.stringify(result) + "\n");
    return;
  }

  const sizes = values.sizes!.split(",").map(Number);
  const common = ["--dims", String(dims), "--queries", String(queryCount)];
  const sides: { memo: SideResult; peer: SideResult; recall: number }[] = [];
  let firstPass: FirstPassResult | undefined;
  const tmp = await Deno.makeTempDir({ prefix: "memo-vector-bench-" });
  try {
    for (const size of sizes) {
      const peer = await child([
        "--phase",
        "peer",
        "--size",
        String(size),
        ...common,
      ]) as SideResult;
      const memo = await child([
        "--phase",
        "memo",
        "--size",
        String(size),
        ...common,
      ]) as SideResult;
      let hits = 0;
      memo.answers.forEach((
        ids,
        k,
      ) => (hits += ids.filter((id) => peer.answers[k].includes(id)).length));
      const recall = hits / (queryCount * LIMIT);
      console.error(
        `${size}: memo p50 ${fmt(memo.search_p50_ms)} ms, peer p50 ${
          fmt(peer.search_p50_ms)
        } ms, recall@10 ${fmt(recall, 3)}`,
      );
      sides.push({ memo, peer, recall });
      if (size === Math.max(...sizes) && !values["no-first-pass"]) {
        const truth = join(tmp, "truth.json");
        await writeFile(truth, JSON.stringify(peer.answers));
        firstPass = await child([
          "--phase",
          "first-pass",
          "--size",
          String(size),
          "--truth",
          truth,
          ...common,
        ]) as FirstPassResult;
      }
    }
    const records = Number(values["cache-records"]);
    let cache: CacheResult | undefined;
    if (records > 0) {
      const dir = join(tmp, "project");
      const write = await child([
        "--phase",
        "cache-write",
        "--size",
        String(records),
        "--dir",
        dir,
        ...common,
      ]);
      const read = await child([
        "--phase",
        "cache-read",
        "--size",
        String(records),
        "--dir",
        dir,
        ...common,
      ]);
      cache = { ...(write as CacheResult), ...(read as Partial<CacheResult>) };
      await rm(dir, { recursive: true });
    }

    const lines: string[] = [];
    lines.push(
      `random unit vectors, ${dims} dimensions, ${queryCount} queries, limit ${LIMIT}, ` +
        `candidates ${DEFAULT_VECTOR_CANDIDATES} (default)`,
      "",
      "| size | side | build | search p50 / p95 | recall@10 | bytes held | RSS added |",
      "| ---: | ---- | ----: | ---------------: | --------: | ---------: | --------: |",
    );
    for (const { memo, peer, recall } of sides) {
      const row = (r: SideResult, rec: string) =>
        `| ${r.size.toLocaleString("en")} | ${
          r.side === "memo" ? "memo `VectorIndex`" : "float32 scan (peer)"
        } | ${fmt(r.build_ms / 1000)} s | ${fmt(r.search_p50_ms)} / ${
          fmt(r.search_p95_ms)
        } ms | ${rec} | ${mb(r.bytes / 2 ** 20)} | ${mb(r.rss_added_mb)} |`;
      lines.push(row(memo, fmt(recall, 3)), row(peer, "1 (exact)"));
      lines.push(
        `| ${memo.size.toLocaleString("en")} | memo/peer | | ${
          fmt(memo.search_p50_ms / peer.search_p50_ms)
        }× / ${fmt(memo.search_p95_ms / peer.search_p95_ms)}× | | ${
          fmt(memo.bytes / peer.bytes)
        }× | ${fmt(memo.rss_added_mb / peer.rss_added_mb)}× |`,
      );
    }
    if (firstPass) {
      lines.push(
        "",
        `First passes over ${
          firstPass.size.toLocaleString("en")
        } codes (p50 per query): Hamming with a ` +
          `16-bit table ${fmt(firstPass.hamming_lut_ms)} ms, Hamming with a SWAR popcount ` +
          `${fmt(firstPass.hamming_swar_ms)} ms, asymmetric table score (the index's) ` +
          `${fmt(firstPass.asymmetric_ms)} ms; int8 rescoring ${
            fmt(firstPass.int8_per_1000_ms)
          } ms per ` +
          `1,000 candidates. Recall@10 after rescoring K candidates (int8 over all: ` +
          `${fmt(firstPass.int8_exhaustive_recall, 3)}):`,
        "",
        "| K | Hamming | asymmetric |",
        "| ---: | ---: | ---: |",
        ...firstPass.recall.map((r) =>
          `| ${r.candidates.toLocaleString("en")} | ${fmt(r.hamming, 3)} | ${
            fmt(r.asymmetric, 3)
          } |`
        ),
      );
    }
    if (cache) {
      lines.push(
        "",
        `Embedding cache, ${
          cache.records.toLocaleString("en")
        } records of ${dims} dimensions: write ` +
          `(batches of 64) ${fmt(cache.write_ms / 1000)} s, file ${
            mb(cache.file_mb)
          }, cold open + ` +
          `refresh in a fresh process ${
            fmt(cache.open_refresh_ms! / 1000)
          } s, RSS added by the refresh ` +
          `${mb(cache.rss_added_mb!)} (keys and offsets only).`,
      );
    }
    console.log(lines.join("\n"));
    if (values.json) {
      const strip = (r: SideResult) => ({ ...r, answers: undefined });
      await writeFile(
        values.json,
        JSON.stringify(
          {
            dims,
            queries: queryCount,
            sides: sides.map((s) => ({
              memo: strip(s.memo),
              peer: strip(s.peer),
              recall: s.recall,
            })),
            firstPass,
            cache,
          },
          null,
          2,
        ),
      );
    }
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}

if (import.meta.main) await main();
