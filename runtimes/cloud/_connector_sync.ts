/**
 * The cloud runtime's `syncConnectors`: each connector pass is one batch, one
 * `notes:batch` request and one transaction on the server, after this side's
 * secrets guard (under `refuse`, a pass with a secret is refused whole). A pass
 * over what one request may carry (10,000 notes, 16 MiB) goes in several, in
 * order; the connector's state moves only once all of them landed, so a pass
 * cut short is sent again whole (what landed comes back unchanged).
 *
 * @module
 */

import type { ConnectorMemo, SyncConfiguredOptions } from "@memo/connectors";
import type { MemoCloudClient, MemoCloudNote } from "./client.ts";
import type { MemoCloudBatchResult, MemoCloudDraft } from "./client_types.ts";
import { MEMO_CLOUD_BATCH_MAX_BYTES, MEMO_CLOUD_BATCH_MAX_NOTES } from "./_batch.ts";
import type { CloudChangePoller } from "./_watch.ts";
import { byStatus, draftOf } from "./_runtime_shapes.ts";
import { guardForCloud } from "../secrets.ts";
import type { RuntimeSyncResult, SecretsPolicy } from "../types.ts";

/** What a pass writes through: the client, the poller that holds the feed meanwhile, the listeners. */
export interface CloudSyncParts {
  client: MemoCloudClient;
  poller: CloudChangePoller;
  secrets: SecretsPolicy;
  wrote: (notes: MemoCloudNote[], created: boolean) => void;
}

/** Runs the configured connectors into the cloud (`@memo/connectors`, loaded now). */
export async function syncToCloud(
  { client, poller, secrets, wrote }: CloudSyncParts,
  options: SyncConfiguredOptions & { signal: AbortSignal },
): Promise<RuntimeSyncResult> {
  const { syncConfiguredConnectors } = await import("@memo/connectors");
  const target: ConnectorMemo = {
    rememberMany: async (drafts, call) => {
      const guarded = await guardForCloud(drafts, secrets, "commit the sync pass");
      const result = await poller.writing(async () => {
        const signal = call?.signal ?? options.signal;
        const result: MemoCloudBatchResult = { results: [], written: 0, updated: 0, unchanged: 0 };
        for (const chunk of batchesOf(guarded.drafts.map(draftOf))) {
          const part = await client.upsertBatch(chunk, { signal });
          result.results.push(...part.results);
          result.written += part.written;
          result.updated += part.updated;
          result.unchanged += part.unchanged;
          const changed = part.results.filter((r) => r.status !== "unchanged");
          wrote(changed.map((r) => r.note), part.written > 0);
        }
        return result;
      });
      return { ...byStatus(result), bytesWritten: 0 };
    },
  };
  return await syncConfiguredConnectors(target, options);
}

/** Most notes, and bytes of their JSON, one `notes:batch` of a pass carries: the client's limits,
 * with 1 MiB of the body left for what surrounds the notes. */
const BATCH_NOTES = MEMO_CLOUD_BATCH_MAX_NOTES;
const BATCH_BYTES = MEMO_CLOUD_BATCH_MAX_BYTES - 1024 * 1024;
const encoder = new TextEncoder();

/**
 * `drafts` in order, in batches within {@linkcode BATCH_NOTES} and {@linkcode BATCH_BYTES} of
 * JSON (UTF-8).
 */
function batchesOf(drafts: readonly MemoCloudDraft[]): MemoCloudDraft[][] {
  const out: MemoCloudDraft[][] = [];
  let batch: MemoCloudDraft[] = [];
  let bytes = 0;
  for (const draft of drafts) {
    const size = encoder.encode(JSON.stringify(draft)).byteLength;
    if (batch.length && (batch.length >= BATCH_NOTES || bytes + size > BATCH_BYTES)) {
      out.push(batch);
      batch = [];
      bytes = 0;
    }
    batch.push(draft);
    bytes += size;
  }
  if (batch.length || !out.length) out.push(batch);
  return out;
}
