/**
 * {@linkcode registerMemoMcpCapabilities}: registers memo's tools, resources and prompts on an
 * official MCP SDK `McpServer` (or anything shaped like it), through its `registerTool`,
 * `registerResource` and `registerPrompt`. The type is structural: this package does not depend on
 * the SDK.
 *
 * The SDK gets permissive zod schemas whose JSON Schema is memo's own, so that `tools/list` shows
 * exactly what the protocol server shows, and memo's core does the validation, authorization and
 * limits.
 *
 * @module
 */

import { z } from "zod";
import { type MemoMcpOptions, resolveMemoMcpOptions } from "../options.ts";
import type { MemoMcpAuthInfo } from "../types.ts";
import { type CoreContext, McpCore } from "../core/core.ts";
import { RpcFailure } from "../core/rpc_failure.ts";
import type { Catalog } from "../catalog/catalog.ts";
import { getCatalog } from "../catalog/catalog.ts";
import { PROMPTS } from "../catalog/prompts.ts";
import { promptSchemas } from "../tools/schemas.ts";
import { NOTE_TEMPLATE, noteEntry, STATS_URI, TEMPLATES } from "../catalog/resources.ts";
import { JSON_RPC_CODES, toSafeError } from "../errors.ts";
import { resultResponse } from "../protocol/jsonrpc.ts";
import { outputLimitError, toolResultObject } from "../tools/results.ts";
import { LATEST_SESSION_PROTOCOL_VERSION } from "../protocol/versions.ts";
import type { MemoMcpRuntime } from "../../runtimes/types.ts";
import type {
  McpServerLike,
  SdkRequestExtra,
  SdkResourceTemplateLike,
  SdkResult,
} from "./types.ts";

const COMPLETABLE = Symbol.for("mcp.completable");

function context(extra: SdkRequestExtra | undefined): CoreContext {
  const ctx: CoreContext = {
    transport: "sdk",
    signal: extra?.signal ?? extra?.mcpReq?.signal,
    version: LATEST_SESSION_PROTOCOL_VERSION,
  };
  const authInfo = extra?.authInfo ?? extra?.http?.authInfo;
  if (authInfo) {
    const { clientId, scopes, extra: more } = authInfo;
    const info: MemoMcpAuthInfo = { scheme: "custom", extra: { clientId, scopes, ...more } };
    ctx.authInfo = info;
  }
  return ctx;
}

/**
 * A zod schema that accepts anything and shows `json` as its JSON Schema (`additionalProperties` is
 * unset unless `json` sets it: the catalog drops the `{}` a loose object would add).
 */
function passThrough(json: Record<string, unknown>) {
  return z.looseObject({}).meta({ additionalProperties: undefined, ...json });
}

function errorResult(error: unknown): SdkResult {
  const safe = error instanceof RpcFailure ? error.data : toSafeError(error);
  return {
    content: [{ type: "text", text: safe.message }],
    structuredContent: { error: safe },
    isError: true,
  };
}

/**
 * Registers memo's tools, resources and prompts on an SDK `McpServer`, with the same validation,
 * authorization and limits as the protocol server. Where the SDK decides the wire format, it
 * differs: a refused write, a timeout or an oversized result comes back as a tool error carrying
 * the same `structuredContent.error` (the SDK turns every tool failure into a tool result), and
 * `resources/list` gives the first `maxPageSize` notes (the SDK does not page it).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Client } from "npm:@modelcontextprotocol/sdk@1.32.2/client/index.js";
 * import { InMemoryTransport } from "npm:@modelcontextprotocol/sdk@1.32.2/inMemory.js";
 * import { McpServer } from "npm:@modelcontextprotocol/sdk@1.32.2/server/mcp.js";
 * import { createMemoMcpRuntimeFromConfig, registerMemoMcpCapabilities } from "@memo/mcp-server";
 *
 * const rootDir = await Deno.makeTempDir();
 * const runtime = createMemoMcpRuntimeFromConfig({ rootDir });
 * const server = new McpServer({ name: "my-app", version: "1.0.0" });
 * registerMemoMcpCapabilities(server, { runtime });
 *
 * // Any SDK transport works; an in-memory pair keeps this example in one process.
 * const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
 * await server.connect(serverSide);
 * const client = new Client({ name: "example", version: "1.0.0" });
 * await client.connect(clientSide);
 * await client.callTool({ name: "remember", arguments: { text: "Deploys run with make deploy" } });
 * const result = await client.callTool({ name: "recall", arguments: { query: "deploy" } });
 * const { hits } = result.structuredContent as { hits: { note: { title: string } }[] };
 * assert.equal(hits[0].note.title, "Deploys run with make deploy");
 * await client.close();
 * await runtime.close();
 * await Deno.remove(rootDir, { recursive: true });
 * ```
 */
