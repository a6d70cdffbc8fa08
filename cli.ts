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

import * as platform from "./platform/mod.ts";
import { runCli } from "./cli/main.ts";

/** One line of stdin, read up to its line break and no further (an answer to a question). */
async function readLine(): Promise<string | undefined> {
  const reader = (await platform.stdin()).getReader();
  const bytes: number[] = [];
  let ended = false;
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) {
        ended = true;
        break;
      }
      const end = value.indexOf(10);
      bytes.push(...(end === -1 ? value : value.subarray(0, end)));
      if (end !== -1) break;
    }
  } finally {
    reader.releaseLock();
  }
  if (ended && !bytes.length) return undefined;
  return new TextDecoder().decode(new Uint8Array(bytes)).replace(/\r$/, "");
}

const code = await runCli(platform.args(), {
  stdout: platform.writeStdout,
  stderr: platform.writeStderr,
  stderrIsTerminal: platform.stderrIsTerminal(),
  env: platform.envObject(),
  cwd: platform.cwd(),
  program: { name: platform.hostName, path: platform.execPath() },
  readStdin: platform.readStdinText,
  stdinIsTerminal: platform.stdinIsTerminal(),
  readLine,
  stdin: platform.stdin,
  stdoutStream: platform.stdout,
  onShutdownSignal: platform.onShutdownSignal,
  serve: platform.serve,
  runProgram: platform.runProgram,
  files: platform.hostFiles,
  spawnDetached: platform.spawnDetached,
  // Worked out when a command needs it (memo hook's rebuild), not at every start.
  get self() {
    return platform.selfCommand(import.meta.url);
  },
});
platform.exit(code);
