/**
 * The cloud runtime's class: each call goes to the Cloud API, stops when its
 * caller goes away or the runtime closes, and reports its writes to the
 * listeners (the change feed's poller reports the others).
 *
 * @module
 */

import { envObject } from "../../platform/mod.ts";
import { CloudChangePoller } from "./_watch.ts";
import { checkEngine, runtimeErrorOf } from "./_runtime_errors.ts";
import { byStatus, draftOf, mergeRedacted, plain, statsOf } from "./_runtime_shapes.ts";
import { syncToCloud } from "./_connector_sync.ts";
import { checkDraftList, checkIdList } from "../batch_input.ts";
import { completeIdsThroughPages } from "../complete_ids.ts";
import { RuntimeListeners } from "../listeners.ts";
import type { MemoCloudClient, MemoCloudNote } from "./client.ts";
import { MemoRuntimeError } from "../errors.ts";
import { rememberResultOf } from "../remember_result.ts";
import { guardForCloud, guardPatchForCloud, scanThroughPages, scrubSecrets } from "../secrets.ts";
import type * as R from "../types.ts";

/** Page size of the Cloud API's lists and recall. */
const CLOUD_PAGE = 100;
/** Most ids of one `notes:batchDelete`. */
const CLOUD_DELETE_BATCH = 10_000;

/** What the class takes of `MemoCloudMcpRuntimeOptions` besides the client. */
export interface CloudRuntimeSettings {
  secrets?: R.SecretsPolicy;
  rootDir?: string;
  env?: Record<string, string | undefined>;
  watchIntervalMs?: number;
}

/** The cloud runtime over `client`. */
export class CloudRuntime implements R.MemoMcpRuntime {
  readonly kind = "cloud" as const;
  readonly #client: MemoCloudClient;
  readonly #rootDir: string;
  readonly #env: Record<string, string | undefined> | undefined;
  readonly #closing = new AbortController();
  readonly #listeners = new RuntimeListeners();
  readonly #poller: CloudChangePoller;
  readonly #secrets: R.SecretsPolicy;

