/**
 * {@linkcode MemoCloudClient}: the typed client of the Memo Cloud API v1 (`docs/cloud-api.md`). The
 * cloud runtime, and the hybrid runtime's replica, talk to the cloud through it.
 *
 * - Requests carry `Authorization: Bearer <apiKey>`; the key never appears in an error.
 * - Before its first call other than {@linkcode MemoCloudClient.health}, the client asks `GET
 *   /v1/whoami` which workspace the key belongs to: a configured `workspaceId` that differs fails
 *   that call, having read and written nothing; without one, the key's workspace is used.
 * - Each attempt has its own timeout. Network failures, timeouts, 429, 500/502/503/504, and a 409
 *   saying the same write is still running (`in_progress`) are retried with exponential backoff and
 *   jitter, honouring `Retry-After` (up to 60 s; a longer one fails the call at once, with
 *   `retryAfterSeconds`); other 4xx are not. Every write carries an `Idempotency-Key`, the same on
 *   each retry, so a retried write lands once.
 *
 * @module
 */

import { CloudSession } from "./_session.ts";
import {
  forgetNote,
  getNote,
  listNotes,
  readStats,
  recallNotes,
  rememberNote,
  updateNote,
} from "./_notes.ts";
import { applyTidyPlan, correctNote, readTidyPlan, supersedeNotes } from "./_history.ts";
import type { CorrectInput, SupersedeInput, TidyPlan } from "@memo/memory";
import { deleteNoteBatch, upsertNoteBatch } from "./_batch.ts";
import { readChanges } from "./_feed.ts";
import type {
  MemoCloudCallOptions,
  MemoCloudChangesOptions,
  MemoCloudClientOptions,
  MemoCloudConditionalOptions,
  MemoCloudListOptions,
  MemoCloudRecallOptions,
  MemoCloudWriteOptions,
} from "./client_options.ts";
import type {
  MemoCloudBatchResult,
  MemoCloudChangesPage,
  MemoCloudDeleteResult,
  MemoCloudDeleteSelector,
  MemoCloudDraft,
  MemoCloudHealth,
  MemoCloudListResult,
  MemoCloudNote,
  MemoCloudPatch,
  MemoCloudRecallHit,
  MemoCloudRememberResult,
  MemoCloudStats,
  MemoCloudSupersedeResult,
  MemoCloudTidyApplyResult,
} from "./client_types.ts";

export type {
  MemoCloudCallOptions,
  MemoCloudChangesOptions,
  MemoCloudClientOptions,
  MemoCloudConditionalOptions,
  MemoCloudHistoryFilter,
  MemoCloudListOptions,
  MemoCloudOptions,
  MemoCloudRecallOptions,
  MemoCloudRetryOptions,
  MemoCloudWriteOptions,
} from "./client_options.ts";
export type {
  MemoCloudBatchResult,
  MemoCloudChange,
  MemoCloudChangesPage,
  MemoCloudDeleteResult,
  MemoCloudDeleteSelector,
  MemoCloudDraft,
  MemoCloudHealth,
  MemoCloudListResult,
  MemoCloudNote,
  MemoCloudPatch,
  MemoCloudRecallHit,
  MemoCloudRememberResult,
  MemoCloudStats,
  MemoCloudSupersedeResult,
  MemoCloudTidyApplyResult,
} from "./client_types.ts";

