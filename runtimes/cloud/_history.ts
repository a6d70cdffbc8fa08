/**
 * Internal: the history operations of {@linkcode MemoCloudClient}, one request
 * each under the client's workspace and project: `correct` (`POST notes:correct`), `supersede`
 * (`POST notes:supersede`), `tidy` (`GET tidy`) and `applyTidy` (`POST tidy:apply`). The server
 * makes each write in one transaction.
 *
 * @module
 */

import type { CorrectInput, SupersedeInput, TidyPlan } from "@memo/memory";
import { arrayOf, defined, noteOf, shortId, unexpected } from "./_answers.ts";
import type { CloudSession } from "./_session.ts";
import { redactedOf } from "../secrets.ts";
import type { MemoCloudCallOptions, MemoCloudWriteOptions } from "./client_options.ts";
import type { MemoCloudSupersedeResult, MemoCloudTidyApplyResult } from "./client_types.ts";

/** A write that answers `{note, superseded}` (`notes:correct`, `notes:supersede`), checked. */
async function linkWrite(
  session: CloudSession,
  path: string,
  body: unknown,
  action: string,
  options: MemoCloudWriteOptions,
): Promise<MemoCloudSupersedeResult> {
  const answer = await session.project({
    method: "POST",
    path,
    body,
    write: true,
    action,
  }, options);
  const superseded = arrayOf(answer.superseded, action);
  if (!superseded.every((id) => typeof id === "string")) throw unexpected(action);
  const result: MemoCloudSupersedeResult = {
    note: noteOf(answer.note, action),
    superseded: superseded as string[],
  };
  const redacted = redactedOf(answer.redacted);
  if (redacted) result.redacted = redacted;
  return result;
}

/**
 * `POST notes:correct`: the fact of note `input.id` changed ({@linkcode MemoCloudClient.correct}).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { CloudSession } from "./_session.ts";
 * import { correctNote } from "./_history.ts";
 * const sent: unknown[] = [];
 * const note = {
 *   id: "n2", title: "Deploys run on Mondays", body: "Deploys run on Mondays", labels: [],
 *   hash: "h", supersedes: ["n1"], created: "2026-03-02T00:00:00.000Z",
 *   updated: "2026-03-02T00:00:00.000Z", revision: 5,
 * };
 * const session = new CloudSession({
 *   baseUrl: "http://127.0.0.1:8788", apiKey: "mk_example", workspaceId: "team",
 *   fetch: async (input, init) => {
 *     if (String(input).endsWith("/whoami")) return Response.json({ workspaceId: "team" });
 *     sent.push(await new Request(input, init).json());
 *     return Response.json({ note, superseded: ["n1"] });
 *   },
 * });
 * const result = await correctNote(session, { id: "n1", text: "Deploys run on Mondays" });
 * assert.deepEqual(result.superseded, ["n1"]);
 * assert.deepEqual(sent, [{ id: "n1", text: "Deploys run on Mondays" }]);
 * ```
 */
export async function correctNote(
  session: CloudSession,
  input: CorrectInput,
  options: MemoCloudWriteOptions = {},
): Promise<MemoCloudSupersedeResult> {
  const body = defined({
    id: input.id,
    text: input.text,
    title: input.title,
    labels: input.labels,
    validFrom: input.validFrom,
  });
  return await linkWrite(
    session,
    "/notes:correct",
    body,
    `correct note ${shortId(input.id)}`,
    options,
  );
}

/**
 * `POST notes:supersede`: note `input.by` supersedes `input.ids`
 * ({@linkcode MemoCloudClient.supersede}).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { CloudSession } from "./_session.ts";
 * import { supersedeNotes } from "./_history.ts";
 * const note = {
 *   id: "n2", title: "t", body: "b", labels: [], hash: "h", supersedes: ["n1"],
 *   created: "2026-03-02T00:00:00.000Z", updated: "2026-03-02T00:00:00.000Z", revision: 5,
 * };
 * const session = new CloudSession({
 *   baseUrl: "http://127.0.0.1:8788", apiKey: "mk_example", workspaceId: "team",
 *   fetch: async (input) =>
 *     String(input).endsWith("/whoami") ? Response.json({ workspaceId: "team" }) : Response.json({ note, superseded: ["n1"] }),
 * });
 * assert.equal((await supersedeNotes(session, { ids: ["n1"], by: "n2" })).note.id, "n2");
 * ```
 */
export async function supersedeNotes(
  session: CloudSession,
  input: SupersedeInput,
  options: MemoCloudWriteOptions = {},
): Promise<MemoCloudSupersedeResult> {
  const action = `supersede notes with note ${shortId(input.by)}`;
  const body = { ids: input.ids, by: input.by };
  return await linkWrite(session, "/notes:supersede", body, action, options);
}

/**
 * `GET tidy`: the project's tidy proposals, writing nothing ({@linkcode MemoCloudClient.tidy}).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { CloudSession } from "./_session.ts";
 * import { readTidyPlan } from "./_history.ts";
 * const session = new CloudSession({
 *   baseUrl: "http://127.0.0.1:8788", apiKey: "mk_example", workspaceId: "team",
 *   fetch: async (input) =>
 *     String(input).endsWith("/whoami") ? Response.json({ workspaceId: "team" }) : Response.json({ version: 1, proposals: [] }),
 * });
 * assert.deepEqual(await readTidyPlan(session), { version: 1, proposals: [] });
 * ```
 */
export async function readTidyPlan(
  session: CloudSession,
  options: MemoCloudCallOptions = {},
): Promise<TidyPlan> {
  const action = "tidy the notes";
  const body = await session.project({ method: "GET", path: "/tidy", action }, options);
  if (body.version !== 1) throw unexpected(action);
  arrayOf(body.proposals, action);
  return body as unknown as TidyPlan;
}

/**
 * `POST tidy:apply`: a plan's merges in one transaction ({@linkcode MemoCloudClient.applyTidy}).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { CloudSession } from "./_session.ts";
 * import { applyTidyPlan } from "./_history.ts";
 * const session = new CloudSession({
 *   baseUrl: "http://127.0.0.1:8788", apiKey: "mk_example", workspaceId: "team",
 *   fetch: async (input) =>
 *     String(input).endsWith("/whoami") ? Response.json({ workspaceId: "team" }) : Response.json({ merged: 0, superseded: [], notes: [] }),
 * });
 * const result = await applyTidyPlan(session, { version: 1, proposals: [] });
 * assert.equal(result.merged, 0);
 * ```
 */
export async function applyTidyPlan(
  session: CloudSession,
  plan: TidyPlan,
  options: MemoCloudWriteOptions = {},
): Promise<MemoCloudTidyApplyResult> {
  const action = "apply the tidy plan";
  // The review pairs are never applied: left out, so a server older than them takes the plan.
  const { review: _review, ...merges } = plan;
  const body = await session.project({
    method: "POST",
    path: "/tidy:apply",
    body: merges,
    write: true,
    action,
  }, options);
  if (typeof body.merged !== "number") throw unexpected(action);
  return {
    merged: body.merged,
    superseded: arrayOf(body.superseded, action) as string[],
    notes: arrayOf(body.notes, action).map((n) => noteOf(n, action)),
  };
}
