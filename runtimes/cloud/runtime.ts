/**
 * The cloud-only runtime: a {@linkcode MemoMcpRuntime} whose notes live
 * behind the Memo Cloud API, reached through a {@linkcode MemoCloudClient}.
 * It writes nothing under its project folder but the connectors' state.
 *
 * @module
 */

import type { ConnectorCommit, ConnectorDraft, ConnectorMemo } from "@memo/connectors";
import { envObject } from "../../platform/mod.ts";
import { isMemoCloudError, type MemoCloudError } from "./errors.ts";
import { CloudChangePoller } from "./_watch.ts";
import { checkDraftList, checkIdList } from "../batch_input.ts";
import { RuntimeListeners } from "../listeners.ts";
import {
  MemoCloudClient,
  type MemoCloudClientOptions,
  type MemoCloudNote,
  type MemoCloudOptions,
} from "./client.ts";
import { MemoRuntimeError } from "../errors.ts";
import { rememberResultOf } from "../remember_result.ts";
import { guardForCloud, guardPatchForCloud, scanThroughPages, scrubSecrets } from "../secrets.ts";
import type {
  CorrectResult,
  ListResult,
  MemoMcpRuntime,
  MemoStats,
  Note,
  NoteDraft,
  RecallHit,
  RecallResult,
  RuntimeCallOptions,
  RuntimeChange,
  RuntimeCompletion,
  RuntimeCorrectInput,
  RuntimeListOptions,
  RuntimeNotePatch,
  RuntimeRecallOptions,
  RuntimeRememberInput,
  RuntimeRememberManyResult,
  RuntimeRememberResult,
  RuntimeScanOptions,
  RuntimeSupersedeInput,
  RuntimeSyncOptions,
  RuntimeSyncResult,
  RuntimeUpdateOptions,
  SecretRedaction,
  SecretScanResult,
  SecretsPolicy,
  SupersedeResult,
  TidyApplyResult,
  TidyPlan,
} from "../types.ts";

/**
 * Options of {@linkcode createMemoCloudMcpRuntime}: the `cloud` options, a
 * ready client or a `fetch`, and where the connectors find their
 * configuration.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createMemoCloudMcpRuntime, type MemoCloudMcpRuntimeOptions } from "@memo/mcp-server";
 *
 * const calls: string[] = [];
 * const options: MemoCloudMcpRuntimeOptions = {
 *   baseUrl: "https://cloud.example",
 *   apiKey: "mk_example",
 *   // An injected fetch: tests answer without a network.
 *   fetch: (input) => {
 *     calls.push(new URL(String(input)).pathname);
 *     return Promise.resolve(
 *       String(input).endsWith("/whoami")
 *         ? Response.json({ workspaceId: "acme" })
 *         : Response.json({ notes: 0, labels: {}, sources: {}, revision: 0 }),
 *     );
 *   },
 * };
 * const runtime = createMemoCloudMcpRuntime(options);
 * assert.equal((await runtime.stats()).notes, 0);
 * assert.deepEqual(calls, ["/v1/whoami", "/v1/workspaces/acme/projects/default/stats"]);
 * await runtime.close();
 * ```
 */
export interface MemoCloudMcpRuntimeOptions extends MemoCloudOptions {
  /** A ready client; built from the other fields when missing. */
  cloudClient?: MemoCloudClient;
  /**
   * What a write does with a detected secret, checked on this side before anything is sent
   * (the server checks again with its own `MEMO_CLOUD_SECRETS`): `redact`, `refuse` or `allow`.
   * @default "redact"
   */
  secrets?: SecretsPolicy;
  /**
   * `fetch` the client uses.
   * @default globalThis.fetch
   */
  fetch?: (input: Request | URL | string, init?: RequestInit) => Promise<Response>;
  /**
   * Project folder: where `syncConnectors` reads `.memo/config.json` and
   * keeps `.memo/connectors/state.json`. No notes are written there.
   * @default "." (the current directory; `MEMO_ROOT_DIR` through the env factory)
   */
  rootDir?: string;
  /**
   * Environment the connectors read their tokens from (`MEMO_GITHUB_TOKEN` …).
   * @default the process environment
   */
  env?: Record<string, string | undefined>;
  /**
   * How often `watch` polls the change feed while someone listens, in milliseconds.
   * @default 1000
   */
  watchIntervalMs?: number;
}

