/**
 * The cloud runtime's `syncConnectors`: each connector pass is one batch, one
 * `notes:batch` request and one transaction on the server, after this side's
 * secrets guard (under `refuse`, a pass with a secret is refused whole).
 *
 * @module
 */

import type { ConnectorMemo, SyncConfiguredOptions } from "@memo/connectors";
import type { MemoCloudClient, MemoCloudNote } from "./client.ts";
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
        const result = await client.upsertBatch(guarded.drafts.map(draftOf), { signal });
        const changed = result.results.filter((r) => r.status !== "unchanged");
        wrote(changed.map((r) => r.note), result.written > 0);
        return result;
      });
      return { ...byStatus(result), bytesWritten: 0 };
    },
  };
  return await syncConfiguredConnectors(target, options);
}
