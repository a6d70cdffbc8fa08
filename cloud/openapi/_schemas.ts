/**
 * Internal: the schemas of the Cloud API's OpenAPI document (`document.ts` assembles the document
 * from them, its paths and its other components), and the small builders they are written with.
 *
 * @module
 */

/** A JSON value. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
/** A JSON Schema object. */
export type Schema = { [key: string]: Json };

/** The pattern of workspace, project and note ids. */
export const ID_PATTERN = "^[0-9a-z][0-9a-z_-]{0,63}$";

/** A `$ref` to a schema of the document. */
export const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });
/** A string schema. */
export const string = (description: string, extra: Schema = {}): Schema => ({
  type: "string",
  description,
  ...extra,
});
/** An integer schema. */
export const integer = (description: string, extra: Schema = {}): Schema => ({
  type: "integer",
  description,
  ...extra,
});
/** A closed object schema. */
export const object = (
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
/** An array of strings. */
export const strings = (description: string): Schema => ({
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

/** The history fields a note is written with. */
/** What a write of one note answers (`RememberResult` adds the similar notes). */
const WRITE_RESULT: Record<string, Schema> = {
  note: ref("CloudNote"),
  status: ref("WriteStatus"),
  redacted: ref("Redacted"),
};

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

/** The history filters of `GET notes` and `POST recall` (their names and descriptions). */
export const HISTORY_FILTER_DOCS: [string, string][] = [
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

/** The schemas of the document (`components.schemas`). */
export const schemas: Record<string, Schema> = {
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
  WriteResult: object(WRITE_RESULT, ["note", "status"]),
  SimilarNote: object({
    id: string("The similar note's id.", { pattern: ID_PATTERN }),
    title: string("Its title."),
    score: { type: "number", minimum: 0, maximum: 1, description: "Similarity, 0 to 1." },
  }, ["id", "title", "score"]),
  RememberResult: object({
    ...WRITE_RESULT,
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
  TidyReview: object(
    {
      notes: {
        type: "array",
        items: ref("TidyNoteRef"),
        minItems: 2,
        maxItems: 2,
        description: "The two notes, the newer first.",
      },
      score: { type: "number", description: "Their similarity, 0 to 1." },
      differ: {
        type: "array",
        items: {
          type: "string",
          enum: ["number", "date", "version", "name", "negation", "order", "qualifier"],
        },
        description: "The facts they differ in.",
      },
    },
    ["notes", "score", "differ"],
    {
      description:
        "Two notes alike but for the facts they differ in: for a person to look at; applying a plan never merges them.",
    },
  ),
  TidyPlan: object(
    {
      version: { type: "integer", const: 1 },
      proposals: {
        type: "array",
        items: ref("TidyProposal"),
        description: "Merges first (largest first), then expired notes.",
      },
      review: {
        type: "array",
        items: ref("TidyReview"),
        description: "Pairs to review, highest score first (absent when there is none).",
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
  BatchDeleteRequest: {
    oneOf: [
      object({
        ids: {
          type: "array",
          items: { type: "string" },
          minItems: 1,
          maxItems: 10000,
          description:
            "Ids of the notes to delete (duplicates count once; an id no note has is answered in `notFound`).",
        },
      }, ["ids"]),
      object({
        sourcePrefix: string(
          "Delete every note whose source key starts with this (1 to 512 characters, not only white space). More than 10000 matches: 400, nothing deleted.",
        ),
      }, ["sourcePrefix"]),
    ],
    description: "Either `ids` or `sourcePrefix`.",
  },
  BatchDeleteAnswer: object({
    deleted: {
      type: "array",
      items: ref("CloudNote"),
      description:
        "The notes deleted, as they were, in the order deleted (ids as given; a prefix's notes in store order). Each has a tombstone in the change feed.",
    },
    notFound: strings("Ids asked for that no note has (empty for a prefix)."),
  }, ["deleted", "notFound"]),
  InstanceStats: object(
    {
      version: string("The server's package version."),
      store: { type: "string", enum: ["file", "postgres"], description: "Where notes are kept." },
      uptimeSeconds: integer("Seconds since the handler was created.", { minimum: 0 }),
      index: object({
        budgetBytes: integer("The budget (`MEMO_CLOUD_INDEX_BUDGET_MB` in bytes).", {
          minimum: 1,
        }),
        bytes: integer(
          "Bytes the projects held account for (memo's estimate of their recall indexes and tables).",
          { minimum: 0 },
        ),
        projects: integer("Projects held in memory.", { minimum: 0 }),
        evictions: integer("Projects dropped to stay within the budget, since the start.", {
          minimum: 0,
        }),
        hits: integer("Requests that found their project held.", { minimum: 0 }),
        misses: integer("Requests that had to load their project.", { minimum: 0 }),
        hitRate: {
          type: ["number", "null"],
          description: "`hits / (hits + misses)`; null before the first request.",
        },
        oversized: {
          type: "array",
          description:
            "Projects larger than the whole budget, each held alone (every other project that is not in use is dropped).",
          items: object({
            project: string("`workspace/project`."),
            bytes: integer("Its bytes.", { minimum: 0 }),
            inUse: { type: "boolean", description: "A request is using it now." },
          }, ["project", "bytes", "inUse"]),
        },
        collections: integer(
          "Full garbage collections run after evictions, since the start (evicted indexes are collected so that their memory is reused).",
          { minimum: 0 },
        ),
      }, [
        "budgetBytes",
        "bytes",
        "projects",
        "evictions",
        "hits",
        "misses",
        "hitRate",
        "oversized",
        "collections",
      ]),
      memory: object(
        {
          rssBytes: integer(
            "The process's resident set size: compare it with `index.bytes` to see what the budget does not count (the runtime, garbage not yet collected, the allocator's free pages).",
            { minimum: 0 },
          ),
          heapTotalBytes: integer("V8's heap as reserved.", { minimum: 0 }),
          heapUsedBytes: integer("V8's heap in use (live objects and garbage not yet collected).", {
            minimum: 0,
          }),
          externalBytes: integer(
            "Memory outside the heap that JavaScript objects own (the indexes' typed arrays).",
            { minimum: 0 },
          ),
        },
        ["rssBytes", "heapTotalBytes", "heapUsedBytes", "externalBytes"],
        { description: "What the process holds now, as the host reports it." },
      ),
      snapshots: object(
        {
          loaded: integer("Projects loaded from an index snapshot.", { minimum: 0 }),
          rejected: integer("Snapshots found unusable (damaged, another version) and rebuilt.", {
            minimum: 0,
          }),
          built: integer("Projects built from their notes.", { minimum: 0 }),
          written: integer("Snapshots this instance wrote.", { minimum: 0 }),
          skipped: integer("Snapshot writes left to another instance or found done.", {
            minimum: 0,
          }),
          failed: integer("Snapshot writes that failed (see the log).", { minimum: 0 }),
        },
        ["loaded", "rejected", "built", "written", "skipped", "failed"],
        {
          description: "The PostgreSQL store's index snapshots (absent with the file store).",
        },
      ),
      rateLimit: object({
        limit: integer("`MEMO_CLOUD_RATE_LIMIT`: requests per second per key; 0 is off.", {
          minimum: 0,
        }),
        shared: {
          type: "boolean",
          description: "Counted across every instance (PostgreSQL), not only this one.",
        },
      }, ["limit", "shared"]),
    },
    ["version", "store", "uptimeSeconds", "rateLimit"],
    {
      description: "The figures of the instance that answers (each instance answers for itself).",
    },
  ),
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
            "Extra facts: `field` or `parameter` (a refused input), `index` (the refused draft of a batch), `note` (the current note of a 409), `reason` (`in_progress` for a 409 of a running idempotent write), `limit` (413; with `matched`, a 400 of `notes:batchDelete` whose prefix matches too many notes), `retryAfter` (429).",
        },
      }, ["code", "message"]),
    },
    ["error"],
    { description: "Every error answer." },
  ),
};
