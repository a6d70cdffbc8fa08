/**
 * The subcommands of notes that stay true, `memo correct` and `memo supersede`, and the flags
 * the memory commands share for history: `--as-of`, `--since`, `--until`,
 * `--include-superseded` (recall, list) and `--valid-from`, `--valid-until` (remember, update,
 * correct). `memo tidy` lives in `tidy.ts`.
 *
 * @module
 */

import type { RuntimeHistoryFilter, SimilarNote } from "../../runtimes/mod.ts";
import { boolFlag, labelsFlag, parseArgs, positionals, stringFlag, UsageError } from "../args.ts";
import type { ParsedArgs } from "../args.ts";
import { COMMAND_INFO } from "../command_info.ts";
import type { CliCommand } from "../context.ts";
import { formatNoteLine, jsonDocument } from "../output.ts";
import { withProjectRuntime } from "../runtime.ts";
import { readText } from "./_read_text.ts";
import { formatRedacted } from "../secrets.ts";

/**
 * The flags of the history filters, for `parseArgs`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { HISTORY_FLAGS } from "./history_commands.ts";
 * assert.deepEqual(HISTORY_FLAGS.string, ["as-of", "since", "until"]);
 * ```
 */
export const HISTORY_FLAGS = {
  string: ["as-of", "since", "until"],
  boolean: ["include-superseded"],
} as const;

const TIME = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2}))?$/;

/** A date or date-time flag, checked; `undefined` when not given. */
function timeFlag(p: ParsedArgs, name: string): string | undefined {
  const value = stringFlag(p, name);
  if (value !== undefined && !TIME.test(value)) {
    throw new UsageError(
      `flag --${name} must be an ISO 8601 date (2026-03-01) or date-time (2026-03-01T10:00:00Z)`,
    );
  }
  return value;
}

/**
 * The history filters given on the command line (`--as-of`, `--since`, `--until`,
 * `--include-superseded`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseArgs } from "../args.ts";
 * import { HISTORY_FLAGS, historyFlags } from "./history_commands.ts";
 * const p = parseArgs(["--as-of", "2026-03-01", "--include-superseded"], HISTORY_FLAGS);
 * assert.deepEqual(historyFlags(p), { asOf: "2026-03-01", includeSuperseded: true });
 * assert.throws(() => historyFlags(parseArgs(["--since", "May"], HISTORY_FLAGS)), /--since/);
 * ```
 */
export function historyFlags(p: ParsedArgs): RuntimeHistoryFilter {
  const out: RuntimeHistoryFilter = {};
  const asOf = timeFlag(p, "as-of");
  const since = timeFlag(p, "since");
  const until = timeFlag(p, "until");
  if (asOf !== undefined) out.asOf = asOf;
  if (since !== undefined) out.since = since;
  if (until !== undefined) out.until = until;
  if (boolFlag(p, "include-superseded")) out.includeSuperseded = true;
  return out;
}

/**
 * The history filters as flags again (for the "more:" line of `memo list`), each with a
 * leading space.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { historyArgs } from "./history_commands.ts";
 * assert.equal(historyArgs({ asOf: "2026-03-01", includeSuperseded: true }), " --as-of 2026-03-01 --include-superseded");
 * assert.equal(historyArgs({}), "");
 * ```
 */
export function historyArgs(history: RuntimeHistoryFilter): string {
  let out = "";
  if (history.asOf !== undefined) out += ` --as-of ${history.asOf}`;
  if (history.since !== undefined) out += ` --since ${history.since}`;
  if (history.until !== undefined) out += ` --until ${history.until}`;
  if (history.includeSuperseded) out += " --include-superseded";
  return out;
}

/**
 * `--valid-from` and `--valid-until`, checked; with `clearable`, `none` removes the bound
 * (`null`, as `memo update` sends it).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseArgs } from "../args.ts";
 * import { validityFlags } from "./history_commands.ts";
 * const p = parseArgs(["--valid-until", "none"], { string: ["valid-from", "valid-until"] });
 * assert.deepEqual(validityFlags(p, true), { validUntil: null });
 * assert.throws(() => validityFlags(p, false), /--valid-until/);
 * ```
 */
