/**
 * The eleven tools, one record each: name, title, description, annotations, zod input and output
 * schemas, and the handler that runs on the validated input. The protocol server and the SDK bridge
 * both build from these records (through `../catalog/catalog.ts`). Loaded lazily: it pulls in zod.
 *
 * @module
 */

import { z } from "zod";
import type { RecallEngine, RecallHit, RecallResult } from "../../runtimes/types.ts";
import {
  historyFilters,
  isoTime,
  labels,
  noteId,
  noteIds,
  NoteSchema,
  output,
  readScope,
  RedactedSchema,
  source,
  text,
  writeScope,
} from "./schemas.ts";
import { correct, SimilarSchema, supersede, tidy } from "./_history_tools.ts";
import { defineTool, pageLimit, READ, REWRITE, sourcePrefix, type Tool } from "./_tool_kit.ts";

export type { BoundTool, Tool, ToolAnnotations, ToolOutcome, ToolRunContext } from "./_tool_kit.ts";
import { engineArgument, engineSentences } from "./_recall_text.ts";
import { RenderedRecalls } from "./_rendered.ts";
import { quickRecallArguments } from "./_quick_args.ts";
import { syncConnectors } from "./_connector_tools.ts";
import { memoryStats } from "./_stats_tool.ts";

const Hit = z.looseObject({
  note: NoteSchema,
  score: z.number().describe("Relevance; higher is better."),
  engine: z.enum(["lexical", "vector", "hybrid"]),
  matched: z.array(z.string()).describe("Query terms found in the note."),
  origin: z.literal("cloud").optional().describe(
    "cloud when the hit came from the cloud (hybrid runtime with recall.includeCloud); absent for local hits.",
  ),
  explain: z.array(z.looseObject({
    term: z.string().describe("Query term."),
    field: z.string().describe("Field it matched in."),
    score: z.number().describe("Its contribution to the score."),
    indexTerm: z.string().optional().describe("The indexed form it matched."),
  })).optional().describe("Present when explain was asked for."),
  highlights: z.array(z.looseObject({
    field: z.enum(["title", "body"]).describe("The field the span is in."),
    start: z.number().int().describe("UTF-16 offset where the span starts."),
    end: z.number().int().describe("UTF-16 offset where it ends (exclusive)."),
  })).optional().describe(
    "Present when explain was asked for: the spans of the note's title and body whose indexed form (stem, or completion of the last query word) the hit matched, sorted by field then start; empty for a vector-only hit.",
  ),
  parts: z.looseObject({
    lexical: z.looseObject({
      rank: z.number().int().describe("1-based rank in the lexical list."),
      score: z.number().describe("Lexical (BM25) score."),
    }).optional(),
    vector: z.looseObject({
      rank: z.number().int().describe("1-based rank in the vector list."),
      similarity: z.number().describe("Cosine similarity, -1 to 1."),
    }).optional(),
    fused: z.number().optional().describe("The hybrid (reciprocal-rank fusion) score."),
  }).optional().describe(
    "Present when explain was asked for: the hit's lexical and vector parts and the fused score.",
  ),
});

const Coverage = z.looseObject({
  embedded: z.number().int().describe("Notes embedded for the current model."),
  total: z.number().int().describe("Notes in all."),
}).describe(
  "How many notes the vector side could rank; vector and hybrid rank only the embedded notes.",
);

const remember = defineTool({
  name: "remember",
  title: "Remember",
  description: (recall) =>
    "Store a note in memory so that it can be recalled in later sessions. " +
    scopeSentence(recall) +
    " Use it for durable facts, decisions, conventions and how-tos, not for chit-chat. The same text (whatever its case, spacing or punctuation) or the same source key is never stored twice: the answer is unchanged with the stored note; a known source key with new text updates that note. A new note's answer lists similar stored notes (at most 3): a near-duplicate, or a note on the same subject that may now be wrong. Then use correct (the fact changed), supersede (they say the same thing) or forget. When this note replaces others, name them in supersedes; validFrom and validUntil say when the fact holds. Secrets (tokens, keys, passwords) are replaced by [redacted:<rule-id>] (or, when the project refuses them, the call fails): never store credentials.",
  write: true,
  annotations: {
    readOnlyHint: false,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false,
  },
  input: (limits) =>
    z.strictObject({
      text: text("text").describe("The note's markdown text. The first line becomes the title."),
      title: z.string().max(500).optional().describe("Title; derived from the text when missing."),
      labels: labels().optional(),
      source: source().optional().describe(
        "Source key; a note with the same key is updated in place instead of duplicated.",
      ),
      supersedes: noteIds().optional().describe(
        "Ids of the stored notes this note replaces; they leave recall and lists (they stay readable by id).",
      ),
      validFrom: isoTime("validFrom").optional().describe(
        "When the fact starts to hold (ISO date, meaning 00:00 UTC, or date-time).",
      ),
      validUntil: isoTime("validUntil").optional().describe(
        "When the fact stops holding (exclusive).",
      ),
      scope: writeScope(limits.recall).optional(),
    }),
  output: output({
    note: NoteSchema,
    status: z.enum(["written", "updated", "unchanged"]).describe(
      "written: new; updated: same source (or same text) with new content, links or validity; unchanged: already stored.",
    ),
    similar: z.array(SimilarSchema).describe(
      "Stored notes like a written note, most similar first (at most 3; empty when none).",
    ),
    redacted: RedactedSchema.optional(),
  }, ["note", "status", "similar"]),
  async run(a, ctx) {
    const result = await ctx.runtime.remember(a, { signal: ctx.signal });
    const structured: Record<string, unknown> = {
      note: result.note,
      status: result.status,
      similar: result.similar ?? [],
    };
    if (result.redacted?.length) structured.redacted = result.redacted;
    return { structured };
  },
});

