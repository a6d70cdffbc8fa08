/**
 * `memo sync`: runs the connectors configured in `.memo/config.json` (GitHub Discussions, Notion
 * pages) and reports what each pass did. Tokens come from the environment: `MEMO_GITHUB_TOKEN`
 * (else `GITHUB_TOKEN`) and `MEMO_NOTION_TOKEN` (else `NOTION_TOKEN`).
 *
 * @module
 */

import {
  isMemoRuntimeError,
  type RuntimeSyncProgress,
  type RuntimeSyncResult,
} from "../runtimes/mod.ts";
import { boolFlag, listFlag, parseArgs, positionals, UsageError } from "./args.ts";
import { COMMAND_INFO } from "./command_info.ts";
import type { CliCommand, CliIO } from "./context.ts";
import { errorLine, jsonDocument } from "./output.ts";
import { progressLine } from "./progress.ts";
import { withProjectRuntime } from "./runtime.ts";

/**
 * Writes one progress line per connector on stderr (a terminal), updated in place: pages read,
 * records collected, then what the commit wrote.
 */
function progressPrinter(io: CliIO) {
  const line = progressLine(io);
  const onProgress = (p: RuntimeSyncProgress) => {
    const head = `memo: ${p.connector} (${p.type}): `;
    if (p.phase === "fetching") {
      line.show(`${head}${p.pages} page${p.pages === 1 ? "" : "s"}, ${p.records} records`);
    } else if (p.phase === "committing") {
      line.show(`${head}${p.pages} pages, ${p.records} records, committing…`);
    } else if (p.phase === "committed") {
      line.end(`${head}${p.records} records, ${p.written} written, ${p.updated} updated`);
    } else {
      line.end(`${head}failed after ${p.pages} pages`);
    }
  };
  return { onProgress, flush: () => line.flush() };
}

/**
 * The human summary of a run.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { formatSyncResult } from "./sync.ts";
 *
 * const result = {
 *   connectors: [
 *     { id: "team", type: "discussions", fetched: 3, written: 2, updated: 1, unchanged: 0 },
 *   ],
 *   written: 2,
 *   updated: 1,
 *   unchanged: 0,
 *   errors: [],
 * };
 * assert.equal(
 *   formatSyncResult(result),
 *   "team (discussions): 3 fetched, 2 written, 1 updated, 0 unchanged\n" +
 *     "Synced 1 connector: 2 written, 1 updated, 0 unchanged.\n",
 * );
 * ```
 */
export function formatSyncResult(result: RuntimeSyncResult): string {
  if (!result.connectors.length) {
    return 'No connectors configured: add them to .memo/config.json under "connectors".\n';
  }
  const lines = result.connectors.map((c) => {
    const failed = result.errors.find((e) => e.connector === c.id);
    return failed
      ? `${c.id} (${c.type}): failed: ${failed.error.name}: ${failed.error.message}`
      : `${c.id} (${c.type}): ${c.fetched} fetched, ${c.written} written, ${c.updated} updated, ${c.unchanged} unchanged`;
  });
  const failed = result.errors.length ? `; ${result.errors.length} failed` : "";
  lines.push(
    `Synced ${result.connectors.length} connector${result.connectors.length === 1 ? "" : "s"}: ` +
      `${result.written} written, ${result.updated} updated, ${result.unchanged} unchanged${failed}.`,
  );
  return lines.join("\n") + "\n";
}

/**
 * `memo sync`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { recordingIO } from "../testing/cli_io.ts";
 * import { syncCommand } from "./sync.ts";
 *
 * const rootDir = await Deno.makeTempDir();
 * const io = recordingIO(rootDir);
 * assert.equal(await syncCommand.run([], io), 0);
 * assert.deepEqual(io.out, [
 *   'No connectors configured: add them to .memo/config.json under "connectors".\n',
 * ]);
 * await assert.rejects(syncCommand.run(["--connector", "wiki"], io), { name: "UsageError" });
 * await Deno.remove(rootDir, { recursive: true });
 * ```
 */
export const syncCommand: CliCommand = {
  ...COMMAND_INFO.sync,
  async run(argv, io) {
    const p = parseArgs(argv, {
      string: ["dir", "secrets"],
      multiple: ["connector"],
      boolean: ["json", "full"],
    });
    positionals(p, []);
    const only = listFlag(p, "connector");
    const progress = io.stderrIsTerminal ? progressPrinter(io) : undefined;
    const controller = new AbortController();
    const removeSignal = io.onShutdownSignal?.(() => controller.abort());
    let result: RuntimeSyncResult;
    try {
      result = await withProjectRuntime(p, io, (runtime) =>
        runtime.syncConnectors({
          only: only.length ? only : undefined,
          full: boolFlag(p, "full"),
          signal: controller.signal,
          onProgress: progress?.onProgress,
        }));
    } catch (e) {
      if (isMemoRuntimeError(e, "CONNECTOR_NOT_FOUND")) throw new UsageError(e.message);
      throw e;
    } finally {
      removeSignal?.();
      await progress?.flush();
    }
    for (const failure of result.errors) {
      await io.stderr(errorLine(`connector ${failure.connector} failed: ${failure.error.message}`));
    }
    await io.stdout(boolFlag(p, "json") ? jsonDocument(result) : formatSyncResult(result));
    return result.errors.length ? 1 : 0;
  },
};
