/**
 * The per-call options, results and limits of the {@linkcode Memo} client (its own options are
 * in `memo_options.ts`).
 *
 * @module
 */

import type { NoteFilter, RecallEngine, RecallHit } from "./recall/types.ts";
import type { CommitResult, StoreIssue } from "./store/store.ts";
import type { UnresolvedMerge } from "./store/conflict_markers.ts";
import type { Note } from "./notes/note.ts";
import type { SecretRedaction } from "./secrets/guard.ts";
import type { SecretsPolicy } from "./secrets/policy.ts";
import type { EmbeddingStatus } from "./vectors/embed_types.ts";
import type { HistoryFilter } from "./history/history.ts";
import type { SimilarNote } from "./history/types.ts";

/**
 * What {@linkcode Memo.rememberMany} did: the store's commit result, and what the secrets guard
 * redacted (with each draft's index), when it redacted anything.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { openMemo, type RememberManyResult } from "@memo/memory";
 * const dir = await Deno.makeTempDir();
 * const memo = await openMemo({ rootDir: dir });
 * const result: RememberManyResult = await memo.rememberMany([
 *   { text: "Deploys run with make deploy" },
 *   { text: "Runner token glpat-Zr8vQ2mW4kT9xN1pLc7H" },
 * ]);
 * assert.equal(result.written.length, 2);
 * assert.deepEqual(result.redacted, [{ rule: "gitlab-token", field: "text", index: 1 }]);
 * await memo.close();
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export interface RememberManyResult extends CommitResult {
  /** What the guard replaced; absent when nothing was. */
  redacted?: SecretRedaction[];
}

/**
 * Options of {@linkcode Memo.update}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { openMemo, type SecretRedaction, type UpdateOptions } from "@memo/memory";
 * const dir = await Deno.makeTempDir();
 * const memo = await openMemo({ rootDir: dir });
 * const { note } = await memo.remember({ text: "CI runner" });
 * let heard: SecretRedaction[] = [];
 * const options: UpdateOptions = { onRedacted: (r) => heard = r };
 * await memo.update(note.id, { text: "CI runner token glpat-Zr8vQ2mW4kT9xN1pLc7H" }, options);
 * assert.deepEqual(heard, [{ rule: "gitlab-token", field: "text" }]);
 * await memo.close();
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export interface UpdateOptions {
  /**
   * Stops the change while it has not started writing (waiting for another writer's lock, say);
   * one that has, finishes.
   * @default undefined
   */
  signal?: AbortSignal;
  /**
   * Called, after the write, with what the secrets guard replaced (only when it replaced
   * something).
   * @default undefined
   */
  onRedacted?: (redacted: SecretRedaction[]) => void;
}

/**
 * What a {@linkcode Memo.recallDetailed} found, with the engine that ran and its coverage.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { openMemo, type RecallResult } from "@memo/memory";
 * const dir = await Deno.makeTempDir();
 * const memo = await openMemo({ rootDir: dir, localEmbeddings: false });
 * await memo.remember({ text: "Deploys run with make deploy" });
 * const result: RecallResult = await memo.recallDetailed("deploy");
 * assert.equal(result.engine, "lexical"); // auto, with no embedder
 * assert.deepEqual(result.coverage, { embedded: 0, total: 1 });
 * await memo.close();
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export interface RecallResult {
  /** Best first. */
  hits: RecallHit[];
  /** The engine that ranked them (what `auto` resolved to). */
  engine: Exclude<RecallEngine, "auto">;
  /** Notes that have a vector (for the current model), of all notes. */
  coverage: { embedded: number; total: number };
}