export function registerMemoMcpCapabilities(
  sdkServer: McpServerLike,
  options: MemoMcpOptions,
): void {
  const resolved = resolveMemoMcpOptions(options);
  const core = new McpCore(resolved);
  const catalog: Catalog = getCatalog(resolved);
  const tooBig = (result: SdkResult, id: unknown) =>
    outputLimitError(
      resultResponse(JSON.stringify(id ?? null), JSON.stringify(result)),
      resolved.maxOutputBytes,
    );
  // A tool's oversized result is a tool error, as every tool failure is.
  const checkSize = (result: SdkResult, id: unknown): SdkResult => {
    const over = tooBig(result, id);
    return over === undefined ? result : errorResult(over);
  };
  // A resource or prompt has no error result: an oversized one is the JSON-RPC error
  // MCP_OUTPUT_LIMIT, as on memo's own transports.
  const sized = <T extends SdkResult>(result: T, id: unknown): T => {
    const over = tooBig(result, id);
    if (over === undefined) return result;
    throw new RpcFailure(JSON_RPC_CODES.outputLimit, toSafeError(over));
  };

  for (const tool of catalog.tools.values()) {
    sdkServer.registerTool(tool.info.name, {
      title: tool.info.title,
      description: tool.info.description,
      inputSchema: passThrough(tool.inputJson),
      outputSchema: passThrough(tool.outputJson),
      annotations: { title: tool.info.title, ...tool.info.annotations },
    }, async (args, extra) => {
      try {
        const outcome = await core.callTool(tool.info.name, args, context(extra));
        const result = toolResultObject(outcome);
        return checkSize(result, extra?.requestId ?? extra?.mcpReq?.id);
      } catch (e) {
        return errorResult(e);
      }
    });
  }

  const [template] = TEMPLATES;
  const noteTemplate: SdkResourceTemplateLike = {
    uriTemplate: {
      toString: () => NOTE_TEMPLATE,
      variableNames: ["id"],
      match(uri: string) {
        const m = /^memo:\/\/notes\/([^/?#]+)$/.exec(uri);
        return m ? { id: m[1] } : null;
      },
    },
    listCallback: async (extra) => {
      const page = await core.guard(
        "list resources",
        context(extra),
        (signal) => core.runtime.list({ limit: resolved.maxPageSize, signal }),
      );
      return { resources: page.notes.map(noteEntry) };
    },
    completeCallback: (variable) =>
      variable === "id"
        ? async (value: string) =>
          (await core.complete({
            ref: { type: "ref/resource", uri: NOTE_TEMPLATE },
            argument: { name: "id", value },
          }, context(undefined))).completion.values
        : undefined,
  };
  const read = async (uri: URL | string, extra: SdkRequestExtra) =>
    sized(
      await core.readResource(String(uri), context(extra)),
      extra?.requestId ?? extra?.mcpReq?.id,
    );
  sdkServer.registerResource("stats", STATS_URI, {
    title: "Memory stats",
    description: "Counts of notes, labels and sources, as JSON.",
    mimeType: "application/json",
  }, (uri: URL, extra: SdkRequestExtra) => read(uri, extra));
  sdkServer.registerResource(
    String(template.name),
    noteTemplate,
    { title: template.title, description: template.description, mimeType: template.mimeType },
    (uri: URL, _variables: unknown, extra: SdkRequestExtra) => read(uri, extra),
  );

  // The SDK advertises `resources.listChanged`: a note added or removed (by anyone) says so.
  if (core.runtime.watch && typeof sdkServer.sendResourceListChanged === "function") {
    watchListWhileConnected(sdkServer, core.runtime.watch.bind(core.runtime));
  }

  for (const [name, prompt] of Object.entries(PROMPTS)) {
    const base = promptSchemas[name as keyof typeof promptSchemas].shape as Record<
      string,
      z.ZodType
    >;
    const shape: Record<string, z.ZodType> = {};
    for (const [arg, original] of Object.entries(base)) {
      const complete = async (value: string) =>
        (await core.complete(
          { ref: { type: "ref/prompt", name }, argument: { name: arg, value } },
          context(undefined),
        )).completion.values;
      const mark = (schema: z.ZodType) =>
        Object.defineProperty(schema, COMPLETABLE, { value: { complete }, configurable: true });
      // Own copies: completers belong to this registration. SDK v2 looks for
      // the completer under an optional argument's wrapper, so both carry it.
      let schema = original.clone();
      if (schema instanceof z.ZodOptional) {
        const inner = mark((schema.unwrap() as z.ZodType).clone());
        schema = schema.clone({ ...schema._zod.def, innerType: inner }, { parent: true });
      }
      shape[arg] = mark(schema);
    }
    sdkServer.registerPrompt(
      name,
      {
        title: prompt.title,
        description: prompt.description,
        argsSchema: shape,
      },
      async (args, extra) =>
        sized(
          { ...await core.getPrompt(name, args, context(extra)) },
          extra?.requestId ?? extra?.mcpReq?.id,
        ),
    );
  }
}

/**
 * Sends `notifications/resources/list_changed` on the runtime's list changes while `sdkServer` is
 * connected: the watch starts at each `connect` and stops at the server's close (a closed server,
 * one a request under SDK v2's `createMcpHandler`, keeps no listener and no process alive). A server
 * that cannot say when it connects and closes is watched from now on.
 */
function watchListWhileConnected(
  sdkServer: McpServerLike,
  watch: NonNullable<MemoMcpRuntime["watch"]>,
): void {
  const send = sdkServer.sendResourceListChanged!.bind(sdkServer);
  let stop: (() => void) | undefined;
  const start = () => {
    stop ??= watch((change) => {
      if (!change.listChanged) return;
      try {
        send();
      } catch {
        // not connected (yet, or any more): nobody to tell
      }
    });
  };
  const inner = sdkServer.server;
  const connect = sdkServer.connect;
  if (inner === undefined || typeof connect !== "function") return start();
  const closed = inner.onclose;
  inner.onclose = () => {
    stop?.();
    stop = undefined;
    closed?.call(inner);
  };
  sdkServer.connect = async (transport: never) => {
    await connect.call(sdkServer, transport);
    start();
  };
  if (inner.transport !== undefined) start(); // registered once connected already
}
