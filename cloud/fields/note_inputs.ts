/**
 * The note inputs of the write routes and of `POST recall`, checked strictly:
 * unknown body fields are refused by name, and a draft the store would refuse is refused
 * here, a 400 `invalid_request` the same with every store.
 *
 * @module
 */

import { MemoryValidationError, type NoteDraft, type NotePatch, prepareDraft } from "@memo/memory";
import {
  BATCH_DELETE_LIMIT,
  type CloudDeleteSelector,
  type CloudDraft,
  type CloudHistoryFilter,
} from "../store.ts";
import {
  field,
  invalid,
  isBoolean,
  isDateOrTimeOrNull,
  isIntIn,
  isNoteId,
  isNoteIdArray,
  isString,
  isStringArray,
  isText,
  isTextArray,
  isTime,
  rejectUnknownFields,
  withoutUndefined,
} from "./_checks.ts";
import { HISTORY_FIELDS, HISTORY_FILTERS, historyFields, historyFilterFields } from "./history.ts";

/** Most drafts in one `notes:batch`. */
export const MAX_BATCH_NOTES = 10000;
/** Most hits of `POST recall`. */
export const MAX_RECALL_LIMIT = 100;
/** Hits of `POST recall` without `limit`. */
export const DEFAULT_RECALL_LIMIT = 10;

/** The refusal of a recall that names the vector or hybrid engine. */
export const VECTOR_ENGINE_MESSAGE =
  "Cannot recall with the vector engine: the cloud runtime is lexical";

/**
 * The draft of `POST notes`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createNoteInput } from "./note_inputs.ts";
 *
 * assert.deepEqual(createNoteInput({ text: "Deploys run on Mondays", labels: ["ops"] }), {
 *   text: "Deploys run on Mondays",
 *   labels: ["ops"],
 * });
 * assert.throws(() => createNoteInput({ text: "x", color: "red" }), /unknown field "color"/);
 * ```
 */
export function createNoteInput(body: Record<string, unknown>): NoteDraft {
  const action = "create the note";
  rejectUnknownFields(body, ["text", "title", "labels", "source", ...HISTORY_FIELDS], action);
  const draft = withoutUndefined({
    text: field<string>(body, "text", isText, action, { required: true })!,
    title: field<string>(body, "title", isText, action),
    labels: field<string[]>(body, "labels", isTextArray, action),
    source: field<string>(body, "source", isText, action),
    ...historyFields(body, action),
  });
  checkDraft(draft, action);
  return draft;
}

/** Refuses a draft the store would refuse (400, the same with every store). */
function checkDraft(draft: NoteDraft, at: string, details?: Record<string, unknown>): void {
  try {
    prepareDraft(draft);
  } catch (e) {
    if (e instanceof MemoryValidationError) {
      throw invalid(`Cannot ${at}: ${e.message.replace(/^Cannot [^:]*: /, "")}`, details);
    }
    throw e;
  }
}

/**
 * The patch of `PATCH notes/{id}`: at least one of `text`, `title` and `labels`, and optionally
 * `updated`, the time to record (checked as a batch draft's `updated` is).
 */
export function patchInput(body: Record<string, unknown>): NotePatch {
  const action = "update the note";
  rejectUnknownFields(body, ["text", "title", "labels", "updated", ...HISTORY_FIELDS], action);
  const patch: NotePatch = withoutUndefined({
    text: field<string>(body, "text", isText, action),
    title: field<string>(body, "title", isText, action),
    labels: field<string[]>(body, "labels", isTextArray, action),
    updated: field<string>(body, "updated", isTime, action),
    supersedes: field<string[]>(body, "supersedes", isNoteIdArray, action),
    validFrom: field<string | null>(body, "validFrom", isDateOrTimeOrNull, action),
    validUntil: field<string | null>(body, "validUntil", isDateOrTimeOrNull, action),
  });
  if (
    patch.text === undefined && patch.title === undefined && patch.labels === undefined &&
    patch.supersedes === undefined && patch.validFrom === undefined &&
    patch.validUntil === undefined
  ) {
    throw invalid(
      `Cannot ${action}: give at least one of text, title, labels, supersedes, validFrom and validUntil`,
    );
  }
  // Refused here, before the Idempotency-Key is claimed, rather than by the store.
  if (patch.text !== undefined && patch.text.trim() === "") {
    throw invalid(`Cannot ${action}: text is empty`, { field: "text" });
  }
  return patch;
}

/**
 * The drafts of `POST notes:batch`, each checked as the store will (400 with `details.index`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { batchInput } from "./note_inputs.ts";
 *
 * assert.deepEqual(batchInput({ notes: [{ id: "n1", text: "Lunch at noon" }] }), [
 *   { id: "n1", text: "Lunch at noon" },
 * ]);
 * assert.throws(() => batchInput({ notes: [{ text: 1 }] }), /note 0: field "text" must be a string/);
 * ```
 */
