/**
 * The vector, hybrid and auto engines of `Memo`, with an injected
 * deterministic embedder (the real model is tested in `embed/`): ranking,
 * fusion, filters, ties, coverage, the on-disk cache, background embedding
 * that never holds up a write, and the failure modes.
 */

import assert from "node:assert/strict";
import {
  DEFAULT_FUSION,
  type Embedder,
  EmbedderUnavailableError,
  fuseRankings,
  type Memo,
  memoPaths,
  openMemo,
} from "./mod.ts";
import type { MemoOptions } from "./memo_options.ts";
import { sanitizedTest as test } from "../testing/sanitized.ts";

/** Topics of the toy embedder: a text's vector counts the words of each topic it holds. */
const TOPICS: string[][] = [
  [
    "key",
    "keys",
    "credential",
    "credentials",
    "secret",
    "secrets",
    "password",
    "rotate",
    "rotates",
  ],
  ["deploy", "deploys", "release", "ship", "staging", "production", "pre-production"],
  ["lunch", "food", "pizza", "noon"],
  ["test", "tests", "ci", "flaky"],
];

/**
 * A deterministic embedder that counts its calls, texts and batches in flight; with `gate`,
 * each batch waits for it.
 */
function toyEmbedder(
  gate?: Promise<void>,
): Embedder & { calls: number; texts: number; inFlight: number } {
  const embedder = {
    model: "toy",
    dimensions: TOPICS.length + 1,
    calls: 0,
    texts: 0,
    inFlight: 0,
    async embed(texts: readonly string[]) {
      embedder.calls++;
      embedder.texts += texts.length;
      embedder.inFlight++;
      try {
        await gate;
      } finally {
        embedder.inFlight--;
      }
      return texts.map((t) => {
        const words = t.toLowerCase().split(/[^a-z-]+/);
        const v = new Float32Array(TOPICS.length + 1);
        TOPICS.forEach((topic, i) => v[i] = words.filter((w) => topic.includes(w)).length);
        v[TOPICS.length] = 0.1; // never the zero vector
        return v;
      });
    },
  };
  return embedder;
}

async function open(extra: MemoOptions = {}): Promise<{ memo: Memo; dir: string }> {
  const dir = await Deno.makeTempDir({ prefix: "memo-embed-" });
  const memo = await openMemo({ rootDir: dir, embedInBackground: false, ...extra });
  return { memo, dir };
}

async function done(memo: Memo, dir: string) {
  await memo.close();
  await Deno.remove(dir, { recursive: true });
}

/** Waits until `check` holds (polling); fails only a stuck test, after `ms`. */
async function until(check: () => boolean, ms = 30_000) {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 10));
  }
}

test("vector finds a paraphrase lexical misses, with the same label and source filters", async () => {
  const embedder = toyEmbedder();
  const { memo, dir } = await open({ embedder });
  await memo.remember({ text: "The staging deploy key rotates every 90 days", labels: ["ops"] });
  await memo.remember({
    text: "Passwords for CI rotate monthly",
    labels: ["ci"],
    source: "notion:page/1",
  });
  await memo.remember({ text: "Lunch is pizza at noon", labels: ["ops"] });
  await memo.embed();
  const query = "how often do we change the credentials";
  assert.deepEqual(await memo.recall(query, { engine: "lexical" }), []);
  const vector = await memo.recallDetailed(query, { engine: "vector" });
  assert.equal(vector.engine, "vector");
  assert.deepEqual(vector.coverage, { embedded: 3, total: 3 });
  assert.equal(vector.hits[0].engine, "vector");
  assert.ok(vector.hits[0].score > vector.hits[2].score);
  assert.match(vector.hits[2].note.title, /Lunch/);
  const ops = await memo.recall(query, { engine: "vector", labels: ["ops"] });
  assert.deepEqual(ops.map((h) => h.note.labels), [["ops"], ["ops"]]);
  const notion = await memo.recall(query, { engine: "vector", source: "notion:" });
  assert.deepEqual(notion.map((h) => h.note.source), ["notion:page/1"]);
  await done(memo, dir);
});

