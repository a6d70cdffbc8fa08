/**
 * Test helper: runs the reference Cloud API server, `deno serve cloud/main.ts`,
 * as a subprocess on a loopback port (a free one, or one given, so that a
 * killed server can come back at the same address), and stops or kills it.
 *
 * @module
 */

import { fileURLToPath } from "node:url";
import type { MemoCloudClient, MemoCloudNote } from "../runtimes/cloud/client.ts";
import { pageCounter } from "../testing/pages.ts";

const ROOT = fileURLToPath(new URL("..", import.meta.url));

/**
 * The variables a Deno subprocess needs from ours, and nothing `MEMO_*`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { inherited } from "./_cloud_process.ts";
 *
 * const env = inherited();
 * assert.equal(env.NO_COLOR, "1");
 * assert.ok(Object.keys(env).every((name) => !name.startsWith("MEMO_")));
 * ```
 */
export function inherited(): Record<string, string> {
  const out: Record<string, string> = { NO_COLOR: "1", DENO_NO_UPDATE_CHECK: "1" };
  for (const name of ["PATH", "HOME", "DENO_DIR", "XDG_CACHE_HOME", "TMPDIR"]) {
    const value = Deno.env.get(name);
    if (value !== undefined) out[name] = value;
  }
  return out;
}

/**
 * A `deno serve cloud/main.ts` subprocess.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type CloudProcess, startCloudProcess } from "./_cloud_process.ts";
 *
 * const data = await Deno.makeTempDir();
 * const server: CloudProcess = await startCloudProcess({
 *   MEMO_CLOUD_DATA_DIR: data,
 *   MEMO_CLOUD_API_KEYS: "mk_doc_example:team",
 * });
 * assert.match(server.origin, /^http:\/\/127\.0\.0\.1:\d+$/);
 * assert.equal(server.origin, `http://127.0.0.1:${server.port}`);
 * assert.equal((await server.stop()).signal, null); // SIGTERM: it exits by itself
 * await Deno.remove(data, { recursive: true });
 * ```
 */
export interface CloudProcess {
  /** `http://127.0.0.1:<port>`. */
  readonly origin: string;
  /** The port it listens on. */
  readonly port: number;
  /** Everything it wrote to stderr so far. */
  log(): string;
  /** SIGTERM; SIGKILL when it has not exited 5 s later. */
  stop(): Promise<Deno.CommandStatus>;
  /** SIGKILL at once (a crash), and waits for the exit. */
  kill(): Promise<Deno.CommandStatus>;
}

/** Options of {@linkcode startCloudProcess}. *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type CloudProcessOptions } from "./_cloud_process.ts";
 *
 * const options: CloudProcessOptions = { port: 8788 };
 * assert.equal(options.port, 8788);
 * ```
 */
export interface CloudProcessOptions {
  /**
   * Port to listen on (to restart a killed server at the same address).
   * @default 0 (a free port the server picks)
   */
  port?: number;
  /**
   * Run `memo cloud serve` (`cli.ts`, which drains on SIGTERM: `MEMO_CLOUD_DRAIN_MS`) instead
   * of `deno serve cloud/main.ts`.
   * @default false
   */
  cli?: boolean;
}

/**
 * Starts `deno serve -A --host 127.0.0.1 --port <port> cloud/main.ts` (or, with
 * `cli`, `memo cloud serve --port <port>`) with
 * `env` (and {@linkcode inherited}, nothing else), waits for its listening
 * line, and checks `/v1/health` answers with the store `env` selects
 * (`postgres` with `MEMO_CLOUD_DATABASE_URL`, else `file`).
 *
 * @example Killed, then back on the same port
 * ```ts
 * import assert from "node:assert/strict";
 * import { startCloudProcess } from "./_cloud_process.ts";
 *
 * const data = await Deno.makeTempDir();
 * const env = { MEMO_CLOUD_DATA_DIR: data, MEMO_CLOUD_API_KEYS: "mk_doc_example:team" };
 * const first = await startCloudProcess(env);
 * assert.equal((await first.kill()).signal, "SIGKILL");
 * await assert.rejects(fetch(`${first.origin}/v1/health`)); // nobody listens
 * const again = await startCloudProcess(env, { port: first.port });
 * assert.equal(again.origin, first.origin);
 * const health = await fetch(`${again.origin}/v1/health`);
 * assert.equal((await health.json()).store, "file");
 * await again.stop();
 * await Deno.remove(data, { recursive: true });
 * ```
 */
export async function startCloudProcess(
  env: Record<string, string>,
  options: CloudProcessOptions = {},
): Promise<CloudProcess> {
  const port = String(options.port ?? 0);
  const child = new Deno.Command(Deno.execPath(), {
    args: options.cli
      ? ["run", "-A", "cli.ts", "cloud", "serve", "--port", port]
      : ["serve", "-A", "--host", "127.0.0.1", "--port", port, "cloud/main.ts"],
    cwd: ROOT,
    env: { ...inherited(), ...env },
    clearEnv: true,
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  let text = "";
  const ready = Promise.withResolvers<string>();
  // Drain stderr all the time: a full pipe would stall the server's request log.
  const drained = (async () => {
    for await (const chunk of child.stderr.pipeThrough(new TextDecoderStream())) {
      text += chunk;
      const origin = /memo: cloud API listening on (http:\/\/127\.0\.0\.1:\d+)\/v1\n/.exec(text)
        ?.[1];
      if (origin) ready.resolve(origin);
    }
    ready.reject(new Error(`the cloud server exited before listening:\n${text}`));
  })();
  const timer = setTimeout(
    () => ready.reject(new Error(`the cloud server did not listen within 30 s:\n${text}`)),
    30_000,
  );
  const origin = await ready.promise.catch(async (e) => {
    child.kill("SIGKILL");
    await child.status;
    await drained;
    throw e;
  }).finally(() => clearTimeout(timer));
  // The store opens (and migrates) at start, before the first request is served.
  const health = await (await fetch(`${origin}/v1/health`)).json();
  const store = env.MEMO_CLOUD_DATABASE_URL ? "postgres" : "file";
  if (health.store !== store) {
    child.kill("SIGKILL");
    await child.status;
    await drained;
    throw new Error(`the cloud server serves the ${health.store} store, not ${store}`);
  }
  let status: Promise<Deno.CommandStatus> | undefined;
  const end = (signal: Deno.Signal): Promise<Deno.CommandStatus> => {
    status ??= (async () => {
      try {
        child.kill(signal);
      } catch { /* already gone */ }
      // SIGTERM: it exits by itself (the store closed); a hang is killed, then reported.
      const timer = setTimeout(() => {
        try {
          child.kill("SIGKILL");
        } catch { /* gone meanwhile */ }
      }, 5000);
      const result = await child.status;
      clearTimeout(timer);
      await drained;
      return result;
    })();
    return status;
  };
  return {
    origin,
    port: Number(new URL(origin).port),
    log: () => text,
    stop: () => end("SIGTERM"),
    kill: () => end("SIGKILL"),
  };
}

/** Every note of the client's project, page by page. */
export async function cloudNotes(client: MemoCloudClient): Promise<MemoCloudNote[]> {
  const notes: MemoCloudNote[] = [];
  let cursor: string | undefined;
  const nextPage = pageCounter("the pages of client.list()");
  do {
    nextPage();
    const page = await client.list({ cursor, limit: 100 });
    notes.push(...page.notes);
    cursor = page.nextCursor;
  } while (cursor);
  return notes;
}
