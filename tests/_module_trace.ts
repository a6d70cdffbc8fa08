/**
 * Test helper: runs a Deno process under the V8 inspector (`--inspect-wait`) and records every
 * script its main thread compiles (`Debugger.scriptParsed`), so that a test can say which modules
 * a process loaded at run time: static imports, dynamic ones, npm packages (ESM and CommonJS
 * alike). `tests/start_modules_test.ts` proves with it what `memo` loads at start.
 *
 * @module
 */

const ROOT = new URL("..", import.meta.url);

/** A traced process. */
export interface TracedProcess {
  /** The process (its stdin and stdout are piped when asked for). */
  readonly child: Deno.ChildProcess;
  /** Everything it printed on stderr so far (after the inspector's own lines). */
  stderr(): string;
  /** Resolves once stderr matches `pattern` (rejects when the process ends first). */
  waitForStderr(pattern: RegExp): Promise<RegExpMatchArray>;
  /**
   * The URLs of the scripts compiled so far, in order: after a round trip through the inspector,
   * so that every script compiled before the call is in.
   */
  scripts(): Promise<string[]>;
  /**
   * Ends the trace and the process: detaches the inspector (a process that ended waits for it),
   * then sends `signal` unless the process already ended; resolves with its exit code.
   */
  stop(signal?: Deno.Signal): Promise<number>;
}

/** Options of {@linkcode traceProcess}. */
export interface TraceOptions {
  /** Extra variables. */
  env?: Record<string, string>;
  /** Pipe stdin and stdout (an MCP server over stdio); else both are null. */
  stdio?: boolean;
}

/**
 * Starts `deno <command> --inspect-wait=127.0.0.1:0 <rest>` in the repository (`args[0]` is the
 * subcommand: `run`, `serve`) and attaches to it as it starts.
 *
 * `--inspect-wait` starts the program as soon as the socket connects, a moment before
 * `Debugger.enable` reaches it. V8 then reports every script compiled so far that is still alive,
 * so a process that is still serving is seen whole; but a program that ends in that moment can
 * lose its main module from the list (about one run in thirty of a one-line module). What this
 * helper proves is therefore what a process *loads*, and a test's "loaded nothing of X" is never
 * made to fail by a miss. (`--inspect-brk` would close the gap, but Deno 2.9 sometimes never leaves
 * its wait under it, and `deno serve` never does.)
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { traceProcess } from "./_module_trace.ts";
 *
 * // memo mcp serves over stdio until its stdin ends: nothing it loads can end before the trace.
 * const dir = await Deno.makeTempDir();
 * const traced = await traceProcess(["run", "-A", "cli.ts", "mcp", "--dir", dir], { stdio: true });
 * await traced.child.stdin.close();
 * await traced.waitForStderr(/Waiting for the debugger to disconnect/);
 * assert.ok((await traced.scripts()).some((url) => url.endsWith("/cli.ts")));
 * assert.equal(await traced.stop(), 0);
 * await traced.child.stdout.cancel();
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function traceProcess(
  args: string[],
  options: TraceOptions = {},
): Promise<TracedProcess> {
  const [command, ...rest] = args;
  const child = new Deno.Command(Deno.execPath(), {
    args: [command, "--inspect-wait=127.0.0.1:0", ...rest],
    cwd: ROOT,
    env: { NO_COLOR: "1", DENO_NO_UPDATE_CHECK: "1", ...options.env },
    stdin: options.stdio ? "piped" : "null",
    stdout: options.stdio ? "piped" : "null",
    stderr: "piped",
  }).spawn();
  let exited = false;
  const status = child.status.then((s) => {
    exited = true;
    return s;
  });
  let text = "";
  const changed: Array<() => void> = [];
  const reader = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
  const draining = (async () => {
    try {
      while (true) {
        const { done, value } = await reader.read();
        if (done) break;
        text += value;
        for (const wake of changed.splice(0)) wake();
      }
    } catch { /* closed */ }
    exited = true;
    for (const wake of changed.splice(0)) wake();
  })();
  const waitForStderr = async (pattern: RegExp): Promise<RegExpMatchArray> => {
    while (true) {
      const match = text.match(pattern);
      if (match) return match;
      if (exited) throw new Error(`the process ended before ${pattern}; stderr:\n${text}`);
      await new Promise<void>((wake) => changed.push(wake));
    }
  };
  const url = (await waitForStderr(/ws:\/\/\S+/))[0];
  const socket = new WebSocket(url);
  await new Promise<void>((resolve, reject) => {
    socket.onopen = () => resolve();
    socket.onerror = () => reject(new Error(`Cannot attach to ${url}`));
  });
  const scripts: string[] = [];
  const answers = new Map<number, () => void>();
  let nextId = 0;
  const send = (method: string, params: Record<string, unknown> = {}) => {
    const id = ++nextId;
    const answered = new Promise<void>((resolve) => answers.set(id, resolve));
    socket.send(JSON.stringify({ id, method, params }));
    return answered;
  };
  socket.onmessage = (event) => {
    const message = JSON.parse(event.data);
    if (message.method === "Debugger.scriptParsed") scripts.push(message.params.url);
    else if (typeof message.id === "number") answers.get(message.id)?.();
  };
  const closed = new Promise<void>((resolve) => socket.onclose = () => resolve());
  await send("Debugger.enable");
  await send("Runtime.runIfWaitingForDebugger");
  const start = text.length;
  return {
    child,
    stderr: () => text.slice(start),
    waitForStderr: (pattern) => waitForStderr(pattern),
    async scripts() {
      await send("Runtime.evaluate", { expression: "0" });
      return scripts.filter((s) => s !== "");
    },
    async stop(signal: Deno.Signal = "SIGTERM") {
      socket.close();
      await closed;
      // A process that ended its work waits for the inspector to detach, then exits by itself.
      if (!exited && !text.includes("Waiting for the debugger to disconnect")) {
        try {
          child.kill(signal);
        } catch { /* gone */ }
      }
      const { code } = await status;
      await draining;
      return code;
    },
  };
}