test("hybrid fuses both rankings by reciprocal rank, and explain shows each part", async () => {
  const { memo, dir } = await open({ embedder: toyEmbedder() });
  await memo.remember({ text: "Deploy keys live in the vault" }); // both engines
  await memo.remember({ text: "Secrets rotate every quarter" }); // vector only
  await memo.remember({ text: "The vault door is blue" }); // lexical only ("vault")
  await memo.embed();
  const query = "vault keys";
  const lexical = await memo.recall(query, { engine: "lexical", explain: true });
  const vector = await memo.recall(query, { engine: "vector", explain: true });
  const result = await memo.recallDetailed(query, { engine: "hybrid", explain: true });
  assert.equal(result.engine, "hybrid");
  const expected = fuseRankings(
    lexical.map((h) => h.note.id),
    vector.map((h) => h.note.id),
    DEFAULT_FUSION,
  );
  assert.deepEqual(result.hits.map((h) => h.note.id), expected.map((f) => f.id));
  const top = result.hits[0];
  assert.equal(top.note.title, "Deploy keys live in the vault");
  // First lexically (both words), second by meaning (after the note about secrets).
  assert.equal(top.parts?.lexical?.rank, 1);
  assert.equal(top.parts?.vector?.rank, 2);
  assert.ok(top.parts?.vector && top.parts.vector.similarity > 0.5);
  assert.equal(top.parts?.fused, top.score);
  const { k, lexicalWeight, vectorWeight } = DEFAULT_FUSION;
  assert.ok(Math.abs(top.score - (lexicalWeight / (k + 1) + vectorWeight / (k + 2))) < 1e-12);
  assert.deepEqual(top.matched, ["vault", "keys"]);
  assert.ok(top.explain && top.explain.length > 0); // the lexical terms, too
  const vectorOnly = result.hits.find((h) => h.note.title.startsWith("Secrets"))!;
  assert.equal(vectorOnly.parts?.lexical, undefined);
  assert.deepEqual(vectorOnly.matched, []);
  assert.deepEqual(vectorOnly.highlights, [], "no lexical part, nothing to highlight");
  assert.deepEqual(top.highlights?.map((h) => top.note.body.slice(h.start, h.end)), [
    "keys",
    "vault",
    "keys",
    "vault",
  ]);
  assert.deepEqual(
    vector.map((h) => h.highlights),
    vector.map(() => []),
    "the vector engine highlights nothing",
  );
  // Without explain there are no parts.
  assert.equal((await memo.recall(query, { engine: "hybrid" }))[0].parts, undefined);
  await done(memo, dir);
});

test("ties: equal vectors rank by id; equal fused scores by the lexical rank", async () => {
  const { memo, dir } = await open({ embedder: toyEmbedder() });
  const written = await memo.rememberMany([
    { text: "Lunch at noon" },
    { text: "Noon lunch" },
    { text: "Pizza lunch at noon" },
  ]);
  await memo.embed();
  const [a, b] = written.written;
  const vector = await memo.recall("food", { engine: "vector" });
  // "Lunch at noon" and "Noon lunch" have the same vector: ids decide.
  const tied = vector.filter((h) => h.note.id === a.id || h.note.id === b.id).map((h) => h.note.id);
  assert.deepEqual(tied, [a.id, b.id].sort());
  const even = { k: 60, lexicalWeight: 1, vectorWeight: 1 };
  const fused = fuseRankings(["x", "y"], ["y", "x"], even);
  assert.equal(fused[0].score, fused[1].score);
  assert.deepEqual(fused.map((f) => f.id), ["x", "y"]); // same score: better lexical rank first
  await done(memo, dir);
});

test("auto: lexical until something is embedded, then hybrid over the embedded notes and lexical for the rest", async () => {
  const { memo, dir } = await open({ embedder: toyEmbedder() });
  await memo.remember({ text: "The staging deploy key rotates every 90 days" });
  let result = await memo.recallDetailed("deploy");
  assert.equal(result.engine, "lexical");
  assert.deepEqual(result.coverage, { embedded: 0, total: 1 });
  assert.deepEqual((await memo.stats()).engine, {
    default: "auto",
    auto: "lexical",
    reason: "the embedder is not loaded yet",
  });
  await memo.embed();
  const { note } = await memo.remember({ text: "Deploy previews are built by CI" }); // not embedded
  result = await memo.recallDetailed("deploy");
  assert.equal(result.engine, "hybrid");
  assert.deepEqual(result.coverage, { embedded: 1, total: 2 });
  assert.ok(result.hits.some((h) => h.note.id === note.id)); // found lexically
  const stats = await memo.stats();
  assert.equal(stats.engine.auto, "hybrid");
  assert.deepEqual(stats.embeddings, {
    model: "toy",
    ready: true,
    embedded: 1,
    total: 2,
    state: "ready",
  });
  await done(memo, dir);
});

