/**
 * The `Memo` memory client: the one way notes are written and recalled. It
 * wraps a {@linkcode MemoryStore} and keeps a recall index in step with it.
 *
 * @module
 */

import { MemoryValidationError, NoteNotFoundError } from "./errors.ts";
import { normalizeLabels, type Note, type NoteDraft, type NotePatch } from "./notes/note.ts";
import type {
  CommitOptions,
  MemoryStore,
  ReplicaApplyResult,
  ReplicaChanges,
  StoreLoadReport,
  WriteOptions,
} from "./store/store.ts";
import { FileMemoryStore } from "./store/file_store.ts";
import { openScopedStore, scopeCacheDirs } from "./scopes/open_scopes.ts";
import { ScopedMemoryStore } from "./scopes/scoped_store.ts";
import { checkScopes, scopeCounts } from "./scopes/scope_checks.ts";
import { createLexicalIndex } from "./recall/lexical/lexical.ts";
import type { LexicalIndex, RecallEngine, RecallHit } from "./recall/types.ts";
import { DEFAULT_FUSION } from "./recall/fusion.ts";
import { LazyEmbeddings } from "./vectors/lazy_embeddings.ts";
import type { MemoEmbeddings } from "./vectors/seam.ts";
import { decodeCursor } from "./notes/cursor.ts";
import { DEFAULT_RECALL_CACHE_SIZE, RecallCache } from "./_recall_cache.ts";
import { ChangeFeed } from "./_change_feed.ts";
import { NoteMirror } from "./_note_mirror.ts";
import { loadNotes, type SnapshotPlan, snapshotPlan } from "./_memo_load.ts";
import { recallNotes, type RecallParts } from "./_memo_recall.ts";
import {
  checkEngine,
  checkFusion,
  checkLimit,
  checkOrder,
  notesFilter,
  withAction,
} from "./_memo_checks.ts";
import { guardDrafts, guardPatch } from "./secrets/guard.ts";
import {
  DEFAULT_SECRETS_POLICY,
  parseSecretsPolicy,
  type SecretsPolicy,
} from "./secrets/policy.ts";
import { FindingCounter, scanStoredNotes, type SecretScanResult } from "./secrets/memo_secrets.ts";
import { checkHistoryFilter, prepareHistory } from "./history/history.ts";
import { similarNotes, similarNotesBeforeWrite } from "./similar_notes.ts";
import { correctNote, type HistoryParts, supersedeNotes } from "./history_writes.ts";
import { mirrorView } from "./history_view.ts";
import { checkDraftLinks, checkPatchLinks } from "./history_checks.ts";
import { applyTidyPlan, tidyNotes } from "./_tidy_writes.ts";
import type { EmbeddingStatus, EmbedResult, MemoEmbedOptions } from "./vectors/embed_types.ts";
import type { MemoOptions } from "./memo_options.ts";
import type {
  ListOptions,
  ListResult,
  MemoChange,
  MemoStats,
  RecallOptions,
  RecallResult,
  RememberManyResult,
  RememberResult,
  UpdateOptions,
} from "./memo_types.ts";
import type {
  CorrectInput,
  CorrectResult,
  SimilarNote,
  SupersedeInput,
  SupersedeResult,
  TidyApplyResult,
  TidyPlan,
} from "./history/types.ts";

