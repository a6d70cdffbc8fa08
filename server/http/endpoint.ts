/**
 * Turns {@linkcode MemoMcpHttpOptions} plus an environment into one endpoint: the compiled request
 * handler and the protocol server and runtime behind it, built once, at the first request that
 * needs them (never per request). Options win over `MEMO_*` variables; defaults are applied here
 * and in `resolveMemoMcpOptions`, nowhere else.
 *
 * @module
 */

import type { MemoMcpRuntime, RuntimeCloseOptions } from "../../runtimes/types.ts";
import { createMemoMcpProtocolServer } from "../protocol_server.ts";
import { MEMO_MCP_DEFAULTS, type MemoMcpOptions } from "../options.ts";
import { MEMO_MCP_LIMITS } from "../limits.ts";
import type { MemoMcpProtocolServer } from "../types.ts";
import { readEnv } from "../../env.ts";
import type { MemoMcpHttpEnv } from "./options.ts";
import { createAuthenticator } from "./auth.ts";
import { createHttpHandler, pathOf } from "./handler.ts";
import { OAuthResourceServer, type ProjectOAuthConfig, resolveOAuthConfig } from "./oauth/mod.ts";
import { DEFAULT_ALLOWED_ORIGINS } from "./origin.ts";
import type { MemoMcpHttpOptions } from "./options.ts";
import { type AsyncPageHandler, createPageHandler } from "./page.ts";
import { VERSION } from "../../version.ts";
import { HEALTHZ_PATH, healthzResponse } from "../../platform/mod.ts";

/**
 * One configured endpoint. A routed one also serves the web page (on `/` by default, its assets
 * under `/_memo/assets/`) unless `ui` is off.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createMemoMcpRuntimeFromConfig } from "@memo/mcp-server";
 * import { createHttpEndpoint, type HttpEndpoint } from "./endpoint.ts";
 *
 * const rootDir = await Deno.makeTempDir();
 * const endpoint: HttpEndpoint = createHttpEndpoint({}, { MEMO_MCP_BEARER_TOKEN: "s3cret" }, {
 *   runtime: () => createMemoMcpRuntimeFromConfig({ rootDir }),
 * });
 * assert.equal(endpoint.authRequired, true);
 * assert.equal(endpoint.path, undefined); // not routed: it answers any path
 * assert.equal((await endpoint.server()).name, "memo"); // builds the runtime
 * await endpoint.close(); // closes the runtime it built
 * await Deno.remove(rootDir, { recursive: true });
 * ```
 */
export interface HttpEndpoint {
  readonly handle: (request: Request) => Promise<Response>;
  /** Builds (once) and returns the protocol server; rejects when the runtime cannot start. */
  server(): Promise<MemoMcpProtocolServer>;
  /**
   * Ends the open `subscriptions/listen` streams, each with its completion result (a listen opened
   * later ends at once). A server shutting down calls it first, so that its open responses finish.
   */
  closeStreams(): void;
  /**
   * Ends the listen streams, then closes the runtime if this endpoint built it (`options` go to the
   * runtime's `close`: the hybrid outbox's drain time).
   */
  close(options?: RuntimeCloseOptions): Promise<void>;
  /** The endpoint path when it is routed (default export, `memo serve`). */
  readonly path: string | undefined;
  /** Whether requests must authenticate. */
  readonly authRequired: boolean;
  /** The web page's path, or undefined when the endpoint serves no page. */
  readonly uiPath: string | undefined;
  /** With OAuth on: the issuer and the resource (the audience tokens must carry). */
  readonly oauth?: { readonly issuer: string; readonly resource: string };
  /**
   * Resolves once the endpoint can check tokens: with OAuth on, the issuer's metadata was fetched
   * and the JWT verifier loaded; rejects with a "Cannot reach the authorization server …" error
   * when the issuer cannot be reached. Without OAuth it resolves at once.
   */
  ready(): Promise<void>;
}

/**
 * Where an endpoint gets its runtime: a runtime, or a function that builds one at the first request
 * (and again after a failure).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createMemoMcpRuntimeFromConfig } from "@memo/mcp-server";
 * import { createHttpEndpoint, type RuntimeSource } from "./endpoint.ts";
 *
 * const rootDir = await Deno.makeTempDir();
 * let builds = 0;
 * const source: RuntimeSource = () => {
 *   builds++;
 *   return createMemoMcpRuntimeFromConfig({ rootDir });
 * };
 * const endpoint = createHttpEndpoint({}, {}, { runtime: source });
 * assert.equal(builds, 0); // nothing is built before the first request
 * await endpoint.server();
 * await endpoint.server();
 * assert.equal(builds, 1);
 * await endpoint.close();
 * await Deno.remove(rootDir, { recursive: true });
 * ```
 */
export type RuntimeSource = MemoMcpRuntime | (() => MemoMcpRuntime);

