/**
 * The `--secrets` flag of the commands that write, how a command says what the guard redacted,
 * and `memo scan [--redact]`.
 *
 * @module
 */

import type { SecretRedaction } from "../runtimes/mod.ts";
import { boolFlag, choiceFlag, parseArgs, type ParsedArgs, positionals } from "./args.ts";
import { COMMAND_INFO } from "./command_info.ts";
import type { CliCommand } from "./context.ts";
import { jsonDocument } from "./output.ts";
import { withProjectRuntime } from "./runtime.ts";

/**
 * The policies `--secrets` takes.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { SECRETS_CHOICES } from "./secrets.ts";
 * assert.deepEqual(SECRETS_CHOICES, ["redact", "refuse", "allow"]);
 * ```
 */
export const SECRETS_CHOICES = ["redact", "refuse", "allow"] as const;

/**
 * `--secrets` of a command that declares it (undefined when not given); a usage error for any
 * other value.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseArgs } from "./args.ts";
 * import { secretsFlag } from "./secrets.ts";
 * assert.equal(secretsFlag(parseArgs(["--secrets", "refuse"], { string: ["secrets"] })), "refuse");
 * assert.throws(() => secretsFlag(parseArgs(["--secrets", "off"], { string: ["secrets"] })), { name: "UsageError" });
 * ```
 */
export function secretsFlag(p: ParsedArgs): (typeof SECRETS_CHOICES)[number] | undefined {
  return choiceFlag(p, "secrets", SECRETS_CHOICES);
}

/**
 * What the guard redacted, for people: `redacted: github-token in text, jwt in labels`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { formatRedacted } from "./secrets.ts";
 * assert.equal(formatRedacted([{ rule: "jwt", field: "text" }]), "redacted: jwt in text\n");
 * assert.equal(formatRedacted(undefined), "");
 * ```
 */
export function formatRedacted(redacted: readonly SecretRedaction[] | undefined): string {
  if (!redacted?.length) return "";
  return `redacted: ${[...new Set(redacted.map((r) => `${r.rule} in ${r.field}`))].join(", ")}\n`;
}

/**
 * `memo scan [--redact] [--json]`: lists the secrets the stored notes hold, one line each
 * (`notes.md:LINE  ID  RULE in FIELD`, never the value), and with `--redact` rewrites them as
 * `[redacted:<rule-id>]` in one atomic step. Exits 0 when nothing is left, 1 when findings
 * remain (without `--redact`, or ones `--redact` cannot rewrite), so that it can gate a commit.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { recordingIO } from "../testing/cli_io.ts";
 * import { scanCommand } from "./secrets.ts";
 * const rootDir = await Deno.makeTempDir();
 * const io = recordingIO(rootDir);
 * assert.equal(await scanCommand.run(["--json"], io), 0);
 * assert.deepEqual(JSON.parse(io.out.join("")), { notes: 0, findings: [], redacted: [] });
 * await Deno.remove(rootDir, { recursive: true });
 * ```
 */
export const scanCommand: CliCommand = {
  ...COMMAND_INFO.scan,
  async run(argv, io) {
    const p = parseArgs(argv, { string: ["dir"], boolean: ["json", "redact"] });
    positionals(p, []);
    const redact = boolFlag(p, "redact");
    const result = await withProjectRuntime(p, io, async (runtime) => {
      if (!runtime.scanSecrets) throw new Error("Cannot scan: this runtime cannot scan its notes");
      return await runtime.scanSecrets({ redact });
    });
    if (boolFlag(p, "json")) {
      await io.stdout(jsonDocument(result));
    } else {
      const lines = result.findings.map((f) =>
        `notes.md:${f.line}  ${f.id || "(not a note)"}  ${f.rule} in ${f.field}`
      );
      const n = result.findings.length;
      lines.push(
        n === 0
          ? `No secrets in ${result.notes} note${result.notes === 1 ? "" : "s"}.`
          : redact
          ? `Redacted ${n} secret${n === 1 ? "" : "s"} in ${result.redacted.length} note${
            result.redacted.length === 1 ? "" : "s"
          }.`
          : `${n} secret${n === 1 ? "" : "s"} found; memo scan --redact replaces them.`,
      );
      const left = result.unredacted?.length ?? 0;
      if (left) {
        lines.push(
          `${left} could not be redacted (a section of notes.md that is no note, or a source the ` +
            "runtime cannot change): edit them by hand.",
        );
      }
      await io.stdout(lines.join("\n") + "\n");
    }
    return (result.findings.length && !redact) || result.unredacted?.length ? 1 : 0;
  },
};
