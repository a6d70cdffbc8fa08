/**
 * The local runtime: a {@linkcode MemoMcpRuntime} over a `Memo` memory client
 * on this machine. The memory and connectors packages' refusals become
 * {@linkcode MemoRuntimeError}s here, so that no caller needs their classes.
 *
 * @module
 */

import { envObject } from "../../platform/mod.ts";
import { runConfiguredConnectors } from "./_connectors.ts";
import { checkDraftList, checkIdList } from "../batch_input.ts";
import { RuntimeListeners } from "../listeners.ts";
import { MemoRuntimeError } from "../errors.ts";
import { rememberResultOf } from "../remember_result.ts";
import { scanThroughPages, scrubSecrets, secretsRefusal } from "../secrets.ts";
import type { MemoEmbeddingSettings } from "../memo_options.ts";
import { recallProfileOf, recallProfileOfMemo } from "./_recall_profile.ts";
import type {
  CorrectResult,
  ListResult,
  MemoLike,
  MemoMcpRuntime,
  MemoStats,
  Note,
  NoteDraft,
  RecallEngine,
  RecallHit,
  RecallResult,
  RuntimeCallOptions,
  RuntimeChange,
  RuntimeCompletion,
  RuntimeCorrectInput,
  RuntimeEmbedOptions,
  RuntimeEmbedResult,
  RuntimeHistoryFilter,
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

/**
 * Options of {@linkcode createMemoMcpRuntimeFromMemo}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { openMemo } from "@memo/memory";
 * import { createMemoMcpRuntimeFromMemo, type LocalRuntimeOptions } from "@memo/mcp-server";
 *
 * const rootDir = await Deno.makeTempDir();
 * const options: LocalRuntimeOptions = { rootDir, env: {}, closeMemo: true };
 * const runtime = createMemoMcpRuntimeFromMemo(await openMemo({ rootDir }), options);
 * assert.equal((await runtime.syncConnectors()).connectors.length, 0); // no .memo/config.json
 * await runtime.close(); // closes the memory client too (closeMemo)
 * await Deno.remove(rootDir, { recursive: true });
 * ```
 */
export interface LocalRuntimeOptions {
  /**
   * Project root, where `sync_connectors` finds `.memo/config.json` and keeps
   * its state.
   * @default "." (the current directory)
   */
  rootDir?: string;
  /**
   * Environment the connectors read their tokens from (`MEMO_GITHUB_TOKEN` …).
   * @default the process environment
   */
  env?: Record<string, string | undefined>;
  /**
   * Close the memory client when the runtime closes.
   * @default false
   */
  closeMemo?: boolean;
}

/**
 * Maps a refusal of the memory or connectors package, matched by its `code`,
 * to a {@linkcode MemoRuntimeError}: invalid input and a write the secrets guard refused
 * (`SECRETS_REFUSED`, with `details.secrets`) → `INVALID_INPUT`, a bad
 * connector configuration or an embedder that is off or cannot load
 * (`EMBEDDER_UNAVAILABLE`) → `CONFIG`, an unknown note or connector →
 * `NOTE_NOT_FOUND` / `CONNECTOR_NOT_FOUND`. Anything else (I/O) passes
 * through unchanged.
 */
function runtimeErrorOf(error: unknown): unknown {
  const refused = secretsRefusal(error);
  if (refused) return refused;
  const code = (error as { code?: unknown } | null)?.code;
  const message = error instanceof Error ? error.message : String(error);
  switch (code) {
    case "MEMORY_VALIDATION_ERROR":
      return new MemoRuntimeError("INVALID_INPUT", message, { cause: error });
    case "CONNECTOR_CONFIG":
    case "EMBEDDER_UNAVAILABLE":
      return new MemoRuntimeError("CONFIG", message, { cause: error });
    case "NOTE_NOT_FOUND":
      return new MemoRuntimeError("NOTE_NOT_FOUND", message, {
        cause: error,
        details: { id: String((error as { id?: unknown }).id ?? "") },
      });
    case "UNKNOWN_CONNECTOR":
      return new MemoRuntimeError("CONNECTOR_NOT_FOUND", message, {
        cause: error,
        details: { ids: (error as { ids?: unknown }).ids },
      });
    default:
      return error;
  }
}

/** The refusal of what the memory client cannot do. */
function unsupported(action: string): MemoRuntimeError {
  return new MemoRuntimeError("UNAVAILABLE", `Cannot ${action}: this memory client cannot`);
}

/** The history filters of a recall or list (only those given). */
function historyOf(options: RuntimeHistoryFilter): RuntimeHistoryFilter {
  const out: RuntimeHistoryFilter = {};
  if (options.includeSuperseded !== undefined) out.includeSuperseded = options.includeSuperseded;
  if (options.asOf !== undefined) out.asOf = options.asOf;
  if (options.since !== undefined) out.since = options.since;
  if (options.until !== undefined) out.until = options.until;
  return out;
}

/** What a memory client's recall takes of a runtime recall's options. */
function recallOptionsOf(options: RuntimeRecallOptions) {
  return {
    limit: options.limit,
    engine: options.engine,
    labels: options.labels,
    source: options.source,
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

class LocalRuntime implements MemoMcpRuntime {
  readonly kind = "local" as const;
  #ready: () => Promise<MemoLike>;
  #rootDir: string;
  #env: Record<string, string | undefined> | undefined;
  #close: () => Promise<void>;
  #closed = false;
  #listeners = new RuntimeListeners();
  #profile: (() => Promise<RuntimeRecallProfile | undefined>) | undefined;

  constructor(
    ready: () => Promise<MemoLike>,
    rootDir: string,
    env: Record<string, string | undefined> | undefined,
    close: () => Promise<void>,
    profile?: () => Promise<RuntimeRecallProfile | undefined>,
  ) {
    this.#ready = ready;
    this.#rootDir = rootDir;
    this.#env = env;
    this.#close = close;
    this.#profile = profile;
  }

  recallProfile(options: RuntimeCallOptions = {}): Promise<RuntimeRecallProfile | undefined> {
    checkSignal(options.signal);
    return this.#profile?.() ?? Promise.resolve(undefined);
  }

  async #run<T>(signal: AbortSignal | undefined, fn: (memo: MemoLike) => Promise<T>): Promise<T> {
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

  #attach(memo: MemoLike): void {
    if (this.#closed || !memo.watch) return;
    this.#listeners.attach((deliver) => memo.watch!((change) => deliver(runtimeChangeOf(change))));
  }

  /** A write through this runtime, reported here only when the client does not report it. */
  #wrote(memo: MemoLike, change: RuntimeChange): void {
    if (!memo.watch && this.#listeners.size) this.#listeners.emit(change);
  }

  /** The client's `remember` (with the similar notes), else a batch of one. */
  async remember(
    input: RuntimeRememberInput,
    options: RuntimeCallOptions = {},
  ): Promise<RuntimeRememberResult> {
    const single = await this.#run(options.signal, async (memo) => {
      if (!memo.remember) return undefined;
      checkDraftList([input]);
      const result = await memo.remember(input);
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
    drafts: readonly NoteDraft[],
    options: RuntimeCallOptions = {},
  ): Promise<RuntimeRememberManyResult> {
    return this.#run(options.signal, async (memo): Promise<RuntimeRememberManyResult> => {
      checkDraftList(drafts);
      const { written, updated, unchanged, redacted } = await memo.rememberMany(drafts, {
        signal: options.signal,
      });
      const ids = [...written, ...updated].map((n) => n.id);
      if (ids.length) this.#wrote(memo, { ids, listChanged: written.length > 0 });
      const result: RuntimeRememberManyResult = { written, updated, unchanged };
      if (redacted?.length) result.redacted = redacted;
      return result;
    });
  }

  forgetMany(ids: readonly string[], options: RuntimeCallOptions = {}): Promise<Note[]> {
    return this.#run(options.signal, async (memo): Promise<Note[]> => {
      checkIdList(ids);
      const found = new Map<string, Note>();
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
            await memo.forget(id);
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

  recall(query: string, options: RuntimeRecallOptions): Promise<RecallHit[]> {
    return this.#run(options.signal, (memo) => memo.recall(query, recallOptionsOf(options)));
  }

  recallDetailed(query: string, options: RuntimeRecallOptions): Promise<RecallResult> {
    return this.#run(
      options.signal,
      (memo) => recallDetailedOf(memo, query, recallOptionsOf(options)),
    );
  }

  embed(options: RuntimeEmbedOptions = {}): Promise<RuntimeEmbedResult> {
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

  get(id: string, options: RuntimeCallOptions = {}): Promise<Note> {
    return this.#run(options.signal, (memo) => memo.get(id));
  }

  list(options: RuntimeListOptions): Promise<ListResult> {
    return this.#run(options.signal, (memo) =>
      memo.list({
        cursor: options.cursor,
        limit: options.limit,
        labels: options.labels,
        source: options.source,
        order: options.order,
        ...historyOf(options),
      }));
  }

  update(id: string, patch: RuntimeNotePatch, options: RuntimeUpdateOptions = {}): Promise<Note> {
    return this.#run(options.signal, async (memo) => {
      const note = await memo.update(id, patch, { onRedacted: options.onRedacted });
      this.#wrote(memo, { ids: [id], listChanged: false });
      return note;
    });
  }

  forget(id: string, options: RuntimeCallOptions = {}): Promise<Note> {
    return this.#run(options.signal, async (memo) => {
      const note = await memo.forget(id);
      this.#wrote(memo, { ids: [id], listChanged: true });
      return note;
    });
  }

  correct(input: RuntimeCorrectInput, options: RuntimeCallOptions = {}): Promise<CorrectResult> {
    return this.#run(options.signal, async (memo) => {
      if (!memo.correct) throw unsupported("correct notes");
      const result = await memo.correct(input);
      // The superseded notes leave the default lists: the lists changed.
      this.#wrote(memo, { ids: [result.note.id, ...result.superseded], listChanged: true });
      return result;
    });
  }

  supersede(
    input: RuntimeSupersedeInput,
    options: RuntimeCallOptions = {},
  ): Promise<SupersedeResult> {
    return this.#run(options.signal, async (memo) => {
      if (!memo.supersede) throw unsupported("supersede notes");
      const result = await memo.supersede(input);
      if (result.superseded.length) {
        this.#wrote(memo, { ids: [result.note.id, ...result.superseded], listChanged: true });
      }
      return result;
    });
  }

  tidy(options: RuntimeCallOptions = {}): Promise<TidyPlan> {
    return this.#run(options.signal, (memo) => {
      if (!memo.tidy) throw unsupported("tidy the notes");
      return memo.tidy();
    });
  }

  applyTidy(plan: TidyPlan, options: RuntimeCallOptions = {}): Promise<TidyApplyResult> {
    return this.#run(options.signal, async (memo) => {
      if (!memo.applyTidy) throw unsupported("apply a tidy plan");
      const result = await memo.applyTidy(plan);
      const ids = [...result.notes.map((n) => n.id), ...result.superseded];
      if (ids.length) this.#wrote(memo, { ids, listChanged: true });
      return result;
    });
  }

  stats(options: RuntimeCallOptions = {}): Promise<MemoStats> {
    return this.#run(options.signal, (memo) => memo.stats());
  }

  scrubSecrets(value: unknown): Promise<unknown> {
    return scrubSecrets(value);
  }

  scanSecrets(options: RuntimeScanOptions = {}): Promise<SecretScanResult> {
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

  syncConnectors(options: RuntimeSyncOptions = {}): Promise<RuntimeSyncResult> {
    return this.#run(options.signal, async (memo) => {
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
    options: RuntimeCallOptions = {},
  ): Promise<RuntimeCompletion> {
    return this.#run(options.signal, async (memo) => {
      const values: string[] = [];
      let total = 0;
      let cursor: string | undefined;
      do {
        checkSignal(options.signal);
        // Superseded notes stay readable by id: their ids complete too.
        const page = await memo.list({ cursor, limit: 1000, includeSuperseded: true });
        for (const note of page.notes) {
          if (!note.id.startsWith(prefix)) continue;
          total++;
          if (values.length < limit) values.push(note.id);
        }
        cursor = page.nextCursor;
      } while (cursor);
      return { values, total };
    });
  }

  watch(onChange: (change: RuntimeChange) => void): () => void {
    if (this.#closed) {
      throw new MemoRuntimeError("UNAVAILABLE", "Cannot watch the memory: the runtime is closed");
    }
    if (typeof onChange !== "function") {
      throw new MemoRuntimeError(
        "INVALID_INPUT",
        "Cannot watch the memory: onChange must be a function",
      );
    }
    const stop = this.#listeners.add(onChange);
    // A listener wants live data: a lazy runtime opens its client now. A failed open is
    // reported to the next call, which opens again and attaches the listener then.
    let opening: Promise<MemoLike>;
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

/**
 * A recall with its engine and coverage, from a runtime or memory client
 * that may give hits only: its own `recallDetailed` when it has one, else its
 * `recall`, with the engine the hits name (else the one asked for, `lexical`
 * for `auto`) and no coverage known.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { recallDetailedOf } from "./runtime.ts";
 *
 * const hitsOnly = { recall: () => Promise.resolve([]) };
 * assert.deepEqual(await recallDetailedOf(hitsOnly, "deploy", { engine: "auto" }), {
 *   hits: [],
 *   engine: "lexical",
 *   coverage: { embedded: 0, total: 0 },
 * });
 * assert.equal((await recallDetailedOf(hitsOnly, "deploy", { engine: "vector" })).engine, "vector");
 * ```
 */
export async function recallDetailedOf<O extends { engine?: RecallEngine }>(
  source: {
    recall(query: string, options: O): Promise<RecallHit[]>;
    recallDetailed?(query: string, options: O): Promise<RecallResult>;
  },
  query: string,
  options: O,
): Promise<RecallResult> {
  if (source.recallDetailed) return await source.recallDetailed(query, options);
  const hits = await source.recall(query, options);
  const asked = options.engine;
  const engine = hits[0]?.engine ?? (asked === undefined || asked === "auto" ? "lexical" : asked);
  return { hits, engine, coverage: { embedded: 0, total: 0 } };
}

/**
 * Wraps a loaded memory client as a {@linkcode MemoMcpRuntime} (the local
 * runtime). The client is not closed with the runtime unless `closeMemo`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { openMemo } from "@memo/memory";
 * import { createMemoMcpProtocolServer, createMemoMcpRuntimeFromMemo } from "@memo/mcp-server";
 *
 * const rootDir = await Deno.makeTempDir();
 * const memo = await openMemo({ rootDir });
 * await memo.remember({ text: "Deploys run with make deploy" });
 * const server = createMemoMcpProtocolServer({
 *   runtime: createMemoMcpRuntimeFromMemo(memo, { rootDir }),
 * });
 * const reply = await server.handle(JSON.stringify({
 *   jsonrpc: "2.0",
 *   id: 1,
 *   method: "tools/call",
 *   params: { name: "memory_stats", arguments: {} },
 * }));
 * assert.equal(JSON.parse(reply!).result.structuredContent.notes, 1);
 * await memo.close();
 * await Deno.remove(rootDir, { recursive: true });
 * ```
 */
export function createMemoMcpRuntimeFromMemo(
  memo: MemoLike,
  options: LocalRuntimeOptions = {},
): MemoMcpRuntime {
  const ready = Promise.resolve(memo);
  return new LocalRuntime(
    () => ready,
    options.rootDir ?? ".",
    options.env,
    async () => {
      if (options.closeMemo) await memo.close();
    },
    () => recallProfileOfMemo(memo),
  );
}

/**
 * A local runtime that loads its memory client lazily: `open` runs at the
 * first call (or at once when `prewarm`), and its failure is reported to
 * every call, not thrown here.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { openMemo } from "@memo/memory";
 * import { createLazyLocalRuntime } from "./runtime.ts";
 *
 * const rootDir = await Deno.makeTempDir();
 * let opened = 0;
 * const runtime = createLazyLocalRuntime(() => (opened++, openMemo({ rootDir })), {
 *   rootDir,
 *   prewarm: false,
 * });
 * assert.equal(opened, 0);
 * assert.equal((await runtime.stats()).notes, 0);
 * await runtime.stats();
 * assert.equal(opened, 1); // opened once, at the first call
 * await runtime.close(); // closes the client it opened
 * await Deno.remove(rootDir, { recursive: true });
 * ```
 */
export function createLazyLocalRuntime(
  open: () => Promise<MemoLike>,
  options: {
    rootDir: string;
    env?: Record<string, string | undefined>;
    prewarm: boolean;
    /**
     * The recall settings `open` uses, for `recallProfile()` without opening anything; without
     * it, `recallProfile()` answers `undefined` until the client is open.
     */
    recall?: () => MemoEmbeddingSettings | Promise<MemoEmbeddingSettings>;
  },
): MemoMcpRuntime {
  let opening: Promise<MemoLike> | undefined;
  let opened: MemoLike | undefined;
  const ready = openOnce(() => opening = open().then((memo) => opened = memo));
  if (options.prewarm) ready();
  const { recall } = options;
  const profile = recall
    ? async () => recallProfileOf(await recall())
    : () => opened ? recallProfileOfMemo(opened) : Promise.resolve(undefined);
  return new LocalRuntime(ready, options.rootDir, options.env, async () => {
    if (!opening) return;
    let memo: MemoLike;
    try {
      memo = await opening;
    } catch {
      return;
    }
    await memo.close();
  }, profile);
}

/**
 * `open` run once, its promise shared by every caller; a failed open is
 * reported to the callers that await it and forgotten, so the next call
 * tries again.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { openOnce } from "./runtime.ts";
 *
 * let calls = 0;
 * const ready = openOnce(() => ++calls === 1 ? Promise.reject(new Error("busy")) : Promise.resolve(calls));
 * await assert.rejects(ready(), /busy/);
 * assert.equal(await ready(), 2);
 * assert.equal(await ready(), 2); // kept
 * ```
 */
export function openOnce<T>(open: () => Promise<T>): () => Promise<T> {
  let opening: Promise<T> | undefined;
  return () => {
    if (!opening) {
      const attempt = open();
      opening = attempt;
      attempt.catch(() => {
        if (opening === attempt) opening = undefined;
      });
    }
    return opening;
  };
}
