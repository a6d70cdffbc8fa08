/**
 * Internal: the inputs of each route, checked strictly. Unknown body fields
 * and unknown query parameters are refused by name; every refusal is a 400
 * `invalid_request` whose message says what was wrong.
 *
 * @module
 */

import {
  isValidTimeText,
  MemoryValidationError,
  type NoteDraft,
  type NotePatch,
  prepareDraft,
} from "@memo/memory";
import { splitList } from "../env.ts";
import { CloudApiError } from "./_errors.ts";
import {
  BATCH_DELETE_LIMIT,
  type CloudDeleteSelector,
  type CloudDraft,
  type CloudHistoryFilter,
  type CloudListOptions,
} from "./store.ts";
import { CLOUD_ID_PATTERN } from "./_auth.ts";

/** Most drafts in one `notes:batch`. */
export const MAX_BATCH_NOTES = 10000;
/** Largest page of `GET notes`. */
export const MAX_LIST_LIMIT = 100;
/** Page size of `GET notes` without `limit`. */
export const DEFAULT_LIST_LIMIT = 25;
/** Most hits of `POST recall`. */
export const MAX_RECALL_LIMIT = 100;
/** Hits of `POST recall` without `limit`. */
export const DEFAULT_RECALL_LIMIT = 10;
/** Largest page of `GET changes`. */
export const MAX_CHANGES_LIMIT = 1000;
/** Page size of `GET changes` without `limit`. */
export const DEFAULT_CHANGES_LIMIT = 100;

/** The refusal of a recall that names the vector or hybrid engine. */
export const VECTOR_ENGINE_MESSAGE =
  "Cannot recall with the vector engine: the cloud runtime is lexical";

/** A 400 `invalid_request` with `message`. */
export function invalid(message: string, details?: Record<string, unknown>): CloudApiError {
  return new CloudApiError("invalid_request", message, details ? { details } : {});
}

function quote(name: string): string {
  return JSON.stringify(name.length > 64 ? `${name.slice(0, 64)}…` : name);
}

/** Refuses the first field of `body` that is not in `allowed`. */
export function rejectUnknownFields(
  body: Record<string, unknown>,
  allowed: readonly string[],
  action: string,
  details: Record<string, unknown> = {},
): void {
  for (const name of Object.keys(body)) {
    if (!allowed.includes(name)) {
      throw invalid(`Cannot ${action}: unknown field ${quote(name)}`, { ...details, field: name });
    }
  }
}

/** A check of a field's value: the problem, or `undefined` when it is fine. */
export type Check = (value: unknown) => string | undefined;

const isString: Check = (v) => typeof v === "string" ? undefined : "must be a string";
const isStringArray: Check = (v) =>
  Array.isArray(v) && v.every((s) => typeof s === "string")
    ? undefined
    : "must be an array of strings";
/** A lone UTF-16 surrogate: no UTF-8 store (PostgreSQL) can keep it. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
/** A string a store can keep: no NUL (PostgreSQL text cannot hold it), no lone surrogate. */
function storable(v: string): boolean {
  return !v.includes("\0") && !LONE_SURROGATE.test(v);
}
const NOT_STORABLE = "must not hold a NUL character or an unpaired UTF-16 surrogate";
/** A string a store can keep. */
export const isText: Check = (v) =>
  typeof v !== "string" ? "must be a string" : storable(v) ? undefined : NOT_STORABLE;
/** Strings a store can keep. */
export const isTextArray: Check = (v) =>
  !Array.isArray(v) || !v.every((s) => typeof s === "string")
    ? "must be an array of strings"
    : v.every(storable)
    ? undefined
    : NOT_STORABLE;
const isBoolean: Check = (v) => typeof v === "boolean" ? undefined : "must be true or false";
const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;
const isTime: Check = (v) =>
  typeof v === "string" && ISO_TIME.test(v) && Number.isFinite(Date.parse(v))
    ? undefined
    : "must be an ISO 8601 date-time with a time zone (2025-01-02T03:04:05.000Z)";
/** A note id. */
export const isNoteId: Check = (v) =>
  typeof v === "string" && CLOUD_ID_PATTERN.test(v)
    ? undefined
    : "must be a note id: 1 to 64 characters of a-z, 0-9, _ and -, starting with a letter or a digit";
