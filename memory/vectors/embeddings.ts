/**
 * Internal: a `Memo`'s embeddings, once they are needed (`lazy_embeddings.ts` loads this file
 * then). It loads the embedder (a lease on the process-wide model, or the given one), embeds
 * the notes of its {@linkcode EmbeddingBacklog} in the background (in batches, never on a
 * write's path), keeps their vectors in the on-disk cache, and reports coverage.
 *
 * @module
 */

import type { Note } from "../notes/note.ts";
import {
  DEFAULT_EMBEDDING_MODEL,
  type Embedder,
  type EmbedderLoader,
  type ModelProgress,
} from "../embed/types.ts";
import { EmbedderUnavailableError } from "../errors.ts";
import type { VectorHit, VectorSearchOptions } from "../recall/vector/vector.ts";
import { EmbeddingCache } from "./cache.ts";
import { embeddingCacheFile } from "./cache_format.ts";
import { memoPaths } from "../store/paths.ts";
import { leaseSharedEmbedder, type SharedEmbedderLease } from "./_shared_embedder.ts";
import { EmbeddingBacklog } from "./_backlog.ts";
import { AUTO_LEXICAL_MODELS, autoEngineOf } from "./auto_engine.ts";
import { stat } from "node:fs/promises";
import { setTimeout as timer } from "node:timers";
import type { EmbeddingStatus, EmbedResult, MemoEmbedOptions } from "./embed_types.ts";
import type { MemoEmbeddings } from "./seam.ts";

/** Settings of {@linkcode Embeddings}. */
export interface EmbeddingsOptions {
  /** Model name (`use-lite` or a hub id); the cache is kept per model. */
  model?: string;
  /** Embed at all (false: every vector engine refuses, `auto` is lexical). */
  enabled: boolean;
  /** An embedder, or its loader, to use instead of loading `model`. */
  embedder?: Embedder | EmbedderLoader;
  onModelProgress?: (progress: ModelProgress) => void;
  /** Load the embedder and embed new notes in the background. */
  background: boolean;
  /**
   * Project root of the on-disk cache of the project's notes (`<cacheRoot>/.memo/cache/`); none
   * keeps their vectors in memory only.
   * @default none
   */
  cacheRoot?: string;
  /**
   * The cache folder of each other scope whose notes the client holds (`.memo/cache/local/`,
   * `$MEMO_HOME/cache/`): a note's vector is kept in its own scope's cache. A scope left out
   * keeps its notes' vectors in memory only.
   * @default none
   */
  scopeCaches?: Partial<Record<"local" | "user", string>>;
  /** Notes per embedding batch. */
  batchSize?: number;
}

const QUERY_CACHE = 64;

/** A note's scope (`project` when it carries none). */
type Scope = NonNullable<Note["scope"]>;

