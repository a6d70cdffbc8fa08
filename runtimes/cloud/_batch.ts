/**
 * Internal: the batch operations of {@linkcode MemoCloudClient}: `POST
 * notes:batch` (`upsertBatch`) and `POST notes:batchDelete` (`deleteBatch`),
 * with the limits the client checks before it sends anything.
 *
 * @module
 */

import { redactedOf } from "../secrets.ts";
import { MemoCloudError } from "./errors.ts";
import { arrayOf, defined, noteOf, objectOf, statusOf, unexpected } from "./_answers.ts";
import type { CloudSession } from "./_session.ts";
import type { MemoCloudWriteOptions } from "./client_options.ts";
import type {
  MemoCloudBatchResult,
  MemoCloudDeleteResult,
  MemoCloudDeleteSelector,
  MemoCloudDraft,
} from "./client_types.ts";

/** Most drafts in one batch. */
export const MEMO_CLOUD_BATCH_MAX_NOTES = 10000;
/** Largest body of one batch, in bytes. */
export const MEMO_CLOUD_BATCH_MAX_BYTES = 16 * 1024 * 1024;

/**
 * `POST notes:batch`: upserts up to 10000 drafts in one transaction, all or
 * nothing ({@linkcode MemoCloudClient.upsertBatch}).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { CloudSession } from "./_session.ts";
 * import { upsertNoteBatch } from "./_batch.ts";
 * const session = (body: unknown, status = 200) =>
 *   new CloudSession({
 *     baseUrl: "http://127.0.0.1:8788", apiKey: "mk_example", workspaceId: "team",
 *     fetch: async (input) =>
 *       String(input).endsWith("/whoami") ? Response.json({ workspaceId: "team" }) : Response.json(body, { status }),
 *   });
 * const none = { results: [], written: 0, updated: 0, unchanged: 0 };
 * assert.deepEqual(await upsertNoteBatch(session({ results: [] }), []), none);
 * ```
 */
export async function upsertNoteBatch(
  session: CloudSession,
  drafts: readonly MemoCloudDraft[],
  options: MemoCloudWriteOptions = {},
): Promise<MemoCloudBatchResult> {
  const action = `upsert ${drafts.length} note${drafts.length === 1 ? "" : "s"} in one batch`;
  if (drafts.length > MEMO_CLOUD_BATCH_MAX_NOTES) {
    throw new MemoCloudError(
      "payload_too_large",
      `Cannot ${action}: the limit is ${MEMO_CLOUD_BATCH_MAX_NOTES} notes; nothing was written`,
    );
  }
  const bodyText = JSON.stringify({
    notes: drafts.map((d) =>
      defined({
        id: d.id,
        text: d.text,
        title: d.title,
        labels: d.labels,
        source: d.source,
        created: d.created,
        updated: d.updated,
        supersedes: d.supersedes,
        validFrom: d.validFrom,
        validUntil: d.validUntil,
      })
    ),
  });
  const bytes = new TextEncoder().encode(bodyText).byteLength;
  if (bytes > MEMO_CLOUD_BATCH_MAX_BYTES) {
    throw new MemoCloudError(
      "payload_too_large",
      `Cannot ${action}: the body is ${bytes} bytes, over the limit of ` +
        `${MEMO_CLOUD_BATCH_MAX_BYTES} (16 MiB); nothing was written`,
    );
  }
  const body = await session.project({
    method: "POST",
    path: "/notes:batch",
    bodyText,
    write: true,
    action,
  }, options);
  const results = arrayOf(body.results, action).map((r) => {
    const entry = objectOf(r, action);
    return { status: statusOf(entry.status, action), note: noteOf(entry.note, action) };
  });
  if (results.length !== drafts.length) throw unexpected(action);
  const count = (s: string) => results.filter((r) => r.status === s).length;
  const out: MemoCloudBatchResult = {
    results,
    written: count("written"),
    updated: count("updated"),
    unchanged: count("unchanged"),
  };
  const redacted = redactedOf(body.redacted);
  if (redacted) out.redacted = redacted;
  return out;
}

/**
 * `POST notes:batchDelete`: deletes up to 10000 notes by id, or the notes of a
 * source prefix, in one transaction ({@linkcode MemoCloudClient.deleteBatch}).
 * More ids fail with code `payload_too_large` before anything is sent.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { CloudSession } from "./_session.ts";
 * import { deleteNoteBatch } from "./_batch.ts";
 * const sent: string[] = [];
 * const session = new CloudSession({
 *   baseUrl: "http://127.0.0.1:8788", apiKey: "mk_example", workspaceId: "team",
 *   fetch: async (input, init) => {
 *     if (String(input).endsWith("/whoami")) return Response.json({ workspaceId: "team" });
 *     sent.push(String(init?.body));
 *     return Response.json({ deleted: [], notFound: ["n9"] });
 *   },
 * });
 * assert.deepEqual(await deleteNoteBatch(session, { ids: ["n9"] }), { deleted: [], notFound: ["n9"] });
 * assert.deepEqual(sent, ['{"ids":["n9"]}']);
 * ```
 */
export async function deleteNoteBatch(
  session: CloudSession,
  selector: MemoCloudDeleteSelector,
  options: MemoCloudWriteOptions = {},
): Promise<MemoCloudDeleteResult> {
  const byIds = "ids" in selector;
  const action = byIds
    ? `delete ${selector.ids.length} note${selector.ids.length === 1 ? "" : "s"} in one batch`
    : `delete the notes whose source starts with ${JSON.stringify(selector.sourcePrefix)}`;
  if (byIds && selector.ids.length > MEMO_CLOUD_BATCH_MAX_NOTES) {
    throw new MemoCloudError(
      "payload_too_large",
      `Cannot ${action}: the limit is ${MEMO_CLOUD_BATCH_MAX_NOTES} notes; nothing was deleted`,
    );
  }
  const body = await session.project({
    method: "POST",
    path: "/notes:batchDelete",
    bodyText: JSON.stringify(
      byIds ? { ids: selector.ids } : { sourcePrefix: selector.sourcePrefix },
    ),
    write: true,
    action,
  }, options);
  const notFound = arrayOf(body.notFound, action);
  if (!notFound.every((id) => typeof id === "string")) throw unexpected(action);
  return {
    deleted: arrayOf(body.deleted, action).map((n) => noteOf(n, action)),
    notFound: notFound as string[],
  };
}
