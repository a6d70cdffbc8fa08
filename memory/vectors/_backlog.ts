/**
 * Internal: what one `Memo` client's embedding side knows of its notes: every note, the key
 * (hash of the embedded text) of each, the notes still without a vector (by key, in one lane per
 * scope: each scope has its own on-disk cache), their vectors in one {@linkcode VectorIndex} (so
 * one ranking holds every scope), and how it takes the vectors the on-disk caches already hold.
 * `embeddings.ts` drives it (the model, the background work, which cache is whose).
 *
 * @module
 */

import type { Note } from "../notes/note.ts";
import { embeddingKey, embeddingText } from "../embed/types.ts";
import { type VectorHit, VectorIndex, type VectorSearchOptions } from "../recall/vector/vector.ts";
import type { EmbeddingCache } from "./cache.ts";

/** A note's scope (`project` when it carries none). */
type Scope = NonNullable<Note["scope"]>;

/** Notes keyed between two turns of the event loop while the cache is looked up. */
const KEY_CHUNK = 1000;

/**
 * The notes of one client and their vectors.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { EmbeddingBacklog } from "./_backlog.ts";
 * const note = { id: "a", title: "Deploys", body: "deploy on Fridays", labels: [], hash: "", created: "", updated: "" };
 * const backlog = new EmbeddingBacklog();
 * backlog.seed([note]);
 * assert.equal(backlog.pending, true);
 * backlog.attach(2);
 * assert.deepEqual(backlog.scopes(), ["project"]);
 * await backlog.lookInCache("project", undefined); // keys the note; no cache holds its vector
 * const { keys, texts, scopes } = backlog.nextBatch(32);
 * assert.deepEqual(texts, ["Deploys\ndeploy on Fridays"]);
 * assert.deepEqual(scopes, [["project"]]); // whose caches get the vector
 * backlog.take(keys[0], new Float32Array([1, 0]));
 * assert.equal(backlog.pending, false);
 * assert.equal(backlog.embedded, 1);
 * assert.equal(backlog.search(new Float32Array([1, 0]), { limit: 1 })[0].id, "a");
 * ```
 */
export class EmbeddingBacklog {
  /** Every note, by id (latest version). */
  #notes = new Map<string, Note>();
  /** Key (hash of the embedded text) of each note whose key is computed. */
  #keys = new Map<string, string>();
  /** The notes without a vector, per scope (a project-only client has one lane). */
  #lanes = new Map<Scope, Lane>();
  #index: VectorIndex | undefined;
  #version = 0;

  /** Changes whenever the set of vectors changes (for answer caches). */
  get version(): number {
    return this.#version;
  }

  get total(): number {
    return this.#notes.size;
  }

  /** Notes with a vector. */
  get embedded(): number {
    return this.#index?.size ?? 0;
  }

  /** Whether some note still has no vector. */
  get pending(): boolean {
    for (const lane of this.#lanes.values()) {
      if (lane.unkeyed.size > 0 || lane.waiting.size > 0) return true;
    }
    return false;
  }

