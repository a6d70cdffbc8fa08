/**
 * Starting a program that outlives its parent (its standard streams closed), and the command
 * line that starts this very `memo` again: `memo hook` hands the rebuild of its index to such a
 * process, so that no prompt waits for it.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { selfCommand } from "./spawn_detached.ts";
 * const [program, ...args] = selfCommand(new URL("../cli.ts", import.meta.url).href);
 * assert.equal(program, Deno.execPath());
 * assert.deepEqual(args.slice(0, 2), ["run", "-A"]);
 * ```
 *
 * @module
 */

// deno-lint-ignore no-explicit-any
const g = globalThis as any;
// Typed loosely on purpose: the npm build compiles this file without Deno's types.
// deno-lint-ignore no-explicit-any
const deno: any = g.Deno;

/**
 * Starts `program` with `args` in `cwd`, detached: it keeps running after this process exits,
 * with no stdin, stdout or stderr. Never throws: it tells whether the program started.
 *
 * @example
 * ```ts
 * import { spawnDetached } from "./spawn_detached.ts";
 * await spawnDetached(Deno.execPath(), ["eval", "0"], Deno.cwd());
 * ```
 */
export async function spawnDetached(
  program: string,
  args: readonly string[],
  cwd: string,
): Promise<boolean> {
  try {
    if (deno) {
      const child = new deno.Command(program, {
        args: [...args],
        cwd,
        stdin: "null",
        stdout: "null",
        stderr: "null",
      }).spawn();
      child.unref();
      return true;
    }
    const { spawn } = await import("node:child_process");
    const child = spawn(program, [...args], { cwd, detached: true, stdio: "ignore" });
    // Node says whether it started by an event (a missing program is an "error", not a throw).
    const started = await new Promise<boolean>((resolve) => {
      child.once("spawn", () => resolve(true));
      child.once("error", () => resolve(false));
    });
    child.unref();
    return started;
  } catch {
    return false; // nothing started: the caller may try again
  }
}

/**
 * The command line that starts this `memo` again, from the URL of its entry module (`cli.ts`,
 * or `cli.js` once built): `<deno> run -A <entry>` under Deno, `<node> <entry>` under Node.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { selfCommand } from "./spawn_detached.ts";
 * assert.equal(selfCommand("file:///opt/memo/cli.ts").at(-1), "/opt/memo/cli.ts");
 * ```
 */
export function selfCommand(entryUrl: string): string[] {
  const entry = entryUrl.startsWith("file:")
    ? decodeURIComponent(new URL(entryUrl).pathname)
    : entryUrl;
  return deno ? [deno.execPath(), "run", "-A", entry] : [g.process.execPath, entry];
}