/**
 * What {@linkcode Memo.watch} reports: the ids of the notes that changed since the client last
 * caught up with its store, by kind. A note created and removed between two catch-ups appears
 * in none of the lists.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type MemoChange, openMemo } from "@memo/memory";
 * const dir = await Deno.makeTempDir();
 * const memo = await openMemo({ rootDir: dir });
 * const seen: MemoChange[] = [];
 * const stop = memo.watch((change) => void seen.push(change));
 * const { note } = await memo.remember({ text: "Deploys run with make deploy" });
 * await memo.update(note.id, { labels: ["ops"] });
 * await memo.forget(note.id);
 * assert.deepEqual(seen, [
 *   { created: [note.id], updated: [], removed: [] },
 *   { created: [], updated: [note.id], removed: [] },
 *   { created: [], updated: [], removed: [note.id] },
 * ]);
 * stop();
 * await memo.close();
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export interface MemoChange {
  /** Ids of the notes that appeared. */
  created: string[];
  /** Ids of the notes whose title, body, labels, source, times, supersedes or validity changed. */
  updated: string[];
  /** Ids of the notes that were removed. */
  removed: string[];
}

/**
 * What `remember` did with one draft.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { openMemo, type RememberResult } from "@memo/memory";
 * const dir = await Deno.makeTempDir();
 * const memo = await openMemo({ rootDir: dir });
 * const source = "notion:page/abc";
 * const first: RememberResult = await memo.remember({ text: "v1", source });
 * assert.equal(first.status, "written");
 * assert.equal((await memo.remember({ text: "v1", source })).status, "unchanged");
 * const changed = await memo.remember({ text: "v2", source });
 * assert.equal(changed.status, "updated");
 * assert.equal(changed.note.id, first.note.id);
 * await memo.close();
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export interface RememberResult {
  /** The stored note (the existing one when unchanged). */
  note: Note;
  /**
   * `written`: new; `updated`: same identity, new content (or, for the same text, new
   * `supersedes` or validity); `unchanged`: already stored.
   */
  status: "written" | "updated" | "unchanged";
  /** What the secrets guard replaced (`[redacted:<rule-id>]`): rule ids and fields, never values; absent when nothing was. */
  redacted?: SecretRedaction[];
  /**
   * Stored notes that resemble a written note (at most 3, most similar first; empty when none,
   * and for a note not written). `remember` never loads an embedding model for it: vectors join
   * the lexical comparison only when the model is loaded already.
   */
  similar?: SimilarNote[];
}

/**
 * Options of {@linkcode Memo.recall}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { openMemo, type RecallOptions } from "@memo/memory";
 * const dir = await Deno.makeTempDir();
 * const memo = await openMemo({ rootDir: dir });
 * await memo.remember({ text: "Deploys run with make deploy", labels: ["ops"] });
 * await memo.remember({ text: "Deploy keys rotate monthly", labels: ["security"] });
 * const options: RecallOptions = { limit: 5, labels: ["ops"], engine: "lexical", explain: true };
 * const hits = await memo.recall("deploy", options);
 * assert.equal(hits.length, 1);
 * assert.deepEqual(hits[0].note.labels, ["ops"]);
 * assert.ok(hits[0].explain);
 * await memo.close();
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export interface RecallOptions extends NoteFilter, HistoryFilter {
  /**
   * Most hits to return.
   * @default 10
   */
  limit?: number;
  /**
   * Engine; overrides the client's default.
   * @default the client's `engine`
   */
  engine?: RecallEngine;
  /**
   * Report each term's contribution on every hit.
   * @default false
   */
  explain?: boolean;
}

