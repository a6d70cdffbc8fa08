/**
 * The local runtime's class: each call waits for the memory client, runs on
 * it, and reports its writes to the runtime's listeners.
 *
 * @module
 */

import { hooksStatus } from "./hooks_status.ts";
import { envObject } from "../../platform/mod.ts";
import { runConfiguredConnectors } from "./_connectors.ts";
import { refuseUnresolvedMerge, runtimeErrorOf, unsupported } from "./_runtime_errors.ts";
import { checkDraftList, checkIdList } from "../batch_input.ts";
import { completeIdsThroughPages } from "../complete_ids.ts";
import { RuntimeListeners } from "../listeners.ts";
import { MemoRuntimeError } from "../errors.ts";
import { recallDetailedOf } from "../recall_detailed.ts";
import { rememberResultOf } from "../remember_result.ts";
import { scanThroughPages, scrubSecrets } from "../secrets.ts";
import type * as R from "../types.ts";

/** The history filters of a recall or list (only those given). */
function historyOf(options: R.RuntimeHistoryFilter): R.RuntimeHistoryFilter {
  const out: R.RuntimeHistoryFilter = {};
  if (options.includeSuperseded !== undefined) out.includeSuperseded = options.includeSuperseded;
  if (options.asOf !== undefined) out.asOf = options.asOf;
  if (options.since !== undefined) out.since = options.since;
  if (options.until !== undefined) out.until = options.until;
  return out;
}

/** What a memory client's recall takes of a runtime recall's options. */
function recallOptionsOf(options: R.RuntimeRecallOptions) {
  return {
    limit: options.limit,
    engine: options.engine,
    labels: options.labels,
    source: options.source,
    scope: options.scope,
    explain: options.explain,
    ...historyOf(options),
  };
}

function checkSignal(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw signal.reason ?? new Error("Cannot continue: aborted");
}

function runtimeChangeOf(change: { created: string[]; updated: string[]; removed: string[] }) {
  return {
    ids: [...change.created, ...change.updated, ...change.removed],
    listChanged: change.created.length > 0 || change.removed.length > 0,
  };
}

/** The local runtime over the memory client that `ready` gives. */
export class LocalRuntime implements R.MemoMcpRuntime {
  readonly kind = "local" as const;
  #ready: () => Promise<R.MemoLike>;
  #rootDir: string;
  #env: Record<string, string | undefined> | undefined;
  #close: () => Promise<void>;
  #closed = false;
  #listeners = new RuntimeListeners();
  #profile: (() => Promise<R.RuntimeRecallProfile | undefined>) | undefined;

  constructor(
    ready: () => Promise<R.MemoLike>,
    rootDir: string,
    env: Record<string, string | undefined> | undefined,
    close: () => Promise<void>,
    profile?: () => Promise<R.RuntimeRecallProfile | undefined>,
  ) {
    this.#ready = ready;
    this.#rootDir = rootDir;
    this.#env = env;
    this.#close = close;
    this.#profile = profile;
  }

  recallProfile(options: R.RuntimeCallOptions = {}): Promise<R.RuntimeRecallProfile | undefined> {
    checkSignal(options.signal);
    return this.#profile?.() ?? Promise.resolve(undefined);
  }

  async #run<T>(signal: AbortSignal | undefined, fn: (memo: R.MemoLike) => Promise<T>): Promise<T> {
    checkSignal(signal);
    if (this.#closed) {
      throw new MemoRuntimeError("UNAVAILABLE", "Cannot use the memory: the runtime is closed");
    }
    try {
      const memo = await this.#ready();
      // Listeners added while the client was opening are attached before any write.
      if (this.#listeners.size) this.#attach(memo);
      checkSignal(signal);
      return await fn(memo);
    } catch (e) {
      throw runtimeErrorOf(e);
    }
  }

  #attach(memo: R.MemoLike): void {
    if (this.#closed || !memo.watch) return;
    this.#listeners.attach((deliver) => memo.watch!((change) => deliver(runtimeChangeOf(change))));
  }

  /** A write through this runtime, reported here only when the client does not report it. */
  #wrote(memo: R.MemoLike, change: R.RuntimeChange): void {
    if (!memo.watch && this.#listeners.size) this.#listeners.emit(change);
  }

