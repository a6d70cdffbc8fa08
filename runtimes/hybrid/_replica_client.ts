/**
 * Internal: the Cloud API client a replicator talks through, made at its first use, whose refused
 * connections the replicator hears of (it then backs off).
 *
 * @module
 */

import { MemoCloudClient } from "../cloud/client.ts";
import type { MemoCloudClientOptions } from "../cloud/client_options.ts";
import { isConnectionRefused } from "../cloud/transport.ts";

/**
 * A function that makes the client once and gives it back; `refused` is called when a request
 * cannot connect.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { lazyReplicaClient } from "./_replica_client.ts";
 * const client = lazyReplicaClient({ baseUrl: "http://127.0.0.1:9", apiKey: "k" }, () => {});
 * assert.equal(client(), client()); // made once
 * ```
 */
export function lazyReplicaClient(
  options: Omit<MemoCloudClientOptions, "sleep">,
  refused: () => void,
): () => MemoCloudClient {
  let client: MemoCloudClient | undefined;
  return () => {
    if (client) return client;
    const fetchImpl = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
    client = new MemoCloudClient({
      baseUrl: options.baseUrl,
      apiKey: options.apiKey,
      workspaceId: options.workspaceId,
      projectId: options.projectId,
      timeoutMs: options.timeoutMs,
      userAgent: options.userAgent,
      requireApiKey: options.requireApiKey,
      retry: options.retry,
      fetch: async (input, init) => {
        try {
          return await fetchImpl(input, init);
        } catch (e) {
          if (isConnectionRefused(e)) refused();
          throw e;
        }
      },
    });
    return client;
  };
}
