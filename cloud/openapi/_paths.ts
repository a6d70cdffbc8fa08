/**
 * Internal: the paths of the Cloud API's OpenAPI document, one per route, with
 * the errors each kind of route answers.
 *
 * @module
 */

import { content, JSON_TYPE } from "./_components.ts";
import { HISTORY_FILTER_DOCS, type Json, ref, type Schema } from "./_schemas.ts";

/** The rate limit's headers, on every answer of a route that counts it. */
const RATE_HEADERS: Record<string, Json> = {
  "RateLimit-Policy": { $ref: "#/components/headers/RateLimitPolicy" },
  RateLimit: { $ref: "#/components/headers/RateLimit" },
};

const AUTH_ERRORS = {
  "401": { $ref: "#/components/responses/Unauthorized" },
  "429": { $ref: "#/components/responses/RateLimited" },
  "500": { $ref: "#/components/responses/Internal" },
};
const PROJECT_ERRORS = {
  "400": { $ref: "#/components/responses/InvalidRequest" },
  ...AUTH_ERRORS,
  "403": { $ref: "#/components/responses/Forbidden" },
};
const BODY_ERRORS = {
  ...PROJECT_ERRORS,
  "413": { $ref: "#/components/responses/PayloadTooLarge" },
};
/** The errors of a write without a body (`DELETE`): no 413. */
const BODYLESS_WRITE_ERRORS = {
  ...PROJECT_ERRORS,
  "400": { $ref: "#/components/responses/WriteInvalidRequest" },
  "409": { $ref: "#/components/responses/Conflict" },
};
const WRITE_ERRORS = {
  ...BODYLESS_WRITE_ERRORS,
  "413": { $ref: "#/components/responses/PayloadTooLarge" },
};

const ok = (description: string, schema: string, replayable = false, limited = true): Json => ({
  description,
  headers: {
    ...(limited ? RATE_HEADERS : {}),
    ...(replayable
      ? { "Idempotent-Replayed": { $ref: "#/components/headers/IdempotentReplayed" } }
      : {}),
  },
  content: content(ref(schema)),
});

const p = (name: string): Json => ({ $ref: `#/components/parameters/${name}` });
const query = (name: string, description: string, schema: Schema): Json => ({
  name,
  in: "query",
  required: false,
  description,
  schema,
});
const body = (schema: string): Json => ({ required: true, content: content(ref(schema)) });

const PROJECT = "/v1/workspaces/{workspaceId}/projects/{projectId}";

/** A project `POST` that writes: an `Idempotency-Key`, a `request` body, the write errors. */
const projectWrite = (
  { request, responses, ...operation }: {
    operationId: string;
    summary: string;
    description: string;
    request: string;
    responses: Record<string, Json>;
  },
): Json => ({
  parameters: [p("workspaceId"), p("projectId")],
  post: {
    ...operation,
    parameters: [p("IdempotencyKey")],
    requestBody: body(request),
    responses: { ...responses, ...WRITE_ERRORS },
  },
});

/**
 * The paths of the document: every route of the Cloud API v1 with its
 * parameters, body, answer and errors.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { paths } from "./_paths.ts";
 *
 * assert.ok("/v1/health" in paths);
 * ```
 */