/**
 * The npm packages among script URLs (`name` or `@scope/name`), from Deno's npm cache
 * (`…/registry.npmjs.org/<name>/<version>/…`) or a `node_modules` folder.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { npmPackagesOf } from "./_module_trace.ts";
 *
 * assert.deepEqual(
 *   npmPackagesOf([
 *     "file:///root/.cache/deno/npm/registry.npmjs.org/zod/4.1.0/index.js",
 *     "file:///root/.cache/deno/npm/registry.npmjs.org/@energetic-ai/core/0.2.0/dist/index.js",
 *     "file:///app/node_modules/porter2/dist/index.js",
 *     "file:///repo/memory/mod.ts",
 *   ]),
 *   ["@energetic-ai/core", "porter2", "zod"],
 * );
 * ```
 */
export function npmPackagesOf(urls: readonly string[]): string[] {
  const names = new Set<string>();
  for (const url of urls) {
    const m = url.match(/\/registry\.npmjs\.org\/((?:@[^/]+\/)?[^/]+)\//) ??
      url.match(/\/node_modules\/((?:@[^/]+\/)?[^/]+)\//);
    if (m) names.add(m[1]);
  }
  return [...names].sort();
}

/**
 * The repository's own modules among script URLs, relative to the repository (`memory/mod.ts`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { repoModulesOf } from "./_module_trace.ts";
 *
 * const root = new URL("..", import.meta.url).href;
 * assert.deepEqual(repoModulesOf([`${root}memory/mod.ts`, "ext:core/01_core.js"]), ["memory/mod.ts"]);
 * ```
 */
export function repoModulesOf(urls: readonly string[]): string[] {
  const root = ROOT.href;
  return urls.filter((u) => u.startsWith(root) && !u.includes("/node_modules/"))
    .map((u) => u.slice(root.length));
}