/**
 * The Memo Cloud API client. Build one with the `cloud` options; the methods mirror the runtime
 * (`remember`, `recall`, `get`, `list`, `update`, `forget`, `correct`, `supersede`, `tidy`,
 * `applyTidy`, `stats`), plus `upsertBatch`, `deleteBatch`, `changes`, `health` and `whoami`. Every
 * failure is a {@linkcode MemoCloudError}; an aborted call rejects with its signal's reason.
 *
 * The constructor throws a `MemoCloudError` with code `config` for settings that cannot work (no
 * base URL, no API key while `requireApiKey`, a malformed id); nothing is sent before the first
 * call.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { MemoCloudClient } from "@memo/mcp-server";
 * // A stand-in for the server: in real use, leave `fetch` out.
 * const seen: string[] = [];
 * const fetch = (input: Request | URL | string, init?: RequestInit) => {
 *   const request = new Request(input, init);
 *   seen.push(`${request.method} ${new URL(request.url).pathname}`);
 *   if (request.url.endsWith("/v1/whoami")) return Promise.resolve(Response.json({ workspaceId: "team" }));
 *   return Promise.resolve(Response.json({ notes: 1, labels: {}, sources: {}, revision: 4 }));
 * };
 * const client = new MemoCloudClient({ baseUrl: "http://127.0.0.1:8788", apiKey: "mk_example", fetch });
 * assert.equal((await client.stats()).revision, 4);
 * await client.stats();
 * assert.equal(client.workspaceId, "team"); // learned from the key
 * assert.deepEqual(seen, [
 *   "GET /v1/whoami", // once, before the first call
 *   "GET /v1/workspaces/team/projects/default/stats",
 *   "GET /v1/workspaces/team/projects/default/stats",
 * ]);
 * ```
 */
export class MemoCloudClient {
  /** The API base the client talks to: the origin (and any path prefix) followed by `/v1`. */
  readonly baseUrl: string;
  /** The project the notes belong to. */
  readonly projectId: string;
  readonly #session: CloudSession;

  /** Checks the settings; sends nothing. */
  constructor(options: MemoCloudClientOptions = {}) {
    this.#session = new CloudSession(options);
    this.baseUrl = this.#session.baseUrl;
    this.projectId = this.#session.projectId;
  }

  /**
   * The workspace the client works in: the configured one, else the key's once the first call
   * learned it (undefined before).
   */
  get workspaceId(): string | undefined {
    return this.#session.workspaceId;
  }

  /**
   * `GET /v1/health` (public: no key, no workspace check).
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { MemoCloudClient } from "@memo/mcp-server";
   * const client = new MemoCloudClient({
   *   baseUrl: "http://127.0.0.1:8788",
   *   requireApiKey: false,
   *   fetch: () => Promise.resolve(Response.json({ status: "ok", version: "0.1.0", store: "file" })),
   * });
   * assert.equal((await client.health()).store, "file");
   * ```
   */
  async health(options: MemoCloudCallOptions = {}): Promise<MemoCloudHealth> {
    return await this.#session.health(options);
  }

  /**
   * `GET /v1/whoami`: the workspace of the API key. Does not check the configured workspace (the
   * other calls do).
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { MemoCloudClient } from "@memo/mcp-server";
   * const client = new MemoCloudClient({
   *   baseUrl: "http://127.0.0.1:8788",
   *   apiKey: "mk_example",
   *   fetch: () => Promise.resolve(Response.json({ workspaceId: "team" })),
   * });
   * assert.deepEqual(await client.whoami(), { workspaceId: "team" });
   * ```
   */
  async whoami(options: MemoCloudCallOptions = {}): Promise<{ workspaceId: string }> {
    return await this.#session.whoami(options);
  }

