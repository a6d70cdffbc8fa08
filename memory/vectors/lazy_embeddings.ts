/**
 * Internal: the embedding side a `Memo` client starts with. It answers what the client asks
 * before anything is embedded (the status, whether `auto` fuses, why not) without the embedding
 * code, and imports `embeddings.ts` only when vectors are needed (see
 * `MemoOptions.embedInBackground`); until then a note change costs one check.
 *
 * @module
 */

import type { Note } from "../notes/note.ts";
import type { Embedder } from "../embed/types.ts";
import type { RecallEngine } from "../recall/types.ts";
import type { VectorHit, VectorSearchOptions } from "../recall/vector/vector.ts";
import { EmbedderUnavailableError } from "../errors.ts";
import { type AutoEngine, autoEngineOf } from "./auto_engine.ts";
import { setTimeout as timer } from "node:timers";
import type { EmbeddingStatus, EmbedResult, MemoEmbedOptions } from "./embed_types.ts";
import type { MemoEmbeddings } from "./seam.ts";
import type { Embeddings, EmbeddingsOptions } from "./embeddings.ts";

/**
 * How long after the client opens the background work starts: the first requests (and
 * short-lived clients) go first, and a client closed sooner never loads the embedding code.
 */
const START_DELAY_MS = 500;

/** Settings of {@linkcode LazyEmbeddings}: the real side's, and what decides when it starts. */
export interface LazyEmbeddingsOptions extends EmbeddingsOptions {
  /** The client's default engine: background embedding runs only when it uses vectors. */
  engine: RecallEngine;
  /** The client's notes now (the real side takes them all when it starts). */
  notes: () => Iterable<Note>;
}

/**
 * The embedding side of one memory client, which loads its code when vectors are needed.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { LazyEmbeddings } from "./lazy_embeddings.ts";
 * const note = { id: "a", title: "Deploys", body: "deploy on Fridays", labels: [], hash: "", created: "", updated: "" };
 * const embedder = {
 *   model: "toy",
 *   dimensions: 2,
 *   embed: (texts: readonly string[]) => Promise.resolve(texts.map(() => new Float32Array([1, 0]))),
 * };
 * // use-lite with auto: nothing to load, and the status says why.
 * const lite = new LazyEmbeddings({ enabled: true, background: true, engine: "auto", notes: () => [note] });
 * lite.start(); // schedules nothing
 * assert.equal(lite.status(1).state, "idle");
 * assert.match(lite.status(1).reason ?? "", /^auto uses lexical with use-lite/);
 * await lite.close();
 * // An explicit load imports the embedding code and hands it every note.
 * const toy = new LazyEmbeddings({ enabled: true, embedder, background: false, engine: "auto", notes: () => [note] });
 * await toy.load();
 * assert.deepEqual(await toy.embedAll(), { embedded: 1, total: 1, computed: 1 });
 * await toy.close();
 * ```
 */
export class LazyEmbeddings implements MemoEmbeddings {
  readonly #options: LazyEmbeddingsOptions;
  readonly #auto: AutoEngine;
  readonly #enabled: boolean;
  #real: Embeddings | undefined;
  #starting: Promise<Embeddings> | undefined;
  #kick: ReturnType<typeof timer> | undefined;
  #closed = false;