function isIntIn(min: number, max: number): Check {
  return (v) =>
    typeof v === "number" && Number.isInteger(v) && v >= min && v <= max
      ? undefined
      : `must be an integer from ${min} to ${max}`;
}

const isNoteIdArray: Check = (v) =>
  Array.isArray(v) && v.every((id) => isNoteId(id) === undefined)
    ? undefined
    : "must be an array of note ids";
/** An ISO 8601 date or date-time. */
export const isDateOrTime: Check = (v) =>
  typeof v === "string" && isValidTimeText(v)
    ? undefined
    : "must be an ISO 8601 date (2026-03-01) or date-time";
const isDateOrTimeOrNull: Check = (v) => v === null ? undefined : isDateOrTime(v);

/** Checks `body[name]` when present; `required` also refuses it missing. */
export function field<T>(
  body: Record<string, unknown>,
  name: string,
  check: Check,
  action: string,
  options: { required?: boolean; details?: Record<string, unknown> } = {},
): T | undefined {
  const value = body[name];
  if (value === undefined) {
    if (options.required) {
      throw invalid(`Cannot ${action}: field ${quote(name)} is missing`, {
        ...options.details,
        field: name,
      });
    }
    return undefined;
  }
  const problem = check(value);
  if (problem) {
    throw invalid(`Cannot ${action}: field ${quote(name)} ${problem}`, {
      ...options.details,
      field: name,
    });
  }
  return value as T;
}

/** `value` without its undefined fields. */
export function withoutUndefined<T extends object>(value: T): T {
  for (const key of Object.keys(value) as (keyof T)[]) {
    if (value[key] === undefined) delete value[key];
  }
  return value;
}

/** The history fields of a note (issue 23): `supersedes`, `validFrom`, `validUntil`. */
const HISTORY_FIELDS = ["supersedes", "validFrom", "validUntil"] as const;

/** A draft's history fields, checked (the store checks the range). */
function historyFields(
  body: Record<string, unknown>,
  action: string,
  details?: Record<string, unknown>,
): { supersedes?: string[]; validFrom?: string; validUntil?: string } {
  return withoutUndefined({
    supersedes: field<string[]>(body, "supersedes", isNoteIdArray, action, { details }),
    validFrom: field<string>(body, "validFrom", isDateOrTime, action, { details }),
    validUntil: field<string>(body, "validUntil", isDateOrTime, action, { details }),
  });
}

/** The draft of `POST notes`. */
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

/** The drafts of `POST notes:batch`, each checked as the store will (400 with `details.index`). */
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

/** The history filters (issue 23), as body fields or query parameters. */
const HISTORY_FILTERS = ["includeSuperseded", "asOf", "since", "until"] as const;

/** The history filters of a recall body, checked. */
function historyFilterFields(body: Record<string, unknown>, action: string): CloudHistoryFilter {
  return withoutUndefined({
    includeSuperseded: field<boolean>(body, "includeSuperseded", isBoolean, action),
    asOf: field<string>(body, "asOf", isDateOrTime, action),
    since: field<string>(body, "since", isDateOrTime, action),
    until: field<string>(body, "until", isDateOrTime, action),
  });
}

/** The history filters of a query (`includeSuperseded=true|false`, times), checked. */
function historyFilterParams(params: URLSearchParams, action: string): CloudHistoryFilter {
  const out: CloudHistoryFilter = {};
  const include = param(params, "includeSuperseded");
  if (include !== undefined) {
    if (include !== "true" && include !== "false") {
      throw invalid(`Cannot ${action}: includeSuperseded must be true or false`, {
        parameter: "includeSuperseded",
      });
    }
    out.includeSuperseded = include === "true";
  }
  for (const name of ["asOf", "since", "until"] as const) {
    const value = param(params, name);
    if (value === undefined) continue;
    if (!isValidTimeText(value)) {
      throw invalid(
        `Cannot ${action}: ${name} must be an ISO 8601 date (2026-03-01) or date-time`,
        { parameter: name },
      );
    }
    out[name] = value;
  }
  return out;
}

