/**
 * The process side of the Deno/Node adapter: process arguments, environment, stdin/stdout as web
 * streams, exit, terminal detection, shutdown signals and timers. Serving HTTP is in `_serve.ts`.
 * Everything else in the package uses web standards and `node:` builtins.
 *
 * @module
 */

// deno-lint-ignore no-explicit-any
const g = globalThis as any;
// Typed loosely on purpose: the npm build compiles this file without Deno's types.
// deno-lint-ignore no-explicit-any
const deno: any = g.Deno;

/**
 * A JavaScript host memo runs on.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { HostName } from "./process.ts";
 *
 * const host: HostName = "node";
 * assert.equal(host, "node");
 * ```
 */
export type HostName = "deno" | "node";

/**
 * The JavaScript host in use ("host", not "runtime": a runtime is the data behind the server).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { hostName } from "./process.ts";
 *
 * assert.ok(hostName === "deno" || hostName === "node");
 * ```
 */
export const hostName: HostName = deno ? "deno" : "node";

/**
 * The path of the program running memo (the `deno` or `node` binary).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { isAbsolute } from "node:path";
 * import { execPath } from "./process.ts";
 *
 * assert.ok(isAbsolute(execPath()));
 * ```
 */
export function execPath(): string {
  return deno ? deno.execPath() : g.process.execPath;
}

/**
 * Command-line arguments after the script.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { args } from "./process.ts";
 *
 * const argv = args(); // `memo recall "staging db"` gives ["recall", "staging db"]
 * assert.ok(argv.every((a) => typeof a === "string"));
 * ```
 */
export function args(): string[] {
  return deno ? [...deno.args] : g.process.argv.slice(2);
}

/**
 * One environment variable, or undefined (also when env access is denied).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { env } from "./process.ts";
 *
 * assert.equal(env("MEMO_EXAMPLE_VARIABLE_THAT_IS_NOT_SET"), undefined);
 * ```
 */
export function env(name: string): string | undefined {
  try {
    return deno ? deno.env.get(name) : g.process.env[name];
  } catch {
    return undefined;
  }
}

/**
 * All environment variables as a plain object ({} when access is denied).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { env, envObject } from "./process.ts";
 *
 * const all = envObject();
 * assert.equal(all.PATH, env("PATH"));
 * ```
 */
export function envObject(): Record<string, string> {
  try {
    return deno ? deno.env.toObject() : { ...g.process.env };
  } catch {
    return {};
  }
}

/**
 * The current working directory.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { isAbsolute } from "node:path";
 * import { cwd } from "./process.ts";
 *
 * assert.ok(isAbsolute(cwd()));
 * ```
 */
export function cwd(): string {
  return deno ? deno.cwd() : g.process.cwd();
}

/**
 * Standard input as a web stream of bytes.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { stdin } from "./process.ts";
 *
 * const input = await stdin(); // what `memo mcp` reads JSON-RPC lines from
 * assert.ok(input instanceof ReadableStream);
 * ```
 */
export async function stdin(): Promise<ReadableStream<Uint8Array>> {
  if (deno) return deno.stdin.readable;
  const { Readable } = await import("node:stream");
  return Readable.toWeb(g.process.stdin) as unknown as ReadableStream<Uint8Array>;
}

/**
 * All of standard input as text (UTF-8), read with the host's own calls (under Deno, no web
 * stream: a hook, a fresh process on every prompt, reads its input this way).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { readStdinText } from "./process.ts";
 *
 * assert.equal(typeof readStdinText, "function"); // `memo remember --file -` reads with it
 * ```
 */
export async function readStdinText(): Promise<string> {
  if (!deno) return await new Response(await stdin()).text();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const buffer = new Uint8Array(65536);
    const n = await deno.stdin.read(buffer);
    if (n === null) break;
    chunks.push(buffer.subarray(0, n));
    size += n;
  }
  const all = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) all.set(c, at), at += c.length;
  return new TextDecoder().decode(all);
}

/**
 * Standard output as a web stream of bytes.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { stdout } from "./process.ts";
 *
 * const output = await stdout(); // where `memo mcp` writes its answers
 * assert.ok(output instanceof WritableStream);
 * ```
 */
export async function stdout(): Promise<WritableStream<Uint8Array>> {
  if (deno) return deno.stdout.writable;
  const { Writable } = await import("node:stream");
  return Writable.toWeb(g.process.stdout) as unknown as WritableStream<Uint8Array>;
}

/**
 * Writes text to stdout and waits until it is flushed.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { writeStdout } from "./process.ts";
 *
 * // The CLI prints its results this way; an empty text keeps this example quiet.
 * assert.equal(await writeStdout(""), undefined);
 * ```
 */
export async function writeStdout(text: string): Promise<void> {
  await writeAll(deno ? deno.stdout : undefined, g.process?.stdout, text);
}

/**
 * Writes text to stderr and waits until it is flushed.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { writeStderr } from "./process.ts";
 *
 * // The CLI reports errors and progress this way; an empty text keeps this example quiet.
 * assert.equal(await writeStderr(""), undefined);
 * ```
 */
export async function writeStderr(text: string): Promise<void> {
  await writeAll(deno ? deno.stderr : undefined, g.process?.stderr, text);
}

