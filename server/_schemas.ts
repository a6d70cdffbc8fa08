/**
 * The zod schemas of the MCP surface: tool arguments and results, prompt
 * arguments. The JSON Schemas clients see (`inputSchema`, `outputSchema`) are
 * generated from these once per server (see `_catalog.ts`). This module is
 * loaded lazily, at the first request that needs it, to keep start-up lean.
 *
 * @module
 */

import { z } from "zod";

const NON_BLANK = /\S/;

/** Page-size limits the schemas depend on. */
export interface SchemaLimits {
  /** Default page size of `list_notes`. */
  defaultPageSize: number;
  /** Largest page size of `list_notes` and most hits of `recall`. */
  maxPageSize: number;
}

const text = (what: string) =>
  z.string().min(1).max(200_000).regex(NON_BLANK, { message: `${what} is empty` });
const labels = () =>
  z.array(z.string().min(1).max(200)).max(50).describe(
    "Labels; a note must carry every one of them.",
  );
const noteId = () =>
  z.string().min(1).max(200).describe("Id of the note (from recall or list_notes).");
const source = () =>
  z.string().min(1).max(512).regex(/^\S+$/, { message: "source must not contain spaces" });

/** A stored note, as tools return it. */
export const NoteSchema = z.looseObject({
  id: z.string().describe("Stable id."),
  title: z.string().describe("One-line title."),
  body: z.string().describe("Markdown text."),
  labels: z.array(z.string()),
  source: z.string().optional().describe("Source key, e.g. github:owner/repo/discussions/42."),
  hash: z.string().describe("Content hash."),
  created: z.string().describe("ISO 8601 creation time."),
  updated: z.string().describe("ISO 8601 time of the last change."),
});

/** The wire form of an error (`structuredContent.error` of a failed tool call). */
export const SafeErrorSchema = z.looseObject({
  name: z.string(),
  message: z.string(),
  code: z.string(),
  status: z.number().int(),
  details: z.record(z.string(), z.unknown()).optional(),
}).describe("Present when isError is true: what went wrong.");

const Hit = z.looseObject({
  note: NoteSchema,
  score: z.number().describe("Relevance; higher is better."),
  engine: z.enum(["lexical", "vector", "hybrid"]),
  matched: z.array(z.string()).describe("Query terms found in the note."),
  explain: z.array(z.looseObject({
    term: z.string().describe("Query term."),
    field: z.string().describe("Field it matched in."),
    score: z.number().describe("Its contribution to the score."),
    indexTerm: z.string().optional().describe("The indexed form it matched."),
  })).optional().describe("Present when explain was asked for."),
});

const ConnectorSummary = z.looseObject({
  id: z.string(),
  type: z.string(),
  fetched: z.number().int(),
  written: z.number().int(),
  updated: z.number().int(),
  unchanged: z.number().int(),
});

const ConnectorFailure = z.looseObject({
  connector: z.string(),
  type: z.string(),
  error: z.looseObject({ name: z.string(), message: z.string() }),
});

/**
 * A tool's output object: the success fields (all optional in zod, listed as
 * one `anyOf` branch of required keys in JSON Schema) plus `error`.
 */
function output(shape: Record<string, z.ZodType>, required: string[]) {
  const optional: Record<string, z.ZodType> = {};
  for (const [k, v] of Object.entries(shape)) {
    optional[k] = required.includes(k) ? v.optional() : v;
  }
  return z.looseObject({ ...optional, error: SafeErrorSchema.optional() })
    .meta({ anyOf: [{ required }, { required: ["error"] }] });
}

