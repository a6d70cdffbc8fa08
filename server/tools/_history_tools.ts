/**
 * The tools of notes that stay true: `correct` (the fact changed), `supersede` (these say the
 * same thing) and `tidy` (read-only proposals), and the schemas of `similar` and of a tidy plan.
 * Their descriptions, with `update_note`'s, tell an agent which one to use.
 *
 * @module
 */

import { z } from "zod";
import { McpValidationError } from "../errors.ts";
import * as S from "./schemas.ts";
import { defineTool, READ, type Tool } from "./_tool_kit.ts";

/**
 * One entry of `remember`'s `similar`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { SimilarSchema } from "./_history_tools.ts";
 *
 * assert.ok(SimilarSchema.safeParse({ id: "n1", title: "Deploys", score: 0.82 }).success);
 * ```
 */
export const SimilarSchema = z.looseObject({
  id: z.string().describe("Id of the similar note."),
  title: z.string().describe("Its title."),
  score: z.number().describe("Similarity, 0 to 1 (1: the same words)."),
});

/** The refusal of a tool whose runtime lacks the method it needs. */
function cannot(action: string): McpValidationError {
  return new McpValidationError(`Cannot ${action}: this runtime cannot`);
}

/** What a write tool that neither deletes nor repeats anything is annotated with. */
const LINK = {
  readOnlyHint: false,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
};

/**
 * `correct`: the fact changed.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createMemoMcpRuntimeFromConfig } from "@memo/mcp-server";
 * import { correct } from "./_history_tools.ts";
 *
 * const rootDir = await Deno.makeTempDir();
 * const runtime = createMemoMcpRuntimeFromConfig({ rootDir });
 * const { note } = await runtime.remember({ text: "Deploys run on Fridays" });
 * const tool = correct.bind({ defaultPageSize: 25, maxPageSize: 100 });
 * const ctx = { runtime, signal: new AbortController().signal, defaultPageSize: 25 };
 * const { structured } = await tool.call({ id: note.id, text: "Deploys run on Mondays" }, ctx);
 * assert.deepEqual(structured.superseded, [note.id]);
 * await runtime.close();
 * await Deno.remove(rootDir, { recursive: true });
 * ```
 */
export const correct: Tool = defineTool({
  name: "correct",
  title: "Correct",
  description:
    "The fact of a note changed (a new value, a new decision, something that is no longer true): store the new fact as a new note that supersedes the old one, in one step. The old note stays as history (readable by id, and with includeSuperseded or asOf); its validUntil becomes the new note's validFrom, or now. Recall then answers with the new fact. To fix the wording of the same fact use update_note; when notes say the same thing use supersede. Secrets in the new text, title or labels are replaced by [redacted:<rule-id>] (or, when the project refuses them, the call fails): never store credentials.",
  write: true,
  annotations: LINK,
  input: () =>
    z.strictObject({
      id: S.noteId().describe("Id of the note whose fact changed."),
      text: S.text("text").describe("The new fact, as the new note's markdown text."),
      title: z.string().max(500).optional().describe(
        "Title of the new note; derived from the text when missing.",
      ),
      labels: S.labels().optional().describe(
        "Labels of the new note; the old note's when missing.",
      ),
      validFrom: S.isoTime("validFrom").optional().describe(
        "When the new fact starts to hold (ISO date or date-time); now when missing.",
      ),
    }),
  output: S.output({
    note: S.NoteSchema.describe("The note holding the new fact."),
    superseded: z.array(z.string()).describe("Ids of the notes it superseded (the corrected one)."),
    redacted: S.RedactedSchema.optional(),
  }, ["note", "superseded"]),
  async run(a, ctx) {
    if (!ctx.runtime.correct) throw cannot("correct notes");
    const { note, superseded, redacted } = await ctx.runtime.correct(a, { signal: ctx.signal });
    return { structured: redacted?.length ? { note, superseded, redacted } : { note, superseded } };
  },
});

/**
 * `supersede`: these say the same thing.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createMemoMcpRuntimeFromConfig } from "@memo/mcp-server";
 * import { supersede } from "./_history_tools.ts";
 *
 * const rootDir = await Deno.makeTempDir();
 * const runtime = createMemoMcpRuntimeFromConfig({ rootDir });
 * const { note: a } = await runtime.remember({ text: "Staging lives in eu-west-1" });
 * const { note: b } = await runtime.remember({ text: "The staging environment is in eu-west-1" });
 * const tool = supersede.bind({ defaultPageSize: 25, maxPageSize: 100 });
 * const ctx = { runtime, signal: new AbortController().signal, defaultPageSize: 25 };
 * const { structured } = await tool.call({ ids: [a.id], by: b.id }, ctx);
 * assert.deepEqual(structured.superseded, [a.id]);
 * await runtime.close();
 * await Deno.remove(rootDir, { recursive: true });
 * ```
 */
