/**
 * The OpenAPI 3.1 document of the Memo Cloud API v1, as the server serves it
 * at `GET /v1/openapi.json`. `docs/cloud-api.openapi.json` holds the same
 * document (a test checks), and `docs/cloud-api.md` explains it.
 *
 * @module
 */

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Schema = { [key: string]: Json };

const ID_PATTERN = "^[0-9a-z][0-9a-z_-]{0,63}$";

const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });
const string = (description: string, extra: Schema = {}): Schema => ({
  type: "string",
  description,
  ...extra,
});
const integer = (description: string, extra: Schema = {}): Schema => ({
  type: "integer",
  description,
  ...extra,
});
const object = (
  properties: Record<string, Schema>,
  required: string[],
  extra: Schema = {},
): Schema => ({
  type: "object",
  properties,
  required,
  additionalProperties: false,
  ...extra,
});
const strings = (description: string): Schema => ({
  type: "array",
  items: { type: "string" },
  description,
});

const noteProperties = (withId: boolean): Record<string, Schema> => ({
  ...(withId
    ? {
      id: string(
        "Id this note gets when it is new (replicas keep ids across machines). Ignored when the draft's identity matches a stored note; a fresh id is given when a note of another identity holds it. Of several drafts of one identity in a batch, the first id given counts.",
        { pattern: ID_PATTERN },
      ),
    }
    : {}),
  text: string("The note's markdown text; must hold something besides white space."),
  title: string("Title; derived from the first line of the text when missing or empty."),
  labels: strings("Labels (trimmed; empty ones and duplicates dropped)."),
  source: string(
    "Source key (one word, at most 512 characters): notes with the same key are the same note.",
  ),
});

const ISO_TIME = string("ISO 8601 date-time with a time zone.", { format: "date-time" });
const DATE_OR_TIME = string(
  "ISO 8601 date (`2026-03-01`, meaning 00:00 UTC) or date-time with a time zone.",
);
const NOTE_IDS = (description: string, extra: Schema = {}): Schema => ({
  type: "array",
  items: { type: "string", pattern: ID_PATTERN },
  description,
  ...extra,
});

/** The history fields a note is written with (issue 23: notes that stay true). */
const historyProperties: Record<string, Schema> = {
  supersedes: NOTE_IDS(
    "Ids of the notes this note replaces (a correction, or merged duplicates): kept on the newer note, the one source of truth.",
  ),
  validFrom: {
    ...DATE_OR_TIME,
    description: "When the fact starts to hold (ISO date or date-time).",
  },
  validUntil: {
    ...DATE_OR_TIME,
    description: "When it stops holding (exclusive: the range is `[validFrom, validUntil)`).",
  },
};

/** The history filters of `GET notes` and `POST recall`. */
const HISTORY_FILTER_DOCS: [string, string][] = [
  [
    "includeSuperseded",
    "Also answer with superseded notes, each with `supersededBy` (default: they are left out).",
  ],
  [
    "asOf",
    "What memo had recorded by then and what held then: notes created at or before it, not superseded by a note created at or before it, and valid at it.",
  ],
  ["since", "Only notes created at or after this time."],
  ["until", "Only notes created before this time."],
];

