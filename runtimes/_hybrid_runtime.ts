/**
 * The hybrid runtime's class: the local runtime serves every call, a
 * {@linkcode Replicator} beside it keeps `notes.md` and the cloud in step.
 * Public surface: `hybrid.ts`.
 *
 * @module
 */

import type { MemoCloudClient } from "./cloud_client.ts";
import { plainNote } from "./_replica_plan.ts";
import type { Replicator } from "./_replicator.ts";
import type {
  ListResult,
  MemoMcpRuntime,
  MemoStats,
  Note,
  RecallHit,
  ReplicateOptions,
  ReplicateResult,
  RuntimeCallOptions,
  RuntimeChange,
  RuntimeCompletion,
  RuntimeListOptions,
  RuntimeNotePatch,
  RuntimeRecallOptions,
  RuntimeRememberInput,
  RuntimeRememberResult,
  RuntimeSyncOptions,
  RuntimeSyncResult,
} from "./types.ts";

/** Default of `pullIntervalMs`. */
export const DEFAULT_PULL_INTERVAL_MS = 10_000;
/** Default of `closeDrainMs`. */
export const DEFAULT_CLOSE_DRAIN_MS = 1_000;

/** An integer option of at least `min` milliseconds, or its default. */
export function checkInterval(
  name: string,
  value: number | undefined,
  fallback: number,
  min: number,
): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < min) {
    const rule = min === 1 ? "a positive integer" : `an integer of at least ${min}`;
    throw new RangeError(`Cannot start the hybrid runtime: ${name} must be ${rule}`);
  }
  return value;
}

/** The local runtime for every call, the replicator beside it. */
export class HybridRuntime implements MemoMcpRuntime {
  readonly kind = "hybrid" as const;
  readonly #local: MemoMcpRuntime;
  readonly #replicator: Replicator;
  readonly #client: () => MemoCloudClient;
  readonly #includeCloud: boolean;
  readonly #drainMs: number;

  constructor(
    local: MemoMcpRuntime,
    replicator: Replicator,
    client: () => MemoCloudClient,
    settings: { includeCloud: boolean; drainMs: number },
  ) {
    this.#local = local;
    this.#replicator = replicator;
    this.#client = client;
    this.#includeCloud = settings.includeCloud;
    this.#drainMs = settings.drainMs;
  }

  /** Every call starts replication (a no-op once started); writes also ask for a push soon. */
  async #read<T>(call: Promise<T>): Promise<T> {
    this.#replicator.start();
    return await call;
  }

  async #write<T>(call: Promise<T>): Promise<T> {
    this.#replicator.start();
    const result = await call;
    this.#replicator.kick();
    return result;
  }

  remember(input: RuntimeRememberInput, options?: RuntimeCallOptions) {
    return this.#write<RuntimeRememberResult>(this.#local.remember(input, options));
  }

  async recall(query: string, options: RuntimeRecallOptions): Promise<RecallHit[]> {
    const local = await this.#read(this.#local.recall(query, options));
    if (!this.#includeCloud) return local;
    let cloud;
    try {
      const engine = options.engine === "vector" || options.engine === "hybrid"
        ? undefined
        : options.engine;
      cloud = await this.#client().recall(query, {
        limit: options.limit,
        labels: options.labels,
        source: options.source,
        explain: options.explain,
        engine,
        signal: options.signal,
      });
    } catch {
      return local; // the cloud is an extra: recall stays local when it cannot answer
    }
    const seen = new Set(local.map((h) => h.note.id));
    const merged: RecallHit[] = [...local];
    for (const hit of cloud) {
      if (seen.has(hit.note.id)) continue;
      seen.add(hit.note.id);
      merged.push({ ...hit, note: plainNote(hit.note), origin: "cloud" });
    }
    return merged.sort((a, b) => b.score - a.score).slice(0, options.limit);
  }

  get(id: string, options?: RuntimeCallOptions): Promise<Note> {
    return this.#read(this.#local.get(id, options));
  }

  list(options: RuntimeListOptions): Promise<ListResult> {
    return this.#read(this.#local.list(options));
  }

  update(id: string, patch: RuntimeNotePatch, options?: RuntimeCallOptions): Promise<Note> {
    return this.#write(this.#local.update(id, patch, options));
  }

  forget(id: string, options?: RuntimeCallOptions): Promise<Note> {
    return this.#write(this.#local.forget(id, options));
  }

  async stats(options?: RuntimeCallOptions): Promise<MemoStats> {
    const stats = await this.#read(this.#local.stats(options));
    return { ...stats, replica: await this.#replicator.status() };
  }

  syncConnectors(options?: RuntimeSyncOptions): Promise<RuntimeSyncResult> {
    return this.#write(this.#local.syncConnectors(options));
  }

  completeIds(
    prefix: string,
    limit: number,
    options?: RuntimeCallOptions,
  ): Promise<RuntimeCompletion> {
    return this.#read(this.#local.completeIds(prefix, limit, options));
  }

  watch(onChange: (change: RuntimeChange) => void): () => void {
    const stop = this.#local.watch!(onChange);
    this.#replicator.start();
    return stop;
  }

  replicate(options?: ReplicateOptions): Promise<ReplicateResult> {
    return this.#replicator.replicate(options);
  }

  async close(): Promise<void> {
    try {
      await this.#replicator.close(this.#drainMs);
    } finally {
      await this.#local.close();
    }
  }
}
