/**
 * Test helper: runs the hosted endpoint as a subprocess — `deno serve
 * --host 127.0.0.1 --port <free> http.ts` or `deno run cli.ts serve` — and
 * stops it when the test is done.
 *
 * @module
 */

import { readUntil } from "../testing/wait.ts";

const ROOT = new URL("..", import.meta.url);

/** A server running in a subprocess. */
export interface ServeProcess {
  /** Base address, `http://127.0.0.1:<port>`. */
  readonly origin: string;
  /** Port it listens on. */
  readonly port: number;
  /** Everything it printed on stderr so far. */
  stderr(): string;
  /**
   * Sends `signal` (once, so a second signal cannot race the clean exit) and
   * waits for the exit; returns the exit code.
   *
   * @default {"SIGTERM"} signal
   */
  stop(signal?: Deno.Signal): Promise<number>;
  /** The process, for signals. */
  readonly child: Deno.ChildProcess;
}

/**
 * A port that was free a moment ago (bind to port 0, read it, close).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { freePort } from "./_serve_process.ts";
 *
 * const port = freePort();
 * assert.ok(port > 0 && port < 65536);
 * ```
 */
export function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}

/**
 * Starts `deno serve -A --host 127.0.0.1 --port <free> http.ts` with `env`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { startDenoServe } from "./_serve_process.ts";
 *
 * const dir = await Deno.makeTempDir();
 * const server = await startDenoServe({ MEMO_ROOT_DIR: dir });
 * const res = await fetch(`${server.origin}/elsewhere`);
 * assert.equal(res.status, 404);
 * await res.body?.cancel();
 * await server.stop();
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export function startDenoServe(env: Record<string, string>): Promise<ServeProcess> {
  const port = freePort();
  return start(
    ["serve", "-A", "--host", "127.0.0.1", "--port", String(port), "http.ts"],
    env,
    /Listening on|listening on/,
    port,
  );
}

/**
 * Starts `deno run -A cli.ts serve --port <port> …args` (port 0 by default:
 * a free one) and reads the port from its `memo: listening on …` line.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { startMemoServe } from "./_serve_process.ts";
 *
 * const dir = await Deno.makeTempDir();
 * const server = await startMemoServe(["--dir", dir], {});
 * const res = await fetch(`${server.origin}/elsewhere`);
 * assert.equal(res.status, 404);
 * await res.body?.cancel();
 * await server.stop();
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export function startMemoServe(
  args: string[],
  env: Record<string, string>,
  port = 0,
): Promise<ServeProcess> {
  return start(
    ["run", "-A", "cli.ts", "serve", "--port", String(port), ...args],
    env,
    /memo: listening on http:\/\/[^\s]+:(\d+)\//,
  );
}

async function start(
  args: string[],
  env: Record<string, string>,
  ready: RegExp,
  knownPort?: number,
): Promise<ServeProcess> {
  const child = new Deno.Command(Deno.execPath(), {
    args,
    cwd: ROOT,
    env: { NO_COLOR: "1", DENO_NO_UPDATE_CHECK: "1", ...env },
    clearEnv: false,
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const reader = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
  let port = knownPort;
  let exited = false;
  child.status.then(() => (exited = true));
  // The deadline cancels the pending read, so a child that goes silent cannot hang the test.
  let started: { text: string; done: boolean };
  try {
    started = await readUntil(reader, (t) => ready.test(t), "the server to listen", {
      ms: 60_000,
    });
  } catch (e) {
    child.kill("SIGKILL");
    await child.status;
    throw new Error(`server did not start in time: ${(e as Error).message}`);
  }
  let text = started.text;
  if (started.done) {
    await child.status;
    throw new Error(`server exited before it listened; stderr:\n${text}`);
  }
  if (knownPort === undefined) port = Number(text.match(ready)![1]);
  const draining = (async () => {
    try {
      while (true) {
        const { done, value } = await reader.read();
        if (done) break;
        text += value;
      }
    } catch { /* closed */ }
  })();
  return {
    origin: `http://127.0.0.1:${port}`,
    port: port!,
    child,
    stderr: () => text,
    async stop(signal: Deno.Signal = "SIGTERM") {
      if (!exited) {
        try {
          child.kill(signal);
        } catch { /* gone */ }
      }
      const timer = setTimeout(() => {
        try {
          child.kill("SIGKILL");
        } catch { /* gone */ }
      }, 10_000);
      const status = await child.status;
      clearTimeout(timer);
      await draining;
      return status.code;
    },
  };
}
