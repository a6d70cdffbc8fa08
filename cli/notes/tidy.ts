/**
 * `memo tidy`: consolidation as a change a person reviews.
 *
 * - `memo tidy` writes nothing: it prints the plan as a unified diff of `notes.md` (each merge's
 *   keeper gains the ids it supersedes in its marker), after comment lines (`#`, which `git
 *   apply` and `patch` skip) that count the proposals and list the expired notes;
 * - `memo tidy --json` prints the plan: the proposals and the SHA-256 of the `notes.md` they were
 *   made from, and the pairs to review;
 * - pairs alike but for a fact they differ in (a number, a date, a version, a name, a negation,
 *   an order, a qualifier) are listed as comment lines `# review: … differ in …`: never merged,
 *   `--apply` leaves them alone;
 * - `memo tidy --apply PLAN` (a file, `-` for stdin) applies exactly that plan's merges in one
 *   atomic write, and refuses, writing nothing, when `notes.md` changed since. Expired notes are
 *   for a person to `memo correct` or `memo forget`: applying leaves them alone.
 *
 * @module
 */

import { readFile } from "node:fs/promises";
import { createHash } from "node:crypto";
import { relative, resolve } from "node:path";
import {
  conflictHunks,
  conflictScanFor,
  memoPaths,
  scopePaths,
  type TidyPlan,
  tidyText,
} from "@memo/memory";
import { boolFlag, parseArgs, positionals, stringFlag, UsageError } from "../args.ts";
import type { ParsedArgs } from "../args.ts";
import { COMMAND_INFO } from "../command_info.ts";
import type { CliCommand, CliIO } from "../context.ts";
import { jsonDocument } from "../output.ts";
import { memoHomeOf } from "../../env.ts";
import { isMemoRuntimeError } from "../../runtimes/mod.ts";
import { projectRoot, withProjectRuntime } from "../runtime.ts";
import { unifiedDiff } from "./_unified_diff.ts";

/** The plan a person asked to apply: a file, or stdin for `-`. */
async function readPlan(io: CliIO, file: string): Promise<TidyPlan> {
  let text: string;
  try {
    text = file === "-" ? await io.readStdin() : await readFile(resolve(io.cwd, file), "utf8");
  } catch (e) {
    const reason = (e as { code?: string }).code ?? (e as Error).message;
    throw new Error(`Cannot read ${file}: ${reason}`);
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new Error(
      `Cannot apply the tidy plan: ${file} is not JSON (make one with memo tidy --json)`,
    );
  }
}

/** "a number, a date and an order". */
function differList(differ: readonly string[]): string {
  const words = differ.map((d) =>
    ({
      number: "a number",
      date: "a date",
      version: "a version",
      name: "a name",
      negation: "a negation",
      order: "an order",
      qualifier: "a qualifier",
    })[d] ?? d
  );
  return words.length > 1 ? `${words.slice(0, -1).join(", ")} and ${words.at(-1)}` : words[0];
}

/**
 * The comment lines above the diff: what the plan proposes, the expired notes, and the pairs to
 * review.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { planSummary } from "./tidy.ts";
 *
 * const note = { id: "n1", title: "Beta API open", created: "c", validUntil: "2026-02-01" };
 * assert.equal(
 *   planSummary({ version: 1, proposals: [{ kind: "expired", note }] }),
 *   "# memo tidy: no merge proposed, 1 expired note. Nothing was written.\n" +
 *     "# Expired (memo correct or memo forget them; --apply leaves them alone):\n" +
 *     "#   n1  Beta API open  (valid until 2026-02-01)\n",
 * );
 * const [a, b] = [{ id: "n2", title: "Retention: 30 days", created: "c" }, { id: "n1", title: "Retention: 15 days", created: "c" }];
 * assert.equal(
 *   planSummary({ version: 1, proposals: [], review: [{ notes: [a, b], score: 0.8, differ: ["number"] }] }),
 *   "# memo tidy: no merge proposed, 0 expired notes, 1 pair to review. Nothing was written.\n" +
 *     "# review: these differ in a number (not merged; --apply leaves them alone):\n" +
 *     "#   n2  Retention: 30 days\n#   n1  Retention: 15 days\n",
 * );
 * ```
 */
export function planSummary(plan: TidyPlan): string {
  const merges = plan.proposals.filter((p) => p.kind === "merge");
  const expired = plan.proposals.flatMap((p) => p.kind === "expired" ? [p.note] : []);
  const superseded = merges.reduce((n, p) => n + (p.kind === "merge" ? p.supersede.length : 0), 0);
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;
  const review = Array.isArray(plan.review) ? plan.review : [];
  const lines = [
    `# memo tidy: ${
      merges.length
        ? `${plural(merges.length, "merge")} (${plural(superseded, "note")} superseded)`
        : "no merge proposed"
    }, ${plural(expired.length, "expired note")}${
      review.length ? `, ${plural(review.length, "pair")} to review` : ""
    }. Nothing was written.`,
  ];
  if (merges.length) {
    lines.push("# To apply: memo tidy --json > plan.json, review it, memo tidy --apply plan.json");
  }
  if (expired.length) {
    lines.push("# Expired (memo correct or memo forget them; --apply leaves them alone):");
    for (const n of expired) lines.push(`#   ${n.id}  ${n.title}  (valid until ${n.validUntil})`);
  }
  for (const r of review) {
    lines.push(
      `# review: these differ in ${differList(r.differ)} (not merged; --apply leaves them alone):`,
    );
    for (const n of r.notes) lines.push(`#   ${n.id}  ${n.title}`);
  }
  return lines.join("\n") + "\n";
}