test("the cache: a second open embeds nothing; a changed note is embedded again; a corrupt cache recovers", async () => {
  const first = toyEmbedder();
  const { memo, dir } = await open({ embedder: first });
  const { note } = await memo.remember({ text: "Deploy keys rotate" });
  await memo.rememberMany([{ text: "Lunch at noon" }, { text: "Flaky tests in CI" }]);
  assert.deepEqual(await memo.embed(), { embedded: 3, total: 3, computed: 3 });
  await memo.close();

  const second = toyEmbedder();
  const again = await openMemo({ rootDir: dir, embedder: second, embedInBackground: false });
  assert.deepEqual(await again.embed(), { embedded: 3, total: 3, computed: 0 });
  assert.equal(second.texts, 0);
  // An update changes the text: only that note is embedded again.
  await again.update(note.id, { text: "Deploy keys rotate yearly" });
  assert.equal(again.embeddingStatus().embedded, 2);
  assert.deepEqual(await again.embed(), { embedded: 3, total: 3, computed: 1 });
  // A forgotten note leaves the coverage.
  await again.forget(note.id);
  assert.deepEqual(again.embeddingStatus().embedded, 2);
  await again.close();

  const folder = `${memoPaths(dir).cache}/embeddings`;
  for await (const entry of Deno.readDir(folder)) {
    await Deno.writeTextFile(`${folder}/${entry.name}`, "not a cache at all");
  }
  const third = toyEmbedder();
  const recovered = await openMemo({ rootDir: dir, embedder: third, embedInBackground: false });
  assert.deepEqual(await recovered.embed(), { embedded: 2, total: 2, computed: 2 });
  assert.equal((await recovered.recall("rotate keys", { engine: "vector" })).length, 2);
  await recovered.close();
  const fourth = toyEmbedder();
  const rebuilt = await openMemo({ rootDir: dir, embedder: fourth, embedInBackground: false });
  assert.deepEqual(await rebuilt.embed(), { embedded: 2, total: 2, computed: 0 });
  await done(rebuilt, dir);
});

test("two clients on one project share the cache: the second embeds nothing the first did", async () => {
  const a = toyEmbedder();
  const { memo, dir } = await open({ embedder: a });
  const b = toyEmbedder();
  const other = await openMemo({ rootDir: dir, embedder: b, embedInBackground: false });
  await memo.rememberMany([{ text: "Deploy keys rotate" }, { text: "Lunch at noon" }]);
  await memo.embed();
  assert.deepEqual(await other.embed(), { embedded: 2, total: 2, computed: 0 });
  assert.equal(b.texts, 0);
  await other.close();
  await done(memo, dir);
});

test("background: notes are embedded after writes, and a write never waits for a batch", async () => {
  // Each batch is held until the checks are done (or 30 s: a call that waited for the batch
  // would then return with no batch in flight, and fail).
  const gate = Promise.withResolvers<void>();
  const cap = setTimeout(gate.resolve, 30_000);
  const slow = toyEmbedder(gate.promise);
  const { memo, dir } = await open({ embedder: slow, embedInBackground: true });
  await memo.rememberMany(Array.from({ length: 40 }, (_, i) => ({ text: `Deploy step ${i}` })));
  await until(() => slow.inFlight > 0); // a batch is running now
  await memo.remember({ text: "Written while a batch runs" });
  assert.equal(slow.inFlight, 1, "the remember returned while the batch was still running");
  // auto answers at once, with what is embedded so far.
  const partial = await memo.recallDetailed("deploy step");
  assert.equal(slow.inFlight, 1, "the recall returned while the batch was still running");
  assert.ok(partial.coverage.embedded < 41);
  gate.resolve();
  clearTimeout(cap);
  await until(() => memo.embeddingStatus().embedded === 41);
  assert.equal((await memo.recallDetailed("deploy step")).engine, "hybrid");
  await done(memo, dir);
});

test("off and failed: vector and hybrid refuse clearly, auto stays lexical, stats say why", async () => {
  const off = await open({ localEmbeddings: false });
  await off.memo.remember({ text: "Deploy keys rotate" });
  await assert.rejects(
    off.memo.recall("deploy", { engine: "vector" }),
    (e) =>
      e instanceof EmbedderUnavailableError && e.code === "EMBEDDER_UNAVAILABLE" &&
      e.message ===
        "Cannot recall with the vector engine: local embeddings are off (recall.localEmbeddings is false)",
  );
  assert.equal((await off.memo.recallDetailed("deploy")).engine, "lexical");
  assert.equal((await off.memo.stats()).embeddings.state, "off");
  await done(off.memo, off.dir);

  let loads = 0;
  const failing = await open({
    // A hub model's name: auto fuses with it, so the model loads in the background.
    embeddingModel: "x/y",
    embedder: () => {
      loads++;
      return Promise.reject(new Error("Cannot load model x/y: could not fetch its files"));
    },
    embedInBackground: true,
  });
  await failing.memo.remember({ text: "Deploy keys rotate" });
  await until(() => failing.memo.embeddingStatus().state === "failed");
  assert.equal((await failing.memo.recallDetailed("deploy")).engine, "lexical");
  await assert.rejects(
    failing.memo.recall("deploy", { engine: "hybrid" }),
    (e) =>
      e instanceof EmbedderUnavailableError &&
      e.message ===
        "Cannot recall with the hybrid engine: Cannot load model x/y: could not fetch its files",
  );
  const stats = await failing.memo.stats();
  assert.equal(stats.embeddings.error, "Cannot load model x/y: could not fetch its files");
  assert.equal(stats.engine.auto, "lexical");
  assert.equal(loads, 1); // a failed model is not retried on every call
  await done(failing.memo, failing.dir);
});

