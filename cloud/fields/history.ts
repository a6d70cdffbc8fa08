/**
 * The inputs of the routes of note history: `notes:correct`,
 * `notes:supersede` and `tidy:apply`, checked strictly as every other route's (unknown fields
 * refused by name, each refusal a 400 `invalid_request`). What only the notes can tell (an
 * unknown id, a cycle, a stale plan) is the project's to refuse.
 *
 * @module
 */

import type { CorrectInput, SupersedeInput, TidyPlan } from "@memo/memory";
import type { CloudHistoryFilter } from "../store.ts";
import {
  type Check,
  field,
  invalid,
  isBoolean,
  isDateOrTime,
  isNoteId,
  isNoteIdArray,
  isText,
  isTextArray,
  rejectUnknownFields,
  withoutUndefined,
} from "./_checks.ts";

/** Most ids one `notes:supersede` names (as the MCP tool). */
export const MAX_SUPERSEDE_IDS = 100;

const isIdList: Check = (v) =>
  Array.isArray(v) && v.length >= 1 && v.length <= MAX_SUPERSEDE_IDS &&
    v.every((id) => isNoteId(id) === undefined)
    ? undefined
    : `must be an array of 1 to ${MAX_SUPERSEDE_IDS} note ids`;

/**
 * The input of `POST notes:correct`: `{id, text, title?, labels?, validFrom?}`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { correctInput } from "./history.ts";
 *
 * assert.deepEqual(correctInput({ id: "n1", text: "Deploys run on Mondays" }), {
 *   id: "n1",
 *   text: "Deploys run on Mondays",
 * });
 * assert.throws(() => correctInput({ id: "n1" }), /field "text" is missing/);
 * assert.throws(() => correctInput({ id: "n1", text: "x", validUntil: "2027-01-01" }), /unknown field "validUntil"/);
 * ```
 */
export function correctInput(body: Record<string, unknown>): CorrectInput {
  const action = "correct the note";
  rejectUnknownFields(body, ["id", "text", "title", "labels", "validFrom"], action);
  const input = withoutUndefined({
    id: field<string>(body, "id", isNoteId, action, { required: true })!,
    text: field<string>(body, "text", isText, action, { required: true })!,
    title: field<string>(body, "title", isText, action),
    labels: field<string[]>(body, "labels", isTextArray, action),
    validFrom: field<string>(body, "validFrom", isDateOrTime, action),
  });
  if (input.text.trim() === "") throw invalid(`Cannot ${action}: text is empty`, { field: "text" });
  return input;
}

/**
 * The input of `POST notes:supersede`: `{ids, by}`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { supersedeInput } from "./history.ts";
 *
 * assert.deepEqual(supersedeInput({ ids: ["n1"], by: "n2" }), { ids: ["n1"], by: "n2" });
 * assert.throws(() => supersedeInput({ ids: [], by: "n2" }), /array of 1 to 100 note ids/);
 * ```
 */
export function supersedeInput(body: Record<string, unknown>): SupersedeInput {
  const action = "supersede the notes";
  rejectUnknownFields(body, ["ids", "by"], action);
  return {
    ids: field<string[]>(body, "ids", isIdList, action, { required: true })!,
    by: field<string>(body, "by", isNoteId, action, { required: true })!,
  };
}

/**
 * The plan of `POST tidy:apply`: a plan `GET tidy` gave (`version` 1 and its `proposals`; the
 * proposals are read as `Memo.applyTidy` reads them; its `review` pairs are never applied). A plan made from a `notes.md` file (one
 * with a `sha256`) is not this project's: refused.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { tidyPlanInput } from "./history.ts";
 *
 * assert.deepEqual(tidyPlanInput({ version: 1, proposals: [] }), { version: 1, proposals: [] });
 * assert.deepEqual(tidyPlanInput({ version: 1, proposals: [], review: [] }), { version: 1, proposals: [] });
 * assert.throws(() => tidyPlanInput({ version: 2, proposals: [] }), /version/);
 * assert.throws(() => tidyPlanInput({ version: 1, proposals: [], sha256: "ab" }), /notes\.md/);
 * ```
 */
export function tidyPlanInput(body: Record<string, unknown>): TidyPlan {
  const action = "apply the tidy plan";
  // `review` lists pairs for a person; applying never merges them, so it is read and left out.
  rejectUnknownFields(body, ["version", "sha256", "proposals", "review"], action);
  if (body.version !== 1) {
    throw invalid(`Cannot ${action}: field "version" must be 1`, { field: "version" });
  }
  if (!Array.isArray(body.proposals)) {
    throw invalid(`Cannot ${action}: field "proposals" must be an array`, {
      field: "proposals",
    });
  }
  if (body.sha256 !== undefined) {
    throw invalid(
      `Cannot ${action}: it was made from a notes.md file (it has a sha256); make the plan from this project (GET tidy)`,
      { field: "sha256" },
    );
  }
  return { version: 1, proposals: body.proposals };
}

/** The history fields of a note: `supersedes`, `validFrom`, `validUntil`. */
export const HISTORY_FIELDS = ["supersedes", "validFrom", "validUntil"] as const;

/** A draft's history fields, checked (the store checks the range). */
export function historyFields(
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

/** The history filters, as body fields or query parameters. */
export const HISTORY_FILTERS = ["includeSuperseded", "asOf", "since", "until"] as const;

/** The history filters of a recall body, checked. */
export function historyFilterFields(
  body: Record<string, unknown>,
  action: string,
): CloudHistoryFilter {
  return withoutUndefined({
    includeSuperseded: field<boolean>(body, "includeSuperseded", isBoolean, action),
    asOf: field<string>(body, "asOf", isDateOrTime, action),
    since: field<string>(body, "since", isDateOrTime, action),
    until: field<string>(body, "until", isDateOrTime, action),
  });
}
