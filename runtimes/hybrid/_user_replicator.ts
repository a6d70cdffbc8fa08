/**
 * The user scope's replicator: a {@linkcode Replicator} of the user store, with a Cloud API client
 * of its own (the user's cloud project, never the team's) and its state in `$MEMO_HOME/replica/`.
 * Used by the hybrid runtime (`_build.ts`) and by a local runtime whose user scope has a hybrid
 * runtime of its own (`user_replica.ts`).
 *
 * @module
 */

import { join } from "node:path";
import type { Memo } from "@memo/memory";
import { MemoCloudError } from "../cloud/errors.ts";
import { lazyReplicaClient } from "./_replica_client.ts";
import { Replicator } from "./_replicator.ts";
import { checkInterval, DEFAULT_PULL_INTERVAL_MS, type UserReplicaOptions } from "./_options.ts";
import { USER_CLOUD_API_KEY_VARIABLE } from "./user_config.ts";

/** The replicator of the user scope of `memo`, per `options`. */
export function buildUserReplicator(
  memo: () => Promise<Memo>,
  options: UserReplicaOptions,
): Replicator {
  const pullIntervalMs = checkInterval(
    "userReplica.pullIntervalMs",
    options.pullIntervalMs,
    DEFAULT_PULL_INTERVAL_MS,
    1,
  );
  const lazyClient = lazyReplicaClient(options, () => replicator.refused()); // called after it is built
  const userClient = () => {
    if (!options.apiKey?.trim() && (options.requireApiKey ?? true)) {
      // Said here, so that the message names the user scope's variable, not the team's.
      throw new MemoCloudError(
        "config",
        `Cannot use the user scope's Memo Cloud API: no API key (set ${USER_CLOUD_API_KEY_VARIABLE})`,
      );
    }
    return lazyClient();
  };
  const replicator: Replicator = new Replicator({
    rootDir: options.memoHome,
    scope: "user",
    stateDir: join(options.memoHome, "replica"),
    memo,
    client: userClient,
    pullIntervalMs,
  });
  return replicator;
}
