/**
 * Internal: a `Memo`'s embeddings. It loads the embedder, embeds notes in the
 * background (in batches, never on a write's path), keeps their vectors in a
 * {@linkcode VectorIndex} and in the on-disk cache, and reports coverage.
 *
 * @module
 */

import type { Note } from "./note.ts";
import {
  DEFAULT_EMBEDDING_MODEL,
  type Embedder,
  type EmbedderLoader,
  embeddingKey,
  embeddingText,
  type ModelProgress,
} from "./embed/types.ts";
import { EmbedderUnavailableError } from "./errors.ts";
import { type VectorHit, VectorIndex, type VectorSearchOptions } from "./recall/vector.ts";
import { EmbeddingCache } from "./_embedding_cache.ts";
import { embeddingCachePath } from "./_embedding_cache_format.ts";
import { sharedEmbedder } from "./_shared_embedder.ts";
import { stat } from "node:fs/promises";
import { setTimeout as timer } from "node:timers";
import type { EmbeddingStatus, EmbedResult, MemoEmbedOptions } from "./memo_types.ts";
import type { MemoEmbeddings } from "./_embedding_seam.ts";

/**
 * Models with which `auto` stays lexical. On the LoCoMo dev split, hybrid recall with `use-lite`
 * did not beat lexical recall by the 0.03 (R@10 and nDCG@10) memo asks of it before making it
 * the default (bench/README.md, "Semantic recall"); `vector` and `hybrid` still use it when
 * asked by name. Hub models and injected embedders fuse.
 */
export const AUTO_LEXICAL_MODELS: ReadonlySet<string> = new Set(["use-lite"]);

/** Settings of {@linkcode Embeddings}. */
export interface EmbeddingsOptions {
  /** Model name (`use-lite` or a hub id); the cache is kept per model. */
  model?: string;
  /** Embed at all (false: every vector engine refuses, `auto` is lexical). */
  enabled: boolean;
  /** An embedder, or its loader, to use instead of loading `model`. */
  embedder?: Embedder | EmbedderLoader;
  /** Load progress of the model. */
  onModelProgress?: (progress: ModelProgress) => void;
  /** Load the embedder and embed new notes in the background. */
  background: boolean;
  /** Project root of the on-disk cache; none keeps vectors in memory only. */
  cacheRoot?: string;
  /** Notes per embedding batch. */
  batchSize?: number;
}

const QUERY_CACHE = 64;
/**
 * How long after the client opens the background work starts: the first requests (and short-lived
 * clients) go first, and a client closed sooner never loads the model.
 */
const START_DELAY_MS = 500;

/**
 * The embedding side of one memory client.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Embeddings } from "./_embeddings.ts";
 * const embedder = {
 *   model: "toy",
 *   dimensions: 2,
 *   embed: (texts: readonly string[]) =>
 *     Promise.resolve(texts.map((t) => new Float32Array(t.includes("deploy") ? [1, 0] : [0, 1]))),
 * };
 * const e = new Embeddings({ enabled: true, embedder, background: false });
 * const note = { id: "a", title: "Deploys", body: "deploy on Fridays", labels: [], hash: "", created: "", updated: "" };
 * e.upsert(note);
 * assert.deepEqual(e.coverage(1), { embedded: 0, total: 1 });
 * await e.embedAll();
 * assert.deepEqual(e.coverage(1), { embedded: 1, total: 1 });
 * const query = await e.queryVector("deploy");
 * assert.equal(e.search(query!, { limit: 1 })[0].id, "a");
 * await e.close();
 * ```
 */
export class Embeddings implements MemoEmbeddings {
  readonly model: string;
  #options: EmbeddingsOptions;
  #state: EmbeddingStatus["state"];
  #error: string | undefined;
  #embedder: Embedder | undefined;
  #loading: Promise<Embedder> | undefined;
  #index: VectorIndex | undefined;
  #cache: EmbeddingCache | undefined;
  #cacheOpened = false;
  /** Every note, by id (latest version). */
  #notes = new Map<string, Note>();
  /** Key (hash of the embedded text) of each note whose key is computed. */
  #keys = new Map<string, string>();
  /** Notes without a vector whose key is not computed yet. */
  #unkeyed = new Set<string>();
  /** Notes without a vector, by key. */
  #waiting = new Map<string, Set<string>>();
  /** Waiting keys the cache holds but has already read past (read them by key). */
  #known = new Set<string>();
  #loop: Promise<void> | undefined;
  #kick: ReturnType<typeof timer> | undefined;
  #closed = false;
  #abort = new AbortController();
  #queries = new Map<string, Float32Array>();
  #looking: Promise<void> = Promise.resolve();
  /** Whether this client loaded its embedder itself (then it closes it). */
  #owned = false;
  #version = 0;

