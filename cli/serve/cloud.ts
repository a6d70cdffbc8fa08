/**
 * `memo cloud serve`: the reference Cloud API server (`cloud/`) on 127.0.0.1:8788 by default,
 * configured by the `MEMO_CLOUD_*` variables like `deno serve cloud/main.ts`. It runs under Deno
 * and, after the npm build, under Node (`CliIO.serve`).
 *
 * @module
 */

import { createMemoCloudServerFromEnv } from "../../cloud/mod.ts";
import { readEnv } from "../../env.ts";
import { defaultLogLevel } from "../../server/http/mod.ts";
import { boolFlag, intFlag, parseArgs, positionals, stringFlag, UsageError } from "../args.ts";
import { COMMAND_INFO } from "../command_info.ts";
import type { CliCommand, CliIO } from "../context.ts";
import { jsonDocument, orderedWriter } from "../output.ts";
import { listen, shutdownOnSignal } from "./_shutdown.ts";

/**
 * Default interface of `memo cloud serve`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { cloudServeConfig, DEFAULT_CLOUD_HOST } from "./cloud.ts";
 *
 * assert.equal(cloudServeConfig([], "/srv").hostname, DEFAULT_CLOUD_HOST);
 * assert.equal(DEFAULT_CLOUD_HOST, "127.0.0.1");
 * ```
 */
export const DEFAULT_CLOUD_HOST = "127.0.0.1";

/**
 * Default port of `memo cloud serve`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { cloudServeConfig, DEFAULT_CLOUD_PORT } from "./cloud.ts";
 *
 * assert.equal(cloudServeConfig([], "/srv").port, DEFAULT_CLOUD_PORT);
 * assert.equal(DEFAULT_CLOUD_PORT, 8788);
 * ```
 */
export const DEFAULT_CLOUD_PORT = 8788;

const SPEC = { string: ["host", "port", "dir"], boolean: ["json"] };

/**
 * Where `memo cloud serve` listens.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type CloudServeConfig, cloudServeConfig } from "./cloud.ts";
 *
 * const config: CloudServeConfig = cloudServeConfig(["--port", "0"], "/srv");
 * assert.deepEqual(config, { hostname: "127.0.0.1", port: 0, cwd: "/srv", json: false });
 * ```
 */
export interface CloudServeConfig {
  hostname: string;
  /** Port to bind; 0 picks a free one. */
  port: number;
  /** Folder a relative `MEMO_CLOUD_DATA_DIR` (default `./memo-cloud-data`) is resolved against. */
  cwd: string;
  /** Print `{ url }` on stdout once listening. */
  json: boolean;
}

/**
 * Reads the flags of `memo cloud serve` (after `serve`): `--host`, `--port`, `--dir` (the folder a
 * relative data folder is resolved against) and `--json`. Throws `UsageError` for bad flags.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { cloudServeConfig } from "./cloud.ts";
 *
 * const config = cloudServeConfig(["--host", "0.0.0.0", "--port=9000", "--dir", "/data"], "/");
 * assert.equal(config.hostname, "0.0.0.0");
 * assert.equal(config.port, 9000);
 * assert.equal(config.cwd, "/data");
 * assert.throws(() => cloudServeConfig(["--port", "70000"], "/"), /--port must be an integer/);
 * ```
 */
export function cloudServeConfig(argv: readonly string[], cwd: string): CloudServeConfig {
  const p = parseArgs(argv, SPEC);
  if (p.positional.length) {
    throw new UsageError(`unexpected argument ${JSON.stringify(p.positional[0])}`);
  }
  const hostname = stringFlag(p, "host") ?? DEFAULT_CLOUD_HOST;
  if (hostname === "") throw new UsageError("flag --host needs a value");
  return {
    hostname,
    port: intFlag(p, "port", 0, 65535) ?? DEFAULT_CLOUD_PORT,
    cwd: stringFlag(p, "dir") ?? cwd,
    json: p.flags.json === true,
  };
}

function isLoopback(hostname: string): boolean {
  return hostname === "localhost" || hostname === "::1" || /^127\./.test(hostname);
}

/**
 * `memo cloud purge-idempotency [--older-than-minutes N] [--json]`: deletes the answers the
 * reference server keeps for `Idempotency-Key` replays (all of them by default; with N, those
 * answered more than N minutes ago), from the store `MEMO_CLOUD_DATABASE_URL` or
 * `MEMO_CLOUD_DATA_DIR` names. An operator runs it once after turning the secrets guard on, so that
 * no answer kept from before holds a secret.
 */