export const supersede: Tool = defineTool({
  name: "supersede",
  title: "Supersede",
  description:
    "These notes say the same thing as note by: mark them as superseded by it (merging duplicates, for example the similar notes remember listed, or a tidy proposal). They leave recall and lists and stay readable by id, with supersededBy. Nothing is deleted. To fix wording use update_note; when the fact changed use correct.",
  write: true,
  annotations: LINK,
  input: () =>
    z.strictObject({
      ids: S.noteIds().describe("Ids of the notes to mark as superseded."),
      by: S.noteId().describe("Id of the note that supersedes them (the one to keep)."),
    }),
  output: S.output({
    note: S.NoteSchema.describe("The note kept, with its supersedes."),
    superseded: z.array(z.string()).describe(
      "Ids newly superseded by this call (empty when every link was there).",
    ),
  }, ["note", "superseded"]),
  async run(a, ctx) {
    if (!ctx.runtime.supersede) throw cannot("supersede notes");
    const result = await ctx.runtime.supersede(a, { signal: ctx.signal });
    return { structured: { note: result.note, superseded: result.superseded } };
  },
});

const NoteRef = z.looseObject({
  id: z.string(),
  title: z.string(),
  created: z.string().describe("When memo recorded it."),
});

const Proposal = z.looseObject({
  kind: z.enum(["merge", "expired"]).describe(
    "merge: near-duplicates, keep the newest and supersede the others (apply with supersede); expired: its validUntil has passed (correct or forget it).",
  ),
  keep: NoteRef.optional().describe("merge: the note to keep."),
  supersede: z.array(NoteRef.extend({ score: z.number() })).optional().describe(
    "merge: the notes it would supersede, each with its similarity to keep.",
  ),
  note: NoteRef.extend({ validUntil: z.string() }).optional().describe("expired: the note."),
});

const Review = z.looseObject({
  notes: z.array(NoteRef).describe("The two notes, the newer first."),
  score: z.number().describe("Their similarity, 0 to 1."),
  differ: z.array(z.string()).describe(
    "The facts they differ in: number, date, version, name, negation, order, qualifier.",
  ),
});

/**
 * `tidy`: read-only proposals.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createMemoMcpRuntimeFromConfig } from "@memo/mcp-server";
 * import { tidy } from "./_history_tools.ts";
 *
 * const rootDir = await Deno.makeTempDir();
 * const runtime = createMemoMcpRuntimeFromConfig({ rootDir });
 * await runtime.remember({ text: "Canary deploys hold at 5% of traffic for 30 minutes." });
 * await runtime.remember({ text: "Heads up: canary deploys hold at 5% of traffic for 30 minutes." });
 * const tool = tidy.bind({ defaultPageSize: 25, maxPageSize: 100 });
 * const ctx = { runtime, signal: new AbortController().signal, defaultPageSize: 25 };
 * const { structured } = await tool.call({}, ctx);
 * assert.equal((structured.proposals as { kind: string }[])[0].kind, "merge");
 * await runtime.close();
 * await Deno.remove(rootDir, { recursive: true });
 * ```
 */
export const tidy: Tool = defineTool({
  name: "tidy",
  title: "Tidy proposals",
  description:
    "Propose a tidy-up of the memory, writing nothing: clusters of near-duplicates (keep the newest, supersede the others; apply one with supersede after checking it) and notes whose validUntil has passed (correct or forget them). Only notes that say the same thing with no other number, date, version, name, negation, order or qualifier are proposed for a merge; notes alike but for such a fact are listed under review (never to merge: correct or forget one of them if it no longer holds).",
  write: false,
  annotations: READ,
  input: () => z.strictObject({}),
  output: S.output({
    version: z.literal(1),
    sha256: z.string().optional().describe("SHA-256 of the notes.md the plan was made from."),
    proposals: z.array(Proposal).describe("Merges first (largest first), then expired notes."),
    review: z.array(Review).optional().describe(
      "Pairs alike but for a fact they differ in, for a person to look at; not proposals.",
    ),
  }, ["version", "proposals"]),
  async run(_a, ctx) {
    if (!ctx.runtime.tidy) throw cannot("tidy the notes");
    const plan = await ctx.runtime.tidy({ signal: ctx.signal });
    return { structured: { ...plan } };
  },
});
