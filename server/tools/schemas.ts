/**
 * The zod schema parts the tool records share (a note, a safe error, texts,
 * labels, ids, the output-object helper) and the prompt arguments. Each
 * tool's own schemas live in its record in `records.ts`. This module is
 * loaded lazily, at the first request that needs it, to keep start-up lean.
 *
 * @module
 */

import { z } from "zod";
import type { RuntimeRecallProfile } from "../../runtimes/types.ts";

/**
 * What a non-blank text holds: a character that is not white space.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { NON_BLANK } from "./schemas.ts";
 * assert.ok(NON_BLANK.test(" a "));
 * assert.ok(!NON_BLANK.test(" \t\n"));
 * ```
 */
export const NON_BLANK = /\S/;

/**
 * The longest text {@linkcode text} takes, in UTF-16 code units.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { MAX_TEXT_LENGTH, text } from "./schemas.ts";
 * assert.ok(text("query").safeParse("x".repeat(MAX_TEXT_LENGTH)).success);
 * assert.ok(!text("query").safeParse("x".repeat(MAX_TEXT_LENGTH + 1)).success);
 * ```
 */
export const MAX_TEXT_LENGTH = 200_000;

/**
 * Page-size limits the schemas depend on.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { SchemaLimits } from "./schemas.ts";
 * import { TOOLS } from "./records.ts";
 *
 * const limits: SchemaLimits = { defaultPageSize: 10, maxPageSize: 20 };
 * const listNotes = TOOLS.find((t) => t.name === "list_notes")!.bind(limits);
 * assert.ok(listNotes.input.safeParse({ limit: 20 }).success);
 * assert.ok(!listNotes.input.safeParse({ limit: 21 }).success);
 * ```
 */
export interface SchemaLimits {
  /** Default page size of `list_notes`. */
  defaultPageSize: number;
  /** Largest page size of `list_notes` and most hits of `recall`. */
  maxPageSize: number;
  /**
   * The runtime's recall settings, which the `recall` tool's description names (what `auto`
   * does with the configured model); a general text when absent.
   */
  recall?: RuntimeRecallProfile;
}

/**
 * A non-blank text of at most 200000 characters.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { text } from "./schemas.ts";
 *
 * const query = text("query");
 * assert.ok(query.safeParse("deploy").success);
 * assert.equal(query.safeParse("   ").error?.issues[0].message, "query is empty");
 * ```
 */
export const text = (what: string) =>
  z.string().min(1).max(MAX_TEXT_LENGTH).regex(NON_BLANK, { message: `${what} is empty` });
/**
 * A label list.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { labels } from "./schemas.ts";
 *
 * assert.ok(labels().safeParse(["infra", "ci"]).success);
 * assert.ok(!labels().safeParse([""]).success);
 * ```
 */
export const labels = () =>
  z.array(z.string().min(1).max(200)).max(50).describe(
    "Labels; a note must carry every one of them.",
  );
/**
 * A note id.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { noteId } from "./schemas.ts";
 *
 * assert.ok(noteId().safeParse("01jq3v7k9x0000000000").success);
 * assert.ok(!noteId().safeParse("").success);
 * ```
 */
export const noteId = () =>
  z.string().min(1).max(200).describe("Id of the note (from recall or list_notes).");
/**
 * A source key.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { source } from "./schemas.ts";
 *
 * assert.ok(source().safeParse("github:owner/repo/discussions/42").success);
 * assert.equal(
 *   source().safeParse("my source").error?.issues[0].message,
 *   "source must not contain spaces",
 * );
 * ```
 */
export const source = () =>
  z.string().min(1).max(512).regex(/^\S+$/, { message: "source must not contain spaces" });

/**
 * A stored note, as tools return it.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { NoteSchema } from "./schemas.ts";
 *
 * const note = {
 *   id: "01jq3v7k9x0000000000",
 *   title: "Deploys",
 *   body: "Run make deploy.",
 *   labels: [],
 *   hash: "0123abcd",
 *   created: "2025-01-01T00:00:00.000Z",
 *   updated: "2025-01-01T00:00:00.000Z",
 * };
 * assert.ok(NoteSchema.safeParse(note).success);
 * assert.ok(!NoteSchema.safeParse({ ...note, labels: "infra" }).success);
 * ```
 */
