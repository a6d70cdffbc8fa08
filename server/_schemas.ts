/**
 * The zod schema parts the tool records share (a note, a safe error, texts,
 * labels, ids, the output-object helper) and the prompt arguments. Each
 * tool's own schemas live in its record in `_tools.ts`. This module is
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

/** A non-blank text of at most 200000 characters. */
export const text = (what: string) =>
  z.string().min(1).max(200_000).regex(NON_BLANK, { message: `${what} is empty` });
/** A label list. */
export const labels = () =>
  z.array(z.string().min(1).max(200)).max(50).describe(
    "Labels; a note must carry every one of them.",
  );
/** A note id. */
export const noteId = () =>
  z.string().min(1).max(200).describe("Id of the note (from recall or list_notes).");
/** A source key. */
export const source = () =>
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

/**
 * A tool's output object: the success fields (all optional in zod, listed as
 * one `anyOf` branch of required keys in JSON Schema) plus `error`.
 */
export function output(shape: Record<string, z.ZodType>, required: string[]) {
  const optional: Record<string, z.ZodType> = {};
  for (const [k, v] of Object.entries(shape)) {
    optional[k] = required.includes(k) ? v.optional() : v;
  }
  return z.looseObject({ ...optional, error: SafeErrorSchema.optional() })
    .meta({ anyOf: [{ required }, { required: ["error"] }] });
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