/** The diff of notes.md the plan would make, or "" when it cannot be shown here. */
async function diffOf(p: ParsedArgs, io: CliIO, plan: TidyPlan): Promise<string> {
  if (plan.sha256 === undefined) return "";
  const root = await projectRoot(p, io);
  const path = memoPaths(root).notes;
  let text: string;
  try {
    text = new TextDecoder("utf-8", { ignoreBOM: true }).decode(await readFile(path));
  } catch {
    return "";
  }
  // A file holding git's conflict markers reads as its merge: there is no diff of its bytes to
  // show (and every write is refused until `memo resolve`).
  if (conflictHunks(text, await conflictScanFor(text, path)) > 0) return "";
  if (createHash("sha256").update(text).digest("hex") !== plan.sha256) {
    // A plan over several scopes is guarded by all their files: notes.md alone shows no diff.
    if (await otherScopesHoldNotes(root, io.env)) return "";
    throw new Error("Cannot show the tidy plan: notes.md changed while it was made; run it again");
  }
  return unifiedDiff(text, tidyText(text, plan), relative(root, path).split("\\").join("/"));
}

/**
 * `memo tidy [--json] | memo tidy --apply PLAN`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { recordingIO } from "../../testing/cli_io.ts";
 * import { runCli } from "../main.ts";
 *
 * const rootDir = await Deno.makeTempDir();
 * const io = recordingIO(rootDir);
 * await runCli(["remember", "Canary deploys hold at 5% of traffic for 30 minutes."], io);
 * await runCli(["remember", "FYI: canary deploys hold at 5% of traffic for 30 minutes."], io);
 * io.out.length = 0;
 * assert.equal(await runCli(["tidy"], io), 0);
 * const diff = io.out.join("");
 * assert.match(diff, /^# memo tidy: 1 merge \(1 note superseded\)/);
 * assert.match(diff, /\n--- a\/\.memo\/memory\/notes\.md\n\+\+\+ b\/\.memo\/memory\/notes\.md\n@@ /);
 * await Deno.remove(rootDir, { recursive: true });
 * ```
 */
export const tidyCommand: CliCommand = {
  ...COMMAND_INFO.tidy,
  async run(argv, io) {
    const p = parseArgs(argv, { string: ["dir", "apply"], boolean: ["json"] });
    positionals(p, []);
    const apply = stringFlag(p, "apply");
    if (apply === "") throw new UsageError("flag --apply needs a plan file (or - for stdin)");
    if (apply !== undefined) {
      const plan = await readPlan(io, apply);
      const result = await withProjectRuntime(p, io, async (runtime) => {
        if (!runtime.applyTidy) throw new Error("Cannot apply a tidy plan: this runtime cannot");
        try {
          return await runtime.applyTidy(plan);
        } catch (e) {
          // A stale plan is an operation that failed (exit 1), not a usage error.
          if (isMemoRuntimeError(e, "INVALID_INPUT") && /changed since/.test(e.message)) {
            throw new Error(e.message, { cause: e });
          }
          throw e;
        }
      });
      if (boolFlag(p, "json")) await io.stdout(jsonDocument(result));
      else {
        const n = result.superseded.length;
        await io.stdout(
          result.merged
            ? `Applied ${result.merged} merge${result.merged === 1 ? "" : "s"}: ${n} note${
              n === 1 ? "" : "s"
            } superseded (${result.superseded.join(", ")}).\n`
            : "Nothing to apply: the plan's merges are in notes.md already.\n",
        );
      }
      return 0;
    }
    const plan = await withProjectRuntime(p, io, (runtime) => {
      if (!runtime.tidy) throw new Error("Cannot tidy the notes: this runtime cannot");
      return runtime.tidy();
    });
    if (boolFlag(p, "json")) {
      await io.stdout(jsonDocument(plan));
      return 0;
    }
    await io.stdout(planSummary(plan) + await diffOf(p, io, plan));
    return 0;
  },
};

/** Whether the local or the user scope holds a note (then a plan is guarded by every scope). */
async function otherScopesHoldNotes(
  root: string,
  env: Readonly<Record<string, string | undefined>>,
): Promise<boolean> {
  const memoHome = memoHomeOf(env);
  const paths = [scopePaths("local", { rootDir: root }).notes];
  if (memoHome) paths.push(scopePaths("user", { rootDir: root, memoHome }).notes);
  for (const path of paths) {
    try {
      if ((await readFile(path, "utf8")).includes("<!-- memo:note")) return true;
    } catch {
      // no such scope here
    }
  }
  return false;
}