/** The recall results rendered so far, kept with their hits (the runtime's cache reuses them). */
const RENDERED_RECALLS = new RenderedRecalls();

const recall = defineTool({
  name: "recall",
  title: "Recall",
  description: (recall) =>
    "Search the project's memory and return the notes that best match a query, best first, each with the terms it matched. Call it before answering questions about this project, its decisions or its conventions. " +
    engineSentences(recall) +
    " The result says which engine ran and how many notes are embedded (coverage); it never waits for notes to be embedded. Filter with labels or a source prefix; set explain to see why each note ranked (its term contributions, and its lexical rank and score, vector rank and similarity, and fused score). Superseded notes (corrected or merged) are left out unless includeSuperseded; asOf answers with what held at a past time; since and until filter on when notes were recorded.",
  write: false,
  annotations: READ,
  input: (limits) =>
    z.strictObject({
      query: text("query").describe("What to look for, in plain words."),
      limit: pageLimit(limits, "Most hits", 10).optional(),
      engine: z.enum(["auto", "lexical", "vector", "hybrid"]).optional().describe(
        engineArgument(limits.recall),
      ),
      labels: labels().optional(),
      source: sourcePrefix(),
      scope: readScope(limits.recall).optional(),
      explain: z.boolean().optional().describe(
        "Report each term's contribution to the score, and each hit's lexical, vector and fused parts.",
      ),
      ...historyFilters(),
    }),
  output: output({
    hits: z.array(Hit).describe("Best first."),
    engine: z.enum(["lexical", "vector", "hybrid"]).describe(
      "The engine that ran (auto resolved).",
    ),
    coverage: Coverage,
  }, ["hits", "engine", "coverage"]),
  async run(a, ctx) {
    const options = {
      limit: a.limit ?? 10,
      engine: a.engine,
      labels: a.labels,
      source: a.source,
      scope: a.scope,
      explain: a.explain,
      includeSuperseded: a.includeSuperseded,
      asOf: a.asOf,
      since: a.since,
      until: a.until,
      signal: ctx.signal,
    };
    const runtime = ctx.runtime;
    const result = runtime.recallDetailed
      ? await runtime.recallDetailed(a.query, options)
      : hitsOnly(await runtime.recall(a.query, options), a.engine);
    const { embedded, total } = result.coverage;
    if (ctx.progress && embedded < total) {
      ctx.progress(
        embedded,
        total,
        `${embedded} of ${total} notes embedded: the vector side ranked only those`,
      );
    }
    const structured = { hits: result.hits, engine: result.engine, coverage: { embedded, total } };
    return {
      structured,
      rendered: RENDERED_RECALLS.of(result.hits, result.engine, embedded, total, structured),
    };
  },
  quick: quickRecallArguments,
});

/** What the remember tool says of scopes: which to use, when more than the project is served. */
function scopeSentence(recall: Parameters<typeof engineSentences>[0]): string {
  const served = recall?.scopes?.served ?? ["project"];
  if (served.length === 1) {
    return served[0] === "project"
      ? "It goes to the project's memory (.memo/memory/notes.md). "
      : `It goes to the ${served[0]} memory. `;
  }
  const use = {
    user:
      "scope user for what is about the person and holds in every project (preferences, people, habits)",
    project: "project for what is about this project and the team should share",
    local: "local for what is private to this checkout",
  } as const;
  return `Choose its scope: ${served.map((s) => use[s]).join("; ")}. Without scope it goes to ${
    recall?.scopes?.defaultScope ?? "project"
  }. `;
}

/** The result of a runtime without `recallDetailed`: the hits' engine, no coverage known. */
function hitsOnly(hits: RecallHit[], asked: RecallEngine | undefined): RecallResult {
  const engine = hits[0]?.engine ?? (asked === undefined || asked === "auto" ? "lexical" : asked);
  return { hits, engine, coverage: { embedded: 0, total: 0 } };
}

const getNote = defineTool({
  name: "get_note",
  title: "Get note",
  description:
    "Read one note in full by its id, superseded or not, with its chain both ways: supersedes (the notes it replaces) and supersededBy (the notes that replace it).",
  write: false,
  annotations: READ,
  input: () => z.strictObject({ id: noteId() }),
  output: output({ note: NoteSchema }, ["note"]),
  async run(a, ctx) {
    return { structured: { note: await ctx.runtime.get(a.id, { signal: ctx.signal }) } };
  },
});

