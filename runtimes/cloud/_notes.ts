/**
 * Internal: the note operations of {@linkcode MemoCloudClient}, one request each under the client's
 * workspace and project: `remember`, `recall`, `get`, `list`, `update`, `forget` and `stats`.
 *
 * @module
 */

import { redactedOf } from "../secrets.ts";
import { arrayOf, defined, noteOf, objectOf, shortId, statusOf, unexpected } from "./_answers.ts";
import type { CloudSession } from "./_session.ts";
import type {
  MemoCloudCallOptions,
  MemoCloudConditionalOptions,
  MemoCloudListOptions,
  MemoCloudRecallOptions,
  MemoCloudWriteOptions,
} from "./client_options.ts";
import type { SimilarNote } from "@memo/memory";
import type * as T from "./client_types.ts";

/**
 * `POST notes`: stores a note ({@linkcode MemoCloudClient.remember}).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { CloudSession } from "./_session.ts";
 * import { rememberNote } from "./_notes.ts";
 * const session = (body: unknown, status = 200) =>
 *   new CloudSession({
 *     baseUrl: "http://127.0.0.1:8788", apiKey: "mk_example", workspaceId: "team",
 *     fetch: async (input) =>
 *       String(input).endsWith("/whoami") ? Response.json({ workspaceId: "team" }) : Response.json(body, { status }),
 *   });
 * const note = {
 *   id: "n1", title: "Deploys", body: "Run make deploy.", labels: [], hash: "h",
 *   created: "2026-01-01T00:00:00.000Z", updated: "2026-01-01T00:00:00.000Z", revision: 2,
 * };
 * const result = await rememberNote(session({ note, status: "written" }, 201), { text: "Run make deploy." });
 * assert.equal(result.status, "written");
 * ```
 */
export async function rememberNote(
  session: CloudSession,
  input: Omit<T.MemoCloudDraft, "id" | "created" | "updated">,
  options: MemoCloudWriteOptions = {},
): Promise<T.MemoCloudRememberResult> {
  const action = "remember the note";
  const body = await session.project({
    method: "POST",
    path: "/notes",
    body: defined({
      text: input.text,
      title: input.title,
      labels: input.labels,
      source: input.source,
      supersedes: input.supersedes,
      validFrom: input.validFrom,
      validUntil: input.validUntil,
    }),
    write: true,
    action,
  }, options);
  const result: T.MemoCloudRememberResult = {
    note: noteOf(body.note, action),
    status: statusOf(body.status, action),
  };
  const redacted = redactedOf(body.redacted);
  if (redacted) result.redacted = redacted;
  if (Array.isArray(body.similar)) result.similar = body.similar as SimilarNote[];
  return result;
}

/**
 * `POST recall`: ranked notes for a query ({@linkcode MemoCloudClient.recall}).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { CloudSession } from "./_session.ts";
 * import { recallNotes } from "./_notes.ts";
 * const session = (body: unknown, status = 200) =>
 *   new CloudSession({
 *     baseUrl: "http://127.0.0.1:8788", apiKey: "mk_example", workspaceId: "team",
 *     fetch: async (input) =>
 *       String(input).endsWith("/whoami") ? Response.json({ workspaceId: "team" }) : Response.json(body, { status }),
 *   });
 * assert.deepEqual(await recallNotes(session({ hits: [] }), "deploy"), []);
 * ```
 */
export async function recallNotes(
  session: CloudSession,
  query: string,
  options: MemoCloudRecallOptions = {},
): Promise<T.MemoCloudRecallHit[]> {
  const action = "recall";
  const body = await session.project({
    method: "POST",
    path: "/recall",
    body: defined({
      query,
      limit: options.limit,
      labels: options.labels,
      source: options.source,
      engine: options.engine,
      explain: options.explain,
      includeSuperseded: options.includeSuperseded,
      asOf: options.asOf,
      since: options.since,
      until: options.until,
    }),
    action,
  }, options);
  return arrayOf(body.hits, action).map((hit) => {
    const h = objectOf(hit, action);
    return { ...h, note: noteOf(h.note, action) } as T.MemoCloudRecallHit;
  });
}

/**
 * `GET notes/{id}`: one note ({@linkcode MemoCloudClient.get}).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { CloudSession } from "./_session.ts";
 * import { getNote } from "./_notes.ts";
 * const session = (body: unknown, status = 200) =>
 *   new CloudSession({
 *     baseUrl: "http://127.0.0.1:8788", apiKey: "mk_example", workspaceId: "team",
 *     fetch: async (input) =>
 *       String(input).endsWith("/whoami") ? Response.json({ workspaceId: "team" }) : Response.json(body, { status }),
 *   });
 * const note = {
 *   id: "n1", title: "Deploys", body: "Run make deploy.", labels: [], hash: "h",
 *   created: "2026-01-01T00:00:00.000Z", updated: "2026-01-01T00:00:00.000Z", revision: 2,
 * };
 * assert.equal((await getNote(session({ note }), "n1")).revision, 2);
 * ```
 */
export async function getNote(
  session: CloudSession,
  id: string,
  options: MemoCloudCallOptions = {},
): Promise<T.MemoCloudNote> {
  const action = `get note ${shortId(id)}`;
  const body = await session.project({
    method: "GET",
    path: `/notes/${encodeURIComponent(id)}`,
    action,
  }, options);
  return noteOf(body.note, action);
}