  /** The client's `remember` (with the similar notes), else a batch of one. */
  async remember(
    input: R.RuntimeRememberInput,
    options: R.RuntimeCallOptions = {},
  ): Promise<R.RuntimeRememberResult> {
    const single = await this.#run(options.signal, async (memo) => {
      if (!memo.remember) return undefined;
      checkDraftList([input]);
      const result = await memo.remember(input, { signal: options.signal });
      if (result.status !== "unchanged") {
        this.#wrote(memo, { ids: [result.note.id], listChanged: result.status === "written" });
      }
      return result;
    });
    if (single) return single;
    const { written, updated, unchanged, redacted } = await this.rememberMany([input], options);
    if (written.length) return rememberResultOf(written[0], "written", redacted);
    if (updated.length) return rememberResultOf(updated[0], "updated", redacted);
    return rememberResultOf(unchanged[0], "unchanged", redacted);
  }

  rememberMany(
    drafts: readonly R.NoteDraft[],
    options: R.RuntimeCallOptions = {},
  ): Promise<R.RuntimeRememberManyResult> {
    return this.#run(options.signal, async (memo): Promise<R.RuntimeRememberManyResult> => {
      checkDraftList(drafts);
      const { written, updated, unchanged, redacted } = await memo.rememberMany(drafts, {
        signal: options.signal,
      });
      const ids = [...written, ...updated].map((n) => n.id);
      if (ids.length) this.#wrote(memo, { ids, listChanged: written.length > 0 });
      const result: R.RuntimeRememberManyResult = { written, updated, unchanged };
      if (redacted?.length) result.redacted = redacted;
      return result;
    });
  }

  forgetMany(ids: readonly string[], options: R.RuntimeCallOptions = {}): Promise<R.Note[]> {
    return this.#run(options.signal, async (memo): Promise<R.Note[]> => {
      checkIdList(ids);
      const found = new Map<string, R.Note>();
      for (const id of new Set(ids)) {
        checkSignal(options.signal);
        try {
          found.set(id, await memo.get(id));
        } catch (e) {
          if ((e as { code?: unknown } | null)?.code !== "NOTE_NOT_FOUND") throw e;
        }
      }
      if (!found.size) return [];
      checkSignal(options.signal);
      let removed: string[];
      if (memo.applyReplica) {
        // One atomic rewrite: every note goes, or none does.
        removed = (await memo.applyReplica({ put: [], remove: [...found.keys()] })).removed;
      } else {
        removed = [];
        for (const id of found.keys()) {
          try {
            await memo.forget(id, { signal: options.signal });
            removed.push(id);
          } catch (e) {
            if ((e as { code?: unknown } | null)?.code !== "NOTE_NOT_FOUND") throw e;
          }
        }
      }
      if (removed.length) this.#wrote(memo, { ids: removed, listChanged: true });
      const gone = new Set(removed);
      return [...found.values()].filter((note) => gone.has(note.id));
    });
  }

  recall(query: string, options: R.RuntimeRecallOptions): Promise<R.RecallHit[]> {
    return this.#run(options.signal, (memo) => memo.recall(query, recallOptionsOf(options)));
  }

  recallDetailed(query: string, options: R.RuntimeRecallOptions): Promise<R.RecallResult> {
    return this.#run(
      options.signal,
      (memo) => recallDetailedOf(memo, query, recallOptionsOf(options)),
    );
  }

  embed(options: R.RuntimeEmbedOptions = {}): Promise<R.RuntimeEmbedResult> {
    return this.#run(options.signal, async (memo) => {
      if (!memo.embed) {
        throw new MemoRuntimeError("UNAVAILABLE", "Cannot embed: this memory client cannot embed");
      }
      const result = await memo.embed({ onProgress: options.onProgress, signal: options.signal });
      return {
        model: memo.embeddingStatus?.().model ?? "unknown",
        embedded: result.embedded,
        total: result.total,
        computed: result.computed,
      };
    });
  }

  get(id: string, options: R.RuntimeCallOptions = {}): Promise<R.Note> {
    return this.#run(options.signal, (memo) => memo.get(id));
  }

  list(options: R.RuntimeListOptions): Promise<R.ListResult> {
    return this.#run(options.signal, (memo) =>
      memo.list({
        cursor: options.cursor,
        limit: options.limit,
        labels: options.labels,
        source: options.source,
        scope: options.scope,
        order: options.order,
        ...historyOf(options),
      }));
  }

  update(
    id: string,
    patch: R.RuntimeNotePatch,
    options: R.RuntimeUpdateOptions = {},
  ): Promise<R.Note> {
    return this.#run(options.signal, async (memo) => {
      const note = await memo.update(id, patch, {
        onRedacted: options.onRedacted,
        signal: options.signal,
      });
      this.#wrote(memo, { ids: [id], listChanged: false });
      return note;
    });
  }

  forget(id: string, options: R.RuntimeCallOptions = {}): Promise<R.Note> {
    return this.#run(options.signal, async (memo) => {
      const note = await memo.forget(id, { signal: options.signal });
      this.#wrote(memo, { ids: [id], listChanged: true });
      return note;
    });
  }

  correct(
    input: R.RuntimeCorrectInput,
    options: R.RuntimeCallOptions = {},
  ): Promise<R.CorrectResult> {
    return this.#history(options.signal, "correct notes", (memo) => memo.correct?.(input));
  }

  supersede(
    input: R.RuntimeSupersedeInput,
    options: R.RuntimeCallOptions = {},
  ): Promise<R.SupersedeResult> {
    return this.#history(options.signal, "supersede notes", (memo) => memo.supersede?.(input));
  }

  /**
   * A history write (`correct`, `supersede`), which the memory client may lack (`write` gives
   * undefined): the new note and the ones it superseded changed (when it superseded any; a
   * correction always does).
   */
  #history<T extends R.SupersedeResult>(
    signal: AbortSignal | undefined,
    what: string,
    write: (memo: R.MemoLike) => Promise<T> | undefined,
  ): Promise<T> {
    return this.#run(signal, async (memo) => {
      const pending = write(memo);
      if (!pending) throw unsupported(what);
      const result = await pending;
      if (result.superseded.length) {
        this.#wrote(memo, { ids: [result.note.id, ...result.superseded], listChanged: true });
      }
      return result;
    });
  }

  tidy(options: R.RuntimeCallOptions = {}): Promise<R.TidyPlan> {
    return this.#run(options.signal, (memo) => {
      if (!memo.tidy) throw unsupported("tidy the notes");
      return memo.tidy();
    });
  }

  applyTidy(plan: R.TidyPlan, options: R.RuntimeCallOptions = {}): Promise<R.TidyApplyResult> {
    return this.#run(options.signal, async (memo) => {
      if (!memo.applyTidy) throw unsupported("apply a tidy plan");
      const result = await memo.applyTidy(plan);
      const ids = [...result.notes.map((n) => n.id), ...result.superseded];
      if (ids.length) this.#wrote(memo, { ids, listChanged: true });
      return result;
    });
  }

  stats(options: R.RuntimeCallOptions = {}): Promise<R.MemoStats> {
    return this.#run(options.signal, async (memo) => {
      const stats = await memo.stats();
      const hooks = await hooksStatus(this.#rootDir);
      return hooks ? { ...stats, hooks } : stats;
    });
  }

  scrubSecrets(value: unknown): Promise<unknown> {
    return scrubSecrets(value);
  }

  scanSecrets(options: R.RuntimeScanOptions = {}): Promise<R.SecretScanResult> {
    return this.#run(options.signal, async (memo) => {
      const redact = options.redact === true;
      const result = memo.scanSecrets ? await memo.scanSecrets({ redact }) : await scanThroughPages(
        // Superseded notes are history, still stored: they are scanned too.
        (cursor) => memo.list({ cursor, limit: 1000, includeSuperseded: true }),
        (id, patch) => memo.update(id, patch),
        redact,
      );
      if (result.redacted.length) this.#wrote(memo, { ids: result.redacted, listChanged: false });
      return result;
    });
  }

  syncConnectors(options: R.RuntimeSyncOptions = {}): Promise<R.RuntimeSyncResult> {
    return this.#run(options.signal, async (memo) => {
      await refuseUnresolvedMerge(memo);
      const result = await runConfiguredConnectors(memo, {
        ...options,
        rootDir: this.#rootDir,
        env: this.#env ?? envObject(),
      });
      // Which notes a sync changed is not in its result: all that is known is that some did.
      if (result.written || result.updated) this.#wrote(memo, { ids: [], listChanged: true });
      return result;
    });
  }

  completeIds(
    prefix: string,
    limit: number,
    options: R.RuntimeCallOptions = {},
  ): Promise<R.RuntimeCompletion> {
    return this.#run(options.signal, (memo) =>
      completeIdsThroughPages(prefix, limit, (cursor) => {
        checkSignal(options.signal);
        // Superseded notes stay readable by id: their ids complete too.
        return memo.list({ cursor, limit: 1000, includeSuperseded: true });
      }));
  }

  watch(onChange: (change: R.RuntimeChange) => void): () => void {
    const stop = this.#listeners.watch(this.#closed, onChange);
    // A listener wants live data: a lazy runtime opens its client now. A failed open is
    // reported to the next call, which opens again and attaches the listener then.
    let opening: Promise<R.MemoLike>;
    try {
      opening = this.#ready();
    } catch {
      return stop;
    }
    opening.then((memo) => this.#attach(memo), () => {});
    return stop;
  }

  close(): Promise<void> {
    if (this.#closed) return Promise.resolve();
    this.#closed = true;
    this.#listeners.clear();
    return this.#close();
  }
}
