/**
 * `memo serve`: the hosted MCP endpoint (stateless Streamable HTTP) on
 * 127.0.0.1:8787/mcp by default, for the project in `--dir`. It runs under
 * Deno and, after the npm build, under Node (`serve()` of `_platform.ts`).
 *
 * @module
 */

import { serve } from "../_platform.ts";
import { createHttpEndpoint } from "../server/http_endpoint.ts";
import { isLoopbackHost } from "../server/http_origin.ts";
import { boolFlag, intFlag, parseArgs, type ParsedArgs, stringFlag, UsageError } from "./args.ts";
import { COMMAND_INFO } from "./command_info.ts";
import type { CliCommand, CliIO } from "./context.ts";
import { jsonDocument } from "./output.ts";
import { findProjectRoot } from "./project.ts";

/** Default interface of `memo serve`. */
export const DEFAULT_SERVE_HOST = "127.0.0.1";
/** Default port of `memo serve`. */
export const DEFAULT_SERVE_PORT = 8787;

const LIMIT_FLAGS = [
  ["request-timeout-ms", "MEMO_MCP_REQUEST_TIMEOUT_MS"],
  ["max-input-bytes", "MEMO_MCP_MAX_INPUT_BYTES"],
  ["max-output-bytes", "MEMO_MCP_MAX_OUTPUT_BYTES"],
  ["default-page-size", "MEMO_MCP_DEFAULT_PAGE_SIZE"],
  ["max-page-size", "MEMO_MCP_MAX_PAGE_SIZE"],
] as const;

const SPEC = {
  string: ["dir", "host", "port", "allowed-origins", ...LIMIT_FLAGS.map(([f]) => f)],
  boolean: ["json", "read-only", "no-auth"],
};

/**
 * The configuration `memo serve` runs with: flags laid over the `MEMO_*`
 * variables. Throws `UsageError` for bad flags and for a non-loopback host
 * without a token (unless `--no-auth`).
 *
 * @example
 * ```ts
 * import { serveConfig } from "./serve.ts";
 * const c = await serveConfig(["--port", "0", "--read-only"], { env: {}, cwd: "." });
 * console.log(c.hostname, c.port, c.env.MEMO_MCP_READ_ONLY); // "127.0.0.1" 0 "true"
 * ```
 */
export async function serveConfig(
  argv: readonly string[],
  io: Pick<CliIO, "env" | "cwd">,
): Promise<
  { hostname: string; port: number; env: Record<string, string | undefined>; warning?: string }
> {
  const p: ParsedArgs = parseArgs(argv, SPEC);
  if (p.positional.length) {
    throw new UsageError(`unexpected argument ${JSON.stringify(p.positional[0])}`);
  }
  const env: Record<string, string | undefined> = { ...io.env };
  const dir = stringFlag(p, "dir");
  env.MEMO_ROOT_DIR = dir !== undefined || !env.MEMO_ROOT_DIR
    ? await findProjectRoot(dir, io.cwd)
    : await findProjectRoot(env.MEMO_ROOT_DIR, io.cwd);
  if (boolFlag(p, "read-only")) env.MEMO_MCP_READ_ONLY = "true";
  const origins = stringFlag(p, "allowed-origins");
  if (origins !== undefined) env.MEMO_MCP_ALLOWED_ORIGINS = origins;
  for (const [flag, name] of LIMIT_FLAGS) {
    const n = intFlag(p, flag, 1, Number.MAX_SAFE_INTEGER);
    if (n !== undefined) env[name] = String(n);
  }
  const noAuth = boolFlag(p, "no-auth");
  if (noAuth) env.MEMO_MCP_REQUIRE_AUTH = "false";
  const hostname = stringFlag(p, "host") ?? DEFAULT_SERVE_HOST;
  if (hostname === "") throw new UsageError("flag --host needs a value");
  const port = intFlag(p, "port", 0, 65535) ?? DEFAULT_SERVE_PORT;
  const hasToken = (env.MEMO_MCP_BEARER_TOKEN ?? "").trim() !== "";
  const loopback = isLoopbackHost(hostname.includes(":") ? `[${hostname}]` : hostname);
  let warning: string | undefined;
  if (!loopback && !hasToken) {
    if (!noAuth) {
      throw new UsageError(
        `refusing to listen on ${hostname} without authentication: ` +
          "set MEMO_MCP_BEARER_TOKEN, or pass --no-auth",
      );
    }
    warning = "without authentication only requests whose Host is loopback are answered " +
      "(DNS-rebinding protection); set MEMO_MCP_BEARER_TOKEN to serve other machines";
  }
  return { hostname, port, env, warning };
}

function urlOf(hostname: string, port: number, path: string): string {
  const host = hostname.includes(":") ? `[${hostname}]` : hostname;
  return `http://${host}:${port}${path}`;
}

function hint(url: string, auth: boolean): string {
  const authHeader = auth ? ' -H "Authorization: Bearer $MEMO_MCP_BEARER_TOKEN"' : "";
  return [
    `memo: connect an MCP client with the Streamable HTTP transport to ${url}` +
    (auth ? " (header Authorization: Bearer <MEMO_MCP_BEARER_TOKEN>)" : ""),
    `memo:   e.g. claude mcp add --transport http memo ${url}${authHeader}`,
    `memo:   or: curl -s${authHeader} -H 'Content-Type: application/json' ` +
    `-d '{"jsonrpc":"2.0","id":1,"method":"tools/list"}' ${url}`,
    "memo: press Ctrl+C to stop",
  ].join("\n") + "\n";
}

async function runServe(argv: string[], io: CliIO): Promise<number> {
  const config = await serveConfig(argv, io);
  const json = argv.includes("--json");
  const endpoint = createHttpEndpoint({}, config.env, { routed: true, cwd: io.cwd });
  try {
    await endpoint.server(); // fail before listening when the runtime cannot start
  } catch (e) {
    await endpoint.close();
    throw e;
  }
  const stopped = new AbortController();
  const removeSignal = io.onShutdownSignal?.(() => stopped.abort());
  let server;
  try {
    server = await serve(endpoint.handle, {
      hostname: config.hostname,
      port: config.port,
      signal: stopped.signal,
    });
  } catch (e) {
    removeSignal?.();
    await endpoint.close();
    const reason = (e as { code?: string }).code ?? (e instanceof Error ? e.message : String(e));
    throw new Error(`Cannot listen on ${config.hostname}:${config.port}: ${reason}`);
  }
  const url = urlOf(config.hostname, server.port, endpoint.path ?? "/mcp");
  await io.stderr(`memo: listening on ${url}\n`);
  if (config.warning) await io.stderr(`memo: warning: ${config.warning}\n`);
  await io.stderr(hint(url, endpoint.authRequired));
  if (json) await io.stdout(jsonDocument({ url, authRequired: endpoint.authRequired }));
  await server.finished;
  removeSignal?.();
  await endpoint.close();
  await io.stderr("memo: stopped\n");
  return 0;
}

/** The `memo serve` subcommand. */
export const serveCommand: CliCommand = {
  ...COMMAND_INFO.serve,
  run: runServe,
};