export const NoteSchema = z.looseObject({
  id: z.string().describe("Stable id."),
  title: z.string().describe("One-line title."),
  body: z.string().describe("Markdown text."),
  labels: z.array(z.string()),
  source: z.string().optional().describe("Source key, e.g. github:owner/repo/discussions/42."),
  hash: z.string().describe("Content hash."),
  created: z.string().describe("ISO 8601 time memo recorded the note."),
  updated: z.string().describe("ISO 8601 time of the last change."),
  supersedes: z.array(z.string()).optional().describe(
    "Ids of the notes this note replaces (a correction, or merged duplicates).",
  ),
  supersededBy: z.array(z.string()).optional().describe(
    "Ids of the notes that replace this one: present only when it is superseded (history).",
  ),
  validFrom: z.string().optional().describe(
    "When the fact starts to hold (ISO date or date-time); absent: it always has.",
  ),
  validUntil: z.string().optional().describe(
    "When the fact stops holding (exclusive); absent: it still holds.",
  ),
  scope: z.enum(["user", "project", "local"]).optional().describe(
    "The memory that holds the note: user (the person's, every project), project (the team's) or local (this checkout's).",
  ),
});

const TIME = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2}))?$/;

/**
 * An ISO 8601 date (meaning 00:00 UTC) or date-time with a time zone.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { isoTime } from "./schemas.ts";
 *
 * assert.ok(isoTime("asOf").safeParse("2026-03-01").success);
 * assert.ok(isoTime("asOf").safeParse("2026-03-01T10:00:00Z").success);
 * assert.equal(
 *   isoTime("asOf").safeParse("last week").error?.issues[0].message,
 *   "asOf must be an ISO 8601 date (2026-03-01) or date-time (2026-03-01T10:00:00Z)",
 * );
 * ```
 */
export const isoTime = (what: string) =>
  z.string().max(40).regex(TIME, {
    message: `${what} must be an ISO 8601 date (2026-03-01) or date-time (2026-03-01T10:00:00Z)`,
  });

/**
 * The history filters of `recall` and `list_notes`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { z } from "zod";
 * import { historyFilters } from "./schemas.ts";
 *
 * const schema = z.strictObject(historyFilters());
 * assert.ok(schema.safeParse({ asOf: "2026-03-01", includeSuperseded: true }).success);
 * assert.ok(!schema.safeParse({ since: "yesterday" }).success);
 * ```
 */
export const historyFilters = () => ({
  includeSuperseded: z.boolean().optional().describe(
    "Also return superseded notes (history), each with supersededBy. Default false.",
  ),
  asOf: isoTime("asOf").optional().describe(
    "What was recorded and held at this time (ISO date or date-time): notes created by then, not superseded by a note created by then, and valid then.",
  ),
  since: isoTime("since").optional().describe("Only notes created at or after this time."),
  until: isoTime("until").optional().describe("Only notes created before this time."),
});

const PURPOSES = {
  user: "user: about the person, for every project (preferences, people, habits)",
  project: "project: about this project, shared with the team",
  local: "local: private to this checkout, never committed or replicated",
} as const;

/** The scopes a runtime serves, and why the others are not ([project] when it does not say). */
function servedScopes(recall: RuntimeRecallProfile | undefined) {
  const scopes = recall?.scopes;
  const served = (scopes?.served.length ? scopes.served : ["project"]) as [
    "user" | "project" | "local",
    ...("user" | "project" | "local")[],
  ];
  const refusal = scopes?.refusal ?? "this server holds the project's notes only";
  const one = z.enum(served, {
    error: (issue) =>
      `scope must be one of ${served.join(", ")} here; ${
        JSON.stringify(issue.input)
      } is not served: ${refusal}`,
  });
  return { served, one, refusal, defaultScope: scopes?.defaultScope ?? "project" };
}

/**
 * The `scope` argument of a write (`remember`, `update_note`): one scope the runtime serves
 * (`recall.scopes`); another answers a validation error that says why it is not served.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { writeScope } from "./schemas.ts";
 * const mine = writeScope({ engine: "auto", auto: { engine: "lexical", model: "use-lite" }, scopes: { served: ["project", "user"], defaultScope: "project" } });
 * assert.ok(mine.safeParse("user").success);
 * const hosted = writeScope(undefined);
 * assert.match(hosted.safeParse("user").error!.issues[0].message, /not served/);
 * ```
 */
export const writeScope = (recall: RuntimeRecallProfile | undefined) => {
  const { served, one, defaultScope } = servedScopes(recall);
  return one.describe(
    `Which memory the note goes to; ${defaultScope} when omitted. ` +
      served.map((s) => PURPOSES[s]).join("; ") + ".",
  );
};

/**
 * The `scope` filter of a read (`recall`, `list_notes`): one scope or several, of those served.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { readScope } from "./schemas.ts";
 * const schema = readScope({ engine: "auto", auto: { engine: "lexical", model: "use-lite" }, scopes: { served: ["project", "local", "user"], defaultScope: "project" } });
 * assert.ok(schema.safeParse(["user", "local"]).success);
 * assert.ok(schema.safeParse("project").success);
 * assert.ok(!schema.safeParse([]).success);
 * const hosted = readScope(undefined);
 * assert.match(hosted.safeParse(["project", "user"]).error!.issues[0].message, /"user" is not served/);
 * ```
 */