  constructor(options: LazyEmbeddingsOptions) {
    this.#options = options;
    this.#enabled = options.enabled || options.embedder !== undefined;
    this.#auto = autoEngineOf({
      embeddingModel: options.model,
      localEmbeddings: options.enabled,
      embedder: options.embedder,
    });
  }

  get model(): string {
    return this.#auto.model;
  }

  get fusable(): boolean {
    return this.#real?.fusable ?? false;
  }

  get version(): number {
    return this.#real?.version ?? 0;
  }

  get autoLexicalReason(): string | undefined {
    if (this.#real) return this.#real.autoLexicalReason;
    return this.#auto.reason ?? "the embedder is not loaded yet";
  }

  /** Whether the default engine uses vectors (so the background work is worth its cost). */
  get #engineUsesVectors(): boolean {
    const engine = this.#options.engine;
    return engine === "vector" || engine === "hybrid" ||
      (engine === "auto" && this.#auto.engine === "hybrid");
  }

  upsert(note: Note): void {
    this.#real?.upsert(note);
  }

  remove(id: string): void {
    this.#real?.remove(id);
  }

  clear(): void {
    this.#real?.clear();
  }

  /**
   * Starts the background work shortly after the open, when it is on and the default engine
   * uses vectors; otherwise nothing (a `vector` or `hybrid` recall starts it later).
   */
  start(): void {
    if (!this.#options.background || !this.#enabled || !this.#engineUsesVectors) return;
    if (this.#closed || this.#real || this.#kick !== undefined) return;
    // The timer alone does not keep the process alive.
    this.#kick = timer(() => {
      this.#kick = undefined;
      this.#begin().then((real) => real.start(), () => {});
    }, START_DELAY_MS).unref();
  }

  /**
   * The embedder, loading it (and the embedding code) once; background embedding follows when
   * it is on. Rejects with `EmbedderUnavailableError`.
   */
  async load(): Promise<Embedder> {
    if (!this.#enabled) throw offError();
    const real = await this.#begin();
    real.start();
    return await real.load();
  }

  /** The query's vector; `undefined` when nothing is loaded and `wait` is false. */
  async queryVector(query: string, wait = true): Promise<Float32Array | undefined> {
    if (!this.#real) {
      if (!wait) return undefined;
      await this.load();
    }
    return await this.#real!.queryVector(query, wait);
  }

  /** Cosine top-k over the embedded notes (none before the embedding code is loaded). */
  search(query: Float32Array, options: VectorSearchOptions): VectorHit[] {
    return this.#real?.search(query, options) ?? [];
  }

  /**
   * What the on-disk cache holds, without embedding (the CLI's `auto`): only with a model
   * `auto` fuses with and no background work.
   */
  async fromCache(): Promise<boolean> {
    if (!this.#real) {
      if (this.#options.background || !this.#enabled || this.#auto.engine === "lexical") {
        return false;
      }
    }
    return await (await this.#begin()).fromCache();
  }

  coverage(total: number): { embedded: number; total: number } {
    return this.#real?.coverage(total) ?? { embedded: 0, total };
  }

  /** The state `memory_stats` reports, with why the model is not loaded when it is not. */
  status(total: number): EmbeddingStatus {
    const status: EmbeddingStatus = this.#real?.status(total) ?? {
      model: this.model,
      ready: false,
      embedded: 0,
      total,
      state: this.#enabled ? "idle" : "off",
    };
    if (status.state === "idle" || status.state === "off") status.reason = this.#idleReason();
    return status;
  }

  async embedAll(options?: MemoEmbedOptions): Promise<EmbedResult> {
    if (!this.#enabled) throw offError();
    return await (await this.#begin()).embedAll(options);
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#kick);
    this.#kick = undefined;
    const real = await this.#starting?.catch(() => undefined);
    await real?.close();
  }

  /** Imports the embedding code once and hands it every note. */
  #begin(): Promise<Embeddings> {
    if (this.#closed) {
      return Promise.reject(new EmbedderUnavailableError("the memory client is closed"));
    }
    return this.#starting ??= import("./embeddings.ts").then(({ Embeddings }) => {
      const real = new Embeddings(this.#options);
      real.seed(this.#options.notes());
      this.#real = real;
      return real;
    });
  }

  #idleReason(): string {
    if (!this.#enabled) return "local embeddings are off";
    const engine = this.#options.engine;
    const later = "the model loads at the first vector or hybrid recall";
    if (engine === "lexical") return `the default engine is lexical; ${later}`;
    if (!this.#engineUsesVectors) return `auto uses lexical with ${this.model}; ${later}`;
    if (!this.#options.background) {
      return "embedding in the background is off: memo embed (or a vector or hybrid recall) " +
        "loads the model";
    }
    return "the model loads in the background shortly after the notes";
  }
}

function offError(): EmbedderUnavailableError {
  return new EmbedderUnavailableError("local embeddings are off (recall.localEmbeddings is false)");
}
