/**
 * The checks of a runtime configuration that need nothing built: the modes, the recall engines and
 * the combinations that cannot work. `factory.ts` and `start/from_env.ts` run them before they load
 * any runtime.
 *
 * @module
 */

import type { RecallEngine } from "@memo/memory";
import { MemoRuntimeError } from "./errors.ts";

/**
 * The recall engines, as `recall.engine` and `MEMO_RECALL_ENGINE` name them.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { RUNTIME_RECALL_ENGINES } from "./runtime_config.ts";
 * assert.deepEqual(RUNTIME_RECALL_ENGINES, ["auto", "lexical", "vector", "hybrid"]);
 * ```
 */
export const RUNTIME_RECALL_ENGINES: readonly RecallEngine[] = [
  "auto",
  "lexical",
  "vector",
  "hybrid",
];

function shown(value: unknown): string {
  return JSON.stringify(String(value).slice(0, 40));
}

/**
 * Checks that a configuration can work, without building anything. Throws a `MemoRuntimeError` with
 * code `CONFIG` for an unknown `mode` or `recall.engine`, or for the `vector` or `hybrid` engine
 * with `recall.localEmbeddings: false` (there would be no embedder). The local and hybrid runtimes'
 * recall settings are checked; the cloud runtime's other settings are checked when it is built. The
 * hybrid runtime needs no API key to start: its writes are local, and a cloud it cannot reach shows
 * in `stats().replica.error`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { checkRuntimeConfig } from "./runtime_config.ts";
 * checkRuntimeConfig({ mode: "local", recall: { engine: "lexical" } }); // fine: no throw
 * checkRuntimeConfig({ mode: "cloud" }); // fine: its settings are checked when it is built
 * checkRuntimeConfig({ mode: "hybrid" }); // fine: no API key needed to start
 * assert.throws(
 *   () => checkRuntimeConfig({ recall: { engine: "vector", localEmbeddings: false } }),
 *   { code: "CONFIG" },
 * );
 * assert.throws(
 *   () => checkRuntimeConfig({ mode: "hybrid", recall: { engine: "hybrid", localEmbeddings: false } }),
 *   { code: "CONFIG" },
 * );
 * ```
 */
export function checkRuntimeConfig(
  options: { mode?: string; recall?: { engine?: RecallEngine; localEmbeddings?: boolean } } = {},
): void {
  const mode = options.mode ?? "local";
  if (mode !== "local" && mode !== "hybrid" && mode !== "cloud") {
    throw new MemoRuntimeError(
      "CONFIG",
      `Cannot start the runtime: unknown mode ${shown(mode)} (use local, hybrid or cloud)`,
    );
  }
  if (mode === "cloud") return; // recall settings are the local engine's
  const engine = options.recall?.engine;
  if (engine !== undefined && !RUNTIME_RECALL_ENGINES.includes(engine)) {
    throw new MemoRuntimeError(
      "CONFIG",
      `Cannot start the runtime: unknown recall engine ${shown(engine)} ` +
        `(use ${RUNTIME_RECALL_ENGINES.join(", ")})`,
    );
  }
  if ((engine === "vector" || engine === "hybrid") && options.recall?.localEmbeddings === false) {
    throw new MemoRuntimeError(
      "CONFIG",
      `Cannot start the runtime: the ${engine} engine needs embeddings, ` +
        "but recall.localEmbeddings is false (use lexical or auto, or turn local embeddings on)",
    );
  }
}
