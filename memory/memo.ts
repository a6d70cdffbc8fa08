/**
 * The `Memo` memory client: the one way notes are written and recalled. It
 * wraps a {@linkcode MemoryStore} and keeps a recall index in step with it.
 *
 * @module
 */

import { EmbedderUnavailableError, MemoryValidationError, NoteNotFoundError } from "./errors.ts";
import { normalizeLabels, type Note, type NoteDraft, type NotePatch } from "./note.ts";
import type {
  CommitResult,
  MemoryStore,
  ReplicaApplyResult,
  ReplicaChanges,
  StoreLoadReport,
} from "./store.ts";
import { FileMemoryStore } from "./file_store.ts";
import { type Bm25Index, type Bm25LexicalIndex, createLexicalIndex } from "./recall/lexical.ts";
import { indexCachePath, readSnapshotFile, restoreIndex, writeIndexCache } from "./_index_cache.ts";
import { memoPaths } from "./paths.ts";
import { dirname } from "node:path";
import type { LexicalIndex, NoteFilter, RecallEngine, RecallHit } from "./recall/types.ts";
import { RECALL_ENGINES } from "./recall/types.ts";
import { DEFAULT_FUSION, fuseRankings, type FusionOptions } from "./recall/fusion.ts";
import { highlightsOf, matchedIndexTerms } from "./recall/highlights.ts";
import { Embeddings } from "./_embeddings.ts";
import { decodeCursor, encodeCursor } from "./cursor.ts";
import { DEFAULT_RECALL_CACHE_SIZE, RecallCache } from "./_recall_cache.ts";
import { ChangeFeed, ChangeTally } from "./_change_feed.ts";
import {
  DEFAULT_RECALL_LIMIT,
  type EmbeddingStatus,
  type EmbedResult,
  type ListOptions,
  type ListResult,
  MAX_MEMO_LIMIT,
  type MemoChange,
  type MemoEmbedOptions,
  type MemoOptions,
  type MemoStats,
  type RecallOptions,
  type RecallResult,
  type RememberResult,
} from "./memo_types.ts";

export * from "./memo_types.ts";

