/**
 * `memo embed`, and the embedding helpers `memo recall` and `memo stats` share: the progress bar,
 * embedding what is missing, the stats line.
 *
 * @module
 */

import {
  type EmbeddingStatus,
  isMemoRuntimeError,
  type MemoMcpRuntime,
  type ModelProgress,
  type RuntimeEmbedResult,
} from "../../runtimes/mod.ts";
import { boolFlag, parseArgs, positionals } from "../args.ts";
import { COMMAND_INFO } from "../command_info.ts";
import type { CliCommand, CliIO } from "../context.ts";
import { errorLine, jsonDocument } from "../output.ts";
import { progressBar, progressLine, stoppable } from "../progress.ts";
import { withProjectRuntime } from "../runtime.ts";

const COMMON = { string: ["dir"], boolean: ["json"] } as const;

/**
 * The callbacks of an embedding progress bar.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { embedProgress } from "./embed.ts";
 * // Off a terminal there is no bar at all.
 * assert.equal(embedProgress({ stderr: () => Promise.resolve(), stderrIsTerminal: false } as never), undefined);
 * ```
 */
export interface EmbedProgress {
  onModelProgress: (progress: ModelProgress) => void;
  /** Notes embedded so far, of all. */
  onProgress: (done: number, total: number) => void;
  /** Clears the line (if anything was shown) and waits for the writes. */
  end: () => Promise<void>;
}

/** What `memo embed` says when the runtime cannot embed (the cloud runtime). */
const NEEDS_LOCAL = "embed needs the local or hybrid runtime";

/**
 * The progress of `memo embed` and `memo recall --engine vector|hybrid` on stderr (a terminal
 * only): the model's load, then a bar of the notes embedded.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { embedProgress } from "./embed.ts";
 * let screen = "";
 * const bar = embedProgress({
 *   stderr: (t: string) => Promise.resolve(void (screen += t)),
 *   stderrIsTerminal: true,
 * } as never)!;
 * bar.onProgress(1, 2);
 * await bar.end();
 * assert.match(screen, /memo: embedding \[#+-+\] 1\/2/);
 * ```
 */
export function embedProgress(io: CliIO): EmbedProgress | undefined {
  if (!io.stderrIsTerminal) return undefined;
  const line = progressLine(io);
  let shown = false;
  const onModelProgress = (p: ModelProgress) => {
    shown = true;
    const file = p.file ? ` ${p.file}` : "";
    line.show(`memo: model ${p.status}${file} ${Math.round(p.progress)}%`);
  };
  const onProgress = (done: number, total: number) => {
    shown = true;
    line.show(`memo: embedding ${progressBar(done, total)}`);
  };
  const end = () => {
    if (shown) line.end();
    return line.flush();
  };
  return { onModelProgress, onProgress, end };
}

/**
 * Embeds the notes missing now, through `runtime.embed`; undefined when the runtime cannot embed
 * (the cloud runtime).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { openMemo } from "@memo/memory";
 * import { createMemoMcpRuntimeFromMemo } from "../../runtimes/mod.ts";
 * import { embedMissing } from "./embed.ts";
 * const rootDir = await Deno.makeTempDir();
 * const embedder = {
 *   model: "toy",
 *   dimensions: 2,
 *   embed: (texts: readonly string[]) => Promise.resolve(texts.map(() => new Float32Array([1, 0]))),
 * };
 * const memo = await openMemo({ rootDir, embedder, embedInBackground: false });
 * await memo.remember({ text: "Deploys run with make deploy" });
 * const runtime = createMemoMcpRuntimeFromMemo(memo, { rootDir, closeMemo: true });
 * assert.equal((await embedMissing(runtime, undefined))?.embedded, 1);
 * await runtime.close();
 * await Deno.remove(rootDir, { recursive: true });
 * ```
 */
export async function embedMissing(
  runtime: MemoMcpRuntime,
  onProgress: ((done: number, total: number) => void) | undefined,
  signal?: AbortSignal,
): Promise<RuntimeEmbedResult | undefined> {
  if (!runtime.embed) return undefined;
  try {
    return await runtime.embed({ onProgress, signal });
  } catch (e) {
    // The deferred runtime's answer when the built runtime cannot embed.
    if (isMemoRuntimeError(e, "UNAVAILABLE") && e.message.includes(NEEDS_LOCAL)) return undefined;
    throw e;
  }
}

/**
 * `memo embed [--json]`: embeds every note not embedded yet, with a progress bar on a terminal;
 * exit 2 on the cloud runtime.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { recordingIO } from "../../testing/cli_io.ts";
 * import { embed } from "./embed.ts";
 * const rootDir = await Deno.makeTempDir();
 * const io = recordingIO(rootDir);
 * io.env.MEMO_LOCAL_EMBEDDINGS = "false"; // no model in this example
 * // The command throws; `runCli` turns that into one `memo: …` line and exit 1.
 * await assert.rejects(embed.run(["--dir", rootDir], io), /local embeddings are off/);
 * await Deno.remove(rootDir, { recursive: true });
 * ```
 */
export const embed: CliCommand = {
  ...COMMAND_INFO.embed,
  async run(argv, io) {
    const p = parseArgs(argv, COMMON);
    positionals(p, []);
    const progress = embedProgress(io);
    const result = await stoppable(io, progress, (signal) =>
      withProjectRuntime(
        p,
        io,
        (runtime) => embedMissing(runtime, progress?.onProgress, signal),
        { onModelProgress: progress?.onModelProgress },
      ));
    if (!result) {
      await io.stderr(errorLine(NEEDS_LOCAL));
      return 2;
    }
    if (boolFlag(p, "json")) await io.stdout(jsonDocument(result));
    else {
      await io.stdout(
        `embedded ${result.embedded} of ${result.total} note${result.total === 1 ? "" : "s"} ` +
          `(${result.computed} computed) with ${result.model}\n`,
      );
    }
    return 0;
  },
};

/**
 * The embedding line of `memo stats`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { formatEmbeddings } from "./embed.ts";
 *
 * assert.equal(
 *   formatEmbeddings({ model: "use-lite", ready: true, embedded: 120, total: 400, state: "ready" }),
 *   "embeddings: 120/400 notes (use-lite, ready)",
 * );
 * assert.equal(
 *   formatEmbeddings({
 *     model: "Xenova/all-MiniLM-L6-v2",
 *     ready: false,
 *     embedded: 0,
 *     total: 3,
 *     state: "failed",
 *     error: "Cannot load model Xenova/all-MiniLM-L6-v2: install @huggingface/transformers",
 *   }),
 *   "embeddings: 0/3 notes (Xenova/all-MiniLM-L6-v2, failed: " +
 *     "Cannot load model Xenova/all-MiniLM-L6-v2: install @huggingface/transformers)",
 * );
 * // The command itself loads no model: what the cache holds is not counted.
 * assert.equal(
 *   formatEmbeddings({ model: "use-lite", ready: false, embedded: 0, total: 3, state: "idle" }),
 *   "embeddings: use-lite (not loaded by this command; memo embed embeds what is missing)",
 * );
 * ```
 */
export function formatEmbeddings(e: EmbeddingStatus): string {
  if (e.state === "idle") {
    return `embeddings: ${e.model} (not loaded by this command; memo embed embeds what is missing)`;
  }
  const error = e.error ? `: ${e.error.replace(/\s*\r?\n\s*/g, " ").trim()}` : "";
  return `embeddings: ${e.embedded}/${e.total} notes (${e.model}, ${e.state}${error})`;
}