/**
 * Options of {@linkcode Memo.list}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type ListOptions, openMemo } from "@memo/memory";
 * const dir = await Deno.makeTempDir();
 * const memo = await openMemo({ rootDir: dir });
 * for (const text of ["one", "two", "three"]) await memo.remember({ text, labels: ["n"] });
 * const options: ListOptions = { limit: 2, labels: ["n"] };
 * const first = await memo.list(options);
 * const rest = await memo.list({ ...options, cursor: first.nextCursor });
 * assert.deepEqual([...first.notes, ...rest.notes].map((n) => n.body), ["one", "two", "three"]);
 * await memo.close();
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export interface ListOptions extends NoteFilter, HistoryFilter {
  /** Cursor from a previous page's `nextCursor`. */
  cursor?: string;
  /**
   * Page size, 1 to 1000.
   * @default 25
   */
  limit?: number;
  /**
   * `"oldest"`: store order (for the file store, the order of `notes.md`, where new notes are
   * appended); `"newest"`: the reverse, the most recently added first. A cursor holds the last
   * note of its page (and its position, used when that note is gone): given with the other
   * order, the page continues from that note in the other direction.
   * @default "oldest"
   */
  order?: "oldest" | "newest";
}

/**
 * A page of {@linkcode Memo.list}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type ListResult, openMemo } from "@memo/memory";
 * const dir = await Deno.makeTempDir();
 * const memo = await openMemo({ rootDir: dir });
 * await memo.remember({ text: "one" });
 * await memo.remember({ text: "two" });
 * const page: ListResult = await memo.list({ limit: 1 });
 * assert.equal(page.total, 2);
 * assert.deepEqual(page.notes.map((n) => n.body), ["one"]);
 * assert.equal(typeof page.nextCursor, "string");
 * await memo.close();
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export interface ListResult {
  /** Notes of this page, in the order asked for (store order by default). */
  notes: Note[];
  /** Cursor of the next page; absent on the last page. */
  nextCursor?: string;
  /** Number of notes matching the filter. */
  total: number;
}

/**
 * What {@linkcode Memo.stats} reports.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type MemoStats, openMemo } from "@memo/memory";
 * const dir = await Deno.makeTempDir();
 * const memo = await openMemo({ rootDir: dir });
 * await memo.remember({ text: "Deploys run with make deploy", labels: ["ops"] });
 * await memo.remember({ text: "Deploy keys rotate", source: "github:acme/app/discussions/7" });
 * const stats: MemoStats = await memo.stats();
 * assert.equal(stats.notes, 2);
 * assert.deepEqual(stats.labels, { ops: 1 });
 * assert.deepEqual(stats.sources, { none: 1, github: 1 });
 * assert.equal(stats.engine.default, "auto");
 * assert.equal(stats.engine.auto, "lexical"); // with use-lite, auto stays lexical
 * assert.match(stats.engine.reason ?? "", /auto stays lexical/);
 * assert.deepEqual(stats.issues, []);
 * assert.equal(stats.embeddings.total, 2);
 * await memo.close();
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export interface MemoStats {
  /** Number of notes. */
  notes: number;
  /**
   * Notes per scope, for a client that serves scopes: every scope served, 0 when it holds none.
   */
  scopes?: Partial<Record<"user" | "project" | "local", number>>;
  /** Number of notes per label. */
  labels: Record<string, number>;
  /** Number of notes per source kind (the part of the source key before `:`), plus `none`. */
  sources: Record<string, number>;
  /** Newest `updated` time, if any note exists. */
  lastUpdated?: string;
  /**
   * The default recall engine, the engine `auto` resolves to now, and, when that is lexical,
   * why (no embedder ready yet, nothing embedded yet, embeddings off, or a model with which
   * `auto` stays lexical).
   */
  engine: { default: RecallEngine; auto: Exclude<RecallEngine, "auto">; reason?: string };
  /**
   * Problems the store found (a damaged section kept as written, a duplicate id, a torn tail
   * cut, a stale lock recovered); empty when there are none.
   */
  issues: StoreIssue[];
  /**
   * Set while `notes.md` holds an unresolved git merge (conflict markers): the notes counted are
   * the merge `memo resolve` would write, and writes are refused until it runs.
   */
  unresolvedMerge?: UnresolvedMerge;
  /** The embedder's state and how many notes have a vector. */
  embeddings: EmbeddingStatus;
  /** Replication state; set only by the hybrid runtime (`@memo/mcp-server`). */
  replica?: ReplicaStatus;
  /**
   * The user scope's replication state, when `$MEMO_HOME/config.json` gives the user store a
   * hybrid runtime of its own (`@memo/mcp-server`'s local and hybrid runtimes); `replica` stays
   * the project's.
   */
  userReplica?: ReplicaStatus;
  /**
   * The secrets policy of writes (`allow`: the guard is off) and how many secrets the stored
   * notes hold (notes edited by hand, or written before the guard; `memo scan` lists them;
   * absent where it is not counted, as in the cloud runtime).
   */
  secrets?: { policy: SecretsPolicy; findings?: number };
  /**
   * The clients' hooks (`memo hook`): per client, whether `memo init --hooks` turned them on (and
   * in which file), and when each event last ran; set by the local and hybrid runtimes
   * (`@memo/mcp-server`) when a client's hooks were ever turned on or ran.
   */
  hooks?: Record<string, HookClientStatus>;
}