/**
 * How {@linkcode createHttpEndpoint} builds its endpoint.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createMemoMcpRuntimeFromConfig } from "@memo/mcp-server";
 * import { createHttpEndpoint, type HttpEndpointOptions } from "./endpoint.ts";
 *
 * const rootDir = await Deno.makeTempDir();
 * const runtime = createMemoMcpRuntimeFromConfig({ rootDir });
 * const how: HttpEndpointOptions = { routed: true, runtime };
 * const endpoint = createHttpEndpoint({}, { MEMO_MCP_PATH: "/memory" }, how);
 * assert.equal(endpoint.path, "/memory");
 * assert.equal(endpoint.uiPath, "/"); // and the web page
 * const response = await endpoint.handle(new Request("http://127.0.0.1:8787/mcp"));
 * assert.equal(response.status, 404); // only /memory (and the page) answer
 * await response.body?.cancel();
 * const page = await endpoint.handle(new Request("http://127.0.0.1:8787/"));
 * assert.equal(page.headers.get("content-type"), "text/html; charset=utf-8");
 * await page.body?.cancel();
 * await endpoint.close(); // does not close a runtime it was given …
 * await runtime.close(); // … so its owner does
 * await Deno.remove(rootDir, { recursive: true });
 * ```
 */
export interface HttpEndpointOptions {
  /**
   * Answer only on `MEMO_MCP_PATH` (default `/mcp`), `/healthz` (the liveness check: 200
   * `{"status":"ok"}` for GET and HEAD, no authentication) and, unless `ui` is off, the web page's
   * paths; 404 elsewhere.
   */
  routed?: boolean;
  /**
   * Whether a routed endpoint serves the web page; wins over `MEMO_UI`.
   * @default true
   */
  ui?: boolean;
  /**
   * The web page's path; wins over `MEMO_UI_PATH`. It must start with `/`, differ from the MCP
   * path, not lie under `/_memo/` and not be `/healthz`.
   * @default "/"
   */
  uiPath?: string;
  /**
   * The runtime when `options.runtime` is missing. The endpoint closes a runtime it built from a
   * function, never one it was given.
   */
  runtime?: RuntimeSource;
  /**
   * The `oauth` block of the project's `.memo/config.json`, under the `MEMO_OAUTH_*` variables and
   * `options.auth.oauth`.
   */
  projectOAuth?: ProjectOAuthConfig;
}

/**
 * Builds an endpoint. Throws a "Cannot …" error for a configuration that cannot work (a malformed
 * variable, an invalid origin, `requireAuth` without a token, a web page path that clashes with the
 * MCP path); a runtime that cannot start fails its requests instead (500).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createMemoMcpRuntimeFromConfig } from "@memo/mcp-server";
 * import { createHttpEndpoint } from "./endpoint.ts";
 *
 * const rootDir = await Deno.makeTempDir();
 * const runtime = createMemoMcpRuntimeFromConfig({ rootDir });
 * const env = { MEMO_MCP_READ_ONLY: "true" };
 * const endpoint = createHttpEndpoint({ runtime }, env, { routed: true });
 * assert.equal(endpoint.path, "/mcp");
 * const response = await endpoint.handle(
 *   new Request("http://127.0.0.1:8787/mcp", {
 *     method: "POST",
 *     headers: { "content-type": "application/json", accept: "application/json" },
 *     body: '{"jsonrpc":"2.0","id":1,"method":"ping"}',
 *   }),
 * );
 * assert.deepEqual(await response.json(), { jsonrpc: "2.0", id: 1, result: {} });
 * assert.throws(
 *   () => createHttpEndpoint({ runtime }, { MEMO_MCP_REQUIRE_AUTH: "true" }),
 *   /Cannot configure authentication/,
 * );
 * assert.throws(() => createHttpEndpoint({}, {}), /no runtime was given/);
 * assert.throws(
 *   () => createHttpEndpoint({ runtime }, {}, { routed: true, uiPath: "/mcp" }),
 *   /Cannot configure the web page: the path \/mcp is the MCP endpoint's/,
 * );
 * assert.throws(
 *   () => createHttpEndpoint({ runtime }, {}, { routed: true, uiPath: "/healthz" }),
 *   /Cannot configure the web page: the path \/healthz is the liveness check's/,
 * );
 * await runtime.close();
 * await Deno.remove(rootDir, { recursive: true });
 * ```
 */