async function purgeIdempotency(argv: string[], io: CliIO): Promise<number> {
  const p = parseArgs(argv, { string: ["older-than-minutes"], boolean: ["json"] });
  positionals(p, []);
  const minutes = intFlag(p, "older-than-minutes", 0, 525_600) ?? 0;
  const { readCloudConfig, openCloudStore } = await import("../../cloud/mod.ts");
  const config = readCloudConfig(io.env, { cwd: io.cwd });
  const store = await openCloudStore(config);
  try {
    const purged = await store.idempotency.purge(new Date(Date.now() - minutes * 60_000));
    await io.stdout(
      boolFlag(p, "json")
        ? jsonDocument({ purged })
        : `Purged ${purged} idempotency record${purged === 1 ? "" : "s"}.\n`,
    );
  } finally {
    await store.close();
  }
  return 0;
}

async function runCloud(argv: string[], io: CliIO): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === "purge-idempotency") return await purgeIdempotency(rest, io);
  if (sub !== "serve") {
    throw new UsageError(
      sub === undefined
        ? "missing subcommand serve or purge-idempotency"
        : `unknown subcommand ${JSON.stringify(sub)}`,
    );
  }
  const config = cloudServeConfig(rest, io.cwd);
  const serve = io.serve;
  if (!serve) throw new Error("Cannot serve HTTP: this platform gives memo no server");
  const write = orderedWriter(io.stderr);
  const print = (line: string) => write(`${line}\n`);
  // MEMO_LOG_LEVEL as for `memo serve`: a bad value is a usage error; unset, `warn` on a
  // terminal and `info` otherwise (a service's log).
  let logLevel;
  try {
    logLevel = readEnv(io.env, "log").level ?? defaultLogLevel(io.stderrIsTerminal);
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  // Refuses to start, before listening, without keys or with a store that cannot open.
  let draining = false;
  const server = await createMemoCloudServerFromEnv(
    { ...io.env, MEMO_LOG_LEVEL: logLevel },
    { cwd: config.cwd, log: print, draining: () => draining },
  );
  const stopped = new AbortController();
  // SIGTERM (an orchestrator's stop) drains first: GET /readyz answers 503 while requests are
  // still served, so that a load balancer moves away. SIGINT (Ctrl+C) stops at once. Then the
  // server stops accepting connections; what is in flight gets at most a second.
  const drainMs = (signal?: string) => signal === "SIGTERM" ? server.config.drainMs : 0;
  const shutdown = shutdownOnSignal(io, (signal) => {
    if (drainMs(signal) <= 0) return;
    draining = true;
    void print(
      `memo: draining for ${drainMs(signal)} ms (GET /readyz answers 503), then stopping`,
    );
  }, drainMs);
  const listening = await listen(serve, server.handler, config, stopped.signal, async () => {
    shutdown.remove();
    await server.close();
  });
  const host = config.hostname.includes(":") ? `[${config.hostname}]` : config.hostname;
  const url = `http://${host}:${listening.port}/v1`;
  await print(`memo: cloud API listening on ${url}`);
  await print(
    `memo: store ${server.store.kind}${
      server.store.kind === "file" ? ` in ${server.config.dataDir}` : ""
    }; ${server.config.apiKeys.length} API key(s); press Ctrl+C to stop`,
  );
  if (!isLoopback(config.hostname)) {
    await print(
      `memo: warning: plain HTTP on ${config.hostname}: put TLS in front (a reverse proxy) ` +
        "before API keys cross a network",
    );
  }
  if (config.json) await io.stdout(jsonDocument({ url }));
  await shutdown.wait(listening, () => stopped.abort());
  shutdown.remove();
  await server.close();
  await print("memo: stopped");
  return 0;
}

/**
 * The `memo cloud` subcommand (`memo cloud serve`). It serves until a shutdown signal.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { serve } from "../../platform/mod.ts";
 * import { recordingIO } from "../../testing/cli_io.ts";
 * import { cloudCommand } from "./cloud.ts";
 *
 * const dataDir = await Deno.makeTempDir();
 * let stop = () => {};
 * let listening!: (url: string) => void;
 * const url = new Promise<string>((resolve) => (listening = resolve));
 * const io = {
 *   ...recordingIO(dataDir),
 *   env: { MEMO_CLOUD_API_KEYS: "k-team:team", MEMO_CLOUD_DATA_DIR: dataDir },
 *   stderr: (text: string) => {
 *     const m = /cloud API listening on (\S+)/.exec(text);
 *     if (m) listening(m[1]);
 *     return Promise.resolve();
 *   },
 *   serve,
 *   onShutdownSignal: (callback: () => void) => {
 *     stop = callback; // what Ctrl+C calls
 *     return () => {};
 *   },
 * };
 * const exit = cloudCommand.run(["serve", "--port", "0"], io);
 * const response = await fetch(`${await url}/whoami`, {
 *   headers: { authorization: "Bearer k-team" },
 * });
 * assert.deepEqual(await response.json(), { workspaceId: "team" });
 * stop();
 * assert.equal(await exit, 0);
 * await Deno.remove(dataDir, { recursive: true });
 * ```
 */
export const cloudCommand: CliCommand = {
  ...COMMAND_INFO.cloud,
  run: runCloud,
};