/** Page size of the Cloud API's lists and recall. */
const CLOUD_PAGE = 100;
/** Most ids of one `notes:batchDelete`. */
const CLOUD_DELETE_BATCH = 10_000;

/** The runtime's note: the cloud note without its `revision`, as the local runtime returns it. */
function plain(note: MemoCloudNote): Note {
  const { revision: _revision, ...rest } = note;
  return rest;
}

/** What this side's guard and the server's replaced, each once (undefined when neither did). */
function mergeRedacted(
  mine: SecretRedaction[],
  theirs: SecretRedaction[] | undefined,
): SecretRedaction[] | undefined {
  const out = [...mine];
  for (const r of theirs ?? []) {
    if (!out.some((m) => m.rule === r.rule && m.field === r.field && m.index === r.index)) {
      out.push(r);
    }
  }
  return out.length ? out : undefined;
}

/**
 * A cloud failure as a {@linkcode MemoRuntimeError}, by code:
 *
 * | cloud code | runtime code |
 * |---|---|
 * | `not_found` on a note | `NOTE_NOT_FOUND` (`details.id`) |
 * | `not_found` elsewhere (a wrong base URL) | `CONFIG` |
 * | `invalid_request`, `payload_too_large`, `conflict` | `INVALID_INPUT` |
 * | `conflict` of a write still running (`in_progress`) | `UNAVAILABLE` |
 * | `unauthorized`, `forbidden`, `config` | `CONFIG` |
 * | `rate_limited`, `internal`, `unavailable`, `timeout` | `UNAVAILABLE` |
 *
 * The connectors' refusals map as in the local runtime. Anything else passes
 * through.
 */
function runtimeErrorOf(error: unknown, noteId?: string): unknown {
  if (isMemoCloudError(error)) return fromCloud(error, noteId);
  const code = (error as { code?: unknown } | null)?.code;
  const message = error instanceof Error ? error.message : String(error);
  if (code === "CONNECTOR_CONFIG") return new MemoRuntimeError("CONFIG", message, { cause: error });
  if (code === "UNKNOWN_CONNECTOR") {
    return new MemoRuntimeError("CONNECTOR_NOT_FOUND", message, {
      cause: error,
      details: { ids: (error as { ids?: unknown }).ids },
    });
  }
  return error;
}

function fromCloud(error: MemoCloudError, noteId: string | undefined): MemoRuntimeError {
  const options = { cause: error };
  switch (error.code) {
    case "not_found":
      return noteId === undefined
        ? new MemoRuntimeError("CONFIG", error.message, options)
        : new MemoRuntimeError("NOTE_NOT_FOUND", `Cannot find note ${noteId}`, {
          ...options,
          details: { id: noteId },
        });
    case "conflict":
      return error.details?.reason === "in_progress"
        ? new MemoRuntimeError("UNAVAILABLE", error.message, options)
        : new MemoRuntimeError("INVALID_INPUT", error.message, options);
    case "invalid_request":
    case "payload_too_large":
      return new MemoRuntimeError("INVALID_INPUT", error.message, options);
    case "unauthorized":
    case "forbidden":
    case "config":
      return new MemoRuntimeError("CONFIG", error.message, options);
    default:
      return new MemoRuntimeError("UNAVAILABLE", error.message, options);
  }
}

function checkEngine(engine: string | undefined): void {
  if (engine === "vector" || engine === "hybrid") {
    throw new MemoRuntimeError(
      "INVALID_INPUT",
      `Cannot recall with the ${engine} engine: the cloud runtime is lexical`,
    );
  }
}