/**
 * One client's hooks in {@linkcode MemoStats.hooks}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { HookClientStatus } from "@memo/memory";
 * const status: HookClientStatus = {
 *   on: true,
 *   file: ".claude/settings.local.json",
 *   lastRun: { "session-start": "2026-03-02T10:00:00.000Z" },
 * };
 * assert.equal(status.on, true);
 * ```
 */
export interface HookClientStatus {
  /** Whether memo's hook entries are in the client's file (as `memo init` last left it). */
  on: boolean;
  /** The client's hook file memo wrote. */
  file?: string;
  /** The last run of each event (`session-start`, `prompt`), as ISO times. */
  lastRun?: Record<string, string>;
}

/**
 * The replication state the hybrid runtime reports in its stats (`memo stats`,
 * `memory_stats`, `memo://stats`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { ReplicaStatus } from "@memo/memory";
 * const status: ReplicaStatus = {
 *   outbox: 0,
 *   lastPush: "2026-03-02T10:00:00.000Z",
 *   lastPull: "2026-03-02T10:00:01.000Z",
 *   lagMs: 1200,
 *   conflicts: 0,
 * };
 * assert.equal(status.error, undefined); // the last attempt worked
 * ```
 */
export interface ReplicaStatus {
  /** Local changes (creates, updates, forgets) not yet in the cloud. */
  outbox: number;
  /** ISO 8601 time of the last successful push, or null. */
  lastPush: string | null;
  /** ISO 8601 time of the last successful pull, or null. */
  lastPull: string | null;
  /** Milliseconds since the last successful pull; null before the first one. */
  lagMs: number | null;
  /** Conflicts resolved on this machine (each kept the losing version as a `conflict` note). */
  conflicts: number;
  /** The last replication failure, one line without secrets; absent after a success. */
  error?: string;
}

/**
 * Default number of hits of `recall`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { DEFAULT_RECALL_LIMIT, openMemo } from "@memo/memory";
 * const dir = await Deno.makeTempDir();
 * const memo = await openMemo({ rootDir: dir });
 * const notes = Array.from({ length: DEFAULT_RECALL_LIMIT + 2 }, (_, i) => ({ text: `deploy step ${i}` }));
 * await memo.rememberMany(notes);
 * assert.equal((await memo.recall("deploy")).length, DEFAULT_RECALL_LIMIT);
 * await memo.close();
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export const DEFAULT_RECALL_LIMIT = 10;
/**
 * Largest `limit` of `recall` and `list`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { MAX_MEMO_LIMIT, MemoryValidationError, openMemo } from "@memo/memory";
 * const dir = await Deno.makeTempDir();
 * const memo = await openMemo({ rootDir: dir });
 * await memo.list({ limit: MAX_MEMO_LIMIT });
 * await assert.rejects(memo.list({ limit: MAX_MEMO_LIMIT + 1 }), MemoryValidationError);
 * await memo.close();
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export const MAX_MEMO_LIMIT = 1000;