/**
 * Opens a memory client on a project (or on a given store) and loads it.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { openMemo } from "@memo/memory";
 * const dir = await Deno.makeTempDir();
 * const memo = await openMemo({ rootDir: dir });
 * await memo.remember({ text: "Deploys run with make deploy", labels: ["ops"] });
 * const hits = await memo.recall("how do deploys run");
 * assert.equal(hits[0].note.title, "Deploys run with make deploy");
 * assert.deepEqual(hits[0].note.labels, ["ops"]);
 * await memo.close();
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function openMemo(options: MemoOptions = {}): Promise<Memo> {
  const memo = new Memo(options);
  await memo.load();
  return memo;
}

/**
 * The memory client. Create it with {@linkcode openMemo}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Memo } from "@memo/memory";
 * const dir = await Deno.makeTempDir();
 * const memo = new Memo({ rootDir: dir });
 * await memo.load();
 * const { note, status } = await memo.remember({ text: "hello" });
 * assert.equal(status, "written");
 * assert.equal((await memo.get(note.id)).body, "hello");
 * await memo.close();
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export class Memo {
  /** The store this client writes through. */
  readonly store: MemoryStore;
  /** The default recall engine. */
  readonly engine: RecallEngine;
  /** What a write does with a detected secret (see {@linkcode MemoOptions.secrets}). */
  readonly secrets: SecretsPolicy;
  #rootDir: string;
  #ownFiles: boolean;
  /** The cache folders of the scopes other than project (a redaction cleans them too). */
  #scopeCaches: string[] = [];
  #findings = new FindingCounter();
  #index: LexicalIndex;
  #mirror: NoteMirror;
  #cache: SnapshotPlan | undefined;
  #cacheWrite: Promise<void> | undefined;
  #feed: ChangeFeed;
  #embeddings: MemoEmbeddings;
  #recall: RecallParts;
  #history: HistoryParts;

  /** Creates a client; call {@linkcode Memo.load} before the first read. */
  constructor(options: MemoOptions = {}) {
    const rootDir = options.rootDir ?? ".";
    this.store = options.store ??
      (options.scopes
        ? openScopedStore(rootDir, options.scopes)
        : new FileMemoryStore({ rootDir }));
    this.engine = checkEngine(options.engine ?? "auto");
    this.secrets = parseSecretsPolicy(options.secrets, "secrets") ?? DEFAULT_SECRETS_POLICY;
    this.#index = options.index ?? createLexicalIndex();
    const answers = new RecallCache<RecallResult>(
      options.recallCacheSize ?? DEFAULT_RECALL_CACHE_SIZE,
    );
    this.#feed = new ChangeFeed(() => this.#mirror.sync(), options.watchIntervalMs ?? 250);
    const fusion = checkFusion({ ...DEFAULT_FUSION, ...options.fusion });
    const ownFiles = !options.store || options.rootDir !== undefined;
    this.#rootDir = rootDir;
    this.#ownFiles = ownFiles;
    // Each scope's vectors are cached in its own cache folder (the project's in rootDir's).
    const scopeCaches = options.scopes ? scopeCacheDirs(rootDir, options.scopes) : undefined;
    if (ownFiles) this.#scopeCaches = Object.values(scopeCaches ?? {});
    // Nothing of the embedding side loads until vectors are needed (`vectors/lazy_embeddings.ts`).
    const embeddings = new LazyEmbeddings({
      model: options.embeddingModel,
      enabled: options.localEmbeddings ?? true,
      embedder: options.embedder,
      onModelProgress: options.onModelProgress,
      background: options.embedInBackground ?? true,
      cacheRoot: (options.embeddingCache ?? ownFiles) ? rootDir : undefined,
      scopeCaches: (options.embeddingCache ?? ownFiles) ? scopeCaches : undefined,
      engine: this.engine,
      notes: () => this.#mirror.notes.values(),
    });
    this.#embeddings = embeddings;
    const { store, engine } = this;
    const index = this.#index;
    const tagScopes = store instanceof ScopedMemoryStore;
    this.#mirror = new NoteMirror({
      store,
      index,
      embeddings,
      feed: this.#feed,
      answers,
      tagScopes,
    });
    this.#recall = { engine, mirror: this.#mirror, index, embeddings, answers, fusion };
    this.#cache = snapshotPlan(options, rootDir, ownFiles);
    this.#history = {
      store,
      mirror: this.#mirror,
      view: mirrorView(this.#mirror),
      apply: (changes) => this.applyReplica(changes),
      clock: () => new Date(),
      secrets: this.secrets,
    };
  }

  /**
   * Reads the store and builds the index (merged at the end, so that the first recall does not
   * pay for it); reports problems found in the store.
   */
  async load(): Promise<StoreLoadReport> {
    const { report, write } = await loadNotes(this.store, this.#mirror, this.#index, this.#cache);
    if (write) {
      // The snapshot is taken; writing it does not hold up the open (close() waits for it).
      const previous = this.#cacheWrite ?? Promise.resolve();
      this.#cacheWrite = Promise.all([previous, write]).then(() => {});
    }
    this.#embeddings.start();
    return report;
  }

  /**
   * Writes notes verbatim and removes ids through the store's `applyReplica` (one atomic step),
   * then catches up, so that `watch` listeners hear of it. The hybrid runtime applies what it pulls
   * this way. Throws `MemoryValidationError` when the store cannot do it.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { openMemo } from "@memo/memory";
   * const dir = await Deno.makeTempDir();
   * const memo = await openMemo({ rootDir: dir });
   * const { note } = await memo.remember({ text: "Deploys run on Fridays" });
   * const seen: string[][] = [];
   * const stop = memo.watch((change) => seen.push(change.removed));
   * await memo.applyReplica({ put: [], remove: [note.id] });
   * assert.deepEqual(seen, [[note.id]]);
   * assert.equal((await memo.stats()).notes, 0);
   * stop();
   * await memo.close();
   * await Deno.remove(dir, { recursive: true });
   * ```
   */
  async applyReplica(changes: ReplicaChanges): Promise<ReplicaApplyResult> {
    if (!this.store.applyReplica) {
      throw new MemoryValidationError(
        "Cannot apply replica changes: this store cannot write notes verbatim",
      );
    }
    const result = await this.store.applyReplica(changes);
    await this.#mirror.sync();
    return result;
  }

  /**
   * Stores one note. A note with the same source key (or, without a source, the same text after
   * `normalizeNoteText`) is not written twice; the same source key with new content updates that
   * note in place. The secrets guard runs first (see {@linkcode MemoOptions.secrets}): `redacted`
   * lists what it replaced. `supersedes` naming an unknown note, the note itself or making a
   * cycle is refused (`MemoryValidationError`) and nothing is written. A written note's answer
   * lists the stored notes most like it in `similar` (lexically; with vectors too when the
   * embedding model is loaded already: this never loads it). `signal` stops a write that has not
   * started writing (one waiting for another process's lock, say).
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { openMemo } from "@memo/memory";
   * const dir = await Deno.makeTempDir();
   * const memo = await openMemo({ rootDir: dir, localEmbeddings: false });
   * const { note } = await memo.remember({ text: "The audit log is kept for 12 months." });
   * const again = await memo.remember({ text: "the audit log is kept for 12 months" });
   * assert.equal(again.status, "unchanged"); // the same text, normalised
   * const other = await memo.remember({ text: "The audit log is kept for 12 weeks." });
   * assert.deepEqual(other.similar?.map((s) => s.id), [note.id]); // a contradiction to review
   * await assert.rejects(memo.remember({ text: "x", supersedes: ["nope"] }), /unknown note/);
   * await memo.close();
   * await Deno.remove(dir, { recursive: true });
   * ```
   */
  async remember(draft: NoteDraft, options: WriteOptions = {}): Promise<RememberResult> {
    if (draft?.supersedes !== undefined) {
      prepareHistory(draft); // a malformed list is refused as such, before the lookups
      await checkDraftLinks(this.#history, draft);
    }
    const mirror = this.#mirror;
    const embeddings = this.#embeddings;
    const parts = { notes: mirror, index: this.#index, embeddings, vectors: embeddings.fusable };
    // The lexical check runs while the note's fsync does; its answer stands when the note was
    // all that the mirror took in since (else, or with vectors, it runs once the note is held).
    let early: { similar: SimilarNote[]; changes: number } | undefined;
    const whileDurable = parts.vectors ? undefined : (written: readonly Note[]) => {
      const changes = mirror.changes;
      if (written.length === 1) {
        early = { similar: similarNotesBeforeWrite(parts, written[0]), changes };
      }
    };
    const result = await this.#commit(
      [draft],
      { whileDurable, signal: options.signal },
      "remember",
    );
    let done: RememberResult;
    if (result.written.length) {
      const note = result.written[0];
      done = {
        note: mirror.withLinks(note),
        status: "written",
        similar: early && mirror.changes === early.changes + 1
          ? early.similar
          : await similarNotes(parts, note),
      };
    } else if (result.updated.length) {
      done = { note: mirror.withLinks(result.updated[0]), status: "updated", similar: [] };
    } else {
      done = { note: mirror.withLinks(result.unchanged[0]), status: "unchanged", similar: [] };
    }
    if (result.redacted) {
      done.redacted = result.redacted.map(({ rule, field }) => ({ rule, field }));
    }
    return done;
  }

  /**
   * Stores many notes in one all-or-nothing commit, deduplicating as {@linkcode remember} does.
   * The secrets guard runs over every draft first: under `refuse`, one secret refuses the whole
   * batch; `redacted` lists what was replaced, with each draft's index.
   */
  rememberMany(
    drafts: readonly NoteDraft[],
    options: { signal?: AbortSignal } = {},
  ): Promise<RememberManyResult> {
    return this.#commit(drafts, options, "remember the notes");
  }

  async #commit(
    drafts: readonly NoteDraft[],
    options: CommitOptions,
    action: string,
  ): Promise<RememberManyResult> {
    checkScopes(this.store, drafts.map((d) => d?.scope), action);
    const guarded = await guardDrafts(drafts, this.secrets, action);
    const result: RememberManyResult = await this.store.commit({ notes: guarded.drafts }, options);
    await this.#mirror.sync();
    if (guarded.redacted.length) result.redacted = guarded.redacted;
    return result;
  }

  /** Ranked notes for a query, each with the reason it matched ({@linkcode Memo.recallDetailed}'s hits). */
  async recall(query: string, options: RecallOptions = {}): Promise<RecallHit[]> {
    return (await this.recallDetailed(query, options)).hits;
  }

  /**
   * Ranked notes for a query, with the engine that ran and how many notes it could rank by meaning:
   *
   * - `lexical`: BM25 over every note;
   * - `vector`: cosine similarity over the notes embedded so far;
   * - `hybrid`: reciprocal-rank fusion of the two;
   * - `auto`: hybrid when the embedder is ready and some note is embedded (the others still rank
   *   lexically), else lexical. It never waits for the model.
   *
   * `vector` and `hybrid` wait for the model to load (not for notes to be embedded) and throw
   * `EmbedderUnavailableError` when embeddings are off or the model cannot be loaded.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { type Embedder, openMemo } from "@memo/memory";
   * // A toy embedder: one dimension per topic word.
   * const words = ["credentials", "key", "lunch"];
   * const embedder: Embedder = {
   *   model: "toy",
   *   dimensions: 3,
   *   embed: (texts) => Promise.resolve(texts.map((t) =>
   *     new Float32Array(words.map((w) => w === "key" ? (/key|credential/.test(t) ? 1 : 0) : t.includes(w) ? 1 : 0))
   *   )),
   * };
   * const dir = await Deno.makeTempDir();
   * const memo = await openMemo({ rootDir: dir, embedder, embedInBackground: false });
   * await memo.remember({ text: "The staging deploy key rotates every 90 days" });
   * await memo.remember({ text: "Lunch is at noon" });
   * await memo.embed();
   * const result = await memo.recallDetailed("when do credentials change", { engine: "vector", limit: 1 });
   * assert.equal(result.engine, "vector");
   * assert.deepEqual(result.coverage, { embedded: 2, total: 2 });
   * assert.equal(result.hits[0].note.title, "The staging deploy key rotates every 90 days");
   * await memo.close();
   * await Deno.remove(dir, { recursive: true });
   * ```
   */
  recallDetailed(query: string, options: RecallOptions = {}): Promise<RecallResult> {
    if (options?.scope !== undefined) checkScopes(this.store, options.scope, "recall", true);
    return recallNotes(this.#recall, query, options);
  }

  /**
   * Embeds every note that has no vector yet, now (notes whose text the on-disk cache already holds
   * are not embedded again). Reports progress after each batch. Throws `EmbedderUnavailableError`
   * when embeddings are off or the model cannot be loaded.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { type Embedder, openMemo } from "@memo/memory";
   * let calls = 0;
   * const embedder: Embedder = {
   *   model: "toy",
   *   dimensions: 2,
   *   embed: (texts) => (calls++, Promise.resolve(texts.map(() => new Float32Array([1, 0])))),
   * };
   * const dir = await Deno.makeTempDir();
   * const memo = await openMemo({ rootDir: dir, embedder, embedInBackground: false });
   * await memo.rememberMany([{ text: "one" }, { text: "two" }]);
   * const seen: string[] = [];
   * const done = await memo.embed({ onProgress: (n, total) => void seen.push(`${n}/${total}`) });
   * assert.deepEqual(done, { embedded: 2, total: 2, computed: 2 });
   * assert.deepEqual(seen, ["0/2", "2/2"]);
   * assert.equal(calls, 1); // one batch
   * await memo.close();
   * await Deno.remove(dir, { recursive: true });
   * ```
   */
  async embed(options: MemoEmbedOptions = {}): Promise<EmbedResult> {
    await this.#mirror.sync();
    try {
      return await this.#embeddings.embedAll(options);
    } catch (e) {
      throw withAction(e, "Cannot embed the notes");
    }
  }

  /**
   * The embedder's state and how many notes have a vector (what
   * `stats().embeddings` reports), without catching up with the store.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { openMemo } from "@memo/memory";
   * const dir = await Deno.makeTempDir();
   * const memo = await openMemo({ rootDir: dir, localEmbeddings: false });
   * assert.deepEqual(memo.embeddingStatus(), {
   *   model: "use-lite", ready: false, embedded: 0, total: 0, state: "off",
   *   reason: "local embeddings are off",
   * });
   * await memo.close();
   * await Deno.remove(dir, { recursive: true });
   * ```
   */
  embeddingStatus(): EmbeddingStatus {
    return this.#embeddings.status(this.#mirror.notes.size);
  }

  /** One note by id; throws `NoteNotFoundError` when the id is unknown. */
  async get(id: string): Promise<Note> {
    await this.#mirror.sync();
    const note = this.#mirror.notes.get(id);
    if (!note) throw new NoteNotFoundError(String(id));
    return this.#mirror.withLinks(note);
  }

  /**
   * Notes in store order (or, with `order: "newest"`, the reverse), a page at a time, optionally
   * filtered by labels and source.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { openMemo } from "@memo/memory";
   * const dir = await Deno.makeTempDir();
   * const memo = await openMemo({ rootDir: dir });
   * for (const text of ["one", "two", "three"]) await memo.remember({ text });
   * const first = await memo.list({ limit: 2, order: "newest" });
   * assert.deepEqual(first.notes.map((n) => n.body), ["three", "two"]);
   * const rest = await memo.list({ limit: 2, order: "newest", cursor: first.nextCursor });
   * assert.deepEqual(rest.notes.map((n) => n.body), ["one"]);
   * await memo.close();
   * await Deno.remove(dir, { recursive: true });
   * ```
   */
  async list(options: ListOptions = {}): Promise<ListResult> {
    const limit = checkLimit(options.limit ?? 25, "list notes");
    const newest = checkOrder(options.order) === "newest";
    const cursor = options.cursor === undefined
      ? undefined
      : decodeCursor(options.cursor, "list notes");
    const history = checkHistoryFilter(options, "list notes");
    if (options.scope !== undefined) checkScopes(this.store, options.scope, "list notes", true);
    await this.#mirror.sync();
    const mirror = this.#mirror;
    const page = mirror.page(limit, newest, cursor, notesFilter(options, history, mirror));
    if (mirror.decorates) page.notes = page.notes.map((n) => mirror.withLinks(n));
    return page;
  }

  /**
   * Changes a note's text, title, labels, `supersedes` (the whole list; the ids it adds are
   * checked as `remember`'s) or validity (`null` removes a bound); throws `NoteNotFoundError`
   * when the id is unknown. The secrets guard runs over the patch first; `options.onRedacted`
   * hears what it replaced.
   */
  async update(id: string, patch: NotePatch, options: UpdateOptions = {}): Promise<Note> {
    if (patch.text !== undefined && (typeof patch.text !== "string" || patch.text.trim() === "")) {
      throw new MemoryValidationError("Cannot update note: text is empty");
    }
    if (
      patch.text === undefined && patch.title === undefined && patch.labels === undefined &&
      patch.supersedes === undefined && patch.validFrom === undefined &&
      patch.validUntil === undefined && patch.scope === undefined
    ) {
      throw new MemoryValidationError("Cannot update note: nothing to change");
    }
    if (patch.scope !== undefined) checkScopes(this.store, [patch.scope], "update note");
    const guarded = await guardPatch(patch, this.secrets, "update note");
    const clean: NotePatch = { ...guarded.patch };
    if (patch.labels !== undefined) clean.labels = normalizeLabels(guarded.patch.labels);
    if (patch.supersedes !== undefined) {
      prepareHistory(patch, "update note");
      await checkPatchLinks(this.#history, String(id), patch.supersedes);
    }
    const note = await this.store.update(id, clean, { signal: options.signal });
    if (!note) throw new NoteNotFoundError(String(id));
    await this.#mirror.sync();
    if (guarded.redacted.length) options.onRedacted?.(guarded.redacted);
    if (this.#mirror.decorates) return this.#mirror.withLinks(this.#mirror.get(note.id) ?? note);
    return note;
  }

  /**
   * Deletes a note and returns it; throws `NoteNotFoundError` when the id is unknown. `signal`
   * stops a delete that has not started writing.
   */
  async forget(id: string, options: WriteOptions = {}): Promise<Note> {
    const note = await this.get(id);
    if (!(await this.store.remove(id, options))) throw new NoteNotFoundError(String(id));
    await this.#mirror.sync();
    return note;
  }

  /**
   * The fact of a note changed: writes a new note that supersedes it (with the old note's labels
   * unless `labels` is given) and sets the old note's `validUntil` to the new note's `validFrom`,
   * or to now (an earlier `validUntil` is kept), in one atomic commit. The secrets guard runs
   * over the new text, title and labels first, as for {@linkcode remember}: `redacted` lists
   * what it replaced; under `refuse` it throws `SecretsRefusedError` and writes nothing. Throws
   * `NoteNotFoundError` for an unknown id and `MemoryValidationError` for bad input.
   */
  correct(input: CorrectInput): Promise<CorrectResult> {
    return correctNote(this.#history, input);
  }

  /**
   * Marks notes as superseded by note `by` (it gains them in its `supersedes`, in one atomic
   * write): what merging duplicates needs. It adds ids of stored notes only, no text, so the
   * secrets guard has nothing to check. Throws `NoteNotFoundError` for an unknown `by`, and
   * `MemoryValidationError` for an unknown id in `ids`, `by` itself or a cycle.
   */
  supersede(input: SupersedeInput): Promise<SupersedeResult> {
    return supersedeNotes(this.#history, input);
  }

  /**
   * Proposals to tidy the notes up, writing nothing: clusters of near-duplicates (keep the
   * newest, supersede the others) and notes whose `validUntil` has passed (see `planTidy`).
   * With the file store the plan carries the SHA-256 of the `notes.md` it was made from.
   */
  tidy(): Promise<TidyPlan> {
    return tidyNotes(this.#history);
  }

  /**
   * Applies exactly the merges of a {@linkcode Memo.tidy} plan in one atomic commit (expired
   * notes are left alone); refuses (`MemoryValidationError`), writing nothing, when `notes.md`
   * changed since the plan was made, or a note it names is gone or changed. It only links
   * stored notes (no text enters), so the secrets guard has nothing to check.
   */
  applyTidy(plan: TidyPlan): Promise<TidyApplyResult> {
    return applyTidyPlan(this.#history, plan);
  }

  /** Counts of notes, labels and sources. */
  async stats(): Promise<MemoStats> {
    await this.#mirror.sync();
    const { labels, sources, lastUpdated } = this.#mirror.counts();
    const stats: MemoStats = {
      notes: this.#mirror.notes.size,
      labels,
      sources,
      engine: this.#engineStatus(),
      issues: this.store.issues ?? [],
      embeddings: this.embeddingStatus(),
      secrets: {
        policy: this.secrets,
        findings: await this.#findings.count(this.#mirror.notes.values()),
      },
    };
    if (lastUpdated) stats.lastUpdated = lastUpdated;
    const scopes = scopeCounts(this.store, this.#mirror.notes.values());
    if (scopes) stats.scopes = scopes;
    const merge = this.store.unresolvedMerge;
    if (merge) {
      const { path, hunks, base, conflicts, twins } = merge;
      stats.unresolvedMerge = { path, hunks, base, conflicts, twins };
    }
    return stats;
  }

  /**
   * Scans the stored notes for secrets (in `notes.md`, with the line of each finding, when the
   * store is the file store), whatever the policy. With `redact: true`, rewrites every note that
   * holds one (`[redacted:<rule-id>]`, `updated` set to now) in one atomic step, as an edit that
   * replicates like any other, then drops the embedding vectors of the old text and the lexical
   * index snapshot. Findings never carry a value.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { openMemo } from "@memo/memory";
   * const dir = await Deno.makeTempDir();
   * const memo = await openMemo({ rootDir: dir, secrets: "allow" });
   * const { note } = await memo.remember({ text: "CI uses glpat-Zr8vQ2mW4kT9xN1pLc7H" });
   * const found = await memo.scanSecrets({ redact: true });
   * assert.deepEqual(found.findings, [ // the title is derived from the text: it holds it too
   *   { id: note.id, rule: "gitlab-token", field: "title", line: 7 },
   *   { id: note.id, rule: "gitlab-token", field: "text", line: 8 },
   * ]);
   * assert.deepEqual(found.redacted, [note.id]);
   * assert.equal((await memo.get(note.id)).body, "CI uses [redacted:gitlab-token]");
   * assert.deepEqual((await memo.scanSecrets()).findings, []);
   * await memo.close();
   * await Deno.remove(dir, { recursive: true });
   * ```
   */
  async scanSecrets(options: { redact?: boolean } = {}): Promise<SecretScanResult> {
    await this.#mirror.sync();
    await this.#cacheWrite; // a snapshot being written holds the old text: let it land first
    const notesPath = (this.store as { paths?: { notes?: string } }).paths?.notes;
    return await scanStoredNotes({
      notes: [...this.#mirror.notes.values()],
      notesPath: typeof notesPath === "string" ? notesPath : undefined,
      cacheRoot: this.#ownFiles ? this.#rootDir : undefined,
      scopeCaches: this.#scopeCaches,
      apply: async (put) => void await this.applyReplica({ put, remove: [] }),
      now: () => new Date(),
    }, options.redact === true);
  }

  /**
   * Calls `onChange` after the notes change: after a write through this client has committed
   * (before the write's promise resolves), and after another process (the `memo` CLI, another
   * server, a connector sync) wrote the same store, noticed by a check every
   * `watchIntervalMs` (250 ms by default) or at this client's next call, whichever comes
   * first. Returns the function that stops the calls; {@linkcode Memo.close} stops them all.
   *
   * - **Cost.** The check runs only while at least one listener is registered; with none
   *   there is no timer and reads and writes track nothing. While it runs, the timer keeps
   *   the process alive.
   * - **Order.** Listeners are called one after the other, in the order they were added.
   *   One that throws does not keep the others (or the client) from going on.
   * - **Baseline.** The first call after `watch` reports what changed since the client last
   *   caught up with its store, which may be a little before `watch` was called.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { type MemoChange, openMemo } from "@memo/memory";
   * const dir = await Deno.makeTempDir();
   * const memo = await openMemo({ rootDir: dir, watchIntervalMs: 50 });
   * const other = await openMemo({ rootDir: dir }); // stands in for another process
   * const changed = Promise.withResolvers<MemoChange>();
   * const stop = memo.watch(changed.resolve);
   * const { note } = await other.remember({ text: "Written elsewhere" });
   * assert.deepEqual(await changed.promise, { created: [note.id], updated: [], removed: [] });
   * stop(); // no check runs any more
   * await other.close();
   * await memo.close();
   * await Deno.remove(dir, { recursive: true });
   * ```
   */
  watch(onChange: (change: MemoChange) => void): () => void {
    if (typeof onChange !== "function") {
      throw new MemoryValidationError("Cannot watch the notes: onChange must be a function");
    }
    return this.#feed.add(onChange);
  }

  /** Stops every {@linkcode Memo.watch} listener and releases the store. */
  async close(): Promise<void> {
    this.#feed.clear();
    await this.#embeddings.close();
    await this.#cacheWrite;
    await this.store.close?.();
  }

  #engineStatus(): MemoStats["engine"] {
    const reason = this.#embeddings.autoLexicalReason;
    if (reason === undefined) return { default: this.engine, auto: "hybrid" };
    return { default: this.engine, auto: "lexical", reason };
  }
}
