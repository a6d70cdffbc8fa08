/**
 * The `memo` command. Run it with `deno run -A cli.ts <command>` (or, after the
 * npm build, `npx @memo/mcp-server <command>`); `memo help` lists the commands.
 *
 * @example
 * ```sh
 * deno run -A cli.ts remember "The staging DB is db-stage-2" --label infra
 * deno run -A cli.ts recall "staging database"
 * ```
 *
 * @module
 */

import * as platform from "./_platform.ts";
import { runCli } from "./cli/main.ts";

const code = await runCli(platform.args(), {
  stdout: platform.writeStdout,
  stderr: platform.writeStderr,
  stderrIsTerminal: platform.stderrIsTerminal(),
  env: platform.envObject(),
  cwd: platform.cwd(),
  readStdin: async () => await new Response(await platform.stdin()).text(),
  stdin: platform.stdin,
  stdoutStream: platform.stdout,
  onShutdownSignal: platform.onShutdownSignal,
  serve: platform.serve,
});
platform.exit(code);
