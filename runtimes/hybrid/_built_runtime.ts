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

/** How {@linkcode createHybridRuntime} runs. */
export interface HybridSettings {
  /** Also ask the project's cloud on recall. */
  includeCloud: boolean;
  /** How long `close()` pushes what is left, at most. */
  drainMs: number;
  /**
   * The user scope's replicator, when the user store has a hybrid runtime of its own
   * (`$MEMO_HOME/config.json`): run beside the project's, reported as `stats().userReplica`.
   */
  user?: Replicator;
  /**
   * The runtime's kind: `local` for a local runtime whose user scope alone replicates (then
   * `replicator` is undefined).
   * @default "hybrid"
   */
  kind?: "hybrid" | "local";
}

/**
 * The hybrid runtime over `local`: every call goes to the local runtime and starts replication (a
 * no-op once started); a write also asks for a push soon. `recall` adds the cloud's hits with
 * `includeCloud`, `stats` adds the replica's status, `replicate` runs a replication now, and
 * `close` drains the replicator (at most `drainMs`, or the `drainMs` asked if shorter) before
 * closing the local runtime. With `settings.user`, the user scope's replicator runs beside the
 * project's (`replicator`, undefined in a local runtime): both start, are kicked by writes, are
 * replicated by `replicate` and drained by `close` together.
 */
export function createHybridRuntime(
  local: R.MemoMcpRuntime,
  replicator: Replicator | undefined,
  client: (() => MemoCloudClient) | undefined,
  settings: HybridSettings,
): R.MemoMcpRuntime & DelegatedMethods {
  const all = [replicator, settings.user].filter((r): r is Replicator => r !== undefined);
  const start = () => {
    for (const r of all) r.start();
  };
  const delegated = delegateRuntime({
    target: () => local,
    async around(method, call) {
      const pending = call();
      start();
      const result = await pending;
      // Either scope's notes may have changed: a replication with nothing to push only pulls.
      if (WRITES.has(method)) { for (const r of all) r.kick(); }
      return result;
    },
    missing: { embed: "Cannot embed: this memory client cannot embed" },
  });
  const recallDetailed = async (query: string, options: R.RuntimeRecallOptions) => {
    const pending = recallDetailedOf(local, query, options);
    start();
    const result: R.RecallResult = await pending;
    if (!settings.includeCloud || !client) return result;
    const byScore = result.engine === "lexical";
    return { ...result, hits: await withCloud(client, result.hits, query, options, byScore) };
  };
  return {
    ...delegated,
    kind: settings.kind ?? "hybrid",
    recallDetailed,
    async recall(query: string, options: R.RuntimeRecallOptions): Promise<R.RecallHit[]> {
      return (await recallDetailed(query, options)).hits;
    },
    async stats(options?: R.RuntimeCallOptions): Promise<R.MemoStats> {
      const stats = await delegated.stats(options);
      const [replica, userReplica] = await Promise.all([
        replicator?.status(),
        settings.user?.status(),
      ]);
      return {
        ...stats,
        ...(replica ? { replica } : {}),
        ...(userReplica ? { userReplica } : {}),
      };
    },
    scrubSecrets(value: unknown): Promise<unknown> {
      return scrubSecrets(value);
    },
    watch(onChange: (change: R.RuntimeChange) => void): () => void {
      const stop = local.watch!(onChange);
      start();
      return stop;
    },
    replicate(options?: R.ReplicateOptions): Promise<R.ReplicateResult> {
      return replicateBoth(replicator, settings.user, options);
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
        // Both drain at once, within the one budget; then the notes close.
        await Promise.all(all.map((r) => r.close(drainMs)));
      } finally {
        await local.close();
      }
    },
  };
}

/**
 * `replicate()` of the project's replicator, the user scope's, or both at once. With the user
 * scope's, the counts are the sums and `scopes` holds each one's; a failure of either is thrown once both have
 * ended (the project's first), so that one cloud being down never stops the other's sync.
 */
async function replicateBoth(
  project: Replicator | undefined,
  user: Replicator | undefined,
  options?: R.ReplicateOptions,
): Promise<R.ReplicateResult> {
  if (!user) return await project!.replicate(options);
  if (!project) {
    const alone = await user.replicate(options);
    return { ...alone, scopes: { user: alone } };
  }
  // One progress bar: the project's (the user scope's moves show in the result).
  const { onProgress: _bar, ...quiet } = options ?? {};
  const [p, u] = await Promise.allSettled([project.replicate(options), user.replicate(quiet)]);
  if (p.status === "rejected") throw p.reason;
  if (u.status === "rejected") throw u.reason;
  const sum = (k: "pushed" | "pulled" | "conflicts" | "outbox") => p.value[k] + u.value[k];
  return {
    pushed: sum("pushed"),
    pulled: sum("pulled"),
    conflicts: sum("conflicts"),
    outbox: sum("outbox"),
    scopes: { project: p.value, user: u.value },
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