/** Builds the tool schemas for the given limits. */
export function toolSchemas(limits: SchemaLimits) {
  const limit = (what: string, def: number) =>
    z.number().int().min(1).max(limits.maxPageSize).describe(
      `${what} (1 to ${limits.maxPageSize}; default ${def}).`,
    );
  return {
    remember: {
      input: z.strictObject({
        text: text("text").describe("The note's markdown text. The first line becomes the title."),
        title: z.string().max(500).optional().describe(
          "Title; derived from the text when missing.",
        ),
        labels: labels().optional(),
        source: source().optional().describe(
          "Source key; a note with the same key is updated in place instead of duplicated.",
        ),
      }),
      output: output({
        note: NoteSchema,
        status: z.enum(["written", "updated", "unchanged"]).describe(
          "written: new; updated: same source, new content; unchanged: already stored.",
        ),
      }, ["note", "status"]),
    },
    recall: {
      input: z.strictObject({
        query: text("query").describe("What to look for, in plain words."),
        limit: limit("Most hits", 10).optional(),
        engine: z.enum(["auto", "lexical", "vector", "hybrid"]).optional().describe(
          "Ranking engine; auto picks the best one that is ready.",
        ),
        labels: labels().optional(),
        source: z.string().max(512).optional().describe(
          "Only notes whose source key starts with this prefix.",
        ),
        explain: z.boolean().optional().describe("Report each term's contribution to the score."),
      }),
      output: output({ hits: z.array(Hit).describe("Best first.") }, ["hits"]),
    },
    get_note: {
      input: z.strictObject({ id: noteId() }),
      output: output({ note: NoteSchema }, ["note"]),
    },
    list_notes: {
      input: z.strictObject({
        cursor: z.string().max(1024).optional().describe("nextCursor of the previous page."),
        limit: limit("Page size", limits.defaultPageSize).optional(),
        labels: labels().optional(),
        source: z.string().max(512).optional().describe(
          "Only notes whose source key starts with this prefix.",
        ),
      }),
      output: output({
        notes: z.array(NoteSchema),
        nextCursor: z.string().optional().describe("Cursor of the next page; absent on the last."),
        total: z.number().int().describe("Notes matching the filter."),
      }, ["notes", "total"]),
    },
    update_note: {
      input: z.strictObject({
        id: noteId(),
        text: text("text").optional().describe("New markdown text."),
        title: z.string().max(500).optional().describe("New title."),
        labels: labels().optional().describe("New labels (replace the old ones)."),
      }),
      output: output({ note: NoteSchema }, ["note"]),
    },
    forget: {
      input: z.strictObject({ id: noteId() }),
      output: output({ forgotten: NoteSchema.describe("The deleted note.") }, ["forgotten"]),
    },
    sync_connectors: {
      input: z.strictObject({
        connectors: z.array(z.string().min(1).max(200)).max(50).optional().describe(
          "Ids of the connectors to run; all configured ones when missing.",
        ),
      }),
      output: output({
        connectors: z.array(ConnectorSummary),
        written: z.number().int(),
        updated: z.number().int(),
        unchanged: z.number().int(),
        errors: z.array(ConnectorFailure),
      }, ["connectors", "written", "updated", "unchanged", "errors"]),
    },
    memory_stats: {
      input: z.strictObject({}),
      output: output({
        notes: z.number().int(),
        labels: z.record(z.string(), z.number().int()).describe("Notes per label."),
        sources: z.record(z.string(), z.number().int()).describe("Notes per source kind."),
        lastUpdated: z.string().optional(),
        engine: z.looseObject({ default: z.string(), auto: z.string() }),
        issues: z.array(
          z.looseObject({
            kind: z.string(),
            message: z.string(),
            line: z.number().int().optional(),
          }),
        ).optional().describe(
          "Problems found in notes.md: damaged sections kept as written, duplicate ids, a torn tail cut, a stale lock recovered.",
        ),
      }, ["notes", "labels", "sources", "engine"]),
    },
  };
}

/** The prompt argument schemas (MCP prompt arguments are strings). */
export const promptSchemas = {
  recall_context: z.strictObject({
    topic: z.string().min(1).max(2000).regex(NON_BLANK, { message: "topic is empty" }).describe(
      "What the conversation is about.",
    ),
  }),
  capture_session: z.strictObject({
    summary: z.string().max(20_000).optional().describe("What happened in this session."),
  }),
  review_memory: z.strictObject({
    labels: z.string().max(2000).optional().describe("Comma-separated labels to review."),
  }),
};

/** zod's `toJSONSchema`, re-exported so the catalog needs one import. */
export const toJSONSchema: typeof z.toJSONSchema = z.toJSONSchema;

/** Turns zod issues into a one-line reason and safe details (paths and messages, no values). */
export function describeIssues(error: z.ZodError): { reason: string; issues: unknown[] } {
  const issues = error.issues.slice(0, 20).map((i) => ({
    path: i.path.map(String).join("."),
    code: i.code,
    message: i.message,
  }));
  const reason = issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join("; ");
  return { reason, issues };
}