test("an explicit vector recall starts the model and waits for its load, not for notes to be embedded", async () => {
  const embedder = toyEmbedder();
  let release!: () => void;
  const gate = new Promise<void>((r) => release = r);
  let loads = 0;
  // A loader without a model name stands for use-lite: auto does not use it, so nothing loads
  // in the background until a recall asks for vectors.
  const { memo, dir } = await open({
    embedder: async () => (loads++, await gate, embedder),
    embedInBackground: true,
  });
  await memo.remember({ text: "Deploy keys rotate" });
  assert.equal(memo.embeddingStatus().state, "idle");
  assert.match(memo.embeddingStatus().reason ?? "", /^auto uses lexical with use-lite/);
  const pending = memo.recallDetailed("deploy", { engine: "vector" });
  await until(() => memo.embeddingStatus().state === "loading");
  const auto = await memo.recallDetailed("deploy"); // never waits
  assert.equal(auto.engine, "lexical");
  let answered = false;
  void pending.then(() => answered = true, () => answered = true);
  await new Promise((r) => setTimeout(r, 0)); // what could answer at once has answered
  assert.equal(answered, false, "the vector recall waits for the model");
  release();
  const result = await pending;
  assert.equal(result.engine, "vector");
  assert.ok(result.coverage.embedded <= 1);
  // The background work follows the load.
  await until(() => memo.embeddingStatus().embedded === 1);
  assert.equal(loads, 1);
  await done(memo, dir);
});

test("auto stays lexical with use-lite (it did not beat lexical on the dev split), and says so", async () => {
  // A stand-in that calls itself use-lite: the decision follows the model's name.
  const { memo, dir } = await open({ embedder: { ...toyEmbedder(), model: "use-lite" } });
  await memo.remember({ text: "The staging deploy key rotates every 90 days" });
  await memo.embed();
  const result = await memo.recallDetailed("deploy");
  assert.equal(result.engine, "lexical");
  assert.deepEqual(result.coverage, { embedded: 1, total: 1 });
  const stats = await memo.stats();
  assert.equal(stats.engine.auto, "lexical");
  assert.match(stats.engine.reason!, /^hybrid recall with use-lite did not beat lexical recall/);
  // By name, the engines still use it.
  assert.equal((await memo.recallDetailed("deploy", { engine: "hybrid" })).engine, "hybrid");
  await done(memo, dir);
});

test("another process's rewrite keeps the vectors of the notes it did not change", async () => {
  const a = toyEmbedder();
  const { memo, dir } = await open({ embedder: a });
  const other = await openMemo({ rootDir: dir, embedder: toyEmbedder(), embedInBackground: false });
  const [kept, gone, edited] = (await memo.rememberMany([
    { text: "Deploy keys rotate monthly" },
    { text: "Lunch at noon" },
    { text: "Flaky tests rerun in CI" },
  ])).written;
  await memo.embed();
  assert.equal(memo.embeddingStatus().embedded, 3);
  // The other process forgets one note and edits another: a rewrite, read here as a reset.
  await other.forget(gone.id);
  await other.update(edited.id, { text: "Flaky tests are quarantined" });
  const hits = await memo.recallDetailed("rotate keys", { engine: "vector" });
  assert.deepEqual(hits.coverage, { embedded: 1, total: 2 }, "the unchanged note keeps its vector");
  assert.equal(hits.hits[0]?.note.id, kept.id);
  assert.ok(!hits.hits.some((h) => h.note.id === gone.id));
  await memo.embed();
  assert.equal(memo.embeddingStatus().embedded, 2);
  await other.close();
  await done(memo, dir);
});

test("a cached lexical recall reports the embeddings' coverage of now, not of its first answer", async () => {
  const dir = await Deno.makeTempDir();
  const embedder: Embedder = {
    model: "toy",
    dimensions: 2,
    embed: (texts) => Promise.resolve(texts.map(() => new Float32Array([1, 0]))),
  };
  const memo = await openMemo({
    rootDir: dir,
    embedder,
    embedInBackground: false,
    engine: "lexical",
  });
  try {
    await memo.remember({ text: "Deploys run with make deploy" });
    assert.deepEqual((await memo.recallDetailed("deploy")).coverage, { embedded: 0, total: 1 });
    await memo.embed();
    assert.deepEqual((await memo.stats()).embeddings.embedded, 1);
    // Same query again: answered from the recall cache, with the coverage of before the embed.
    assert.deepEqual((await memo.recallDetailed("deploy")).coverage, { embedded: 1, total: 1 });
  } finally {
    await memo.close();
    await Deno.remove(dir, { recursive: true });
  }
});
