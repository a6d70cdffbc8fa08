/**
 * The `memo` command: `runCli` (which `cli.ts` hands the platform), the
 * subcommands' registry and the pieces they share. The commands live in
 * `init/`, `serve/`, `notes/` and `import/`, each loaded when it runs.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { recordingIO } from "../testing/cli_io.ts";
 * import { runCli } from "./mod.ts";
 *
 * const io = recordingIO(await Deno.makeTempDir());
 * assert.equal(await runCli(["help"], io), 0);
 * assert.match(io.out.join(""), /memo/);
 * await Deno.remove(io.cwd, { recursive: true });
 * ```
 *
 * @module
 */

export * from "./main.ts";
export * from "./args.ts";
export * from "./command_info.ts";
export * from "./commands.ts";
export * from "./context.ts";
export * from "./output.ts";
export * from "./progress.ts";
export * from "./project.ts";
export * from "./runtime.ts";
export * from "./secrets.ts";
export * from "./export.ts";
export * from "./sync.ts";
export * from "./replicate.ts";
export * from "./write_file.ts";
export * from "./merge_file.ts";
export * from "./resolve.ts";
