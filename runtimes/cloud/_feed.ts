/**
 * Internal: the change feed of {@linkcode MemoCloudClient}: `GET changes`,
 * a project's upserts and tombstones in order, from a token.
 *
 * @module
 */

import { arrayOf, noteOf, objectOf, unexpected } from "./_answers.ts";
import type { CloudSession } from "./_session.ts";
import type { MemoCloudChangesOptions } from "./client_options.ts";
import type { MemoCloudChange, MemoCloudChangesPage } from "./client_types.ts";

/**
 * `GET changes`: the change feed from a token ({@linkcode MemoCloudClient.changes}).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { CloudSession } from "./_session.ts";
 * import { readChanges } from "./_feed.ts";
 * const session = (body: unknown, status = 200) =>
 *   new CloudSession({
 *     baseUrl: "http://127.0.0.1:8788", apiKey: "mk_example", workspaceId: "team",
 *     fetch: async (input) =>
 *       String(input).endsWith("/whoami") ? Response.json({ workspaceId: "team" }) : Response.json(body, { status }),
 *   });
 * const page = await readChanges(session({ changes: [], next: "0", hasMore: false }));
 * assert.equal(page.next, "0");
 * ```
 */
export async function readChanges(
  session: CloudSession,
  options: MemoCloudChangesOptions = {},
): Promise<MemoCloudChangesPage> {
  const action = "read the change feed";
  const body = await session.project({
    method: "GET",
    path: "/changes",
    query: { since: options.since, limit: options.limit },
    action,
  }, options);
  if (typeof body.next !== "string") throw unexpected(action);
  const changes = arrayOf(body.changes, action).map((c) => {
    const change = objectOf(c, action);
    if (typeof change.seq !== "number" || typeof change.id !== "string") throw unexpected(action);
    if (change.op === "upsert") return { ...change, note: noteOf(change.note, action) };
    if (change.op !== "delete") throw unexpected(action);
    return change;
  }) as MemoCloudChange[];
  return { changes, next: body.next, hasMore: body.hasMore === true };
}
