/**
 * The hybrid runtime once built: the local runtime serves every call, a {@linkcode Replicator}
 * beside it keeps `notes.md` and the cloud in step. Public surface: `runtime.ts`.
 *
 * @module
 */

import type { MemoCloudClient } from "../cloud/client.ts";
import { scrubSecrets } from "../secrets.ts";
import { type DelegatedMethod, type DelegatedMethods, delegateRuntime } from "../delegate.ts";
import { plainNote } from "./_replica_plan.ts";
import type { Replicator } from "./_replicator.ts";
import { recallDetailedOf } from "../recall_detailed.ts";
import type * as R from "../types.ts";

/**
 * The calls that change the local notes: after each, the replicator is asked for a push soon.
 * `scanSecrets` is one (a redaction is a local edit, pushed like any other), and so are `correct`
 * (one commit, both notes pushed), `supersede` and `applyTidy` (the keepers pushed).
 */
const WRITES: ReadonlySet<DelegatedMethod> = new Set<DelegatedMethod>([
  "remember",
  "rememberMany",
  "forgetMany",
  "update",
  "forget",
  "scanSecrets",
  "correct",
  "supersede",
  "applyTidy",
  "syncConnectors",
]);

/**
 * The hybrid runtime over `local`: every call goes to the local runtime and starts replication (a
 * no-op once started); a write also asks for a push soon. `recall` adds the cloud's hits with
 * `includeCloud`, `stats` adds the replica's status, `replicate` runs a replication now, and
 * `close` drains the replicator (at most `drainMs`, or the `drainMs` asked if shorter) before
 * closing the local runtime.
 */
export function createHybridRuntime(
  local: R.MemoMcpRuntime,
  replicator: Replicator,
  client: () => MemoCloudClient,
  settings: { includeCloud: boolean; drainMs: number },
): R.MemoMcpRuntime & DelegatedMethods {
  const delegated = delegateRuntime({
    target: () => local,
    async around(method, call) {
      const pending = call();
      replicator.start();
      const result = await pending;
      if (WRITES.has(method)) replicator.kick();
      return result;
    },
    missing: { embed: "Cannot embed: this memory client cannot embed" },
  });
  const recallDetailed = async (query: string, options: R.RuntimeRecallOptions) => {
    const pending = recallDetailedOf(local, query, options);
    replicator.start();
    const result: R.RecallResult = await pending;
    if (!settings.includeCloud) return result;
    const byScore = result.engine === "lexical";
    return { ...result, hits: await withCloud(client, result.hits, query, options, byScore) };
  };
  return {
    ...delegated,
    kind: "hybrid",
    recallDetailed,
    async recall(query: string, options: R.RuntimeRecallOptions): Promise<R.RecallHit[]> {
      return (await recallDetailed(query, options)).hits;
    },
    async stats(options?: R.RuntimeCallOptions): Promise<R.MemoStats> {
      const stats = await delegated.stats(options);
      return { ...stats, replica: await replicator.status() };
    },
    scrubSecrets(value: unknown): Promise<unknown> {
      return scrubSecrets(value);
    },
    watch(onChange: (change: R.RuntimeChange) => void): () => void {
      const stop = local.watch!(onChange);
      replicator.start();
      return stop;
    },
    replicate(options?: R.ReplicateOptions): Promise<R.ReplicateResult> {
      return replicator.replicate(options);
    },
    recallProfile(options?: R.RuntimeCallOptions): Promise<R.RuntimeRecallProfile | undefined> {
      return local.recallProfile?.(options) ?? Promise.resolve(undefined);
    },
    async close(options: R.RuntimeCloseOptions = {}): Promise<void> {
      const asked = options.drainMs;
      const drainMs = typeof asked === "number" && asked >= 0
        ? Math.min(asked, settings.drainMs)
        : settings.drainMs;
      try {
        await replicator.close(drainMs);
      } finally {
        await local.close();
      }
    },
  };
}

/**
 * The local hits with the cloud's merged in, de-duplicated by id. Lexical local hits and the
 * cloud's (lexical) ones are ordered by score; the scores of a vector or hybrid local recall are on
 * another scale, so the two lists are then interleaved by rank, the local hit first.
 */
async function withCloud(
  client: () => MemoCloudClient,
  local: R.RecallHit[],
  query: string,
  options: R.RuntimeRecallOptions,
  byScore: boolean,
): Promise<R.RecallHit[]> {
  let cloud;
  try {
    const engine = options.engine === "vector" || options.engine === "hybrid"
      ? undefined
      : options.engine;
    cloud = await client().recall(query, {
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
  const extra: R.RecallHit[] = [];
  for (const hit of cloud) {
    if (seen.has(hit.note.id)) continue;
    seen.add(hit.note.id);
    extra.push({ ...hit, note: plainNote(hit.note), origin: "cloud" });
  }
  if (byScore) {
    return [...local, ...extra].sort((a, b) => b.score - a.score).slice(0, options.limit);
  }
  const merged: R.RecallHit[] = [];
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