export function validityFlags(
  p: ParsedArgs,
  clearable: boolean,
): { validFrom?: string | null; validUntil?: string | null } {
  const out: { validFrom?: string | null; validUntil?: string | null } = {};
  for (const [flag, key] of [["valid-from", "validFrom"], ["valid-until", "validUntil"]] as const) {
    if (clearable && stringFlag(p, flag) === "none") out[key] = null;
    else {
      const value = timeFlag(p, flag);
      if (value !== undefined) out[key] = value;
    }
  }
  return out;
}

/**
 * The lines `memo remember` prints under a written note: the similar stored notes.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { formatSimilar } from "./history_commands.ts";
 * assert.equal(
 *   formatSimilar([{ id: "n1", title: "Audit logs are kept 12 months", score: 0.818 }]),
 *   "similar:\n  0.82  n1  Audit logs are kept 12 months\n" +
 *     "(memo correct ID TEXT if the fact changed; memo supersede ID --by NEW if they say the same)\n",
 * );
 * assert.equal(formatSimilar([]), "");
 * ```
 */
export function formatSimilar(similar: readonly SimilarNote[]): string {
  if (!similar.length) return "";
  const lines = similar.map((s) => `  ${s.score.toFixed(2)}  ${s.id}  ${s.title}`);
  return `similar:\n${lines.join("\n")}\n` +
    "(memo correct ID TEXT if the fact changed; memo supersede ID --by NEW if they say the same)\n";
}

const correct: CliCommand = {
  ...COMMAND_INFO.correct,
  async run(argv, io) {
    const p = parseArgs(argv, {
      string: ["dir", "title", "file", "valid-from", "secrets"],
      multiple: ["label"],
      boolean: ["json"],
    });
    const [id, arg] = p.positional.length === 1 && stringFlag(p, "file") !== undefined
      ? [p.positional[0], undefined]
      : positionals(p, ["id", "text"]);
    const text = await readText(p, io, arg);
    if (text === undefined || text.trim() === "") throw new UsageError("text is empty");
    const labels = labelsFlag(p);
    const { validFrom } = validityFlags(p, false);
    const result = await withProjectRuntime(p, io, (runtime) => {
      if (!runtime.correct) throw new Error("Cannot correct notes: this runtime cannot");
      return runtime.correct({
        id,
        text,
        title: stringFlag(p, "title"),
        labels: labels.length ? labels : undefined,
        validFrom: validFrom ?? undefined,
      });
    });
    if (boolFlag(p, "json")) await io.stdout(jsonDocument(result));
    else {
      await io.stdout(
        `corrected ${result.superseded.join(", ")} by ${result.note.id}  ${result.note.title}\n` +
          formatRedacted(result.redacted),
      );
    }
    return 0;
  },
};

const supersede: CliCommand = {
  ...COMMAND_INFO.supersede,
  async run(argv, io) {
    const p = parseArgs(argv, { string: ["dir", "by"], boolean: ["json"] });
    const by = stringFlag(p, "by");
    if (by === undefined || by === "") throw new UsageError("missing --by ID");
    if (!p.positional.length) throw new UsageError("missing id");
    const result = await withProjectRuntime(p, io, (runtime) => {
      if (!runtime.supersede) throw new Error("Cannot supersede notes: this runtime cannot");
      return runtime.supersede({ ids: p.positional, by });
    });
    if (boolFlag(p, "json")) await io.stdout(jsonDocument(result));
    else {
      const n = result.superseded.length;
      await io.stdout(
        n
          ? `${formatNoteLine(result.note)}\n  now supersedes ${result.superseded.join(", ")}\n`
          : `${formatNoteLine(result.note)}\n  supersedes them already\n`,
      );
    }
    return 0;
  },
};

/**
 * `memo correct` and `memo supersede`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { recordingIO } from "../../testing/cli_io.ts";
 * import { runCli } from "../main.ts";
 *
 * const rootDir = await Deno.makeTempDir();
 * const io = recordingIO(rootDir);
 * await runCli(["remember", "Deploys run on Fridays", "--json"], io);
 * const { note } = JSON.parse(io.out.join(""));
 * io.out.length = 0;
 * assert.equal(await runCli(["correct", note.id, "Deploys run on Mondays"], io), 0);
 * assert.match(io.out.join(""), new RegExp(`^corrected ${note.id} by \\S+  Deploys run on Mondays\\n$`));
 * await Deno.remove(rootDir, { recursive: true });
 * ```
 */
export const historyCommands: readonly CliCommand[] = [correct, supersede];