class CloudRuntime implements MemoMcpRuntime {
  readonly kind = "cloud" as const;
  readonly #client: MemoCloudClient;
  readonly #rootDir: string;
  readonly #env: Record<string, string | undefined> | undefined;
  readonly #closing = new AbortController();
  readonly #listeners = new RuntimeListeners();
  readonly #poller: CloudChangePoller;
  readonly #secrets: SecretsPolicy;

  constructor(client: MemoCloudClient, options: MemoCloudMcpRuntimeOptions) {
    this.#client = client;
    this.#secrets = options.secrets ?? "redact";
    this.#rootDir = options.rootDir ?? ".";
    this.#env = options.env;
    this.#poller = new CloudChangePoller(
      client,
      options.watchIntervalMs ?? 1000,
      (change) => this.#listeners.emit(change),
    );
  }

  async #run<T>(
    signal: AbortSignal | undefined,
    fn: (signal: AbortSignal) => Promise<T>,
    noteId?: string,
  ): Promise<T> {
    signal?.throwIfAborted();
    if (this.#closing.signal.aborted) {
      throw new MemoRuntimeError("UNAVAILABLE", "Cannot use the memory: the runtime is closed");
    }
    // The call stops when its caller goes away or the runtime closes (AbortSignal.any is
    // missing from Node 20.0 to 20.2).
    const controller = new AbortController();
    const stop = (from: AbortSignal) => () => controller.abort(from.reason);
    const onCaller = signal ? stop(signal) : undefined;
    const onClose = stop(this.#closing.signal);
    signal?.addEventListener("abort", onCaller!, { once: true });
    this.#closing.signal.addEventListener("abort", onClose, { once: true });
    try {
      return await fn(controller.signal);
    } catch (e) {
      if (signal?.aborted && e === signal.reason) throw e;
      if (this.#closing.signal.aborted) {
        throw new MemoRuntimeError("UNAVAILABLE", "Cannot use the memory: the runtime is closed");
      }
      throw runtimeErrorOf(e, noteId);
    } finally {
      if (onCaller) signal?.removeEventListener("abort", onCaller);
      this.#closing.signal.removeEventListener("abort", onClose);
    }
  }

  /** {@linkcode #run} for a write: the change feed's poller holds what it finds meanwhile. */
  #write<T>(
    signal: AbortSignal | undefined,
    fn: (signal: AbortSignal) => Promise<T>,
    noteId?: string,
  ): Promise<T> {
    return this.#poller.writing(() => this.#run(signal, fn, noteId));
  }

  /** Reports a write made through this runtime, when someone listens. */
  #wrote(
    upserts: readonly MemoCloudNote[],
    created: boolean,
    deleted: readonly string[] = [],
  ): void {
    if (!this.#listeners.size) return;
    const ids = this.#poller.ownUpserts(upserts);
    for (const id of deleted) {
      this.#poller.ownDelete(id);
      ids.push(id);
    }
    if (ids.length) this.#listeners.emit({ ids, listChanged: created || deleted.length > 0 });
  }

  remember(input: RuntimeRememberInput, options: RuntimeCallOptions = {}) {
    return this.#write(options.signal, async (signal): Promise<RuntimeRememberResult> => {
      const guarded = await guardForCloud([input], this.#secrets, "remember");
      const sent = await this.#client.remember(guarded.drafts[0], { signal });
      const { note, status, similar } = sent;
      if (status !== "unchanged") this.#wrote([note], status === "written");
      return rememberResultOf(
        plain(note),
        status,
        mergeRedacted(guarded.redacted, sent.redacted),
        similar,
      );
    });
  }

  /** One `notes:batch` request: one transaction on the server, at most 10,000 notes. */
  rememberMany(
    drafts: readonly NoteDraft[],
    options: RuntimeCallOptions = {},
  ): Promise<RuntimeRememberManyResult> {
    return this.#write(options.signal, async (signal): Promise<RuntimeRememberManyResult> => {
      checkDraftList(drafts);
      if (!drafts.length) return { written: [], updated: [], unchanged: [] };
      const guarded = await guardForCloud(drafts, this.#secrets, "remember the notes");
      const result = await this.#client.upsertBatch(
        guarded.drafts.map((d) => ({ ...draftOf(d), id: d.id })),
        { signal },
      );
      const changed = result.results.filter((r) => r.status !== "unchanged");
      if (changed.length) this.#wrote(changed.map((r) => r.note), result.written > 0);
      const of = (status: string) =>
        result.results.filter((r) => r.status === status).map((r) => plain(r.note));
      const out: RuntimeRememberManyResult = {
        written: of("written"),
        updated: of("updated"),
        unchanged: of("unchanged"),
      };
      const redacted = mergeRedacted(guarded.redacted, result.redacted);
      if (redacted) out.redacted = redacted;
      return out;
    });
  }

  /**
   * One `notes:batchDelete` request per 10,000 ids (one transaction each), in
   * order; unknown ids are passed over.
   */
  forgetMany(ids: readonly string[], options: RuntimeCallOptions = {}): Promise<Note[]> {
    return this.#write(options.signal, async (signal): Promise<Note[]> => {
      checkIdList(ids);
      const unique = [...new Set(ids)];
      const removed: Note[] = [];
      try {
        for (let i = 0; i < unique.length; i += CLOUD_DELETE_BATCH) {
          const { deleted } = await this.#client.deleteBatch(
            { ids: unique.slice(i, i + CLOUD_DELETE_BATCH) },
            { signal },
          );
          removed.push(...deleted.map(plain));
        }
      } finally {
        // What was deleted before a failure is reported all the same.
        if (removed.length) this.#wrote([], false, removed.map((n) => n.id));
      }
      return removed;
    });
  }

  recall(query: string, options: RuntimeRecallOptions): Promise<RecallHit[]> {
    return this.#run(options.signal, async (signal) => {
      checkEngine(options.engine);
      const hits = await this.#client.recall(query, {
        // The API answers at most 100 hits.
        limit: Math.min(options.limit, CLOUD_PAGE),
        engine: options.engine === "lexical" ? "lexical" : undefined,
        labels: options.labels,
        source: options.source,
        explain: options.explain,
        includeSuperseded: options.includeSuperseded,
        asOf: options.asOf,
        since: options.since,
        until: options.until,
        signal,
      });
      return hits.map((hit) => ({ ...hit, note: plain(hit.note) }));
    });
  }

  async recallDetailed(query: string, options: RuntimeRecallOptions): Promise<RecallResult> {
    // The cloud recalls lexically and embeds nothing.
    const hits = await this.recall(query, options);
    return { hits, engine: "lexical", coverage: { embedded: 0, total: 0 } };
  }

  get(id: string, options: RuntimeCallOptions = {}): Promise<Note> {
    return this.#run(
      options.signal,
      async (signal) => plain(await this.#client.get(id, { signal })),
      id,
    );
  }

  list(options: RuntimeListOptions): Promise<ListResult> {
    return this.#run(options.signal, async (signal) => {
      // Pages of the API hold at most 100 notes: a bigger page is read in several.
      const notes: Note[] = [];
      let cursor = options.cursor;
      let total = 0;
      let remaining = options.limit;
      do {
        const page = await this.#client.list({
          cursor,
          limit: remaining >= 1 ? Math.min(remaining, CLOUD_PAGE) : remaining,
          labels: options.labels,
          source: options.source,
          order: options.order,
          includeSuperseded: options.includeSuperseded,
          asOf: options.asOf,
          since: options.since,
          until: options.until,
          signal,
        });
        notes.push(...page.notes.map(plain));
        total = page.total;
        cursor = page.nextCursor;
        remaining -= page.notes.length;
        if (!page.notes.length) break;
      } while (remaining > 0 && cursor);
      const result: ListResult = { notes, total };
      if (cursor) result.nextCursor = cursor;
      return result;
    });
  }

  update(id: string, patch: RuntimeNotePatch, options: RuntimeUpdateOptions = {}): Promise<Note> {
    return this.#write(options.signal, async (signal) => {
      const guarded = await guardPatchForCloud(patch, this.#secrets);
      const note = await this.#client.update(id, guarded.patch, { signal });
      this.#wrote([note], false);
      if (guarded.redacted.length) options.onRedacted?.(guarded.redacted);
      return plain(note);
    }, id);
  }

  scrubSecrets(value: unknown): Promise<unknown> {
    return scrubSecrets(value);
  }

  scanSecrets(options: RuntimeScanOptions = {}): Promise<SecretScanResult> {
    return this.#run(options.signal, async (signal) => {
      return await scanThroughPages(
        (cursor) =>
          this.#client.list({ cursor, limit: CLOUD_PAGE, signal }).then((p) => ({
            notes: p.notes.map(plain),
            nextCursor: p.nextCursor,
          })),
        (id, patch) =>
          this.#poller.writing(async () =>
            this.#wrote([await this.#client.update(id, patch, { signal })], false)
          ),
        options.redact === true,
      );
    });
  }

  forget(id: string, options: RuntimeCallOptions = {}): Promise<Note> {
    return this.#write(options.signal, async (signal) => {
      const note = await this.#client.forget(id, { signal });
      this.#wrote([], false, [note.id]);
      return plain(note);
    }, id);
  }

  /**
   * `POST notes:correct`: one transaction on the server (the new note and the old one's end),
   * after this side's secrets guard over the new text, title and labels.
   */
  correct(input: RuntimeCorrectInput, options: RuntimeCallOptions = {}): Promise<CorrectResult> {
    return this.#write(options.signal, async (signal) => {
      const guarded = await guardForCloud([input], this.#secrets, "correct the note");
      const sent = await this.#client.correct(guarded.drafts[0], { signal });
      const { note, superseded } = sent;
      this.#wroteLinks(note, superseded, true);
      const result: CorrectResult = { note: plain(note), superseded };
      const redacted = mergeRedacted(guarded.redacted, sent.redacted);
      if (redacted) result.redacted = redacted.map(({ rule, field }) => ({ rule, field }));
      return result;
    }, input?.id);
  }

  /** `POST notes:supersede`: `by` gains `ids` in its `supersedes` (one transaction). */
  supersede(
    input: RuntimeSupersedeInput,
    options: RuntimeCallOptions = {},
  ): Promise<SupersedeResult> {
    return this.#write(options.signal, async (signal) => {
      const { note, superseded } = await this.#client.supersede(input, { signal });
      if (superseded.length) this.#wroteLinks(note, superseded, false);
      return { note: plain(note), superseded };
    }, input?.by);
  }

  /** `GET tidy`: the proposals over the cloud's notes (a plan without `sha256`). */
  tidy(options: RuntimeCallOptions = {}): Promise<TidyPlan> {
    return this.#run(options.signal, (signal) => this.#client.tidy({ signal }));
  }

  /** `POST tidy:apply`: the plan's merges in one transaction. */
  applyTidy(plan: TidyPlan, options: RuntimeCallOptions = {}): Promise<TidyApplyResult> {
    return this.#write(options.signal, async (signal) => {
      const result = await this.#client.applyTidy(plan, { signal });
      for (const note of result.notes) {
        const ids = (note.supersedes ?? []).filter((id) => result.superseded.includes(id));
        this.#wroteLinks(note, ids, false);
      }
      return { ...result, notes: result.notes.map(plain) };
    });
  }

  /** Reports a write that superseded notes: they leave the default lists. */
  #wroteLinks(note: MemoCloudNote, superseded: readonly string[], created: boolean): void {
    this.#wrote([note], created);
    if (!this.#listeners.size || !superseded.length) return;
    this.#poller.ownIds(superseded);
    this.#listeners.emit({ ids: [...superseded], listChanged: true });
  }

  stats(options: RuntimeCallOptions = {}): Promise<MemoStats> {
    return this.#run(options.signal, async (signal) => {
      const s = await this.#client.stats({ signal });
      return {
        notes: s.notes,
        labels: s.labels ?? {},
        sources: s.sources ?? {},
        ...(s.lastUpdated !== undefined ? { lastUpdated: s.lastUpdated } : {}),
        engine: { default: "lexical", auto: "lexical" },
        embeddings: { model: "none", ready: false, embedded: 0, total: s.notes, state: "off" },
        issues: [],
        secrets: { policy: this.#secrets },
      } satisfies MemoStats;
    });
  }

  syncConnectors(options: RuntimeSyncOptions = {}): Promise<RuntimeSyncResult> {
    return this.#run(options.signal, async (signal) => {
      const { syncConfiguredConnectors } = await import("@memo/connectors");
      // One connector pass is one batch: one request, one transaction on the server.
      const target: ConnectorMemo = {
        rememberMany: async (drafts, call): Promise<ConnectorCommit> => {
          // The guard runs before the pass commits: under refuse, the whole pass is refused.
          const guarded = await guardForCloud(drafts, this.#secrets, "commit the sync pass");
          const result = await this.#poller.writing(async () => {
            const result = await this.#client.upsertBatch(guarded.drafts.map(draftOf), {
              signal: call?.signal ?? signal,
            });
            const changed = result.results.filter((r) => r.status !== "unchanged");
            this.#wrote(changed.map((r) => r.note), result.written > 0);
            return result;
          });
          const of = (status: string) =>
            result.results.filter((r) => r.status === status).map((r) => plain(r.note));
          return {
            written: of("written"),
            updated: of("updated"),
            unchanged: of("unchanged"),
            bytesWritten: 0,
          };
        },
      };
      return await syncConfiguredConnectors(target, {
        rootDir: this.#rootDir,
        env: this.#env ?? envObject(),
        only: options.only,
        full: options.full,
        onProgress: options.onProgress,
        signal,
      });
    });
  }

  completeIds(
    prefix: string,
    limit: number,
    options: RuntimeCallOptions = {},
  ): Promise<RuntimeCompletion> {
    return this.#run(options.signal, async (signal) => {
      const values: string[] = [];
      let total = 0;
      let cursor: string | undefined;
      do {
        // Superseded notes stay readable by id: their ids complete too.
        const page = await this.#client.list({
          cursor,
          limit: CLOUD_PAGE,
          includeSuperseded: true,
          signal,
        });
        for (const note of page.notes) {
          if (!note.id.startsWith(prefix)) continue;
          total++;
          if (values.length < limit) values.push(note.id);
        }
        cursor = page.notes.length ? page.nextCursor : undefined;
      } while (cursor);
      return { values, total };
    });
  }

  watch(onChange: (change: RuntimeChange) => void): () => void {
    if (this.#closing.signal.aborted) {
      throw new MemoRuntimeError("UNAVAILABLE", "Cannot watch the memory: the runtime is closed");
    }
    if (typeof onChange !== "function") {
      throw new MemoRuntimeError(
        "INVALID_INPUT",
        "Cannot watch the memory: onChange must be a function",
      );
    }
    const remove = this.#listeners.add(onChange);
    this.#poller.start();
    return () => {
      remove();
      if (!this.#listeners.size) this.#poller.stop();
    };
  }

  close(): Promise<void> {
    if (this.#closing.signal.aborted) return Promise.resolve();
    this.#closing.abort(
      new MemoRuntimeError("UNAVAILABLE", "Cannot use the memory: the runtime is closed"),
    );
    this.#poller.stop();
    this.#listeners.clear();
    return Promise.resolve();
  }
}