export function createHttpEndpoint(
  options: MemoMcpHttpOptions,
  env: MemoMcpHttpEnv,
  how: HttpEndpointOptions = {},
): HttpEndpoint {
  const fromEnv = readEnv(env, "http");
  const {
    env: _env,
    cloud: _cloud,
    auth: _auth,
    allowedOrigins: _origins,
    runtime: givenRuntime,
    ...serverOptions
  } = options;
  const protocolOptions: Omit<MemoMcpOptions, "runtime"> = {
    ...serverOptions,
    readOnly: options.readOnly ?? fromEnv.readOnly,
  };
  for (const limit of MEMO_MCP_LIMITS) {
    protocolOptions[limit.option] = options[limit.option] ?? fromEnv[limit.option];
  }
  const source = givenRuntime ?? how.runtime;
  if (source === undefined) {
    throw new Error("Cannot configure the MCP endpoint: no runtime was given");
  }
  const auth = {
    requireAuth: options.auth?.requireAuth ?? fromEnv.requireAuth,
    bearerToken: options.auth?.bearerToken ?? fromEnv.bearerToken,
    authenticate: options.auth?.authenticate,
  };
  const path = how.routed ? (fromEnv.path ?? "/mcp") : undefined;
  const oauthConfig = resolveOAuthConfig(options.auth?.oauth, env, how.projectOAuth);
  if (oauthConfig && path !== undefined && oauthConfig.resourcePath !== path) {
    throw new Error(
      `Cannot configure OAuth: the resource ${oauthConfig.resource} does not match the MCP ` +
        `path ${path} (MEMO_OAUTH_RESOURCE must end in MEMO_MCP_PATH)`,
    );
  }
  const oauth = oauthConfig && new OAuthResourceServer(oauthConfig);

  let server: MemoMcpProtocolServer | undefined;
  let ownRuntime: MemoMcpRuntime | undefined;
  // Built at the first request; a failure is not cached, so a later request tries again.
  const getServer = (): MemoMcpProtocolServer => {
    if (server !== undefined) return server;
    const built = typeof source === "function";
    const runtime = built ? source() : source;
    try {
      server = createMemoMcpProtocolServer({ ...protocolOptions, runtime });
    } catch (e) {
      if (built) void runtime.close().catch(() => {});
      throw e;
    }
    if (built) ownRuntime = runtime;
    return server;
  };

  const allowedOrigins = options.allowedOrigins ?? fromEnv.allowedOrigins ??
    DEFAULT_ALLOWED_ORIGINS;
  const streamsClosed = new AbortController();
  const uiOn = path !== undefined && (how.ui ?? fromEnv.ui ?? true);
  const uiPath = uiOn ? (how.uiPath ?? fromEnv.uiPath ?? "/") : undefined;
  const handleMcp = createHttpHandler(
    {
      allowedOrigins,
      auth,
      maxInputBytes: protocolOptions.maxInputBytes ?? MEMO_MCP_DEFAULTS.maxInputBytes,
      maxListenStreams: protocolOptions.maxListenStreams ?? MEMO_MCP_DEFAULTS.maxListenStreams,
      path,
      listenClosed: streamsClosed.signal,
      oauth,
      // The page served beside the endpoint calls it from its own origin.
      ownOriginPasses: uiPath !== undefined,
    },
    getServer,
  );
  const authRequired = createAuthenticator(auth, oauth).required;
  if (path === HEALTHZ_PATH || uiPath === HEALTHZ_PATH) {
    throw new Error(
      `Cannot configure the ${
        path === HEALTHZ_PATH ? "MCP endpoint" : "web page"
      }: the path ${HEALTHZ_PATH} is the liveness check's`,
    );
  }
  let handle = handleMcp;
  if (path !== undefined && uiPath !== undefined) {
    const pageConfig = {
      uiPath,
      allowedOrigins,
      page: {
        mcpPath: path,
        readOnly: protocolOptions.readOnly ?? false,
        authRequired,
        version: VERSION,
        maxPageSize: protocolOptions.maxPageSize ?? MEMO_MCP_DEFAULTS.maxPageSize,
      },
    };
    const handlePage: AsyncPageHandler = oauth
      ? createPageHandler({ ...pageConfig, oauth: () => oauth.pageConfig() })
      : createPageHandler(pageConfig);
    handle = (request) => {
      const page = handlePage(request);
      return page === undefined ? handleMcp(request) : Promise.resolve(page);
    };
  }
  if (oauth !== undefined) {
    // Protected Resource Metadata: before the origin check, on any path setup.
    const inner = handle;
    handle = (request) =>
      oauth.metadataPaths.has(pathOf(request.url))
        ? Promise.resolve(oauth.handleMetadata(request))
        : inner(request);
  }
  if (path !== undefined) {
    const routedHandle = handle;
    handle = (request) => {
      const health = healthzResponse(request);
      return health === undefined ? routedHandle(request) : Promise.resolve(health);
    };
  }
  return {
    handle,
    server: () => Promise.resolve().then(getServer),
    path,
    uiPath,
    authRequired,
    ...(oauthConfig
      ? { oauth: { issuer: oauthConfig.issuer, resource: oauthConfig.resource } }
      : {}),
    async ready() {
      if (oauth === undefined) return;
      await oauth.issuerMetadata();
      await oauth.preload();
    },
    closeStreams() {
      streamsClosed.abort();
    },
    async close(options?: RuntimeCloseOptions) {
      streamsClosed.abort();
      const runtime = ownRuntime;
      ownRuntime = undefined;
      server = undefined;
      await runtime?.close(options);
    },
  };
}