const listNotes = defineTool({
  name: "list_notes",
  title: "List notes",
  description:
    'List the notes in the order they were stored (or newest first with order "newest"), a page at a time. Pass nextCursor back as cursor, with the same order, for the next page. Filter with labels or a source prefix. Superseded notes are left out unless includeSuperseded; asOf lists what held at a past time; since and until filter on when notes were recorded.',
  write: false,
  annotations: READ,
  input: (limits) =>
    z.strictObject({
      cursor: z.string().max(1024).optional().describe("nextCursor of the previous page."),
      limit: pageLimit(limits, "Page size", limits.defaultPageSize).optional(),
      labels: labels().optional(),
      source: sourcePrefix(),
      scope: readScope(limits.recall).optional(),
      order: z.enum(["oldest", "newest"]).optional().describe(
        'Order of the notes: "oldest" (store order, the default) or "newest" first.',
      ),
      ...historyFilters(),
    }),
  output: output({
    notes: z.array(NoteSchema),
    nextCursor: z.string().optional().describe("Cursor of the next page; absent on the last."),
    total: z.number().int().describe("Notes matching the filter."),
  }, ["notes", "total"]),
  async run(a, ctx) {
    const page = await ctx.runtime.list({
      cursor: a.cursor,
      limit: a.limit ?? ctx.defaultPageSize,
      labels: a.labels,
      source: a.source,
      scope: a.scope,
      order: a.order,
      includeSuperseded: a.includeSuperseded,
      asOf: a.asOf,
      since: a.since,
      until: a.until,
      signal: ctx.signal,
    });
    const structured: Record<string, unknown> = { notes: page.notes, total: page.total };
    if (page.nextCursor !== undefined) structured.nextCursor = page.nextCursor;
    return { structured };
  },
});

const updateNote = defineTool({
  name: "update_note",
  title: "Update note",
  description:
    "Fix the wording of a note that states the same fact: its text, title or labels (labels replace the old ones), or when it holds (validFrom, validUntil; null removes one). When the fact itself changed (a new value, a new decision), use correct instead, so that the old fact stays as history; when notes say the same thing, use supersede.",
  write: true,
  annotations: REWRITE,
  input: (limits) =>
    z.strictObject({
      id: noteId(),
      text: text("text").optional().describe("New markdown text."),
      title: z.string().max(500).optional().describe("New title."),
      labels: labels().optional().describe("New labels (replace the old ones)."),
      validFrom: isoTime("validFrom").nullable().optional().describe(
        "When the fact starts to hold; null removes it.",
      ),
      validUntil: isoTime("validUntil").nullable().optional().describe(
        "When the fact stops holding (exclusive); null removes it.",
      ),
      supersedes: z.array(z.string().min(1).max(200)).max(100).optional().describe(
        "The whole list of notes this note replaces ([] removes every link).",
      ),
      scope: writeScope(limits.recall).optional().describe(
        "Move the note to this scope, keeping its id (user: the person's, for every project; project: the team's; local: this checkout's).",
      ),
    }),
  output: output({ note: NoteSchema, redacted: RedactedSchema.optional() }, ["note"]),
  async run({ id, ...patch }, ctx) {
    let redacted: unknown[] = [];
    const note = await ctx.runtime.update(id, patch, {
      signal: ctx.signal,
      onRedacted: (r) => redacted = r,
    });
    return { structured: redacted.length ? { note, redacted } : { note } };
  },
});

const forget = defineTool({
  name: "forget",
  title: "Forget",
  description:
    "Delete a note by id, for good. Use it for notes that are wrong, duplicated or no longer wanted.",
  write: true,
  annotations: REWRITE,
  input: () => z.strictObject({ id: noteId() }),
  output: output({ forgotten: NoteSchema.describe("The deleted note.") }, ["forgotten"]),
  async run(a, ctx) {
    return { structured: { forgotten: await ctx.runtime.forget(a.id, { signal: ctx.signal }) } };
  },
});

/**
 * The tools, in the order `tools/list` gives them.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { TOOLS } from "./records.ts";
 *
 * assert.deepEqual(TOOLS.map((t) => t.name), [
 *   "remember",
 *   "recall",
 *   "get_note",
 *   "list_notes",
 *   "update_note",
 *   "correct",
 *   "supersede",
 *   "forget",
 *   "tidy",
 *   "sync_connectors",
 *   "memory_stats",
 * ]);
 * assert.deepEqual(TOOLS.filter((t) => t.write).map((t) => t.name), [
 *   "remember",
 *   "update_note",
 *   "correct",
 *   "supersede",
 *   "forget",
 *   "sync_connectors",
 * ]);
 * ```
 */
export const TOOLS: readonly Tool[] = [
  remember,
  recall,
  getNote,
  listNotes,
  updateNote,
  correct,
  supersede,
  forget,
  tidy,
  syncConnectors,
  memoryStats,
];