export const paths: Record<string, Json> = {
  "/v1/health": {
    get: {
      operationId: "getHealth",
      summary: "Whether the server is up, its version and its store",
      security: [],
      responses: { "200": ok("The server is up.", "Health", false, false) },
    },
  },
  "/v1/openapi.json": {
    get: {
      operationId: "getOpenApi",
      summary: "This document",
      security: [],
      responses: {
        "200": {
          description: "The OpenAPI 3.1 document of the API.",
          content: { [JSON_TYPE]: { schema: { type: "object" } } },
        },
      },
    },
  },
  "/v1/whoami": {
    get: {
      operationId: "whoami",
      summary: "The API key's workspace",
      description:
        "Clients call it once before anything else, to check a configured workspace or learn it.",
      responses: {
        "200": ok("The key's workspace.", "Whoami"),
        "400": { $ref: "#/components/responses/InvalidRequest" },
        ...AUTH_ERRORS,
      },
    },
  },
  "/v1/stats": {
    get: {
      operationId: "getInstanceStats",
      summary: "The instance's figures, for operators",
      description:
        "Projects held in memory and the bytes they account for against `MEMO_CLOUD_INDEX_BUDGET_MB`, evictions, hit rate, projects larger than the budget, index snapshots, the rate limit. Needs an operator key (`MEMO_CLOUD_OPERATOR_KEYS`); a workspace key is refused with 403. Not rate limited. Each instance answers for itself.",
      security: [{ operator: [] }],
      responses: {
        "200": ok("The instance's figures.", "InstanceStats", false, false),
        "400": { $ref: "#/components/responses/InvalidRequest" },
        "401": { $ref: "#/components/responses/Unauthorized" },
        "403": { $ref: "#/components/responses/OperatorForbidden" },
        "500": { $ref: "#/components/responses/Internal" },
      },
    },
  },
  [`${PROJECT}/notes`]: {
    parameters: [p("workspaceId"), p("projectId")],
    post: {
      operationId: "createNote",
      summary: "Create one note (or match an existing one by identity)",
      description:
        "The identity is the source key, else the text after memo's normalising (case, white space and punctuation): the same text is `unchanged`. A written note's answer lists the stored notes like it in `similar`.",
      parameters: [p("IdempotencyKey")],
      requestBody: body("CreateNoteRequest"),
      responses: {
        "201": ok("A new note was written.", "RememberResult", true),
        "200": ok(
          "The identity matched an existing note: `updated` or `unchanged`.",
          "RememberResult",
          true,
        ),
        ...WRITE_ERRORS,
      },
    },
    get: {
      operationId: "listNotes",
      summary: "List notes, a page at a time",
      parameters: [
        query("cursor", "Opaque cursor of the previous page's `nextCursor`.", { type: "string" }),
        query("limit", "Page size.", { type: "integer", minimum: 1, maximum: 100, default: 25 }),
        query("labels", "Comma-separated labels; a note must carry all.", { type: "string" }),
        query("source", "A source-key prefix.", { type: "string" }),
        query("order", "`oldest` (store order) or `newest` first.", {
          type: "string",
          enum: ["oldest", "newest"],
          default: "oldest",
        }),
        ...HISTORY_FILTER_DOCS.map(([name, description]) =>
          query(
            name,
            description,
            name === "includeSuperseded"
              ? { type: "string", enum: ["true", "false"], default: "false" }
              : { type: "string" },
          )
        ),
      ],
      responses: { "200": ok("A page.", "NotePage"), ...PROJECT_ERRORS },
    },
  },
  [`${PROJECT}/notes/{noteId}`]: {
    parameters: [p("workspaceId"), p("projectId"), p("noteId")],
    get: {
      operationId: "getNote",
      summary: "Get one note",
      responses: {
        "200": ok("The note.", "NoteAnswer"),
        "404": { $ref: "#/components/responses/NotFound" },
        ...PROJECT_ERRORS,
      },
    },
    patch: {
      operationId: "updateNote",
      summary: "Change a note's text, title, labels, links or validity",
      description:
        "A patch that changes nothing keeps the revision (and `updated`, whatever the patch's `updated` says). With `If-Match`, 409 when the note has moved on.",
      parameters: [p("IdempotencyKey"), p("IfMatch")],
      requestBody: body("UpdateNoteRequest"),
      responses: {
        "200": ok("The note as it is now.", "NoteAnswer", true),
        "404": { $ref: "#/components/responses/WriteNotFound" },
        ...WRITE_ERRORS,
      },
    },
    delete: {
      operationId: "deleteNote",
      summary: "Delete one note",
      description:
        "The change feed keeps a tombstone. With `If-Match`, 409 when the note has moved on.",
      parameters: [p("IdempotencyKey"), p("IfMatch")],
      responses: {
        "200": ok("The note as it was.", "NoteAnswer", true),
        "404": { $ref: "#/components/responses/WriteNotFound" },
        ...BODYLESS_WRITE_ERRORS,
      },
    },
  },
  [`${PROJECT}/notes:batch`]: projectWrite({
    operationId: "upsertNotes",
    summary: "Upsert up to 10000 notes, all or nothing",
    description:
      "One transaction: one bad draft is a 400 with `details.index` and nothing is stored. A draft whose identity matches a stored note answers with that note (its id is the canonical id). The body may be up to 16 MiB.",
    request: "BatchRequest",
    responses: {
      "200": ok("What happened to each draft.", "BatchAnswer", true),
    },
  }),
  [`${PROJECT}/notes:batchDelete`]: projectWrite({
    operationId: "deleteNotes",
    summary: "Delete notes by id, or by source prefix, in one transaction",
    description:
      "`{ids}` (1 to 10000) or `{sourcePrefix}`: one transaction, a tombstone per deleted note in the change feed (replicas see them). A prefix that matches more than 10000 notes is a 400 (`details.limit`, `details.matched`) and deletes nothing. Idempotent with `Idempotency-Key`, like `notes:batch`. The body may be up to 16 MiB.",
    request: "BatchDeleteRequest",
    responses: {
      "200": ok("What was deleted.", "BatchDeleteAnswer", true),
    },
  }),
  [`${PROJECT}/notes:correct`]: projectWrite({
    operationId: "correctNote",
    summary: "The fact of a note changed: a new note supersedes it",
    description:
      "Writes the new note (the old note's labels unless given) with `supersedes: [id]`, and sets the old note's `validUntil` to the new `validFrom` (else now), in one transaction. The old note stays as history. When another writer changes the old note meanwhile, the correction is made again over the new state: two corrections of one note at once both land. The new text, title and labels go through the secrets guard (`MEMO_CLOUD_SECRETS`) as a new note's do: `redacted` in the answer, or 400 under `refuse`.",
    request: "CorrectRequest",
    responses: {
      "200": ok("The new note and the id it superseded.", "CorrectAnswer", true),
      "404": { $ref: "#/components/responses/WriteNotFound" },
    },
  }),
  [`${PROJECT}/notes:supersede`]: projectWrite({
    operationId: "supersedeNotes",
    summary: "Mark notes as superseded by another (merging duplicates)",
    description:
      "Note `by` gains `ids` in its `supersedes`, in one transaction. 404 for an unknown `by`; 400 for an unknown id in `ids`, `by` itself or a cycle.",
    request: "SupersedeRequest",
    responses: {
      "200": ok(
        "The superseding note and the ids this call added (empty when every link was there).",
        "SupersedeAnswer",
        true,
      ),
      "404": { $ref: "#/components/responses/WriteNotFound" },
    },
  }),
  [`${PROJECT}/tidy`]: {
    parameters: [p("workspaceId"), p("projectId")],
    get: {
      operationId: "tidyNotes",
      summary: "Proposals to tidy the notes up, writing nothing",
      description:
        "Clusters of near-duplicates (keep the newest, supersede the others) and notes whose `validUntil` has passed, computed as a local `memo tidy` does. Superseded notes take no part.",
      responses: { "200": ok("The plan.", "TidyPlan"), ...PROJECT_ERRORS },
    },
  },
  [`${PROJECT}/tidy:apply`]: projectWrite({
    operationId: "applyTidy",
    summary: "Apply the merges of a tidy plan, all or nothing",
    description:
      "One transaction: each merge's keeper gains the ids it supersedes. Refused (400), writing nothing, when a note the plan names is gone, or another writer changes a keeper meanwhile. Expired notes are left alone.",
    request: "TidyPlan",
    responses: { "200": ok("What was applied.", "TidyApplyAnswer", true) },
  }),
  [`${PROJECT}/recall`]: {
    parameters: [p("workspaceId"), p("projectId")],
    post: {
      operationId: "recall",
      summary: "Find the notes that match a query (memo's lexical ranking)",
      requestBody: body("RecallRequest"),
      responses: { "200": ok("The hits, best first.", "RecallAnswer"), ...BODY_ERRORS },
    },
  },
  [`${PROJECT}/changes`]: {
    parameters: [p("workspaceId"), p("projectId")],
    get: {
      operationId: "listChanges",
      summary: "The change feed: every write and delete, in order, resumable",
      parameters: [
        query(
          "since",
          "A `next` token of an earlier answer of this project; absent: from the start. A token ahead of the project's latest change (another server's or project's) is a 400 with `details.parameter` `since`.",
          {
            type: "string",
            pattern: "^[0-9]+$",
          },
        ),
        query("limit", "Most changes.", {
          type: "integer",
          minimum: 1,
          maximum: 1000,
          default: 100,
        }),
      ],
      responses: { "200": ok("Changes after `since`.", "ChangesAnswer"), ...PROJECT_ERRORS },
    },
  },
  [`${PROJECT}/stats`]: {
    parameters: [p("workspaceId"), p("projectId")],
    get: {
      operationId: "getStats",
      summary: "Count notes, labels and sources",
      responses: { "200": ok("The counts.", "Stats"), ...PROJECT_ERRORS },
    },
  },
};
