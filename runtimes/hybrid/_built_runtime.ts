/**
 * The hybrid runtime's class: the local runtime serves every call, a
 * {@linkcode Replicator} beside it keeps `notes.md` and the cloud in step.
 * Public surface: `runtime.ts`.
 *
 * @module
 */

import type { MemoCloudClient } from "../cloud/client.ts";
import { MemoRuntimeError } from "../errors.ts";
import { scrubSecrets } from "../secrets.ts";
import { plainNote } from "./_replica_plan.ts";
import type { Replicator } from "./_replicator.ts";
import { recallDetailedOf } from "../local/runtime.ts";
import type {
  CorrectResult,
  ListResult,
  MemoMcpRuntime,
  MemoStats,
  Note,
  NoteDraft,
  RecallHit,
  RecallResult,
  ReplicateOptions,
  ReplicateResult,
  RuntimeCallOptions,
  RuntimeChange,
  RuntimeCloseOptions,
  RuntimeCompletion,
  RuntimeCorrectInput,
  RuntimeEmbedOptions,
  RuntimeEmbedResult,
  RuntimeListOptions,
  RuntimeNotePatch,
  RuntimeRecallOptions,
  RuntimeRecallProfile,
  RuntimeRememberInput,
  RuntimeRememberManyResult,
  RuntimeRememberResult,
  RuntimeScanOptions,
  RuntimeSupersedeInput,
  RuntimeSyncOptions,
  RuntimeSyncResult,
  RuntimeUpdateOptions,
  SecretScanResult,
  SupersedeResult,
  TidyApplyResult,
  TidyPlan,
} from "../types.ts";

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

  /** The local batch write; the replicator pushes it like any other write. */
  rememberMany(
    drafts: readonly NoteDraft[],
    options?: RuntimeCallOptions,
  ): Promise<RuntimeRememberManyResult> {
    return this.#write(this.#local.rememberMany!(drafts, options));
  }

  /** The local batch removal (one rewrite); the replicator pushes the deletions. */
  forgetMany(ids: readonly string[], options?: RuntimeCallOptions): Promise<Note[]> {
    return this.#write(this.#local.forgetMany!(ids, options));
  }

  async recall(query: string, options: RuntimeRecallOptions): Promise<RecallHit[]> {
    return (await this.recallDetailed(query, options)).hits;
  }

  /** The local result; with `includeCloud`, the cloud's hits merged in (engine and coverage stay local). */
  async recallDetailed(query: string, options: RuntimeRecallOptions): Promise<RecallResult> {
    const result = await this.#read(recallDetailedOf(this.#local, query, options));
    if (!this.#includeCloud) return result;
    const byScore = result.engine === "lexical";
    return { ...result, hits: await this.#withCloud(result.hits, query, options, byScore) };
  }

  /**
   * The local hits with the cloud's merged in, de-duplicated by id. Lexical
   * local hits and the cloud's (lexical) ones are ordered by score; the
   * scores of a vector or hybrid local recall are on another scale, so the
   * two lists are then interleaved by rank, the local hit first.
   */
  async #withCloud(
    local: RecallHit[],
    query: string,
    options: RuntimeRecallOptions,
    byScore: boolean,
  ): Promise<RecallHit[]> {
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
    const extra: RecallHit[] = [];
    for (const hit of cloud) {
      if (seen.has(hit.note.id)) continue;
      seen.add(hit.note.id);
      extra.push({ ...hit, note: plainNote(hit.note), origin: "cloud" });
    }
    if (byScore) {
      return [...local, ...extra].sort((a, b) => b.score - a.score).slice(0, options.limit);
    }
    const merged: RecallHit[] = [];
    for (
      let i = 0;
      merged.length < options.limit && i < Math.max(local.length, extra.length);
      i++
    ) {
      if (i < local.length) merged.push(local[i]);
      if (i < extra.length && merged.length < options.limit) merged.push(extra[i]);
    }
    return merged;
  }

  embed(options?: RuntimeEmbedOptions): Promise<RuntimeEmbedResult> {
    if (!this.#local.embed) {
      return Promise.reject(
        new MemoRuntimeError("UNAVAILABLE", "Cannot embed: this memory client cannot embed"),
      );
    }
    return this.#read(this.#local.embed(options));
  }

  get(id: string, options?: RuntimeCallOptions): Promise<Note> {
    return this.#read(this.#local.get(id, options));
  }

  list(options: RuntimeListOptions): Promise<ListResult> {
    return this.#read(this.#local.list(options));
  }

  update(id: string, patch: RuntimeNotePatch, options?: RuntimeUpdateOptions): Promise<Note> {
    return this.#write(this.#local.update(id, patch, options));
  }

  scrubSecrets(value: unknown): Promise<unknown> {
    return scrubSecrets(value);
  }

  /** `memo scan`: a redaction is a local edit, pushed like any other. */
  scanSecrets(options?: RuntimeScanOptions): Promise<SecretScanResult> {
    return this.#write(this.#local.scanSecrets!(options));
  }

  forget(id: string, options?: RuntimeCallOptions): Promise<Note> {
    return this.#write(this.#local.forget(id, options));
  }

  /** The local correction (one commit); the replicator pushes both notes. */
  correct(input: RuntimeCorrectInput, options?: RuntimeCallOptions): Promise<CorrectResult> {
    return this.#write(this.#local.correct!(input, options));
  }

  /** The local supersede; the replicator pushes the changed note. */
  supersede(input: RuntimeSupersedeInput, options?: RuntimeCallOptions): Promise<SupersedeResult> {
    return this.#write(this.#local.supersede!(input, options));
  }

  /** The proposals over the local notes. */
  tidy(options?: RuntimeCallOptions): Promise<TidyPlan> {
    return this.#read(this.#local.tidy!(options));
  }

  /** The plan applied to the local notes (one commit); the replicator pushes the keepers. */
  applyTidy(plan: TidyPlan, options?: RuntimeCallOptions): Promise<TidyApplyResult> {
    return this.#write(this.#local.applyTidy!(plan, options));
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

  recallProfile(options?: RuntimeCallOptions): Promise<RuntimeRecallProfile | undefined> {
    return this.#local.recallProfile?.(options) ?? Promise.resolve(undefined);
  }

  async close(options: RuntimeCloseOptions = {}): Promise<void> {
    const asked = options.drainMs;
    const drainMs = typeof asked === "number" && asked >= 0
      ? Math.min(asked, this.#drainMs)
      : this.#drainMs;
    try {
      await this.#replicator.close(drainMs);
    } finally {
      await this.#local.close();
    }
  }
}
