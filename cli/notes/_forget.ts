/**
 * `memo forget`: one note by id, or every note whose source key starts with a
 * prefix, in one batch, after a confirmation on a terminal.
 *
 * @module
 */

import { boolFlag, parseArgs, positionals, stringFlag, UsageError } from "../args.ts";
import type { ParsedArgs } from "../args.ts";
import { COMMAND_INFO } from "../command_info.ts";
import type { CliCommand, CliIO } from "../context.ts";
import { allNotes } from "../export.ts";
import { jsonDocument, maskSecrets } from "../output.ts";
import { withProjectRuntime } from "../runtime.ts";

/**
 * `memo forget --source PREFIX [--yes]`: every note whose source key starts
 * with PREFIX, in one `forgetMany`, after a confirmation on a terminal.
 */
async function forgetBySource(p: ParsedArgs, io: CliIO, prefix: string): Promise<number> {
  if (p.positional.length) throw new UsageError("give an id or --source, not both");
  if (prefix === "") {
    throw new UsageError("flag --source needs a prefix (it would match every note)");
  }
  const yes = boolFlag(p, "yes");
  const canAsk = io.stdinIsTerminal === true && io.stderrIsTerminal && io.readLine !== undefined;
  if (!yes && !canAsk) {
    throw new UsageError("forget --source needs --yes when not on a terminal");
  }
  const json = boolFlag(p, "json");
  // The prefix is said back on stdout and stderr: a token typed in it is masked, as in errors.
  const what = `whose source starts with ${JSON.stringify(await maskSecrets(prefix))}`;
  const outcome = await withProjectRuntime(p, io, async (runtime) => {
    const ids: string[] = [];
    for await (const page of allNotes(runtime, { source: prefix })) {
      // The runtime filters by prefix already; the check keeps a custom runtime honest.
      ids.push(...page.filter((n) => n.source?.startsWith(prefix)).map((n) => n.id));
    }
    if (!ids.length) return { ids, confirmed: true };
    if (!yes) {
      const count = `${ids.length} note${ids.length === 1 ? "" : "s"}`;
      await io.stderr(`Forget ${count} ${what}? [y/N] `);
      const answer = (await io.readLine!())?.trim().toLowerCase();
      if (answer !== "y" && answer !== "yes") return { ids, confirmed: false };
    }
    if (!runtime.forgetMany) {
      throw new Error("Cannot forget notes by source: this runtime cannot forget in one batch");
    }
    const forgotten = await runtime.forgetMany(ids);
    return { ids: forgotten.map((n) => n.id), confirmed: true };
  });
  if (!outcome.confirmed) {
    throw new Error(`Cannot forget notes ${what}: not confirmed, nothing forgotten`);
  }
  const n = outcome.ids.length;
  if (json) await io.stdout(jsonDocument({ forgotten: n, ids: outcome.ids }));
  else if (!n) await io.stdout(`No notes ${what}.\n`);
  else await io.stdout(`Forgot ${n} note${n === 1 ? "" : "s"} ${what}.\n`);
  return 0;
}

/** `memo forget ID` and `memo forget --source PREFIX [--yes]`. */
export const forget: CliCommand = {
  ...COMMAND_INFO.forget,
  async run(argv, io) {
    const p = parseArgs(argv, {
      string: ["dir", "source"],
      boolean: ["json", "yes"],
    });
    const prefix = stringFlag(p, "source");
    if (prefix !== undefined) return await forgetBySource(p, io, prefix);
    if (boolFlag(p, "yes")) throw new UsageError("flag --yes goes with --source");
    const [id] = positionals(p, ["id"]);
    const note = await withProjectRuntime(p, io, (runtime) => runtime.forget(id));
    if (boolFlag(p, "json")) await io.stdout(jsonDocument({ forgotten: note }));
    else await io.stdout(`forgot ${note.id}  ${note.title}\n`);
    return 0;
  },
};