const schemas: Record<string, Schema> = {
  CloudNote: object(
    {
      id: string("Note id.", { pattern: ID_PATTERN }),
      title: string("Title (one line)."),
      body: string("Markdown body."),
      labels: strings("Labels."),
      source: string("Source key, when the note has one."),
      hash: string("Content hash of title, body, labels and history fields."),
      created: { ...ISO_TIME, description: "When memo recorded the note." },
      updated: { ...ISO_TIME, description: "When memo recorded its latest change." },
      ...historyProperties,
      supersededBy: NOTE_IDS(
        "Ids of the notes that supersede this one, derived from their `supersedes` when the notes are read (never stored, not in the change feed); present only when it is superseded.",
      ),
      revision: integer(
        "Sequence number of the note's latest change in its project's change feed (strictly increasing per project).",
        { minimum: 0 },
      ),
    },
    ["id", "title", "body", "labels", "hash", "created", "updated", "revision"],
    {
      description: "A note: the memory package's note JSON plus its server revision.",
    },
  ),
  WriteStatus: {
    type: "string",
    enum: ["written", "updated", "unchanged"],
    description:
      "`written`: a new note; `updated`: the identity (source key, else content hash) matched a note whose content changed; `unchanged`: it matched and nothing changed.",
  },
  CreateNoteRequest: object({ ...noteProperties(false), ...historyProperties }, ["text"], {
    description:
      "`supersedes` naming an unknown note, the note itself, or making a cycle is a 400, and nothing is written.",
  }),
  Redacted: {
    type: "array",
    description:
      "What the server's secrets guard (`MEMO_CLOUD_SECRETS`, `redact` by default) replaced with `[redacted:<rule-id>]` before the write: rule ids and fields, never values (`index`: the draft's position in a batch). Absent when nothing was.",
    items: object({
      rule: string("memo's rule id, such as `github-token`."),
      field: { type: "string", enum: ["title", "text", "labels", "source"] },
      index: integer("In a batch, the draft's position.", { minimum: 0 }),
    }, ["rule", "field"]),
  },
  WriteResult: object({
    note: ref("CloudNote"),
    status: ref("WriteStatus"),
    redacted: ref("Redacted"),
  }, ["note", "status"]),
  SimilarNote: object({
    id: string("The similar note's id.", { pattern: ID_PATTERN }),
    title: string("Its title."),
    score: { type: "number", minimum: 0, maximum: 1, description: "Similarity, 0 to 1." },
  }, ["id", "title", "score"]),
  RememberResult: object({
    note: ref("CloudNote"),
    status: ref("WriteStatus"),
    redacted: ref("Redacted"),
    similar: {
      type: "array",
      items: ref("SimilarNote"),
      maxItems: 3,
      description:
        "Stored notes that resemble a written note (near-duplicates, or the same subject with another fact: what `notes:correct`, `notes:supersede` or a delete are for), most similar first, compared lexically as a local memo does; empty unless `status` is `written`.",
    },
  }, ["note", "status", "similar"]),
  CorrectRequest: object({
    id: string("The note whose fact changed.", { pattern: ID_PATTERN }),
    text: string("The new fact."),
    title: string("Title of the new note; derived from the text when missing."),
    labels: strings("Labels of the new note; the old note's when missing."),
    validFrom: {
      ...DATE_OR_TIME,
      description:
        "When the new fact starts to hold; the old note's `validUntil` becomes this (else now).",
    },
  }, ["id", "text"]),
  SupersedeRequest: object({
    ids: NOTE_IDS("The notes that say what `by` says.", { minItems: 1, maxItems: 100 }),
    by: string("The note that supersedes them.", { pattern: ID_PATTERN }),
  }, ["ids", "by"]),
  SupersedeAnswer: object({
    note: ref("CloudNote"),
    superseded: NOTE_IDS("The ids it superseded in this call."),
  }, ["note", "superseded"]),
  CorrectAnswer: object({
    note: ref("CloudNote"),
    superseded: NOTE_IDS("The id it superseded (the corrected note)."),
    redacted: ref("Redacted"),
  }, ["note", "superseded"]),
  TidyNoteRef: object({
    id: string("Note id.", { pattern: ID_PATTERN }),
    title: string("Its title."),
    created: ISO_TIME,
    score: { type: "number", description: "In a merge's `supersede`: its similarity to `keep`." },
    validUntil: { ...DATE_OR_TIME, description: "In an `expired` proposal: when it stopped." },
  }, ["id", "title", "created"]),
  TidyProposal: {
    oneOf: [
      object({
        kind: { type: "string", const: "merge" },
        keep: ref("TidyNoteRef"),
        supersede: { type: "array", items: ref("TidyNoteRef"), minItems: 1 },
      }, ["kind", "keep", "supersede"]),
      object({
        kind: { type: "string", const: "expired" },
        note: ref("TidyNoteRef"),
      }, ["kind", "note"]),
    ],
    description:
      "A cluster of near-duplicates (`merge`: `keep`, the newest, would supersede each of `supersede`), or a note whose `validUntil` has passed (`expired`: for a person to correct or delete; applying a plan leaves it alone).",
  },
  TidyPlan: object(
    {
      version: { type: "integer", const: 1 },
      proposals: {
        type: "array",
        items: ref("TidyProposal"),
        description: "Merges first (largest first), then expired notes.",
      },
    },
    ["version", "proposals"],
    {
      description:
        "A tidy plan of this project. A plan made from a `notes.md` file (with its `sha256`) is not one: refused.",
    },
  ),
  TidyApplyAnswer: object({
    merged: integer("Merge proposals applied.", { minimum: 0 }),
    superseded: NOTE_IDS("Ids now superseded by the plan's keepers."),
    notes: { type: "array", items: ref("CloudNote"), description: "The keepers, as stored now." },
  }, ["merged", "superseded", "notes"]),
  NoteAnswer: object({ note: ref("CloudNote"), redacted: ref("Redacted") }, ["note"]),
  NotePage: object({
    notes: { type: "array", items: ref("CloudNote") },
    nextCursor: string("Cursor of the next page; absent on the last page."),
    total: integer("Notes that match the filters, on every page.", { minimum: 0 }),
  }, ["notes", "total"]),
  UpdateNoteRequest: object(
    {
      text: string("New text."),
      title: string("New title."),
      labels: strings("New labels (they replace the old ones)."),
      updated: {
        ...ISO_TIME,
        description:
          "Update time to record (for example a replica's edit time); defaults to now. Not a change by itself: a patch that changes nothing keeps the note as it is. A patch that gives it is a replica's copy: its `supersedes` is taken as it is (the notes it names may not be pushed yet).",
      },
      supersedes: NOTE_IDS(
        "The notes it replaces, as a whole new list (`[]` removes every link). The ids it adds must name stored notes, and none may be the note itself or make a cycle (400), unless the patch gives `updated`.",
      ),
      validFrom: {
        type: ["string", "null"],
        description: "New start of validity (ISO date or date-time); `null` removes it.",
      },
      validUntil: {
        type: ["string", "null"],
        description: "New end of validity (exclusive); `null` removes it.",
      },
    },
    [],
    {
      minProperties: 1,
      description:
        "At least one of `text`, `title`, `labels`, `supersedes`, `validFrom` and `validUntil`; `updated` alone is a 400.",
    },
  ),
  BatchDraft: object(
    {
      ...noteProperties(true),
      created: { ...ISO_TIME, description: "Creation time to record; defaults to now." },
      updated: { ...ISO_TIME, description: "Update time to record; defaults to now." },
      ...historyProperties,
    },
    ["text"],
    {
      description:
        "A batch stores links as given (a replica may push a link before the note it names).",
    },
  ),
  BatchRequest: object({
    notes: { type: "array", items: ref("BatchDraft"), minItems: 1, maxItems: 10000 },
  }, ["notes"]),
  BatchAnswer: object({
    results: {
      type: "array",
      items: ref("WriteResult"),
      description:
        "`results[i]` answers `notes[i]`. Drafts of one identity answer with the same stored note (the last draft's content); the first carries its status, later ones are `unchanged`.",
    },
    written: integer("Notes created (one per identity).", { minimum: 0 }),
    updated: integer("Notes updated (one per identity).", { minimum: 0 }),
    unchanged: integer(
      "Drafts that changed nothing, and repeats of an identity earlier in the batch; the three counts sum to the drafts.",
      { minimum: 0 },
    ),
    redacted: ref("Redacted"),
  }, ["results", "written", "updated", "unchanged"]),
  RecallRequest: object({
    query: string("What to look for."),
    limit: integer("Most hits.", { minimum: 1, maximum: 100, default: 10 }),
    labels: strings("Only notes that carry every one of these labels."),
    source: string("Only notes whose source key starts with this prefix."),
    engine: {
      type: "string",
      enum: ["auto", "lexical", "vector", "hybrid"],
      default: "auto",
      description:
        "`auto` and `lexical` rank lexically; `vector` and `hybrid` are refused with 400: the cloud runtime is lexical.",
    },
    explain: { type: "boolean", default: false, description: "Add per-term contributions." },
    ...Object.fromEntries(
      HISTORY_FILTER_DOCS.map(([name, description]) => [
        name,
        name === "includeSuperseded"
          ? { type: "boolean", default: false, description }
          : { ...DATE_OR_TIME, description },
      ]),
    ),
  }, ["query"]),
  ScoreContribution: object({
    term: string("The query word."),
    field: string("`title`, `body`, `labels` or `proximity`."),
    score: { type: "number", description: "Its part of the score." },
    indexTerm: string("The indexed term that matched, when it differs from `term`."),
  }, ["term", "field", "score"]),
  RecallHit: object({
    note: ref("CloudNote"),
    score: { type: "number", description: "Score (higher is better)." },
    engine: { type: "string", const: "lexical" },
    matched: strings("The query terms found in the note."),
    explain: { type: "array", items: ref("ScoreContribution") },
  }, ["note", "score", "engine", "matched"]),
  RecallAnswer: object({ hits: { type: "array", items: ref("RecallHit") } }, ["hits"]),
  Change: {
    oneOf: [
      object({
        seq: integer("Position in the feed.", { minimum: 1 }),
        op: { type: "string", const: "upsert" },
        id: string("Note id.", { pattern: ID_PATTERN }),
        revision: integer("The note's revision after this change.", {
          minimum: 1,
        }),
        note: ref("CloudNote"),
      }, ["seq", "op", "id", "revision", "note"]),
      object({
        seq: integer("Position in the feed.", { minimum: 1 }),
        op: { type: "string", const: "delete" },
        id: string("Id of the deleted note.", { pattern: ID_PATTERN }),
        revision: integer("Revision of the deletion.", { minimum: 1 }),
      }, ["seq", "op", "id", "revision"]),
    ],
    description: "One change: a note written or updated (`upsert`) or deleted (a tombstone).",
  },
  ChangesAnswer: object({
    changes: { type: "array", items: ref("Change") },
    next: string(
      "Token to pass as `since` for what follows: the last `seq` returned, or the `since` given when nothing is new.",
      { pattern: "^[0-9]+$" },
    ),
    hasMore: { type: "boolean", description: "More changes follow right away." },
  }, ["changes", "next", "hasMore"]),
  Stats: object({
    notes: integer("Number of notes.", { minimum: 0 }),
    labels: {
      type: "object",
      additionalProperties: { type: "integer", minimum: 0 },
      description: "Notes per label.",
    },
    sources: {
      type: "object",
      additionalProperties: { type: "integer", minimum: 0 },
      description: "Notes per source kind (the part of the key before `:`), plus `none`.",
    },
    lastUpdated: { ...ISO_TIME, description: "Newest `updated` time, when a note exists." },
    revision: integer("The project's latest change sequence number; 0 when nothing was written.", {
      minimum: 0,
    }),
  }, ["notes", "labels", "sources", "revision"]),
  Health: object({
    status: { type: "string", const: "ok" },
    version: string("The server's package version."),
    store: { type: "string", enum: ["file", "postgres"], description: "Where notes are kept." },
  }, ["status", "version", "store"]),
  Whoami: object({
    workspaceId: string("The API key's workspace.", { pattern: ID_PATTERN }),
  }, ["workspaceId"]),
  Error: object(
    {
      error: object({
        code: {
          type: "string",
          enum: [
            "invalid_request",
            "unauthorized",
            "forbidden",
            "not_found",
            "conflict",
            "payload_too_large",
            "rate_limited",
            "internal",
          ],
        },
        message: string("What went wrong and, when it helps, what to do."),
        details: {
          type: "object",
          description:
            "Extra facts: `field` or `parameter` (a refused input), `index` (the refused draft of a batch), `note` (the current note of a 409), `reason` (`in_progress` for a 409 of a running idempotent write), `limit` (413), `retryAfter` (429).",
        },
      }, ["code", "message"]),
    },
    ["error"],
    { description: "Every error answer." },
  ),
};