function draftOf(draft: ConnectorDraft) {
  return {
    text: draft.text,
    title: draft.title,
    labels: draft.labels,
    source: draft.source,
    created: draft.created,
    updated: draft.updated,
  };
}

/**
 * Creates the cloud-only runtime: every call goes to the Memo Cloud API
 * (`baseUrl`, `apiKey`, `workspaceId`, `projectId` …, or a ready
 * `cloudClient`).
 *
 * - Recall is lexical: `engine` `auto` means lexical, and `vector` or
 *   `hybrid` are refused (`INVALID_INPUT`, "Cannot recall with the vector
 *   engine: the cloud runtime is lexical"). At most 100 hits come back.
 *   `recallDetailed` says `engine: "lexical"` with nothing embedded, and
 *   `stats().embeddings` says `state: "off"`; there is no `embed`.
 * - Notes come back as the local runtime returns them, without `revision`.
 * - `syncConnectors` runs the connectors in this process, reading
 *   `.memo/config.json` and `.memo/connectors/state.json` under `rootDir`,
 *   and commits each connector pass as one batch (one transaction): a pass
 *   over 10000 notes or 16 MiB fails whole, writing nothing.
 * - `watch` polls the change feed while someone listens (every
 *   `watchIntervalMs`); writes made through the runtime are reported at once.
 * - Failures are `MemoRuntimeError`s whose messages never hold the key:
 *   `NOTE_NOT_FOUND`, `INVALID_INPUT` (refused input, a conflict), `CONFIG`
 *   (a refused key, another workspace, a wrong base URL) and `UNAVAILABLE`
 *   (the server down or failing, rate limits, timeouts, after the retries).
 *
 * Throws a `MemoRuntimeError` (`CONFIG`) at once for settings that cannot
 * work (no base URL, no API key, a malformed id); sends nothing until the
 * first call.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createMemoCloudMcpRuntime } from "@memo/mcp-server";
 *
 * // A stand-in for the Cloud API; in real use, leave `fetch` out.
 * const note = {
 *   id: "n1", title: "Deploys", body: "Run make deploy.", labels: [], hash: "h",
 *   created: "2026-01-01T00:00:00.000Z", updated: "2026-01-01T00:00:00.000Z", revision: 1,
 * };
 * const fetch = (input: Request | URL | string) =>
 *   Promise.resolve(
 *     String(input).endsWith("/whoami")
 *       ? Response.json({ workspaceId: "acme" })
 *       : Response.json({ note, status: "written" }, { status: 201 }),
 *   );
 * const runtime = createMemoCloudMcpRuntime({ baseUrl: "http://127.0.0.1:8788", apiKey: "k", fetch });
 * assert.equal(runtime.kind, "cloud");
 * const result = await runtime.remember({ text: "Run make deploy." });
 * const { revision: _revision, ...plainNote } = note;
 * assert.deepEqual(result, { note: plainNote, status: "written" }); // no revision
 * await assert.rejects(runtime.recall("deploy", { limit: 5, engine: "vector" }), {
 *   code: "INVALID_INPUT",
 *   message: "Cannot recall with the vector engine: the cloud runtime is lexical",
 * });
 * assert.throws(() => createMemoCloudMcpRuntime({ baseUrl: "http://127.0.0.1:8788" }), {
 *   code: "CONFIG",
 *   message: "Cannot start the cloud runtime: no API key (set MEMO_CLOUD_API_KEY)",
 * });
 * await runtime.close();
 * ```
 */
export function createMemoCloudMcpRuntime(options: MemoCloudMcpRuntimeOptions): MemoMcpRuntime {
  let client = options.cloudClient;
  if (!client) {
    try {
      client = new MemoCloudClient(options as MemoCloudClientOptions);
    } catch (e) {
      if (isMemoCloudError(e, "config")) {
        throw new MemoRuntimeError(
          "CONFIG",
          e.message.replace(/^Cannot use the Memo Cloud API: /, "Cannot start the cloud runtime: "),
          { cause: e },
        );
      }
      throw e;
    }
  }
  return new CloudRuntime(client, options);
}