  constructor(client: MemoCloudClient, options: CloudRuntimeSettings) {
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

  remember(input: R.RuntimeRememberInput, options: R.RuntimeCallOptions = {}) {
    return this.#write(options.signal, async (signal): Promise<R.RuntimeRememberResult> => {
      projectOnly(input?.scope, "remember the note");
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
    drafts: readonly R.NoteDraft[],
    options: R.RuntimeCallOptions = {},
  ): Promise<R.RuntimeRememberManyResult> {
    return this.#write(options.signal, async (signal): Promise<R.RuntimeRememberManyResult> => {
      checkDraftList(drafts);
      for (const d of drafts) projectOnly(d.scope, "remember the notes");
      if (!drafts.length) return { written: [], updated: [], unchanged: [] };
      const guarded = await guardForCloud(drafts, this.#secrets, "remember the notes");
      const result = await this.#client.upsertBatch(
        guarded.drafts.map((d) => ({ ...draftOf(d), id: d.id })),
        { signal },
      );
      const changed = result.results.filter((r) => r.status !== "unchanged");
      if (changed.length) this.#wrote(changed.map((r) => r.note), result.written > 0);
      const out: R.RuntimeRememberManyResult = byStatus(result);
      const redacted = mergeRedacted(guarded.redacted, result.redacted);
      if (redacted) out.redacted = redacted;
      return out;
    });
  }

  /**
   * One `notes:batchDelete` request per 10,000 ids (one transaction each), in
   * order; unknown ids are passed over.
   */
  forgetMany(ids: readonly string[], options: R.RuntimeCallOptions = {}): Promise<R.Note[]> {
    return this.#write(options.signal, async (signal): Promise<R.Note[]> => {
      checkIdList(ids);
      const unique = [...new Set(ids)];
      const removed: R.Note[] = [];
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

  recall(query: string, options: R.RuntimeRecallOptions): Promise<R.RecallHit[]> {
    return this.#run(options.signal, async (signal) => {
      checkEngine(options.engine);
      projectOnly(options.scope, "recall");
      const { scope: _scope, ...rest } = options;
      const hits = await this.#client.recall(query, {
        ...rest,
        limit: Math.min(options.limit, CLOUD_PAGE),
        engine: options.engine === "lexical" ? "lexical" : undefined,
        signal,
      });
      return hits.map((hit) => ({ ...hit, note: plain(hit.note) }));
    });
  }

  async recallDetailed(query: string, options: R.RuntimeRecallOptions): Promise<R.RecallResult> {
    const hits = await this.recall(query, options);
    return { hits, engine: "lexical", coverage: { embedded: 0, total: 0 } };
  }

  get(id: string, options: R.RuntimeCallOptions = {}): Promise<R.Note> {
    return this.#run(
      options.signal,
      async (signal) => plain(await this.#client.get(id, { signal })),
      id,
    );
  }

  list(options: R.RuntimeListOptions): Promise<R.ListResult> {
    return this.#run(options.signal, async (signal) => {
      projectOnly(options.scope, "list notes");
      const { scope: _scope, ...listOptions } = options;
      const notes: R.Note[] = [];
      let cursor = options.cursor;
      let total = 0;
      let remaining = options.limit;
      do {
        const page = await this.#client.list({
          ...listOptions,
          cursor,
          limit: remaining >= 1 ? Math.min(remaining, CLOUD_PAGE) : remaining,
          signal,
        });
        notes.push(...page.notes.map(plain));
        total = page.total;
        cursor = page.nextCursor;
        remaining -= page.notes.length;
        if (!page.notes.length) break;
      } while (remaining > 0 && cursor);
      const result: R.ListResult = { notes, total };
      if (cursor) result.nextCursor = cursor;
      return result;
    });
  }

  update(
    id: string,
    patch: R.RuntimeNotePatch,
    options: R.RuntimeUpdateOptions = {},
  ): Promise<R.Note> {
    return this.#write(options.signal, async (signal) => {
      projectOnly(patch?.scope, `update note ${id}`);
      const { scope: _scope, ...unscoped } = patch;
      const guarded = await guardPatchForCloud(unscoped, this.#secrets);
      const note = await this.#client.update(id, guarded.patch, { signal });
      this.#wrote([note], false);
      if (guarded.redacted.length) options.onRedacted?.(guarded.redacted);
      return plain(note);
    }, id);
  }

  scrubSecrets(value: unknown): Promise<unknown> {
    return scrubSecrets(value);
  }

  scanSecrets(options: R.RuntimeScanOptions = {}): Promise<R.SecretScanResult> {
    return this.#run(options.signal, async (signal) => {
      return await scanThroughPages(
        (cursor) =>
          // Superseded notes are history, still stored: they are scanned too.
          this.#client.list({ cursor, limit: CLOUD_PAGE, signal, includeSuperseded: true })
            .then((p) => ({
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

  forget(id: string, options: R.RuntimeCallOptions = {}): Promise<R.Note> {
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
  correct(
    input: R.RuntimeCorrectInput,
    options: R.RuntimeCallOptions = {},
  ): Promise<R.CorrectResult> {
    return this.#write(options.signal, async (signal) => {
      const guarded = await guardForCloud([input], this.#secrets, "correct the note");
      const sent = await this.#client.correct(guarded.drafts[0], { signal });
      const { note, superseded } = sent;
      this.#wroteLinks(note, superseded, true);
      const result: R.CorrectResult = { note: plain(note), superseded };
      const redacted = mergeRedacted(guarded.redacted, sent.redacted);
      if (redacted) result.redacted = redacted.map(({ rule, field }) => ({ rule, field }));
      return result;
    }, input?.id);
  }

  /** `POST notes:supersede`: `by` gains `ids` in its `supersedes` (one transaction). */
  supersede(
    input: R.RuntimeSupersedeInput,
    options: R.RuntimeCallOptions = {},
  ): Promise<R.SupersedeResult> {
    return this.#write(options.signal, async (signal) => {
      const { note, superseded } = await this.#client.supersede(input, { signal });
      if (superseded.length) this.#wroteLinks(note, superseded, false);
      return { note: plain(note), superseded };
    }, input?.by);
  }

  /** `GET tidy`: the proposals over the cloud's notes (a plan without `sha256`). */
  tidy(options: R.RuntimeCallOptions = {}): Promise<R.TidyPlan> {
    return this.#run(options.signal, (signal) => this.#client.tidy({ signal }));
  }

  /** `POST tidy:apply`: the plan's merges in one transaction. */
  applyTidy(plan: R.TidyPlan, options: R.RuntimeCallOptions = {}): Promise<R.TidyApplyResult> {
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

  stats(options: R.RuntimeCallOptions = {}): Promise<R.MemoStats> {
    return this.#run(
      options.signal,
      async (signal) => statsOf(await this.#client.stats({ signal }), this.#secrets),
    );
  }

  syncConnectors(options: R.RuntimeSyncOptions = {}): Promise<R.RuntimeSyncResult> {
    const wrote = (notes: MemoCloudNote[], created: boolean) => this.#wrote(notes, created);
    const into = { client: this.#client, poller: this.#poller, secrets: this.#secrets, wrote };
    const at = { rootDir: this.#rootDir, env: this.#env ?? envObject() };
    return this.#run(options.signal, (signal) => syncToCloud(into, { ...options, ...at, signal }));
  }

  completeIds(
    prefix: string,
    limit: number,
    options: R.RuntimeCallOptions = {},
  ): Promise<R.RuntimeCompletion> {
    return this.#run(options.signal, (signal) =>
      completeIdsThroughPages(prefix, limit, (cursor) =>
        // Superseded notes stay readable by id: their ids complete too.
        this.#client.list({ cursor, limit: CLOUD_PAGE, includeSuperseded: true, signal })));
  }

  watch(onChange: (change: R.RuntimeChange) => void): () => void {
    const remove = this.#listeners.watch(this.#closing.signal.aborted, onChange);
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

/** The cloud runtime holds a project's notes alone: another scope is refused, saying why. */
function projectOnly(scope: unknown, action: string): void {
  if (scope === undefined || scope === "project") return;
  if (Array.isArray(scope) && scope.every((s) => s === "project")) return;
  throw new MemoRuntimeError(
    "INVALID_INPUT",
    `Cannot ${action}: scope ${JSON.stringify(scope)} is not served: the cloud runtime ` +
      "serves the project scope only",
    { details: { field: "scope" } },
  );
}