/**
 * The embedding side of one memory client.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Embeddings } from "./embeddings.ts";
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
  #backlog = new EmbeddingBacklog();
  /** Each scope's on-disk cache, once looked at (undefined: the scope has none). */
  #caches = new Map<Scope, EmbeddingCache | undefined>();
  #loop: Promise<void> | undefined;
  #kick: ReturnType<typeof timer> | undefined;
  #closed = false;
  #abort = new AbortController();
  #queries = new Map<string, Float32Array>();
  #looking: Promise<void> = Promise.resolve();
  /** Whether this client loaded its embedder itself (then it closes it). */
  #owned = false;
  /** This client's hold on the process-wide model (released when it closes). */
  #lease: SharedEmbedderLease | undefined;

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

  get version(): number {
    return this.#backlog.version;
  }

  /**
   * Whether `auto` fuses now: the model is one `auto` fuses with, the embedder is ready and
   * at least one note has a vector.
   */
  get fusable(): boolean {
    return this.autoFuses && this.#state === "ready" && this.#backlog.embedded > 0;
  }

  /** Whether `auto` fuses with this model at all (see {@linkcode AUTO_LEXICAL_MODELS}). */
  get autoFuses(): boolean {
    return !AUTO_LEXICAL_MODELS.has(this.model);
  }

  get autoLexicalReason(): string | undefined {
    if (this.fusable) return undefined;
    if (this.#state === "off") return "local embeddings are off";
    if (!this.autoFuses) return autoEngineOf({ embeddingModel: this.model }).reason;
    if (this.#state === "failed") return `the model failed: ${this.#error}`;
    if (this.#state !== "ready") return "the embedder is not loaded yet";
    return "no note is embedded yet";
  }

  /** A note was added or changed: it needs a vector (unless its text is unchanged). */
  upsert(note: Note): void {
    if (this.#state === "off") return;
    if (this.#backlog.upsert(note)) this.#schedule();
  }

  /** Takes the client's notes at once (when the embedding side starts after the open). */
  seed(notes: Iterable<Note>): void {
    if (this.#state === "off") return;
    this.#backlog.seed(notes);
    this.#schedule();
  }

  remove(id: string): void {
    this.#backlog.remove(id);
  }

  clear(): void {
    this.#backlog.clear();
  }

  coverage(total: number): { embedded: number; total: number } {
    return { embedded: this.#backlog.embedded, total };
  }

  status(total: number): EmbeddingStatus {
    const status: EmbeddingStatus = {
      model: this.model,
      ready: this.#state === "ready",
      embedded: this.#backlog.embedded,
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
    if (this.#closed) {
      return Promise.reject(new EmbedderUnavailableError("the memory client is closed"));
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
      } else {
        this.#lease = leaseSharedEmbedder(this.model, this.#options.onModelProgress);
        embedder = await this.#lease.embedder;
      }
      if (this.#closed) {
        if (this.#owned) await embedder.close?.();
        throw new EmbedderUnavailableError("the memory client is closed");
      }
      this.#backlog.attach(embedder.dimensions);
      this.#embedder = embedder;
      this.#state = "ready";
      this.#error = undefined;
      return embedder;
    } catch (e) {
      const message = e instanceof Error ? e.message : String(e);
      this.#state = "failed";
      this.#error = message;
      this.#loading = undefined;
      // A lease whose load failed holds nothing; the next load takes a new one.
      const lease = this.#lease;
      this.#lease = undefined;
      await lease?.release();
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

  search(query: Float32Array, options: VectorSearchOptions): VectorHit[] {
    return this.#backlog.search(query, options);
  }

  /**
   * Picks up what the on-disk cache holds for the current notes without
   * embedding anything (the CLI's `auto`): true when some note has a vector.
   */
  async fromCache(): Promise<boolean> {
    if (this.#options.background || this.#state === "off" || !this.autoFuses) return this.fusable;
    if (!this.#backlog.pending) return this.fusable;
    let held = false;
    for (const scope of this.#backlog.scopes()) {
      const dir = this.#cacheDir(scope);
      if (dir === undefined) continue;
      const file = embeddingCacheFile(dir, this.model);
      if ((held = await stat(file).then((s) => s.size > 0, () => false))) break;
    }
    if (!held) return this.fusable;
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
    const backlog = this.#backlog;
    const report = () => options.onProgress?.(backlog.embedded, backlog.total);
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
      if (!backlog.pending) break;
    }
    return { ...this.coverage(backlog.total), computed };
  }

  /**
   * Stops the background work and frees what this client holds: the embedder it loaded, its
   * lease on the shared model (the last one closes it), and the on-disk cache (after any look
   * into it that was under way).
   */
  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#kick);
    this.#kick = undefined;
    this.#abort.abort();
    // Released first: the last lease of a model still loading aborts the load.
    const released = this.#lease?.release();
    await this.#loop?.catch(() => {});
    await this.#loading?.catch(() => {});
    await this.#looking;
    if (this.#owned) await this.#embedder?.close?.();
    await released;
    const caches = [...this.#caches.values()];
    this.#caches.clear();
    for (const cache of caches) await cache?.close();
  }

  #schedule(): void {
    if (!this.#options.background || this.#closed || this.#kick !== undefined) return;
    if (this.#state === "failed" || this.#state === "off") return;
    // The timer alone does not keep the process alive (the work it starts does).
    this.#kick = timer(() => {
      this.#kick = undefined;
      if (this.#loop || this.#closed) return; // the running loop picks the new notes up
      this.#loop = this.#background().finally(() => {
        this.#loop = undefined;
        if (this.#backlog.pending && !this.#closed && this.#state === "ready") this.#schedule();
      });
    }, 0).unref();
  }

  /** The background loop: batches until nothing is pending; errors end up in the status. */
  async #background(): Promise<void> {
    try {
      await this.load();
      while (this.#backlog.pending && !this.#closed) {
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

  /** Takes what the on-disk cache holds for the waiting notes (one look at a time). */
  #fromCache(): Promise<void> {
    // One at a time: the cache is read from where the last look stopped.
    const run = this.#looking.then(() => this.#lookInCache());
    this.#looking = run.catch(() => {});
    return run;
  }

  async #lookInCache(): Promise<void> {
    const scopes = this.#backlog.scopes();
    for (const scope of scopes) {
      if (this.#caches.has(scope) || this.#closed) continue;
      const dir = this.#cacheDir(scope);
      this.#caches.set(scope, undefined);
      if (dir === undefined) continue;
      const opening = EmbeddingCache.openIn(dir, this.model, this.#embedder!.dimensions);
      // Another scope's folder that cannot hold a cache (a read-only $MEMO_HOME) keeps its
      // notes' vectors in memory; the project's cache failing fails as it always did.
      this.#caches.set(
        scope,
        scope === "project" ? await opening : await opening.catch(() => undefined),
      );
    }
    if (this.#closed) return; // close() waits for this look, then closes the caches
    if (scopes.length === 1) {
      await this.#backlog.lookInCache(scopes[0], this.#caches.get(scopes[0]));
      return;
    }
    for (const scope of scopes) {
      const others: EmbeddingCache[] = [];
      for (const [other, cache] of this.#caches) if (other !== scope && cache) others.push(cache);
      await this.#backlog.lookInCache(scope, this.#caches.get(scope), others);
    }
  }

  /** The cache folder of a scope's vectors, or undefined when they stay in memory. */
  #cacheDir(scope: Scope): string | undefined {
    if (scope === "project") {
      const root = this.#options.cacheRoot;
      return root === undefined ? undefined : memoPaths(root).cache;
    }
    return this.#options.scopeCaches?.[scope];
  }

  /**
   * One step: vectors the cache already holds (from this or another process), then one batch
   * through the model. Returns how many texts the model embedded.
   */
  async #batch(): Promise<number> {
    await this.#fromCache();
    const { keys, texts, scopes } = this.#backlog.nextBatch(this.#options.batchSize ?? 32);
    if (texts.length === 0) return 0;
    const vectors = await this.#embedder!.embed(texts, { signal: this.#abort.signal });
    if (this.#closed) return 0;
    // Each vector goes to the cache of every scope that waits on its text.
    const puts = new Map<Scope, { key: string; vector: Float32Array }[]>();
    keys.forEach((key, i) => {
      for (const scope of scopes[i]) {
        const list = puts.get(scope);
        if (list) list.push({ key, vector: vectors[i] });
        else puts.set(scope, [{ key, vector: vectors[i] }]);
      }
    });
    for (const [scope, entries] of puts) await this.#caches.get(scope)?.put(entries);
    // A note changed or removed while its batch ran is no longer waiting on its old key.
    keys.forEach((key, i) => this.#backlog.take(key, vectors[i]));
    return texts.length;
  }
}