/**
 * `GET notes`: a page of notes ({@linkcode MemoCloudClient.list}).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { CloudSession } from "./_session.ts";
 * import { listNotes } from "./_notes.ts";
 * const session = (body: unknown, status = 200) =>
 *   new CloudSession({
 *     baseUrl: "http://127.0.0.1:8788", apiKey: "mk_example", workspaceId: "team",
 *     fetch: async (input) =>
 *       String(input).endsWith("/whoami") ? Response.json({ workspaceId: "team" }) : Response.json(body, { status }),
 *   });
 * assert.deepEqual(await listNotes(session({ notes: [], total: 0 })), { notes: [], total: 0 });
 * ```
 */
export async function listNotes(
  session: CloudSession,
  options: MemoCloudListOptions = {},
): Promise<T.MemoCloudListResult> {
  const action = "list the notes";
  const body = await session.project({
    method: "GET",
    path: "/notes",
    query: {
      cursor: options.cursor,
      limit: options.limit,
      labels: options.labels?.length ? options.labels.join(",") : undefined,
      source: options.source,
      order: options.order,
      includeSuperseded: options.includeSuperseded === undefined
        ? undefined
        : String(options.includeSuperseded),
      asOf: options.asOf,
      since: options.since,
      until: options.until,
    },
    action,
  }, options);
  const result: T.MemoCloudListResult = {
    notes: arrayOf(body.notes, action).map((n) => noteOf(n, action)),
    total: typeof body.total === "number" ? body.total : 0,
  };
  if (typeof body.nextCursor === "string") result.nextCursor = body.nextCursor;
  return result;
}

/**
 * `PATCH notes/{id}`: changes a note ({@linkcode MemoCloudClient.update}).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { CloudSession } from "./_session.ts";
 * import { updateNote } from "./_notes.ts";
 * const session = (body: unknown, status = 200) =>
 *   new CloudSession({
 *     baseUrl: "http://127.0.0.1:8788", apiKey: "mk_example", workspaceId: "team",
 *     fetch: async (input) =>
 *       String(input).endsWith("/whoami") ? Response.json({ workspaceId: "team" }) : Response.json(body, { status }),
 *   });
 * const note = {
 *   id: "n1", title: "Deploys", body: "Run make deploy.", labels: [], hash: "h",
 *   created: "2026-01-01T00:00:00.000Z", updated: "2026-01-01T00:00:00.000Z", revision: 2,
 * };
 * assert.equal((await updateNote(session({ note }), "n1", { title: "Deploys" })).id, "n1");
 * ```
 */
export async function updateNote(
  session: CloudSession,
  id: string,
  patch: T.MemoCloudPatch,
  options: MemoCloudConditionalOptions = {},
): Promise<T.MemoCloudNote> {
  const action = `update note ${shortId(id)}`;
  const body = await session.project({
    method: "PATCH",
    path: `/notes/${encodeURIComponent(id)}`,
    body: defined({
      text: patch.text,
      title: patch.title,
      labels: patch.labels,
      updated: patch.updated,
      supersedes: patch.supersedes,
      validFrom: patch.validFrom,
      validUntil: patch.validUntil,
    }),
    ifMatch: options.ifMatch,
    write: true,
    action,
  }, options);
  return noteOf(body.note, action);
}

/**
 * `DELETE notes/{id}`: deletes a note and returns it as it was
 * ({@linkcode MemoCloudClient.forget}).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { CloudSession } from "./_session.ts";
 * import { forgetNote } from "./_notes.ts";
 * const session = (body: unknown, status = 200) =>
 *   new CloudSession({
 *     baseUrl: "http://127.0.0.1:8788", apiKey: "mk_example", workspaceId: "team",
 *     fetch: async (input) =>
 *       String(input).endsWith("/whoami") ? Response.json({ workspaceId: "team" }) : Response.json(body, { status }),
 *   });
 * const note = {
 *   id: "n1", title: "Deploys", body: "Run make deploy.", labels: [], hash: "h",
 *   created: "2026-01-01T00:00:00.000Z", updated: "2026-01-01T00:00:00.000Z", revision: 2,
 * };
 * assert.equal((await forgetNote(session({ note }), "n1")).id, "n1");
 * ```
 */
export async function forgetNote(
  session: CloudSession,
  id: string,
  options: MemoCloudConditionalOptions = {},
): Promise<T.MemoCloudNote> {
  const action = `forget note ${shortId(id)}`;
  const body = await session.project({
    method: "DELETE",
    path: `/notes/${encodeURIComponent(id)}`,
    ifMatch: options.ifMatch,
    write: true,
    action,
  }, options);
  return noteOf(body.note, action);
}

/**
 * `GET stats`: counts, and the feed's latest sequence number ({@linkcode MemoCloudClient.stats}).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { CloudSession } from "./_session.ts";
 * import { readStats } from "./_notes.ts";
 * const session = (body: unknown, status = 200) =>
 *   new CloudSession({
 *     baseUrl: "http://127.0.0.1:8788", apiKey: "mk_example", workspaceId: "team",
 *     fetch: async (input) =>
 *       String(input).endsWith("/whoami") ? Response.json({ workspaceId: "team" }) : Response.json(body, { status }),
 *   });
 * const stats = { notes: 0, labels: {}, sources: {}, revision: 0 };
 * assert.deepEqual(await readStats(session(stats)), stats);
 * ```
 */
export async function readStats(
  session: CloudSession,
  options: MemoCloudCallOptions = {},
): Promise<T.MemoCloudStats> {
  const action = "read the stats";
  const body = await session.project({ method: "GET", path: "/stats", action }, options);
  if (typeof body.notes !== "number" || typeof body.revision !== "number") {
    throw unexpected(action);
  }
  return body as unknown as T.MemoCloudStats;
}
