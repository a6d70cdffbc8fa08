/**
 * `memo replicate`: pushes the hybrid runtime's outbox and pulls the cloud's changes now, with a
 * progress bar on a terminal, then prints what moved. Exit 1 when the cloud cannot be reached (the
 * local notes stay as they were), 2 in the local and cloud runtimes, which do not replicate.
 *
 * @module
 */

import {
  isMemoRuntimeError,
  type ReplicateProgress,
  type ReplicateResult,
} from "../runtimes/mod.ts";
import { boolFlag, parseArgs, positionals } from "./args.ts";
import { COMMAND_INFO } from "./command_info.ts";
import type { CliCommand, CliIO } from "./context.ts";
import { errorLine, jsonDocument } from "./output.ts";
import { progressBar, progressLine, stoppable } from "./progress.ts";
import { withProjectRuntime } from "./runtime.ts";

/**
 * The line `memo replicate` ends with in the local and cloud runtimes (exit 2).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { NEEDS_HYBRID } from "./replicate.ts";
 *
 * assert.equal(NEEDS_HYBRID, "replicate needs the hybrid runtime");
 * ```
 */
export const NEEDS_HYBRID = "replicate needs the hybrid runtime";

/**
 * The human summary of a replication: what moved, and where the conflicts are.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { formatReplicateResult } from "./replicate.ts";
 *
 * assert.equal(
 *   formatReplicateResult({ pushed: 2, pulled: 5, conflicts: 0, outbox: 0 }),
 *   "pushed 2, pulled 5, 0 conflicts, outbox 0\n",
 * );
 * assert.equal(
 *   formatReplicateResult({ pushed: 1, pulled: 1, conflicts: 1, outbox: 0 }),
 *   "pushed 1, pulled 1, 1 conflict, outbox 0\n" +
 *     "The losing version of a conflict is kept as a note labelled conflict: " +
 *     "memo list --label conflict\n",
 * );
 * const user = { pushed: 1, pulled: 0, conflicts: 0, outbox: 0 };
 * assert.equal(
 *   formatReplicateResult({ ...user, scopes: { user } }),
 *   "pushed 1, pulled 0, 0 conflicts, outbox 0\n  user: pushed 1, pulled 0, 0 conflicts, outbox 0\n",
 * );
 * ```
 */
export function formatReplicateResult(result: ReplicateResult): string {
  const counts = (r: ReplicateResult) =>
    `pushed ${r.pushed}, pulled ${r.pulled}, ${r.conflicts} conflict${
      r.conflicts === 1 ? "" : "s"
    }, outbox ${r.outbox}`;
  let text = `${counts(result)}\n`;
  // The user scope replicates too: what each cloud project moved.
  for (const scope of ["project", "user"] as const) {
    const one = result.scopes?.[scope];
    if (one) text += `  ${scope}: ${counts(one)}\n`;
  }
  if (result.conflicts > 0) {
    text += "The losing version of a conflict is kept as a note labelled conflict: " +
      "memo list --label conflict\n";
  }
  return text;
}

/** Shows the phase and a bar (when the total is known) on stderr, in place. */
function progressPrinter(io: CliIO) {
  const line = progressLine(io);
  let shown = false;
  const onProgress = (p: ReplicateProgress) => {
    shown = true;
    const what = p.phase === "pull" ? "pulling" : "pushing";
    line.show(
      p.total === undefined
        ? `memo: ${what}: ${p.done} change${p.done === 1 ? "" : "s"}`
        : `memo: ${what} ${progressBar(p.done, p.total)}`,
    );
  };
  const end = () => {
    if (shown) line.end();
    return line.flush();
  };
  return { onProgress, end };
}

/**
 * `memo replicate [--json] [--dir D]`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { recordingIO } from "../testing/cli_io.ts";
 * import { replicateCommand } from "./replicate.ts";
 *
 * const rootDir = await Deno.makeTempDir();
 * const io = recordingIO(rootDir); // MEMO_RUNTIME unset: the local runtime
 * assert.equal(await replicateCommand.run([], io), 2);
 * assert.deepEqual(io.err, ["memo: replicate needs the hybrid runtime\n"]);
 * await Deno.remove(rootDir, { recursive: true });
 * ```
 */
export const replicateCommand: CliCommand = {
  ...COMMAND_INFO.replicate,
  async run(argv, io) {
    const p = parseArgs(argv, { string: ["dir"], boolean: ["json"] });
    positionals(p, []);
    const progress = io.stderrIsTerminal ? progressPrinter(io) : undefined;
    const result = await stoppable(
      io,
      progress,
      (signal) =>
        withProjectRuntime(p, io, async (runtime): Promise<ReplicateResult | undefined> => {
          if (!runtime.replicate) return undefined;
          try {
            return await runtime.replicate({ signal, onProgress: progress?.onProgress });
          } catch (e) {
            // The deferred runtime's answer when the built runtime is not hybrid.
            if (isMemoRuntimeError(e, "UNAVAILABLE") && e.message.includes(NEEDS_HYBRID)) {
              return undefined;
            }
            throw e;
          }
        }),
    );
    if (!result) {
      await io.stderr(errorLine(NEEDS_HYBRID));
      return 2;
    }
    const { pushed, pulled, conflicts, outbox, scopes } = result;
    await io.stdout(
      boolFlag(p, "json")
        ? jsonDocument({ pushed, pulled, conflicts, outbox, ...(scopes ? { scopes } : {}) })
        : formatReplicateResult(result),
    );
    return 0;
  },
};