  /** The scopes whose notes this backlog has seen (each has its own cache), project first. */
  scopes(): Scope[] {
    return [...this.#lanes.keys()];
  }

  /** Vectors have `dimensions` components from now on (the embedder is loaded). */
  attach(dimensions: number): void {
    this.#index ??= new VectorIndex(dimensions);
  }

  /** Takes every note at once (the client's notes when the embedding side starts). */
  seed(notes: Iterable<Note>): void {
    for (const note of notes) this.upsert(note);
  }

  /**
   * A note was added or changed; returns whether it needs a vector (its text is new, or it moved
   * to another scope, whose cache must hold its vector too: it keeps its vector meanwhile).
   */
  upsert(note: Note): boolean {
    const before = this.#notes.get(note.id);
    this.#notes.set(note.id, note);
    const scope = note.scope ?? "project";
    if (before && before.title === note.title && before.body === note.body) {
      if ((before.scope ?? "project") === scope) return false;
      this.#forget(note.id, before, true);
    } else if (before) this.#forget(note.id, before, false);
    this.#lane(scope).unkeyed.add(note.id);
    return true;
  }

  remove(id: string): void {
    const note = this.#notes.get(id);
    if (!note) return;
    this.#notes.delete(id);
    this.#forget(id, note, false);
  }

  /** Every note is gone (the store was reset). */
  clear(): void {
    this.#notes.clear();
    this.#keys.clear();
    for (const lane of this.#lanes.values()) {
      lane.unkeyed.clear();
      lane.waiting.clear();
      lane.known.clear();
    }
    if (this.#index?.size) this.#version++;
    this.#index?.clear();
  }

  /** Cosine top-k over the notes with a vector. */
  search(query: Float32Array, options: VectorSearchOptions): VectorHit[] {
    return this.#index?.search(query, options) ?? [];
  }

  /**
   * Keys every note of `scope` that has none (in chunks, letting other work through), then takes
   * every vector `cache` (the scope's own) holds for a waiting note of the scope: the records
   * appended since the last look (by this or another process), and by key those it had read past
   * before the note was keyed. A vector one of `others` (the other scopes' caches) holds for a
   * note keyed in this look is taken from there and copied into `cache` (a note moved between scopes, or a
   * text held in two): it is not embedded again.
   */
  async lookInCache(
    scope: Scope,
    cache: EmbeddingCache | undefined,
    others: readonly EmbeddingCache[] = [],
  ): Promise<void> {
    const lane = this.#lanes.get(scope);
    if (!lane) return;
    let n = 0;
    const fresh: string[] | undefined = others.length ? [] : undefined;
    for (const id of lane.unkeyed) {
      lane.unkeyed.delete(id);
      const key = this.#keyOf(id);
      fresh?.push(key);
      const ids = lane.waiting.get(key);
      if (ids) ids.add(id);
      else lane.waiting.set(key, new Set([id]));
      if (cache?.has(key)) lane.known.add(key);
      if (++n % KEY_CHUNK === 0) await new Promise((r) => setTimeout(r, 0));
    }
    if (cache) {
      await cache.refresh((key, vector) => this.#take(lane, key, vector));
      for (const key of lane.known) {
        const vector = await cache.read(key);
        if (vector) this.#take(lane, key, vector);
        else lane.known.delete(key);
      }
    }
    if (!fresh?.length || !lane.waiting.size) return;
    const copied: { key: string; vector: Float32Array }[] = [];
    for (const key of fresh) {
      if (!lane.waiting.has(key) || lane.known.has(key)) continue;
      for (const other of others) {
        if (!other.has(key)) continue;
        const vector = await other.read(key);
        if (!vector) continue;
        copied.push({ key, vector });
        this.#take(lane, key, vector);
        break;
      }
    }
    if (copied.length) await cache?.put(copied);
  }

  /**
   * Up to `size` keys still to embed (none a cache holds), with the text of each and the scopes
   * waiting on it (whose caches get its vector); a text waited on in two scopes comes once.
   */
  nextBatch(size: number): { keys: string[]; texts: string[]; scopes: Scope[][] } {
    const keys: string[] = [];
    const texts: string[] = [];
    const scopes: Scope[][] = [];
    const lanes = this.#lanes;
    for (const [scope, lane] of lanes) {
      for (const [key, ids] of lane.waiting) {
        if (texts.length >= size) break;
        if (lane.known.has(key)) continue;
        if (lanes.size > 1) {
          const at = keys.indexOf(key);
          if (at >= 0) {
            scopes[at].push(scope);
            continue;
          }
        }
        keys.push(key);
        texts.push(embeddingText(this.#notes.get(ids.values().next().value!)!));
        scopes.push([scope]);
      }
    }
    return { keys, texts, scopes };
  }

  /**
   * Gives every note waiting on `key`, in any scope, its vector (a key no note waits on any more:
   * nothing).
   */
  take(key: string, vector: Float32Array): void {
    for (const lane of this.#lanes.values()) this.#take(lane, key, vector);
  }

  #take(lane: Lane, key: string, vector: Float32Array): void {
    const ids = lane.waiting.get(key);
    if (!ids) return;
    lane.waiting.delete(key);
    lane.known.delete(key);
    for (const id of ids) this.#index!.set(id, vector);
    this.#version++;
  }

  #lane(scope: Scope): Lane {
    let lane = this.#lanes.get(scope);
    if (!lane) {
      lane = { unkeyed: new Set(), waiting: new Map(), known: new Set() };
      this.#lanes.set(scope, lane);
    }
    return lane;
  }

  #keyOf(id: string): string {
    let key = this.#keys.get(id);
    if (key === undefined) {
      key = embeddingKey(embeddingText(this.#notes.get(id)!));
      this.#keys.set(id, key);
    }
    return key;
  }

  /**
   * Drops what is known of a note's old version (`before`): its place in its scope's queues, and,
   * unless `keepVector` (a move with the same text), its key and its vector.
   */
  #forget(id: string, before: Note, keepVector: boolean): void {
    const lane = this.#lanes.get(before.scope ?? "project");
    lane?.unkeyed.delete(id);
    const key = this.#keys.get(id);
    if (key !== undefined) {
      if (!keepVector) this.#keys.delete(id);
      const ids = lane?.waiting.get(key);
      if (ids?.delete(id) && ids.size === 0) {
        lane!.waiting.delete(key);
        lane!.known.delete(key);
      }
    }
    if (!keepVector && this.#index?.has(id)) {
      this.#index.remove(id);
      this.#version++;
    }
  }
}

/** The notes of one scope still without a vector. */
interface Lane {
  /** Notes without a vector whose key is not computed yet. */
  unkeyed: Set<string>;
  /** Notes without a vector, by key. */
  waiting: Map<string, Set<string>>;
  /** Waiting keys the scope's cache holds but has already read past (read them by key). */
  known: Set<string>;
}