/** The input of `POST recall`. `vector` and `hybrid` engines are refused. */
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

/** Refuses a query parameter not in `allowed`, or given twice. */
function checkParams(params: URLSearchParams, allowed: readonly string[], action: string): void {
  const seen = new Set<string>();
  for (const name of params.keys()) {
    if (!allowed.includes(name)) {
      throw invalid(`Cannot ${action}: unknown query parameter ${quote(name)}`, {
        parameter: name,
      });
    }
    if (seen.has(name)) {
      throw invalid(`Cannot ${action}: query parameter ${quote(name)} is given twice`, {
        parameter: name,
      });
    }
    seen.add(name);
  }
}

/** A query parameter, `undefined` when absent or empty. */
function param(params: URLSearchParams, name: string): string | undefined {
  const value = params.get(name);
  return value === null || value === "" ? undefined : value;
}

function intParam(
  params: URLSearchParams,
  name: string,
  min: number,
  max: number,
  action: string,
): number | undefined {
  const value = param(params, name);
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < min || n > max) {
    throw invalid(`Cannot ${action}: ${name} must be an integer from ${min} to ${max}`, {
      parameter: name,
    });
  }
  return n;
}

/** Refuses any query parameter (routes that take none). */
export function noQuery(params: URLSearchParams, action: string): void {
  checkParams(params, [], action);
}

/** The options of `GET notes`. */
export function listQuery(params: URLSearchParams): CloudListOptions {
  const action = "list the notes";
  checkParams(params, ["cursor", "limit", "labels", "source", "order", ...HISTORY_FILTERS], action);
  const order = param(params, "order");
  if (order !== undefined && order !== "oldest" && order !== "newest") {
    throw invalid(`Cannot ${action}: order must be oldest or newest`, { parameter: "order" });
  }
  const labels = param(params, "labels");
  return withoutUndefined({
    cursor: param(params, "cursor"),
    limit: intParam(params, "limit", 1, MAX_LIST_LIMIT, action) ?? DEFAULT_LIST_LIMIT,
    labels: labels === undefined ? undefined : splitList(labels),
    source: param(params, "source"),
    order: order as "oldest" | "newest" | undefined,
    ...historyFilterParams(params, action),
  });
}

/** The options of `GET changes`. */
export function changesQuery(
  params: URLSearchParams,
): { since: number; token: string; limit: number } {
  const action = "read the change feed";
  checkParams(params, ["since", "limit"], action);
  const since = param(params, "since");
  const n = since === undefined ? 0 : Number(since);
  if (since !== undefined && (!/^\d{1,16}$/.test(since) || !Number.isSafeInteger(n))) {
    throw invalid(
      `Cannot ${action}: since is not a token of this feed; pass the "next" of a previous answer`,
      { parameter: "since" },
    );
  }
  return {
    since: n,
    token: since ?? "0",
    limit: intParam(params, "limit", 1, MAX_CHANGES_LIMIT, action) ?? DEFAULT_CHANGES_LIMIT,
  };
}

const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

/** The `Idempotency-Key` of a write: 1 to 255 visible ASCII characters. */
export function idempotencyKeyOf(headers: Headers, action: string): string {
  const key = headers.get("idempotency-key");
  if (key === null) {
    throw invalid(
      `Cannot ${action}: a write needs an Idempotency-Key header (1 to 255 visible ASCII characters)`,
    );
  }
  if (!IDEMPOTENCY_KEY.test(key)) {
    throw invalid(
      `Cannot ${action}: the Idempotency-Key header must be 1 to 255 visible ASCII characters`,
    );
  }
  return key;
}

/** The revision of an `If-Match` header (`12` or `"12"`), `undefined` without one. */
export function ifMatchOf(headers: Headers, action: string): number | undefined {
  const value = headers.get("if-match");
  if (value === null) return undefined;
  const m = /^\s*(?:(\d{1,16})|"(\d{1,16})")\s*$/.exec(value);
  const n = m ? Number(m[1] ?? m[2]) : NaN;
  if (!Number.isSafeInteger(n)) {
    throw invalid(
      `Cannot ${action}: If-Match must be a note revision, an integer such as 12 or "12"`,
    );
  }
  return n;
}