/**
 * Opens a memory client on a project (or on a given store) and loads it.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { openMemo } from "@memo/memory";
 * const dir = await Deno.makeTempDir();
 * const memo = await openMemo({ rootDir: dir });
 * await memo.remember({ text: "Deploys run with make deploy", labels: ["ops"] });
 * const hits = await memo.recall("how do deploys run");
 * assert.equal(hits[0].note.title, "Deploys run with make deploy");
 * assert.deepEqual(hits[0].note.labels, ["ops"]);
 * await memo.close();
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function openMemo(options: MemoOptions = {}): Promise<Memo> {
  const memo = new Memo(options);
  await memo.load();
  return memo;
}

/**
 * The memory client. Create it with {@linkcode openMemo}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Memo } from "@memo/memory";
 * const dir = await Deno.makeTempDir();
 * const memo = new Memo({ rootDir: dir });
 * await memo.load();
 * const { note, status } = await memo.remember({ text: "hello" });
 * assert.equal(status, "written");
 * assert.equal((await memo.get(note.id)).body, "hello");
 * await memo.close();
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export class Memo {
  /** The store this client writes through. */
  readonly store: MemoryStore;
  /** The default recall engine. */
  readonly engine: RecallEngine;
  #index: LexicalIndex;
  #notes = new Map<string, Note>();
  #order: string[] | undefined;
  #position = new Map<string, number>();
  #token: string | undefined;
  #syncing: Promise<void> | undefined;
  #queued: Promise<void> | undefined;
  #cache: { path: string; memoryDir: string; always: boolean } | undefined;
  #cacheWrite: Promise<void> | undefined;
  #answers: RecallCache<RecallResult>;
  #feed: ChangeFeed;
  #embeddings: Embeddings;
  #fusion: FusionOptions;

  /** Creates a client; call {@linkcode Memo.load} before the first read. */
  constructor(options: MemoOptions = {}) {
    const rootDir = options.rootDir ?? ".";
    this.store = options.store ?? new FileMemoryStore({ rootDir });
    this.engine = checkEngine(options.engine ?? "auto");
    this.#index = options.index ?? createLexicalIndex();
    this.#answers = new RecallCache(options.recallCacheSize ?? DEFAULT_RECALL_CACHE_SIZE);
    this.#feed = new ChangeFeed(() => this.#sync(), options.watchIntervalMs ?? 250);
    this.#fusion = checkFusion({ ...DEFAULT_FUSION, ...options.fusion });
    const ownFiles = !options.store || options.rootDir !== undefined;
    this.#embeddings = new Embeddings({
      model: options.embeddingModel,
      enabled: options.localEmbeddings ?? true,
      embedder: options.embedder,
      onModelProgress: options.onModelProgress,
      background: options.embedInBackground ?? true,
      cacheRoot: (options.embeddingCache ?? ownFiles) ? rootDir : undefined,
    });
    const mode = options.indexCache ?? true;
    if (mode !== false && !options.index && ownFiles) {
      this.#cache = {
        path: indexCachePath(rootDir),
        memoryDir: dirname(memoPaths(rootDir).notes),
        always: mode === "always",
      };
    }
  }

  /**
   * Reads the store and builds the index (merged at the end, so that the first recall does not
   * pay for it); reports problems found in the store.
   */
  async load(): Promise<StoreLoadReport> {
    const cache = this.#cache;
    // The snapshot is read while the store parses; whether it fits is known after.
    const snapshot = cache && readSnapshotFile(cache.path);
    const report = await this.store.load();
    let started = performance.now();
    let restored = 0;
    let total = 0;
    await this.#sync(
      snapshot && (async (notes) => {
        restored = restoreIndex(await snapshot, this.#index as Bm25Index, notes);
        total = notes.length;
        // From here on, only the appended notes (if any) are built.
        if (restored) started = performance.now();
        return restored;
      }),
    );
    // After a restore, only adding the appended notes counts: the merge below is a pass over all
    // postings however few notes were appended, and counting it would rewrite the (large)
    // snapshot after every small append. (Merging keeps scores bit-identical to a build.)
    const added = performance.now() - started;
    (this.#index as Partial<Bm25LexicalIndex>).flush?.();
    const slow = (restored ? added : performance.now() - started) >= 200;
    const appended = total - restored; // added to a restored index
    const stale = restored === 0
      ? cache?.always || slow
      : appended > 0 && (cache?.always || slow || appended * 10 > total);
    if (cache && stale) {
      // The snapshot is taken now; writing it does not hold up the open (close() waits for it).
      const previous = this.#cacheWrite ?? Promise.resolve();
      const write = writeIndexCache(cache.path, cache.memoryDir, this.#index as Bm25Index);
      this.#cacheWrite = Promise.all([previous, write]).then(() => {});
    }
    this.#embeddings.start();
    return report;
  }

  /**
   * Writes notes verbatim and removes ids through the store's
   * `applyReplica` (one atomic step), then catches up, so that `watch`
   * listeners hear of it. The hybrid runtime applies what it pulls this way.
   * Throws `MemoryValidationError` when the store cannot do it.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { openMemo } from "@memo/memory";
   * const dir = await Deno.makeTempDir();
   * const memo = await openMemo({ rootDir: dir });
   * const { note } = await memo.remember({ text: "Deploys run on Fridays" });
   * const seen: string[][] = [];
   * const stop = memo.watch((change) => seen.push(change.removed));
   * await memo.applyReplica({ put: [], remove: [note.id] });
   * assert.deepEqual(seen, [[note.id]]);
   * assert.equal((await memo.stats()).notes, 0);
   * stop();
   * await memo.close();
   * await Deno.remove(dir, { recursive: true });
   * ```
   */
  async applyReplica(changes: ReplicaChanges): Promise<ReplicaApplyResult> {
    if (!this.store.applyReplica) {
      throw new MemoryValidationError(
        "Cannot apply replica changes: this store cannot write notes verbatim",
      );
    }
    const result = await this.store.applyReplica(changes);
    await this.#sync();
    return result;
  }

  /**
   * Stores one note. A note with the same source key (or, without a source,
   * the same content) is not written twice; the same source key with new
   * content updates that note in place.
   */
  async remember(draft: NoteDraft): Promise<RememberResult> {
    const result = await this.rememberMany([draft]);
    if (result.written.length) return { note: result.written[0], status: "written" };
    if (result.updated.length) return { note: result.updated[0], status: "updated" };
    return { note: result.unchanged[0], status: "unchanged" };
  }

  /** Stores many notes in one all-or-nothing commit, deduplicating as {@linkcode remember} does. */
  async rememberMany(
    drafts: readonly NoteDraft[],
    options: { signal?: AbortSignal } = {},
  ): Promise<CommitResult> {
    const result = await this.store.commit({ notes: drafts }, options);
    await this.#sync();
    return result;
  }

  /** Ranked notes for a query, each with the reason it matched ({@linkcode Memo.recallDetailed}'s hits). */
  async recall(query: string, options: RecallOptions = {}): Promise<RecallHit[]> {
    return (await this.recallDetailed(query, options)).hits;
  }

  /**
   * Ranked notes for a query, with the engine that ran and how many notes it
   * could rank by meaning:
   *
   * - `lexical`: BM25 over every note;
   * - `vector`: cosine similarity over the notes embedded so far;
   * - `hybrid`: reciprocal-rank fusion of the two;
   * - `auto`: hybrid when the embedder is ready and some note is embedded
   *   (the others still rank lexically), else lexical. It never waits for
   *   the model.
   *
   * `vector` and `hybrid` wait for the model to load (not for notes to be
   * embedded) and throw `EmbedderUnavailableError` when embeddings are off
   * or the model cannot be loaded.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { type Embedder, openMemo } from "@memo/memory";
   * // A toy embedder: one dimension per topic word.
   * const words = ["credentials", "key", "lunch"];
   * const embedder: Embedder = {
   *   model: "toy",
   *   dimensions: 3,
   *   embed: (texts) => Promise.resolve(texts.map((t) =>
   *     new Float32Array(words.map((w) => w === "key" ? (/key|credential/.test(t) ? 1 : 0) : t.includes(w) ? 1 : 0))
   *   )),
   * };
   * const dir = await Deno.makeTempDir();
   * const memo = await openMemo({ rootDir: dir, embedder, embedInBackground: false });
   * await memo.remember({ text: "The staging deploy key rotates every 90 days" });
   * await memo.remember({ text: "Lunch is at noon" });
   * await memo.embed();
   * const result = await memo.recallDetailed("when do credentials change", { engine: "vector", limit: 1 });
   * assert.equal(result.engine, "vector");
   * assert.deepEqual(result.coverage, { embedded: 2, total: 2 });
   * assert.equal(result.hits[0].note.title, "The staging deploy key rotates every 90 days");
   * await memo.close();
   * await Deno.remove(dir, { recursive: true });
   * ```
   */
  async recallDetailed(query: string, options: RecallOptions = {}): Promise<RecallResult> {
    if (typeof query !== "string" || query.trim() === "") {
      throw new MemoryValidationError("Cannot recall: query is empty");
    }
    const limit = checkLimit(options.limit ?? DEFAULT_RECALL_LIMIT, "recall");
    const asked = checkEngine(options.engine ?? this.engine);
    const embeddings = this.#embeddings;
    if (asked === "vector" || asked === "hybrid") {
      try {
        await embeddings.load();
      } catch (e) {
        throw withAction(e, `Cannot recall with the ${asked} engine`);
      }
    } else if (asked === "auto" && !embeddings.fusable) {
      await embeddings.fromCache().catch(() => {});
    }
    await this.#sync();
    const engine = asked === "auto" ? (embeddings.fusable ? "hybrid" : "lexical") : asked;
    const key = JSON.stringify([
      query,
      limit,
      engine,
      options.labels ? normalizeLabels(options.labels) : [],
      options.source?.trim() ?? "",
      options.explain === true,
      engine === "lexical" ? 0 : embeddings.version,
    ]);
    const known = this.#answers.get(key);
    if (known) return { ...known, hits: known.hits.slice() };
    const filter = this.#filter(options);
    const byId = filter && ((id: string) => filter(this.#notes.get(id)!));
    const explain = options.explain === true;
    // Fusion looks deeper than the page, so that a note ranked low by one engine and high by
    // the other can still make it.
    const depth = engine === "hybrid" ? Math.max(limit * 5, 50) : limit;
    const lexical = engine === "vector"
      ? []
      : this.#index.search(query, { limit: depth, filter: byId, explain });
    let vector: { id: string; similarity: number }[] = [];
    if (engine !== "lexical") {
      const q = await embeddings.queryVector(query);
      if (q) vector = embeddings.search(q, { limit: depth, filter: byId });
    }
    const hits: RecallHit[] = [];
    if (engine === "lexical") {
      lexical.forEach((hit, i) => {
        const note = this.#notes.get(hit.id);
        if (!note) return;
        const item: RecallHit = { note, score: hit.score, engine, matched: hit.matched };
        if (explain) {
          if (hit.explain) item.explain = hit.explain;
          item.parts = { lexical: { rank: i + 1, score: hit.score } };
          item.highlights = highlightsOf(note, matchedIndexTerms(hit.explain ?? []));
        }
        hits.push(item);
      });
    } else if (engine === "vector") {
      vector.forEach((hit, i) => {
        const note = this.#notes.get(hit.id);
        if (!note) return;
        const item: RecallHit = { note, score: hit.similarity, engine, matched: [] };
        if (explain) {
          item.parts = { vector: { rank: i + 1, similarity: hit.similarity } };
          item.highlights = [];
        }
        hits.push(item);
      });
    } else {
      const lexById = new Map(lexical.map((h) => [h.id, h]));
      const vecById = new Map(vector.map((h) => [h.id, h]));
      const fused = fuseRankings(lexical.map((h) => h.id), vector.map((h) => h.id), this.#fusion);
      for (const f of fused) {
        if (hits.length >= limit) break;
        const note = this.#notes.get(f.id);
        if (!note) continue;
        const lex = lexById.get(f.id);
        const vec = vecById.get(f.id);
        const item: RecallHit = { note, score: f.score, engine, matched: lex?.matched ?? [] };
        if (explain) {
          if (lex?.explain) item.explain = lex.explain;
          item.parts = { fused: f.score };
          if (lex) item.parts.lexical = { rank: f.lexicalRank!, score: lex.score };
          if (vec) item.parts.vector = { rank: f.vectorRank!, similarity: vec.similarity };
          item.highlights = lex ? highlightsOf(note, matchedIndexTerms(lex.explain ?? [])) : [];
        }
        hits.push(item);
      }
    }
    const result: RecallResult = {
      hits,
      engine,
      coverage: embeddings.coverage(this.#notes.size),
    };
    this.#answers.set(key, result);
    return { ...result, hits: hits.slice() };
  }

  /**
   * Embeds every note that has no vector yet, now (notes whose text the
   * on-disk cache already holds are not embedded again). Reports progress
   * after each batch. Throws `EmbedderUnavailableError` when embeddings are
   * off or the model cannot be loaded.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { type Embedder, openMemo } from "@memo/memory";
   * let calls = 0;
   * const embedder: Embedder = {
   *   model: "toy",
   *   dimensions: 2,
   *   embed: (texts) => (calls++, Promise.resolve(texts.map(() => new Float32Array([1, 0])))),
   * };
   * const dir = await Deno.makeTempDir();
   * const memo = await openMemo({ rootDir: dir, embedder, embedInBackground: false });
   * await memo.rememberMany([{ text: "one" }, { text: "two" }]);
   * const seen: string[] = [];
   * const done = await memo.embed({ onProgress: (n, total) => void seen.push(`${n}/${total}`) });
   * assert.deepEqual(done, { embedded: 2, total: 2, computed: 2 });
   * assert.deepEqual(seen, ["0/2", "2/2"]);
   * assert.equal(calls, 1); // one batch
   * await memo.close();
   * await Deno.remove(dir, { recursive: true });
   * ```
   */
  async embed(options: MemoEmbedOptions = {}): Promise<EmbedResult> {
    await this.#sync();
    try {
      return await this.#embeddings.embedAll(options);
    } catch (e) {
      throw withAction(e, "Cannot embed the notes");
    }
  }

  /**
   * The embedder's state and how many notes have a vector (what
   * `stats().embeddings` reports), without catching up with the store.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { openMemo } from "@memo/memory";
   * const dir = await Deno.makeTempDir();
   * const memo = await openMemo({ rootDir: dir, localEmbeddings: false });
   * assert.deepEqual(memo.embeddingStatus(), {
   *   model: "use-lite", ready: false, embedded: 0, total: 0, state: "off",
   * });
   * await memo.close();
   * await Deno.remove(dir, { recursive: true });
   * ```
   */
  embeddingStatus(): EmbeddingStatus {
    return this.#embeddings.status(this.#notes.size);
  }

  /** One note by id; throws `NoteNotFoundError` when the id is unknown. */
  async get(id: string): Promise<Note> {
    await this.#sync();
    const note = this.#notes.get(id);
    if (!note) throw new NoteNotFoundError(String(id));
    return note;
  }

  /**
   * Notes in store order (or, with `order: "newest"`, the reverse), a page at a time, optionally
   * filtered by labels and source.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { openMemo } from "@memo/memory";
   * const dir = await Deno.makeTempDir();
   * const memo = await openMemo({ rootDir: dir });
   * for (const text of ["one", "two", "three"]) await memo.remember({ text });
   * const first = await memo.list({ limit: 2, order: "newest" });
   * assert.deepEqual(first.notes.map((n) => n.body), ["three", "two"]);
   * const rest = await memo.list({ limit: 2, order: "newest", cursor: first.nextCursor });
   * assert.deepEqual(rest.notes.map((n) => n.body), ["one"]);
   * await memo.close();
   * await Deno.remove(dir, { recursive: true });
   * ```
   */
  async list(options: ListOptions = {}): Promise<ListResult> {
    const limit = checkLimit(options.limit ?? 25, "list notes");
    const newest = checkOrder(options.order) === "newest";
    const cursor = options.cursor === undefined
      ? undefined
      : decodeCursor(options.cursor, "list notes");
    await this.#sync();
    const order = this.#ordered();
    const n = order.length;
    // `start` is where the page begins in store order; newest-first walks down from it.
    let start = newest ? n - 1 : 0;
    if (cursor) {
      const at = this.#position.get(cursor.id);
      // A cursor whose note is gone resumes at its position: the notes after it moved down one.
      if (newest) start = at !== undefined ? at - 1 : Math.min(cursor.position - 1, n - 1);
      else start = at !== undefined ? at + 1 : Math.min(cursor.position, n);
    }
    const step = newest ? -1 : 1;
    const filter = this.#filter(options);
    const notes: Note[] = [];
    let total = 0;
    let last = -1;
    for (let i = newest ? n - 1 : 0; newest ? i >= 0 : i < n; i += step) {
      const note = this.#notes.get(order[i])!;
      if (filter && !filter(note)) continue;
      total++;
      if ((newest ? i <= start : i >= start) && notes.length < limit) {
        notes.push(note);
        last = i;
      }
    }
    let more = false;
    if (last >= 0) {
      for (let i = last + step; (newest ? i >= 0 : i < n) && !more; i += step) {
        more = !filter || filter(this.#notes.get(order[i])!);
      }
    }
    const page: ListResult = { notes, total };
    if (more) page.nextCursor = encodeCursor({ id: order[last], position: last });
    return page;
  }

  /** Changes a note's text, title or labels; throws `NoteNotFoundError` when the id is unknown. */
  async update(id: string, patch: NotePatch): Promise<Note> {
    if (patch.text !== undefined && (typeof patch.text !== "string" || patch.text.trim() === "")) {
      throw new MemoryValidationError("Cannot update note: text is empty");
    }
    if (patch.text === undefined && patch.title === undefined && patch.labels === undefined) {
      throw new MemoryValidationError("Cannot update note: nothing to change");
    }
    const clean: NotePatch = { ...patch };
    if (patch.labels !== undefined) clean.labels = normalizeLabels(patch.labels);
    const note = await this.store.update(id, clean);
    if (!note) throw new NoteNotFoundError(String(id));
    await this.#sync();
    return note;
  }

  /** Deletes a note and returns it; throws `NoteNotFoundError` when the id is unknown. */
  async forget(id: string): Promise<Note> {
    const note = await this.get(id);
    if (!(await this.store.remove(id))) throw new NoteNotFoundError(String(id));
    await this.#sync();
    return note;
  }

  /** Counts of notes, labels and sources. */
  async stats(): Promise<MemoStats> {
    await this.#sync();
    const labels: Record<string, number> = {};
    const sources: Record<string, number> = {};
    let lastUpdated: string | undefined;
    for (const note of this.#notes.values()) {
      for (const l of note.labels) labels[l] = (labels[l] ?? 0) + 1;
      const kind = note.source ? note.source.split(":", 1)[0] : "none";
      sources[kind] = (sources[kind] ?? 0) + 1;
      if (!lastUpdated || note.updated > lastUpdated) lastUpdated = note.updated;
    }
    const stats: MemoStats = {
      notes: this.#notes.size,
      labels,
      sources,
      engine: this.#engineStatus(),
      issues: this.store.issues ?? [],
      embeddings: this.embeddingStatus(),
    };
    if (lastUpdated) stats.lastUpdated = lastUpdated;
    return stats;
  }

  /**
   * Calls `onChange` after the notes change: after a write through this client has committed
   * (before the write's promise resolves), and after another process (the `memo` CLI, another
   * server, a connector sync) wrote the same store, noticed by a check every
   * `watchIntervalMs` (250 ms by default) or at this client's next call, whichever comes
   * first. Returns the function that stops the calls; {@linkcode Memo.close} stops them all.
   *
   * - **Cost.** The check runs only while at least one listener is registered; with none
   *   there is no timer and reads and writes track nothing. While it runs, the timer keeps
   *   the process alive.
   * - **Order.** Listeners are called one after the other, in the order they were added.
   *   One that throws does not keep the others (or the client) from going on.
   * - **Baseline.** The first call after `watch` reports what changed since the client last
   *   caught up with its store, which may be a little before `watch` was called.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { type MemoChange, openMemo } from "@memo/memory";
   * const dir = await Deno.makeTempDir();
   * const memo = await openMemo({ rootDir: dir, watchIntervalMs: 50 });
   * const other = await openMemo({ rootDir: dir }); // stands in for another process
   * const changed = Promise.withResolvers<MemoChange>();
   * const stop = memo.watch(changed.resolve);
   * const { note } = await other.remember({ text: "Written elsewhere" });
   * assert.deepEqual(await changed.promise, { created: [note.id], updated: [], removed: [] });
   * stop(); // no check runs any more
   * await other.close();
   * await memo.close();
   * await Deno.remove(dir, { recursive: true });
   * ```
   */
  watch(onChange: (change: MemoChange) => void): () => void {
    if (typeof onChange !== "function") {
      throw new MemoryValidationError("Cannot watch the notes: onChange must be a function");
    }
    return this.#feed.add(onChange);
  }

  /** Stops every {@linkcode Memo.watch} listener and releases the store. */
  async close(): Promise<void> {
    this.#feed.clear();
    await this.#embeddings.close();
    await this.#cacheWrite;
    await this.store.close?.();
  }

  #engineStatus(): MemoStats["engine"] {
    const reason = this.#embeddings.autoLexicalReason;
    if (reason === undefined) return { default: this.engine, auto: "hybrid" };
    return { default: this.engine, auto: "lexical", reason };
  }

  #filter(f: NoteFilter): ((note: Note) => boolean) | undefined {
    const labels = normalizeLabels(f.labels);
    const source = f.source?.trim();
    if (!labels.length && !source) return undefined;
    return (note) =>
      labels.every((l) => note.labels.includes(l)) &&
      (!source || (note.source !== undefined && note.source.startsWith(source)));
  }

  #ordered(): string[] {
    if (!this.#order) {
      this.#order = [...this.#notes.keys()];
      this.#position.clear();
      this.#order.forEach((id, i) => this.#position.set(id, i));
    }
    return this.#order;
  }

  /**
   * Brings the notes and the index up to the store. On a reset, `restore` may fill the index
   * with the first notes (in order) itself; it returns how many (0 when it did not), and the
   * rest are added as usual.
   */
  #sync(restore?: (notes: readonly Note[]) => Promise<number>): Promise<void> {
    // One refresh at a time; callers arriving during a refresh wait for the next one.
    const run = async () => {
      const changes = await this.store.changesSince(this.#token);
      // What changed is worked out only while someone watches.
      const tally = this.#feed.active ? new ChangeTally() : undefined;
      let before: Map<string, Note> | undefined;
      if (changes.reset) {
        if (tally) {
          before = this.#notes;
          this.#notes = new Map();
        } else this.#notes.clear();
        this.#index.clear();
        this.#embeddings.clear();
      }
      for (const id of changes.removed) {
        // An id the client never held (added and removed since the last catch-up) is no news.
        if (tally && this.#notes.has(id)) tally.removed.push(id);
        this.#notes.delete(id);
        this.#index.remove(id);
        this.#embeddings.remove(id);
      }
      const restored = restore !== undefined && changes.reset && changes.removed.length === 0
        ? await restore(changes.upserted)
        : 0;
      const upserted = changes.upserted;
      for (let i = 0; i < upserted.length; i++) {
        const note = upserted[i];
        tally?.upserted(note, (before ?? this.#notes).get(note.id));
        this.#notes.set(note.id, note);
        if (i >= restored) this.#index.add(note);
        this.#embeddings.upsert(note);
      }
      if (before) {
        for (const id of before.keys()) if (!this.#notes.has(id)) tally!.removed.push(id);
      }
      if (changes.reset || changes.removed.length || changes.upserted.length) {
        this.#order = undefined;
        this.#answers.clear();
      }
      this.#token = changes.token;
      const change = tally?.change();
      if (change) this.#feed.emit(change);
    };
    // Callers arriving while a refresh waits to start share it: it has not read the store yet,
    // so it sees everything they expect. A restoring refresh (load) is never shared.
    if (restore === undefined && this.#queued) return this.#queued;
    const start = () => {
      if (this.#queued === next) this.#queued = undefined;
      return run();
    };
    const next: Promise<void> = (this.#syncing ?? Promise.resolve()).then(start, start);
    if (restore === undefined) this.#queued = next;
    this.#syncing = next.catch(() => {});
    return next;
  }
}

function checkLimit(limit: number, action: string): number {
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_MEMO_LIMIT) {
    throw new MemoryValidationError(
      `Cannot ${action}: limit must be an integer from 1 to ${MAX_MEMO_LIMIT}`,
    );
  }
  return limit;
}

function checkOrder(order: unknown): "oldest" | "newest" {
  if (order === undefined || order === "oldest" || order === "newest") return order ?? "oldest";
  throw new MemoryValidationError('Cannot list notes: order must be "oldest" or "newest"');
}

/** The error with `action` in front of its message ("Cannot recall with the vector engine: …"). */
function withAction(e: unknown, action: string): unknown {
  if (!(e instanceof EmbedderUnavailableError)) return e;
  return new EmbedderUnavailableError(`${action}: ${e.message}`, { cause: e });
}

function checkFusion(fusion: FusionOptions): FusionOptions {
  const ok = (n: number) => typeof n === "number" && Number.isFinite(n) && n >= 0;
  if (!ok(fusion.k) || !ok(fusion.lexicalWeight) || !ok(fusion.vectorWeight)) {
    throw new MemoryValidationError(
      "Cannot open memory: fusion.k, fusion.lexicalWeight and fusion.vectorWeight must be numbers of at least 0",
    );
  }
  return fusion;
}

function checkEngine(engine: string): RecallEngine {
  if (!(RECALL_ENGINES as readonly string[]).includes(engine)) {
    throw new MemoryValidationError(
      `Cannot recall: engine must be one of ${RECALL_ENGINES.join(", ")}`,
    );
  }
  return engine as RecallEngine;
}