  constructor(options: EmbeddingsOptions) {
    this.#options = options;
    this.model = options.embedder && typeof options.embedder !== "function"
      ? options.embedder.model
      : options.model ?? DEFAULT_EMBEDDING_MODEL;
    this.#state = options.enabled || options.embedder ? "idle" : "off";
  }

  /** Whether anything can be embedded at all. */
  get enabled(): boolean {
    return this.#state !== "off";
  }

  /** Changes whenever the set of vectors changes (for answer caches). */
  get version(): number {
    return this.#version;
  }

  /**
   * Whether `auto` fuses now: the model is one `auto` fuses with, the embedder is ready and
   * at least one note has a vector.
   */
  get fusable(): boolean {
    return this.autoFuses && this.#state === "ready" && (this.#index?.size ?? 0) > 0;
  }

  /** Whether `auto` fuses with this model at all (see {@linkcode AUTO_LEXICAL_MODELS}). */
  get autoFuses(): boolean {
    return !AUTO_LEXICAL_MODELS.has(this.model);
  }

  /** Why `auto` is lexical now, or undefined when it fuses. */
  get autoLexicalReason(): string | undefined {
    if (this.fusable) return undefined;
    if (this.#state === "off") return "local embeddings are off";
    if (!this.autoFuses) {
      return `hybrid recall with ${this.model} did not beat lexical recall on the LoCoMo dev ` +
        "split (bench/README.md), so auto stays lexical; ask for vector or hybrid by name";
    }
    if (this.#state === "failed") return `the model failed: ${this.#error}`;
    if (this.#state !== "ready") return "the embedder is not loaded yet";
    return "no note is embedded yet";
  }

  /** A note was added or changed: it needs a vector (unless its text is unchanged). */
  upsert(note: Note): void {
    if (this.#state === "off") return;
    const before = this.#notes.get(note.id);
    this.#notes.set(note.id, note);
    if (before && before.title === note.title && before.body === note.body) return;
    if (before) this.#forget(note.id);
    this.#unkeyed.add(note.id);
    this.#schedule();
  }

  /** A note is gone. */
  remove(id: string): void {
    if (!this.#notes.delete(id)) return;
    this.#forget(id);
  }

  /** Every note is gone (the store was reset). */
  clear(): void {
    this.#notes.clear();
    this.#keys.clear();
    this.#unkeyed.clear();
    this.#waiting.clear();
    this.#known.clear();
    if (this.#index?.size) this.#version++;
    this.#index?.clear();
  }

  /** Drops what is known of a note's old text: its key, its place in the queues, its vector. */
  #forget(id: string): void {
    this.#unkeyed.delete(id);
    const key = this.#keys.get(id);
    if (key !== undefined) {
      this.#keys.delete(id);
      const ids = this.#waiting.get(key);
      if (ids?.delete(id) && ids.size === 0) {
        this.#waiting.delete(key);
        this.#known.delete(key);
      }
    }
    if (this.#index?.has(id)) {
      this.#index.remove(id);
      this.#version++;
    }
  }

  /** Whether some note still has no vector. */
  get #pending(): boolean {
    return this.#unkeyed.size > 0 || this.#waiting.size > 0;
  }

  /** Notes with a vector, of all `total` notes. */
  coverage(total: number): { embedded: number; total: number } {
    return { embedded: this.#index?.size ?? 0, total };
  }

  /** The state `memory_stats` reports. */
  status(total: number): EmbeddingStatus {
    const status: EmbeddingStatus = {
      model: this.model,
      ready: this.#state === "ready",
      embedded: this.#index?.size ?? 0,
      total,
      state: this.#state,
    };
    if (this.#error !== undefined) status.error = this.#error;
    return status;
  }

  /** Starts loading the embedder and embedding in the background (when so configured). */
  start(): void {
    if (this.#options.background && this.#state !== "off") this.#schedule();
  }

  /**
   * The embedder, loading it once. Throws `EmbedderUnavailableError` when
   * embeddings are off or the model cannot be loaded.
   */
  load(): Promise<Embedder> {
    if (this.#embedder) return Promise.resolve(this.#embedder);
    if (this.#state === "off") {
      return Promise.reject(
        new EmbedderUnavailableError("local embeddings are off (recall.localEmbeddings is false)"),
      );
    }
    if (this.#state === "failed") {
      return Promise.reject(new EmbedderUnavailableError(this.#error ?? "the model failed"));
    }
    return this.#loading ??= this.#startLoading();
  }

  async #startLoading(): Promise<Embedder> {
    this.#state = "loading";
    const given = this.#options.embedder;
    try {
      let embedder: Embedder;
      if (given && typeof given !== "function") embedder = given;
      else if (given) {
        embedder = await given({
          onProgress: this.#options.onModelProgress,
          signal: this.#abort.signal,
        });
        this.#owned = true;
      } else embedder = await sharedEmbedder(this.model, this.#options.onModelProgress);
      if (this.#closed) {
        if (this.#owned) await embedder.close?.();
        throw new EmbedderUnavailableError("the memory client is closed");
      }
      this.#index = new VectorIndex(embedder.dimensions);
      this.#embedder = embedder;
      this.#state = "ready";
      this.#error = undefined;
      return embedder;
    } catch (e) {
      const message = e instanceof Error ? e.message : String(e);
      this.#state = "failed";
      this.#error = message;
      this.#loading = undefined;
      throw e instanceof EmbedderUnavailableError ? e : new EmbedderUnavailableError(message);
    }
  }

  /**
   * The query's vector (embedded once, then remembered), or `undefined` when
   * no embedder is ready and `wait` is false.
   */
  async queryVector(query: string, wait = true): Promise<Float32Array | undefined> {
    const known = this.#queries.get(query);
    if (known) return known;
    if (!this.#embedder && !wait) return undefined;
    const embedder = await this.load();
    const [vector] = await embedder.embed([query.slice(0, 1000)]);
    this.#queries.set(query, vector);
    if (this.#queries.size > QUERY_CACHE) {
      this.#queries.delete(this.#queries.keys().next().value!);
    }
    return vector;
  }

  /** Cosine top-k over the embedded notes. */
  search(query: Float32Array, options: VectorSearchOptions): VectorHit[] {
    return this.#index?.search(query, options) ?? [];
  }

  /**
   * Picks up what the on-disk cache holds for the current notes without
   * embedding anything (the CLI's `auto`): true when some note has a vector.
   */
  async fromCache(): Promise<boolean> {
    if (this.#options.background || this.#state === "off" || !this.autoFuses) return this.fusable;
    if (!this.#options.cacheRoot || !this.#pending) return this.fusable;
    const file = embeddingCachePath(this.#options.cacheRoot, this.model);
    if (!(await stat(file).then((s) => s.size > 0, () => false))) return this.fusable;
    await this.load();
    await this.#fromCache();
    return this.fusable;
  }

  /**
   * Embeds every note that has no vector yet, now. Reports progress after
   * each batch; returns the coverage and how many vectors the model computed.
   */
  async embedAll(options: MemoEmbedOptions = {}): Promise<EmbedResult> {
    await this.load();
    let computed = 0;
    const report = () => options.onProgress?.(this.#index!.size, this.#notes.size);
    report();
    while (true) {
      options.signal?.throwIfAborted();
      // One batch at a time; the background loop, if running, shares the work.
      if (this.#loop) {
        await this.#loop;
        report();
        continue;
      }
      const run = this.#batch();
      this.#loop = run.then(() => {}, () => {});
      let done: number;
      try {
        done = await run;
      } finally {
        this.#loop = undefined;
      }
      computed += done;
      report();
      if (!this.#pending) break;
    }
    return { ...this.coverage(this.#notes.size), computed };
  }

  /** Stops the background work and frees the model. */
  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#kick);
    this.#abort.abort();
    await this.#loop?.catch(() => {});
    await this.#loading?.catch(() => {});
    if (this.#owned) await this.#embedder?.close?.();
    await this.#cache?.close();
  }

  #schedule(): void {
    if (!this.#options.background || this.#closed || this.#kick !== undefined) return;
    if (this.#state === "failed" || this.#state === "off") return;
    const delay = this.#state === "idle" ? START_DELAY_MS : 0;
    // The timer alone does not keep the process alive (the work it starts does).
    this.#kick = timer(() => {
      this.#kick = undefined;
      if (this.#loop) return; // the running loop picks the new notes up
      this.#loop = this.#background().finally(() => {
        this.#loop = undefined;
        if (this.#pending && !this.#closed && this.#state === "ready") this.#schedule();
      });
    }, delay).unref();
  }

  /** The background loop: batches until nothing is pending; errors end up in the status. */
  async #background(): Promise<void> {
    try {
      await this.load();
      while (this.#pending && !this.#closed) {
        await this.#batch();
        // Let reads and writes through between batches.
        await new Promise((r) => setTimeout(r, 0));
      }
    } catch (e) {
      if (this.#closed) return;
      if (this.#state !== "failed") {
        this.#state = "failed";
        this.#error = e instanceof Error ? e.message : String(e);
      }
    }
  }

  /**
   * Keys every note that has none (in chunks, letting other work through),
   * then takes every vector the cache holds for a waiting note: the records
   * appended since the last look (by this or another process), and by key
   * those it had read past before the note was keyed.
   */
  #fromCache(): Promise<void> {
    // One at a time: the cache is read from where the last look stopped.
    const run = this.#looking.then(() => this.#lookInCache());
    this.#looking = run.catch(() => {});
    return run;
  }

  async #lookInCache(): Promise<void> {
    const root = this.#options.cacheRoot;
    if (root && !this.#cacheOpened) {
      this.#cacheOpened = true;
      this.#cache = await EmbeddingCache.open(root, this.model, this.#embedder!.dimensions);
    }
    let n = 0;
    for (const id of this.#unkeyed) {
      this.#unkeyed.delete(id);
      const key = this.#keyOf(id);
      const ids = this.#waiting.get(key);
      if (ids) ids.add(id);
      else this.#waiting.set(key, new Set([id]));
      if (this.#cache?.has(key)) this.#known.add(key);
      if (++n % 1000 === 0) await new Promise((r) => setTimeout(r, 0));
    }
    const cache = this.#cache;
    if (!cache) return;
    await cache.refresh((key, vector) => this.#take(key, vector));
    for (const key of this.#known) {
      const vector = await cache.read(key);
      if (vector) this.#take(key, vector);
      else this.#known.delete(key);
    }
  }

  #keyOf(id: string): string {
    let key = this.#keys.get(id);
    if (key === undefined) {
      key = embeddingKey(embeddingText(this.#notes.get(id)!));
      this.#keys.set(id, key);
    }
    return key;
  }

  /** Gives every note waiting on `key` its vector. */
  #take(key: string, vector: Float32Array): void {
    const ids = this.#waiting.get(key);
    if (!ids) return;
    this.#waiting.delete(key);
    this.#known.delete(key);
    for (const id of ids) this.#index!.set(id, vector);
    this.#version++;
  }

  /**
   * One step: vectors the cache already holds (from this or another
   * process), then one batch through the model. Returns how many texts the
   * model embedded.
   */
  async #batch(): Promise<number> {
    await this.#fromCache();
    if (this.#waiting.size === 0) return 0;
    const size = this.#options.batchSize ?? 32;
    const keys: string[] = [];
    const texts: string[] = [];
    for (const [key, ids] of this.#waiting) {
      if (this.#known.has(key)) continue;
      keys.push(key);
      texts.push(embeddingText(this.#notes.get(ids.values().next().value!)!));
      if (texts.length >= size) break;
    }
    if (texts.length === 0) return 0;
    const vectors = await this.#embedder!.embed(texts, { signal: this.#abort.signal });
    if (this.#closed) return 0;
    await this.#cache?.put(keys.map((key, i) => ({ key, vector: vectors[i] })));
    // A note changed or removed while its batch ran is no longer waiting on its old key.
    keys.forEach((key, i) => this.#take(key, vectors[i]));
    return texts.length;
  }
}