const JSON_TYPE = "application/json";
const content = (schema: Schema): Json => ({ [JSON_TYPE]: { schema } });

const errorResponse = (description: string, headers?: Record<string, Json>): Json => ({
  description,
  ...(headers ? { headers } : {}),
  content: content(ref("Error")),
});

const REPLAYED: Record<string, Json> = {
  "Idempotent-Replayed": { $ref: "#/components/headers/IdempotentReplayed" },
};

const responses: Record<string, Json> = {
  InvalidRequest: errorResponse(
    "`invalid_request`: malformed JSON, an unknown or ill-typed field or query parameter, a bad id, cursor or token, a missing `Idempotency-Key`, or a key reused for another request.",
  ),
  Unauthorized: errorResponse("`unauthorized`: no API key, or not a valid one.", {
    "WWW-Authenticate": {
      description: "Always `Bearer`.",
      schema: { type: "string", const: "Bearer" },
    },
  }),
  Forbidden: errorResponse("`forbidden`: the path names a workspace that is not the key's."),
  WriteInvalidRequest: errorResponse(
    "`invalid_request`, as for any request, and a write holding a secret under `MEMO_CLOUD_SECRETS=refuse` (`details.secrets`: `[{rule, field, index?}]`, never a value; nothing is written). A 400 the store gave (a draft or patch it refused) is kept with the `Idempotency-Key`: a repeat gets it again with `Idempotent-Replayed: true`.",
    REPLAYED,
  ),
  NotFound: errorResponse("`not_found`: no such note (or no such route)."),
  WriteNotFound: errorResponse(
    "`not_found`: no such note. Kept with the `Idempotency-Key`: a repeat gets it again with `Idempotent-Replayed: true`.",
    REPLAYED,
  ),
  Conflict: errorResponse(
    "`conflict`: `If-Match` names a revision the note has moved on from (`details.note` is the current note; kept with the `Idempotency-Key`, so a repeat gets it again with `Idempotent-Replayed: true`), or a request with the same `Idempotency-Key` is still running (`details.reason` is `in_progress`).",
    REPLAYED,
  ),
  PayloadTooLarge: errorResponse(
    "`payload_too_large`: the body passes the limit (`MEMO_CLOUD_MAX_BODY_BYTES`, default 1 MiB; 16 MiB for `notes:batch`).",
  ),
  RateLimited: errorResponse(
    "`rate_limited`: more requests per second with this key than `MEMO_CLOUD_RATE_LIMIT` on this instance.",
    {
      "Retry-After": {
        description: "Seconds to wait, at least 1.",
        schema: { type: "integer", minimum: 1 },
      },
    },
  ),
  Internal: errorResponse(
    "`internal`: the server failed; the cause is in its log, never in the answer.",
  ),
};