  /**
   * `POST notes`: stores a note, deduplicated by source key, else content.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { MemoCloudClient } from "@memo/mcp-server";
   * const keys: (string | null)[] = [];
   * const client = new MemoCloudClient({
   *   baseUrl: "http://127.0.0.1:8788", apiKey: "mk_example", workspaceId: "team",
   *   fetch: (input, init) => {
   *     const request = new Request(input, init);
   *     if (request.url.endsWith("/whoami")) return Promise.resolve(Response.json({ workspaceId: "team" }));
   *     keys.push(request.headers.get("idempotency-key"));
   *     const note = {
   *       id: "n1", title: "Deploys", body: "Run make deploy.", labels: [], hash: "h",
   *       created: "2026-01-01T00:00:00.000Z", updated: "2026-01-01T00:00:00.000Z", revision: 1,
   *     };
   *     return Promise.resolve(Response.json({ note, status: "written" }, { status: 201 }));
   *   },
   * });
   * const { status } = await client.remember({ text: "Run make deploy." });
   * assert.equal(status, "written");
   * assert.equal(keys.length, 1);
   * assert.match(keys[0]!, /^[0-9a-f-]{36}$/); // a fresh Idempotency-Key per write
   * ```
   */
  async remember(
    input: Omit<MemoCloudDraft, "id" | "created" | "updated">,
    options: MemoCloudWriteOptions = {},
  ): Promise<MemoCloudRememberResult> {
    return await rememberNote(this.#session, input, options);
  }

  /**
   * `POST recall`: ranked notes for a query (lexical).
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { MemoCloudClient } from "@memo/mcp-server";
   * const bodies: unknown[] = [];
   * const client = new MemoCloudClient({
   *   baseUrl: "http://127.0.0.1:8788", apiKey: "mk_example", workspaceId: "team",
   *   fetch: async (input, init) => {
   *     const request = new Request(input, init);
   *     if (request.url.endsWith("/whoami")) return Response.json({ workspaceId: "team" });
   *     bodies.push(await request.json());
   *     return Response.json({ hits: [] });
   *   },
   * });
   * assert.deepEqual(await client.recall("deploy", { limit: 3, labels: ["infra"] }), []);
   * assert.deepEqual(bodies, [{ query: "deploy", limit: 3, labels: ["infra"] }]);
   * ```
   */
  async recall(query: string, options: MemoCloudRecallOptions = {}): Promise<MemoCloudRecallHit[]> {
    return await recallNotes(this.#session, query, options);
  }

  /**
   * `GET notes/{id}`: one note; code `not_found` when unknown.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { MemoCloudClient } from "@memo/mcp-server";
   * const client = new MemoCloudClient({
   *   baseUrl: "http://127.0.0.1:8788", apiKey: "mk_example", workspaceId: "team",
   *   fetch: (input) =>
   *     Promise.resolve(
   *       String(input).endsWith("/whoami")
   *         ? Response.json({ workspaceId: "team" })
   *         : Response.json({ error: { code: "not_found", message: "Cannot find note n9" } }, {
   *           status: 404,
   *         }),
   *     ),
   * });
   * await assert.rejects(client.get("n9"), { code: "not_found", message: "Cannot find note n9" });
   * ```
   */
  async get(id: string, options: MemoCloudCallOptions = {}): Promise<MemoCloudNote> {
    return await getNote(this.#session, id, options);
  }

  /**
   * `GET notes`: a page of notes, with an opaque cursor.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { MemoCloudClient } from "@memo/mcp-server";
   * const urls: string[] = [];
   * const client = new MemoCloudClient({
   *   baseUrl: "http://127.0.0.1:8788", apiKey: "mk_example", workspaceId: "team",
   *   projectId: "handbook",
   *   fetch: (input) => {
   *     if (String(input).endsWith("/whoami")) return Promise.resolve(Response.json({ workspaceId: "team" }));
   *     urls.push(String(input));
   *     return Promise.resolve(Response.json({ notes: [], total: 0 }));
   *   },
   * });
   * assert.deepEqual(await client.list({ limit: 10, labels: ["a", "b"] }), { notes: [], total: 0 });
   * assert.deepEqual(urls, [
   *   "http://127.0.0.1:8788/v1/workspaces/team/projects/handbook/notes?limit=10&labels=a%2Cb",
   * ]);
   * ```
   */
  async list(options: MemoCloudListOptions = {}): Promise<MemoCloudListResult> {
    return await listNotes(this.#session, options);
  }

  /**
   * `PATCH notes/{id}`: changes a note; with `ifMatch`, only if it is still at that revision (else
   * code `conflict`, with the current note in `details.note`). `patch.updated` (an ISO 8601 time
   * with a time zone) is the time the server records instead of now, for example a replica's edit
   * time; it is not a change by itself.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { MemoCloudClient } from "@memo/mcp-server";
   * const current = {
   *   id: "n1", title: "Deploys", body: "Run make deploy.", labels: [], hash: "h",
   *   created: "2026-01-01T00:00:00.000Z", updated: "2026-01-01T00:00:00.000Z", revision: 8,
   * };
   * const client = new MemoCloudClient({
   *   baseUrl: "http://127.0.0.1:8788", apiKey: "mk_example", workspaceId: "team",
   *   fetch: (input, init) => {
   *     if (String(input).endsWith("/whoami")) return Promise.resolve(Response.json({ workspaceId: "team" }));
   *     assert.equal(new Headers(init?.headers).get("if-match"), "7");
   *     const error = { code: "conflict", message: "Cannot update note n1: it changed", details: { note: current } };
   *     return Promise.resolve(Response.json({ error }, { status: 409 }));
   *   },
   * });
   * const e = await client.update("n1", { title: "Deploying" }, { ifMatch: 7 }).catch((e) => e);
   * assert.equal(e.code, "conflict");
   * assert.equal(e.details.note.revision, 8);
   * ```
   */
  async update(
    id: string,
    patch: MemoCloudPatch,
    options: MemoCloudConditionalOptions = {},
  ): Promise<MemoCloudNote> {
    return await updateNote(this.#session, id, patch, options);
  }

  /**
   * `DELETE notes/{id}`: deletes a note and returns it as it was; with `ifMatch`, only if it is
   * still at that revision.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { MemoCloudClient } from "@memo/mcp-server";
   * const note = {
   *   id: "n1", title: "Deploys", body: "Run make deploy.", labels: [], hash: "h",
   *   created: "2026-01-01T00:00:00.000Z", updated: "2026-01-01T00:00:00.000Z", revision: 2,
   * };
   * const client = new MemoCloudClient({
   *   baseUrl: "http://127.0.0.1:8788", apiKey: "mk_example", workspaceId: "team",
   *   fetch: (input) =>
   *     Promise.resolve(
   *       String(input).endsWith("/whoami") ? Response.json({ workspaceId: "team" }) : Response.json({ note }),
   *     ),
   * });
   * assert.equal((await client.forget("n1")).id, "n1");
   * ```
   */
  async forget(id: string, options: MemoCloudConditionalOptions = {}): Promise<MemoCloudNote> {
    return await forgetNote(this.#session, id, options);
  }

  /**
   * `POST notes:correct`: the fact of a note changed. The server writes a new note that supersedes
   * it (its labels unless `labels` is given) and ends the old note's validity, in one transaction;
   * code `not_found` for an unknown id.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { MemoCloudClient } from "@memo/mcp-server";
   * const paths: string[] = [];
   * const note = {
   *   id: "n2", title: "Deploys run on Mondays", body: "Deploys run on Mondays", labels: [],
   *   hash: "h", supersedes: ["n1"], revision: 7,
   *   created: "2026-03-02T00:00:00.000Z", updated: "2026-03-02T00:00:00.000Z",
   * };
   * const client = new MemoCloudClient({
   *   baseUrl: "http://127.0.0.1:8788", apiKey: "mk_example", workspaceId: "team",
   *   fetch: (input) => {
   *     if (String(input).endsWith("/whoami")) return Promise.resolve(Response.json({ workspaceId: "team" }));
   *     paths.push(new URL(String(input)).pathname);
   *     return Promise.resolve(Response.json({ note, superseded: ["n1"] }));
   *   },
   * });
   * const result = await client.correct({ id: "n1", text: "Deploys run on Mondays" });
   * assert.deepEqual(result.note.supersedes, ["n1"]);
   * assert.deepEqual(paths, ["/v1/workspaces/team/projects/default/notes:correct"]);
   * ```
   */
  async correct(
    input: CorrectInput,
    options: MemoCloudWriteOptions = {},
  ): Promise<MemoCloudSupersedeResult> {
    return await correctNote(this.#session, input, options);
  }

  /**
   * `POST notes:supersede`: note `by` supersedes the notes `ids` (they say the same thing); code
   * `not_found` for an unknown `by`, `invalid_request` for an unknown id in `ids`, `by` itself or a
   * cycle.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { MemoCloudClient } from "@memo/mcp-server";
   * const note = {
   *   id: "n2", title: "t", body: "b", labels: [], hash: "h", supersedes: ["n1"], revision: 4,
   *   created: "2026-03-02T00:00:00.000Z", updated: "2026-03-02T00:00:00.000Z",
   * };
   * const client = new MemoCloudClient({
   *   baseUrl: "http://127.0.0.1:8788", apiKey: "mk_example", workspaceId: "team",
   *   fetch: async (input) =>
   *     String(input).endsWith("/whoami") ? Response.json({ workspaceId: "team" }) : Response.json({ note, superseded: ["n1"] }),
   * });
   * assert.deepEqual((await client.supersede({ ids: ["n1"], by: "n2" })).superseded, ["n1"]);
   * ```
   */
  async supersede(
    input: SupersedeInput,
    options: MemoCloudWriteOptions = {},
  ): Promise<MemoCloudSupersedeResult> {
    return await supersedeNotes(this.#session, input, options);
  }

  /**
   * `GET tidy`: proposals to tidy the project's notes up (near-duplicates to merge, expired notes),
   * writing nothing. A cloud plan carries no `sha256`.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { MemoCloudClient } from "@memo/mcp-server";
   * const client = new MemoCloudClient({
   *   baseUrl: "http://127.0.0.1:8788", apiKey: "mk_example", workspaceId: "team",
   *   fetch: async (input) =>
   *     String(input).endsWith("/whoami") ? Response.json({ workspaceId: "team" }) : Response.json({ version: 1, proposals: [] }),
   * });
   * assert.deepEqual((await client.tidy()).proposals, []);
   * ```
   */
  async tidy(options: MemoCloudCallOptions = {}): Promise<TidyPlan> {
    return await readTidyPlan(this.#session, options);
  }

  /**
   * `POST tidy:apply`: applies the merges of a plan from {@linkcode MemoCloudClient.tidy} in one
   * transaction; code `invalid_request`, with nothing written, when a note it names is gone.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { MemoCloudClient } from "@memo/mcp-server";
   * const client = new MemoCloudClient({
   *   baseUrl: "http://127.0.0.1:8788", apiKey: "mk_example", workspaceId: "team",
   *   fetch: async (input) =>
   *     String(input).endsWith("/whoami") ? Response.json({ workspaceId: "team" }) : Response.json({ merged: 0, superseded: [], notes: [] }),
   * });
   * assert.equal((await client.applyTidy({ version: 1, proposals: [] })).merged, 0);
   * ```
   */
  async applyTidy(
    plan: TidyPlan,
    options: MemoCloudWriteOptions = {},
  ): Promise<MemoCloudTidyApplyResult> {
    return await applyTidyPlan(this.#session, plan, options);
  }

  /**
   * `GET stats`: counts, and the feed's latest sequence number.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { MemoCloudClient } from "@memo/mcp-server";
   * const client = new MemoCloudClient({
   *   baseUrl: "http://127.0.0.1:8788", apiKey: "mk_example", workspaceId: "team",
   *   fetch: async (input) =>
   *     String(input).endsWith("/whoami") ? Response.json({ workspaceId: "team" }) : Response.json({ notes: 0, labels: {}, sources: {}, revision: 0 }),
   * });
   * assert.deepEqual(await client.stats(), { notes: 0, labels: {}, sources: {}, revision: 0 });
   * ```
   */
  async stats(options: MemoCloudCallOptions = {}): Promise<MemoCloudStats> {
    return await readStats(this.#session, options);
  }

  /**
   * `POST notes:batch`: upserts up to 10000 drafts in one transaction, all or nothing. More drafts,
   * or a body over 16 MiB, fail with code `payload_too_large` before anything is sent.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { MemoCloudClient } from "@memo/mcp-server";
   * let sent = 0;
   * const client = new MemoCloudClient({
   *   baseUrl: "http://127.0.0.1:8788", apiKey: "mk_example", workspaceId: "team",
   *   fetch: () => (sent++, Promise.resolve(Response.json({ workspaceId: "team" }))),
   * });
   * const drafts = Array.from({ length: 10001 }, (_, i) => ({ text: `note ${i}` }));
   * await assert.rejects(client.upsertBatch(drafts), {
   *   code: "payload_too_large",
   *   message: "Cannot upsert 10001 notes in one batch: the limit is 10000 notes; nothing was written",
   * });
   * assert.equal(sent, 0);
   * ```
   */
  async upsertBatch(
    drafts: readonly MemoCloudDraft[],
    options: MemoCloudWriteOptions = {},
  ): Promise<MemoCloudBatchResult> {
    return await upsertNoteBatch(this.#session, drafts, options);
  }

  /**
   * `POST notes:batchDelete`: deletes the notes with these ids (up to 10000), or every note whose
   * source key starts with a prefix, in one transaction (the server refuses a prefix that matches
   * more than 10000 notes with `invalid_request`). Ids no note has are answered in `notFound`.
   * Retried safely with one `Idempotency-Key`.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { MemoCloudClient } from "@memo/mcp-server";
   * const note = {
   *   id: "n1", title: "t", body: "b", labels: [], source: "notion:page/1", hash: "h",
   *   created: "2026-01-01T00:00:00.000Z", updated: "2026-01-01T00:00:00.000Z", revision: 3,
   * };
   * const client = new MemoCloudClient({
   *   baseUrl: "http://127.0.0.1:8788", apiKey: "mk_example", workspaceId: "team",
   *   fetch: async (input) =>
   *     String(input).endsWith("/whoami") ? Response.json({ workspaceId: "team" }) : Response.json({ deleted: [note], notFound: [] }),
   * });
   * const { deleted } = await client.deleteBatch({ sourcePrefix: "notion:page/" });
   * assert.deepEqual(deleted.map((n) => n.id), ["n1"]);
   * ```
   */
  async deleteBatch(
    selector: MemoCloudDeleteSelector,
    options: MemoCloudWriteOptions = {},
  ): Promise<MemoCloudDeleteResult> {
    return await deleteNoteBatch(this.#session, selector, options);
  }

  /**
   * `GET changes`: the change feed from a token (`since`; the start when missing), in order,
   * tombstones included.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { MemoCloudClient } from "@memo/mcp-server";
   * const client = new MemoCloudClient({
   *   baseUrl: "http://127.0.0.1:8788", apiKey: "mk_example", workspaceId: "team",
   *   fetch: (input) =>
   *     Promise.resolve(
   *       String(input).endsWith("/whoami")
   *         ? Response.json({ workspaceId: "team" })
   *         : Response.json({
   *           changes: [{ seq: 5, op: "delete", id: "n1", revision: 5 }],
   *           next: "5",
   *           hasMore: false,
   *         }),
   *     ),
   * });
   * const page = await client.changes({ since: "4" });
   * assert.equal(page.changes[0].op, "delete");
   * assert.equal(page.next, "5");
   * ```
   */
  async changes(options: MemoCloudChangesOptions = {}): Promise<MemoCloudChangesPage> {
    return await readChanges(this.#session, options);
  }
}