export const readScope = (recall: RuntimeRecallProfile | undefined) => {
  const { served, one, refusal } = servedScopes(recall);
  // A union's own message is zod's "Invalid input": the refusal says which scope is not served.
  const error = (issue: { input?: unknown }) => {
    const named = [issue.input].flat().filter((s) => typeof s === "string");
    const out = named.filter((s) => !(served as string[]).includes(s));
    if (!out.length) return undefined;
    return `scope must name ${served.join(", ")} here; ${
      out.map((s) => JSON.stringify(s)).join(", ")
    } ${out.length > 1 ? "are" : "is"} not served: ${refusal}`;
  };
  return z.union([one, z.array(one).min(1).max(3)], { error }).describe(
    `Only notes of this scope, or of these scopes; every scope (${
      served.join(", ")
    }) when omitted.`,
  );
};

/**
 * A list of note ids (as `supersedes` and `supersede` take them).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { noteIds } from "./schemas.ts";
 *
 * assert.ok(noteIds().safeParse(["01jq3v7k9x0000000000"]).success);
 * assert.ok(!noteIds().safeParse([]).success);
 * ```
 */
export const noteIds = () => z.array(z.string().min(1).max(200)).min(1).max(100);

/**
 * `redacted` of a write's answer (`remember`, `update_note`, `correct`): what the secrets guard
 * replaced, as rule ids and fields, never values.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { RedactedSchema } from "./schemas.ts";
 *
 * assert.ok(RedactedSchema.safeParse([{ rule: "github-token", field: "text" }]).success);
 * assert.ok(!RedactedSchema.safeParse([{ rule: "jwt", field: "body" }]).success);
 * ```
 */
export const RedactedSchema = z.array(z.looseObject({
  rule: z.string().describe("memo's rule id, as in [redacted:<rule-id>]."),
  field: z.enum(["title", "text", "labels", "source"]).describe("Where it was found."),
})).describe(
  "Secrets the guard replaced with [redacted:<rule-id>] before the write (never their values); absent when none.",
);

/**
 * The wire form of an error (`structuredContent.error` of a failed tool call).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { McpNotFoundError, toSafeError } from "@memo/mcp-server";
 * import { SafeErrorSchema } from "./schemas.ts";
 *
 * const safe = toSafeError(new McpNotFoundError("Cannot find note x"));
 * assert.ok(SafeErrorSchema.safeParse(safe).success);
 * ```
 */
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
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { z } from "zod";
 * import { output, toJSONSchema } from "./schemas.ts";
 *
 * const schema = output({ deleted: z.boolean() }, ["deleted"]);
 * assert.ok(schema.safeParse({ deleted: true }).success);
 * const error = { name: "E", message: "m", code: "C", status: 500 };
 * assert.ok(schema.safeParse({ error }).success);
 * assert.deepEqual(toJSONSchema(schema).anyOf, [
 *   { required: ["deleted"] },
 *   { required: ["error"] },
 * ]);
 * ```
 */
export function output(shape: Record<string, z.ZodType>, required: string[]) {
  const optional: Record<string, z.ZodType> = {};
  for (const [k, v] of Object.entries(shape)) {
    optional[k] = required.includes(k) ? v.optional() : v;
  }
  return z.looseObject({ ...optional, error: SafeErrorSchema.optional() })
    .meta({ anyOf: [{ required }, { required: ["error"] }] });
}

/**
 * The prompt argument schemas (MCP prompt arguments are strings).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { promptSchemas } from "./schemas.ts";
 *
 * assert.deepEqual(promptSchemas.recall_context.parse({ topic: "deploys" }), { topic: "deploys" });
 * assert.ok(!promptSchemas.recall_context.safeParse({ topic: "deploys", extra: "x" }).success);
 * ```
 */
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

/**
 * zod's `toJSONSchema`, re-exported so the catalog needs one import.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { noteId, toJSONSchema } from "./schemas.ts";
 *
 * const json = toJSONSchema(noteId());
 * assert.equal(json.type, "string");
 * assert.equal(json.maxLength, 200);
 * ```
 */
export const toJSONSchema: typeof z.toJSONSchema = z.toJSONSchema;

/**
 * Turns zod issues into a one-line reason and safe details (paths and messages, no values).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { describeIssues, promptSchemas } from "./schemas.ts";
 *
 * const parsed = promptSchemas.recall_context.safeParse({ topic: " " });
 * const { reason, issues } = describeIssues(parsed.error!);
 * assert.equal(reason, "topic: topic is empty");
 * assert.deepEqual(issues, [{ path: "topic", code: "invalid_format", message: "topic is empty" }]);
 * ```
 */
export function describeIssues(error: z.ZodError): { reason: string; issues: unknown[] } {
  const issues = error.issues.slice(0, 20).map((i) => ({
    path: i.path.map(String).join("."),
    code: i.code,
    message: i.message,
  }));
  const reason = issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join("; ");
  return { reason, issues };
}
