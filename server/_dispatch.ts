/**
 * Internal: a request's dispatch to the MCP core by its method, once the protocol server has
 * checked the message and classified its era. Methods of the other era are not found; `initialize`,
 * the resource subscriptions and `logging/setLevel` go to the session, `subscriptions/listen` to
 * the listen streams, and the rest to the core, cancellable by the client.
 *
 * @module
 */

import { JSON_RPC_CODES } from "./json_rpc_codes.ts";
import { McpValidationError, toSafeError } from "./errors.ts";
import type { MemoMcpRequestContext } from "./types.ts";
import type { CoreContext, McpCore } from "./core/core.ts";
import type { Catalog } from "./catalog/catalog.ts";
import { RpcFailure } from "./core/rpc_failure.ts";
import { versionFeatures } from "./protocol/versions.ts";
import { discoverJson, SESSION_ONLY_METHODS, statelessOpening } from "./protocol/stateless.ts";
import { toolResultJson } from "./tools/results.ts";
import type { Session } from "./protocol/session.ts";
import type { ListenStreams } from "./listen/listen_streams.ts";
import type { RequestTracker } from "./_request_context.ts";
import { methodNotFound, type Params, type RequestEra } from "./protocol/request_era.ts";

const EMPTY_RESULT = "{}";

/** Methods only the stateless era has (-32601 for a session request). */
const STATELESS_ONLY_METHODS: ReadonlySet<string> = new Set([
  "server/discover",
  "subscriptions/listen",
]);

/**
 * Dispatches the requests of one protocol server.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createMemoMcpRuntimeFromConfig, resolveMemoMcpOptions } from "@memo/mcp-server";
 * import { McpCore } from "./core/core.ts";
 * import { Dispatcher } from "./_dispatch.ts";
 * import { Session } from "./protocol/session.ts";
 * import { ListenStreams } from "./listen/listen_streams.ts";
 * import { RequestTracker } from "./_request_context.ts";
 *
 * const rootDir = await Deno.makeTempDir();
 * const runtime = createMemoMcpRuntimeFromConfig({ rootDir });
 * const core = new McpCore(resolveMemoMcpOptions({ runtime }));
 * const session = new Session(core, 1_000_000);
 * const dispatcher = new Dispatcher(
 *   core,
 *   session,
 *   new RequestTracker(session, "memo", 1_000_000),
 *   new ListenStreams(core, 1_000_000, { name: "memo", version: "0.0.0" }),
 * );
 * const era = { version: "2025-06-18", stateless: false, logLevel: -1 };
 * const context = { transport: "stdio" as const };
 * assert.equal(await dispatcher.dispatch("ping", 1, "1", {}, context, era), "{}");
 * assert.throws(() => dispatcher.dispatch("tools/run", 2, "2", {}, context, era), { code: -32601 });
 * await runtime.close();
 * await Deno.remove(rootDir, { recursive: true });
 * ```
 */
export class Dispatcher {
  readonly #core: McpCore;
  readonly #session: Session;
  readonly #requests: RequestTracker;
  readonly #streams: ListenStreams;

  /** A dispatcher to `core`, with the server's session, requests in flight and listen streams. */
  constructor(
    core: McpCore,
    session: Session,
    requests: RequestTracker,
    streams: ListenStreams,
  ) {
    this.#core = core;
    this.#session = session;
    this.#requests = requests;
    this.#streams = streams;
  }

  /**
   * The result JSON of one request (undefined for no answer); throws an {@linkcode RpcFailure} for
   * a JSON-RPC error. A method answered from memory (`ping`, the lists once the catalog is loaded,
   * `server/discover`) answers at once, without a promise; the others answer a promise, which
   * rejects with the failure (a refusal found before any await may also be thrown).
   */
  dispatch(
    method: string,
    id: string | number,
    idJson: string,
    params: Params,
    context: MemoMcpRequestContext,
    request: RequestEra,
  ): string | undefined | Promise<string | undefined> {
    const core = this.#core;
    const session = this.#session;
    const version = request.version;
    const tracked = <T>(fn: (ctx: CoreContext) => Promise<T>) =>
      this.#requests.tracked(idJson, context, request, fn);
    const trackedJson = async <T>(fn: (ctx: CoreContext) => Promise<T>) =>
      JSON.stringify(await tracked(fn));
    if (request.stateless ? SESSION_ONLY_METHODS.has(method) : STATELESS_ONLY_METHODS.has(method)) {
      throw methodNotFound(method);
    }
    switch (method) {
      case "server/discover":
        return discoverJson(core.options);
      case "subscriptions/listen":
        return tracked((ctx) => this.#streams.listen(id, params, context, ctx));
      case "ping":
        return EMPTY_RESULT;
      case "initialize":
        return session.initialize(params, context);
      case "resources/subscribe":
      case "resources/unsubscribe":
        session.subscribe(method, params, context);
        return EMPTY_RESULT;
      case "tools/list": {
        cursorOf(method, params, false);
        return withCatalog(core, (catalog) => catalog.toolsList(version));
      }
      case "tools/call": {
        if (typeof params.name !== "string") {
          throw new RpcFailure(
            JSON_RPC_CODES.invalidParams,
            toSafeError(new McpValidationError("Cannot call a tool: params.name must be a string")),
          );
        }
        const structured = versionFeatures(version).structured;
        // A stateless result opens with its stateless fields here (the protocol server leaves it
        // as is), rather than being sliced open again after it is built.
        const open = request.stateless ? statelessOpening(core.options, method) : "{";
        return tracked((ctx) => core.callTool(params.name, params.arguments, ctx)).then((outcome) =>
          toolResultJson(outcome, structured, open)
        );
      }
      case "resources/list": {
        const cursor = cursorOf(method, params, true);
        return trackedJson((ctx) => core.listResources(cursor, ctx));
      }
      case "resources/templates/list":
        cursorOf(method, params, false);
        return withCatalog(core, (catalog) => catalog.templatesList);
      case "resources/read": {
        if (typeof params.uri !== "string") {
          throw new RpcFailure(
            JSON_RPC_CODES.invalidParams,
            toSafeError(
              new McpValidationError("Cannot read a resource: params.uri must be a string"),
            ),
          );
        }
        return trackedJson((ctx) => core.readResource(params.uri as string, ctx));
      }
      case "prompts/list":
        cursorOf(method, params, false);
        return withCatalog(core, (catalog) => catalog.promptsList(version));
      case "prompts/get":
        return trackedJson((ctx) => core.getPrompt(params.name, params.arguments, ctx));
      case "completion/complete":
        return trackedJson((ctx) => core.complete(params, ctx));
      case "logging/setLevel":
        session.setLogLevel(params, context);
        return EMPTY_RESULT;
      default:
        throw methodNotFound(method);
    }
  }
}

/** `answer` of the core's catalog: at once when it is loaded, else once it is. */
function withCatalog(
  core: McpCore,
  answer: (catalog: Catalog) => string,
): string | Promise<string> {
  const catalog = core.catalog();
  return catalog instanceof Promise ? catalog.then(answer) : answer(catalog);
}

function cursorOf(method: string, params: Params, allowed: boolean): string | undefined {
  const cursor = params.cursor;
  if (cursor === undefined) return undefined;
  if (typeof cursor !== "string" || !allowed) {
    throw new RpcFailure(
      JSON_RPC_CODES.invalidParams,
      toSafeError(new McpValidationError(`Cannot handle ${method}: invalid cursor`)),
    );
  }
  return cursor;
}