async function writeAll(
  denoFile: { write(p: Uint8Array): Promise<number> } | undefined,
  // deno-lint-ignore no-explicit-any
  nodeStream: any,
  text: string,
): Promise<void> {
  const bytes = new TextEncoder().encode(text);
  if (denoFile) {
    let off = 0;
    while (off < bytes.length) off += await denoFile.write(bytes.subarray(off));
    return;
  }
  // The write's callback gets its error (EPIPE when the reader went away); the
  // stream emits it as an event as well, which would end the process unheard.
  if (!quietStreams.has(nodeStream)) {
    quietStreams.add(nodeStream);
    nodeStream.on("error", () => {});
  }
  await new Promise<void>((resolve, reject) =>
    nodeStream.write(bytes, (err: unknown) => (err ? reject(err) : resolve()))
  );
}

/** Node streams whose `error` events `writeAll` already handles through the write callbacks. */
const quietStreams = new WeakSet<object>();

/**
 * Whether stderr is a terminal (progress is shown only then).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { stderrIsTerminal } from "./process.ts";
 *
 * assert.equal(typeof stderrIsTerminal(), "boolean");
 * ```
 */
export function stderrIsTerminal(): boolean {
  return deno ? deno.stderr.isTerminal() : Boolean(g.process.stderr.isTTY);
}

/**
 * Whether stdin is a terminal (a command may then ask a question, such as `memo forget --source`'s
 * confirmation).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { stdinIsTerminal } from "./process.ts";
 *
 * assert.equal(typeof stdinIsTerminal(), "boolean");
 * ```
 */
export function stdinIsTerminal(): boolean {
  return deno ? deno.stdin.isTerminal() : Boolean(g.process.stdin.isTTY);
}

/**
 * Ends the process with a code. It does not return, so this example only defines the function that
 * would call it.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { exit } from "./process.ts";
 *
 * const failUsage = (): never => exit(2); // exit code 2: a usage error
 * assert.equal(typeof failUsage, "function");
 * ```
 */
export function exit(code: number): never {
  if (deno) deno.exit(code);
  g.process.exit(code);
  throw new Error("unreachable");
}

/**
 * Sets the code the process ends with once the event loop is empty.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { setExitCode } from "./process.ts";
 *
 * const before = Deno.exitCode;
 * setExitCode(1);
 * assert.equal(Deno.exitCode, 1);
 * setExitCode(before); // put it back, so that this example does not fail its process
 * ```
 */
export function setExitCode(code: number): void {
  if (deno) deno.exitCode = code;
  else g.process.exitCode = code;
}

/**
 * The signals {@linkcode onShutdownSignal} listens to.
 *
 * @example
 * ```ts
 * import type { ShutdownSignal } from "./process.ts";
 *
 * const signal: ShutdownSignal = "SIGTERM"; // an orchestrator's stop; SIGINT is Ctrl-C
 * ```
 */
export type ShutdownSignal = "SIGINT" | "SIGTERM";

/**
 * Registers a callback for SIGINT and SIGTERM (it is told which); returns a function that removes
 * it.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { onShutdownSignal } from "./process.ts";
 *
 * const controller = new AbortController();
 * const remove = onShutdownSignal(() => controller.abort()); // Ctrl-C stops a server
 * assert.equal(controller.signal.aborted, false);
 * remove();
 * ```
 */
export function onShutdownSignal(callback: (signal: ShutdownSignal) => void): () => void {
  const signals: ShutdownSignal[] = ["SIGINT", "SIGTERM"];
  const listeners = signals.map((s) => [s, () => callback(s)] as const);
  if (deno) {
    for (const [s, listener] of listeners) deno.addSignalListener(s, listener);
    return () => {
      for (const [s, listener] of listeners) deno.removeSignalListener(s, listener);
    };
  }
  for (const [s, listener] of listeners) g.process.on(s, listener);
  return () => {
    for (const [s, listener] of listeners) g.process.off(s, listener);
  };
}

/**
 * Lets the process exit while `timer` is pending (a background timer that must not keep a server
 * alive after it stopped). Returns the timer.
 *
 * @example
 * ```ts
 * import { unrefTimer } from "./process.ts";
 *
 * const timer = unrefTimer(setTimeout(() => {}, 60_000)); // does not hold the process
 * clearTimeout(timer);
 * ```
 */
export function unrefTimer<T>(timer: T): T {
  if (deno?.unrefTimer && typeof timer === "number") deno.unrefTimer(timer);
  else (timer as { unref?: () => void } | undefined)?.unref?.();
  return timer;
}

/**
 * This process's id.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { processId } from "./process.ts";
 *
 * assert.equal(processId(), Deno.pid); // e.g. written into a lock file
 * ```
 */
export function processId(): number {
  return deno ? deno.pid : g.process.pid;
}

/**
 * Whether a process with this id runs on this host (one that exists but belongs to another user
 * counts as running).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { isProcessAlive, processId } from "./process.ts";
 *
 * assert.equal(isProcessAlive(processId()), true);
 * ```
 */
export function isProcessAlive(pid: number): boolean {
  try {
    g.process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as { code?: string }).code === "EPERM";
  }
}