export function batchInput(body: Record<string, unknown>): CloudDraft[] {
  const action = "upsert the notes";
  rejectUnknownFields(body, ["notes"], action);
  const notes = body.notes;
  if (!Array.isArray(notes) || notes.length < 1 || notes.length > MAX_BATCH_NOTES) {
    throw invalid(
      `Cannot ${action}: field "notes" must be an array of 1 to ${MAX_BATCH_NOTES} notes`,
      { field: "notes" },
    );
  }
  const allowed = [
    "id",
    "text",
    "title",
    "labels",
    "source",
    "created",
    "updated",
    ...HISTORY_FIELDS,
  ];
  return notes.map((raw, index) => {
    const at = `${action}: note ${index}`;
    const details = { index };
    if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
      throw invalid(`Cannot ${at} is not a JSON object`, details);
    }
    const item = raw as Record<string, unknown>;
    rejectUnknownFields(item, allowed, at, details);
    const draft: CloudDraft = withoutUndefined({
      id: field<string>(item, "id", isNoteId, at, { details }),
      text: field<string>(item, "text", isText, at, { required: true, details })!,
      title: field<string>(item, "title", isText, at, { details }),
      labels: field<string[]>(item, "labels", isTextArray, at, { details }),
      source: field<string>(item, "source", isText, at, { details }),
      created: field<string>(item, "created", isTime, at, { details }),
      updated: field<string>(item, "updated", isTime, at, { details }),
      ...historyFields(item, at, details),
    });
    checkDraft(draft, at, details);
    return draft;
  });
}

/**
 * The input of `POST notes:batchDelete`: `{ids}` (1 to 10,000 strings; an id
 * no note can have is answered as not found) or `{sourcePrefix}` (a non-empty
 * string of at most 512 characters), one of the two.
 */
export function batchDeleteInput(body: Record<string, unknown>): CloudDeleteSelector {
  const action = "delete the notes";
  rejectUnknownFields(body, ["ids", "sourcePrefix"], action);
  const hasIds = body.ids !== undefined;
  if (hasIds === (body.sourcePrefix !== undefined)) {
    throw invalid(`Cannot ${action}: give either "ids" or "sourcePrefix"`, {
      field: hasIds ? "sourcePrefix" : "ids",
    });
  }
  if (hasIds) {
    const ids = body.ids;
    if (
      !Array.isArray(ids) || ids.length < 1 || ids.length > BATCH_DELETE_LIMIT ||
      !ids.every((id) => typeof id === "string")
    ) {
      throw invalid(
        `Cannot ${action}: field "ids" must be an array of 1 to ${BATCH_DELETE_LIMIT} strings`,
        { field: "ids" },
      );
    }
    return { ids: ids as string[] };
  }
  const prefix = body.sourcePrefix;
  if (typeof prefix !== "string" || prefix.trim() === "" || prefix.length > 512) {
    throw invalid(
      `Cannot ${action}: field "sourcePrefix" must be a string of 1 to 512 characters, not only white space`,
      { field: "sourcePrefix" },
    );
  }
  return { sourcePrefix: prefix };
}

/** What `POST recall` asks. */
export interface RecallInput extends CloudHistoryFilter {
  query: string;
  limit: number;
  labels?: string[];
  source?: string;
  explain: boolean;
}

/**
 * The input of `POST recall`. `vector` and `hybrid` engines are refused.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { recallInput } from "./note_inputs.ts";
 *
 * assert.deepEqual(recallInput({ query: "deploy" }), { query: "deploy", limit: 10, explain: false });
 * assert.throws(() => recallInput({ query: "deploy", engine: "vector" }), /lexical/);
 * ```
 */
export function recallInput(body: Record<string, unknown>): RecallInput {
  const action = "recall";
  rejectUnknownFields(
    body,
    ["query", "limit", "labels", "source", "engine", "explain", ...HISTORY_FILTERS],
    action,
  );
  const query = field<string>(body, "query", isString, action, { required: true })!;
  const engine = field<string>(
    body,
    "engine",
    (v) =>
      typeof v === "string" && ["auto", "lexical", "vector", "hybrid"].includes(v)
        ? undefined
        : "must be auto, lexical, vector or hybrid",
    action,
  );
  if (engine === "vector" || engine === "hybrid") {
    throw invalid(VECTOR_ENGINE_MESSAGE, { field: "engine" });
  }
  const input = withoutUndefined({
    query,
    limit: field<number>(body, "limit", isIntIn(1, MAX_RECALL_LIMIT), action) ??
      DEFAULT_RECALL_LIMIT,
    labels: field<string[]>(body, "labels", isStringArray, action),
    source: field<string>(body, "source", isString, action),
    explain: field<boolean>(body, "explain", isBoolean, action) ?? false,
    ...historyFilterFields(body, action),
  });
  // memo's own refusal (checked last, as the store did), naming the field.
  if (query.trim() === "") throw invalid(`Cannot ${action}: query is empty`, { field: "query" });
  return input;
}