const parameters: Record<string, Json> = {
  workspaceId: {
    name: "workspaceId",
    in: "path",
    required: true,
    description: "The workspace: it must be the API key's (else 403).",
    schema: { type: "string", pattern: ID_PATTERN },
  },
  projectId: {
    name: "projectId",
    in: "path",
    required: true,
    description: "The project. Projects exist implicitly: one never written is empty.",
    schema: { type: "string", pattern: ID_PATTERN },
  },
  noteId: {
    name: "noteId",
    in: "path",
    required: true,
    description: "The note id (an id that cannot exist answers 404).",
    schema: { type: "string" },
  },
  IdempotencyKey: {
    name: "Idempotency-Key",
    in: "header",
    required: true,
    description:
      "Makes the write safe to retry: a repeat within 24 h gets the first answer (with `Idempotent-Replayed: true`).",
    schema: { type: "string", pattern: "^[\\x21-\\x7e]{1,255}$" },
  },
  IfMatch: {
    name: "If-Match",
    in: "header",
    required: false,
    description:
      'The revision the change is based on, plain (`12`) or quoted (`"12"`); 409 when the note has moved on.',
    schema: { type: "string", pattern: '^(?:[0-9]+|"[0-9]+")$' },
  },
};

const headers: Record<string, Json> = {
  IdempotentReplayed: {
    description: "`true` when this is the kept answer of an earlier request with the same key.",
    schema: { type: "string", const: "true" },
  },
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

const ok = (description: string, schema: string, replayable = false): Json => ({
  description,
  ...(replayable
    ? { headers: { "Idempotent-Replayed": { $ref: "#/components/headers/IdempotentReplayed" } } }
    : {}),
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

const paths: Record<string, Json> = {
  "/v1/health": {
    get: {
      operationId: "getHealth",
      summary: "Whether the server is up, its version and its store",
      security: [],
      responses: { "200": ok("The server is up.", "Health") },
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
  [`${PROJECT}/notes:batch`]: {
    parameters: [p("workspaceId"), p("projectId")],
    post: {
      operationId: "upsertNotes",
      summary: "Upsert up to 10000 notes, all or nothing",
      description:
        "One transaction: one bad draft is a 400 with `details.index` and nothing is stored. A draft whose identity matches a stored note answers with that note (its id is the canonical id). The body may be up to 16 MiB.",
      parameters: [p("IdempotencyKey")],
      requestBody: body("BatchRequest"),
      responses: {
        "200": ok("What happened to each draft.", "BatchAnswer", true),
        ...WRITE_ERRORS,
      },
    },
  },
  [`${PROJECT}/notes:correct`]: {
    parameters: [p("workspaceId"), p("projectId")],
    post: {
      operationId: "correctNote",
      summary: "The fact of a note changed: a new note supersedes it",
      description:
        "Writes the new note (the old note's labels unless given) with `supersedes: [id]`, and sets the old note's `validUntil` to the new `validFrom` (else now), in one transaction. The old note stays as history. When another writer changes the old note meanwhile, the correction is made again over the new state: two corrections of one note at once both land. The new text, title and labels go through the secrets guard (`MEMO_CLOUD_SECRETS`) as a new note's do: `redacted` in the answer, or 400 under `refuse`.",
      parameters: [p("IdempotencyKey")],
      requestBody: body("CorrectRequest"),
      responses: {
        "200": ok("The new note and the id it superseded.", "CorrectAnswer", true),
        "404": { $ref: "#/components/responses/WriteNotFound" },
        ...WRITE_ERRORS,
      },
    },
  },
  [`${PROJECT}/notes:supersede`]: {
    parameters: [p("workspaceId"), p("projectId")],
    post: {
      operationId: "supersedeNotes",
      summary: "Mark notes as superseded by another (merging duplicates)",
      description:
        "Note `by` gains `ids` in its `supersedes`, in one transaction. 404 for an unknown `by`; 400 for an unknown id in `ids`, `by` itself or a cycle.",
      parameters: [p("IdempotencyKey")],
      requestBody: body("SupersedeRequest"),
      responses: {
        "200": ok(
          "The superseding note and the ids this call added (empty when every link was there).",
          "SupersedeAnswer",
          true,
        ),
        "404": { $ref: "#/components/responses/WriteNotFound" },
        ...WRITE_ERRORS,
      },
    },
  },
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
  [`${PROJECT}/tidy:apply`]: {
    parameters: [p("workspaceId"), p("projectId")],
    post: {
      operationId: "applyTidy",
      summary: "Apply the merges of a tidy plan, all or nothing",
      description:
        "One transaction: each merge's keeper gains the ids it supersedes. Refused (400), writing nothing, when a note the plan names is gone, or another writer changes a keeper meanwhile. Expired notes are left alone.",
      parameters: [p("IdempotencyKey")],
      requestBody: body("TidyPlan"),
      responses: { "200": ok("What was applied.", "TidyApplyAnswer", true), ...WRITE_ERRORS },
    },
  },
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

/**
 * The OpenAPI 3.1 document of the Memo Cloud API v1.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { CLOUD_OPENAPI_DOCUMENT } from "./openapi.ts";
 *
 * assert.equal(CLOUD_OPENAPI_DOCUMENT.openapi, "3.1.0");
 * assert.ok("/v1/workspaces/{workspaceId}/projects/{projectId}/notes:batch" in
 *   CLOUD_OPENAPI_DOCUMENT.paths);
 * ```
 */
export const CLOUD_OPENAPI_DOCUMENT: {
  openapi: string;
  info: Record<string, unknown>;
  paths: Record<string, unknown>;
  [key: string]: unknown;
} = {
  openapi: "3.1.0",
  info: {
    title: "Memo Cloud API",
    version: "1.0.0",
    description:
      "The Memo Cloud API v1: notes of memo (local-first memory for AI agents) kept by a server, per workspace and project, with revisions, idempotent writes and a change feed. HEAD is answered wherever GET is (the same status and headers, no body). See docs/cloud-api.md.",
    license: { name: "MIT", identifier: "MIT" },
  },
  jsonSchemaDialect: "https://spec.openapis.org/oas/3.1/dialect/base",
  servers: [{ url: "http://127.0.0.1:8788", description: "memo cloud serve (default)" }],
  security: [{ bearer: [] }],
  paths,
  components: {
    schemas,
    responses,
    parameters,
    headers,
    securitySchemes: {
      bearer: {
        type: "http",
        scheme: "bearer",
        description:
          "An API key of MEMO_CLOUD_API_KEYS: `Authorization: Bearer <key>`. The key decides the workspace.",
      },
    },
  },
};
