/**
 * The page's MCP client: stateless 2026-07-28 requests over `POST` to the endpoint, the same
 * protocol the agents speak. Answers come as JSON or as an SSE stream (progress notifications, then
 * the answer); live updates come from one long `subscriptions/listen` stream read with `fetch`, so
 * the bearer token travels only in the `Authorization` header.
 *
 * @module
 */

/** The protocol revision the page speaks. */
export const PROTOCOL_VERSION = "2026-07-28";

import type { WebPageOAuthConfig } from "../page.ts";

/** What the server wrote into the page (`<meta name="memo-config">`). */
export interface PageConfig {
  /** The MCP endpoint's path. */
  mcpPath: string;
  /** Whether writes are refused. */
  readOnly: boolean;
  /** Whether every call needs the bearer token. */
  authRequired: boolean;
  /** memo's version. */
  version: string;
  /** The largest page the server answers (`maxPageSize`; 100 when absent). */
  maxPageSize?: number;
  /** How to sign in, when the endpoint is an OAuth protected resource. */
  oauth?: WebPageOAuthConfig;
}

/** A 401: no token, or a refused one. */
export class AuthRequiredError extends Error {
  constructor(readonly refused: boolean) {
    super(refused ? "The token was refused." : "This memo needs its bearer token.");
  }
}

/** A JSON-RPC error, a tool error or a transport refusal, with the server's message. */
export class McpCallError extends Error {
  /** The JSON-RPC error's code, for a JSON-RPC error. */
  readonly code?: number;
  constructor(message: string, code?: number) {
    super(message);
    if (code !== undefined) this.code = code;
  }
}

/** memo's output limit, as each era numbers it (-32012; -31413 under 2026-07-28). */
const OUTPUT_LIMIT_CODES: ReadonlySet<number> = new Set([-32012, -31413]);

/**
 * `call` with `limit`, halved while the answer is over the server's output limit (a few long
 * notes fill it long before the page is full); resolves with the answer and the limit that fit.
 */
export async function withinOutputLimit<T>(
  limit: number,
  call: (limit: number) => Promise<T>,
): Promise<{ result: T; limit: number }> {
  for (;;) {
    try {
      return { result: await call(limit), limit };
    } catch (e) {
      const over = e instanceof McpCallError && OUTPUT_LIMIT_CODES.has(e.code ?? 0);
      if (!over || limit <= 1) throw e;
      limit = Math.floor(limit / 2);
    }
  }
}

/** A 403 `insufficient_scope`: the token may read but not write. */
export class InsufficientScopeError extends McpCallError {}

/** A JSON-RPC message as the page reads it. */
// deno-lint-ignore no-explicit-any
type Json = any;

/** The result of a tool call: its structured content, and whether it is an error. */
export interface ToolResult<T> {
  /** `structuredContent`. */
  structured: T;
  /** `isError`. */
  isError: boolean;
  /** The text content (the error message, for an error). */
  text: string;
}

let nextId = 1;

/** Reads a Server-Sent Events body, calling `onMessage` with each event's JSON. */
export async function readSse(
  body: ReadableStream<Uint8Array>,
  onMessage: (message: Json) => boolean | void,
): Promise<void> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  try {
    while (true) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += decoder.decode(value, { stream: true });
      let end: number;
      while ((end = buffer.search(/\r?\n\r?\n/)) !== -1) {
        const event = buffer.slice(0, end);
        buffer = buffer.slice(end).replace(/^\r?\n\r?\n/, "");
        const data = event.split(/\r?\n/)
          .filter((line) => line.startsWith("data:"))
          .map((line) => line.slice(line.startsWith("data: ") ? 6 : 5))
          .join("\n");
        if (data === "") continue; // a keep-alive comment
        if (onMessage(JSON.parse(data)) === true) return;
      }
    }
  } finally {
    reader.cancel().catch(() => {});
  }
}

/** The page's client for one endpoint. */
export class McpClient {
  constructor(
    readonly path: string,
    readonly token: () => string | null,
  ) {}

  /** POSTs one request; resolves with its result, rejects with its error. */
  async request(
    method: string,
    params: Record<string, unknown>,
    options: { name?: string; onNotification?: (message: Json) => void } = {},
  ): Promise<Json> {
    const id = nextId++;
    const response = await this.#post(id, method, params, options.name);
    const type = response.headers.get("content-type") ?? "";
    let answer: Json;
    if (type.startsWith("text/event-stream") && response.body) {
      await readSse(response.body, (message) => {
        if (message.id === id && ("result" in message || "error" in message)) {
          answer = message;
          return true;
        }
        if (typeof message.method === "string") options.onNotification?.(message);
      });
    } else {
      answer = await response.json().catch(() => undefined);
    }
    if (answer?.error) {
      const code = typeof answer.error.code === "number" ? answer.error.code : undefined;
      throw new McpCallError(answer.error.message ?? "The call failed", code);
    }
    if (!answer || !("result" in answer)) {
      throw new McpCallError(`The server answered ${response.status} without a result`);
    }
    return answer.result;
  }

  /** Calls a tool; a tool error becomes `isError` with its text. */
  async callTool<T>(
    name: string,
    args: Record<string, unknown>,
    onProgress?: (message: string) => void,
  ): Promise<ToolResult<T>> {
    const params: Record<string, unknown> = { name, arguments: args };
    const meta: Record<string, unknown> = {};
    if (onProgress) meta.progressToken = `p${nextId}`;
    const result = await this.request("tools/call", { ...params, _meta: meta }, {
      name,
      onNotification: (message) => {
        if (message.method === "notifications/progress" && onProgress) {
          onProgress(String(message.params?.message ?? ""));
        }
      },
    });
    const text = (result.content ?? [])
      .filter((c: Json) => c?.type === "text")
      .map((c: Json) => c.text)
      .join("\n");
    return { structured: result.structuredContent as T, isError: result.isError === true, text };
  }

  /** Calls a tool and throws its error. */
  async tool<T>(name: string, args: Record<string, unknown>): Promise<T> {
    const result = await this.callTool<T>(name, args);
    if (result.isError) throw new McpCallError(result.text || `${name} failed`);
    return result.structured;
  }

  /**
   * Listens for changes until `signal` aborts: calls `onChange` for each resource notification and
   * after every reconnection, and `onState` with whether the stream is open (true once the server
   * acknowledged it, so a read made after that misses no change). Reconnects with a growing pause.
   */
  async listen(
    onChange: () => void,
    onState: (live: boolean) => void,
    onAuth: (error: AuthRequiredError) => void,
    signal: AbortSignal,
  ): Promise<void> {
    let pause = 500;
    let connected = false;
    while (!signal.aborted) {
      try {
        const response = await this.#post(
          nextId++,
          "subscriptions/listen",
          {
            notifications: { resourcesListChanged: true, resourceSubscriptions: ["memo://stats"] },
          },
          undefined,
          signal,
        );
        if (response.status !== 200 || !response.body) {
          const retry = Number(response.headers.get("retry-after"));
          await response.body?.cancel();
          if (retry > 0) pause = retry * 1000;
          throw new McpCallError(`listen answered ${response.status}`);
        }
        let acknowledged = false;
        await readSse(response.body, (message) => {
          if (!acknowledged) {
            // The first event acknowledges the listen: from here on no change is missed.
            acknowledged = true;
            onState(true);
            pause = 500;
            if (connected) onChange(); // whatever changed while the stream was down
            connected = true;
          }
          if (String(message.method ?? "").startsWith("notifications/resources/")) onChange();
        });
      } catch (e) {
        if (e instanceof AuthRequiredError) {
          onState(false);
          onAuth(e);
          return;
        }
      }
      onState(false);
      if (signal.aborted) return;
      await new Promise((resolve) => setTimeout(resolve, pause));
      pause = Math.min(pause * 2, 10_000);
    }
  }

  async #post(
    id: number,
    method: string,
    params: Record<string, unknown>,
    name: string | undefined,
    signal?: AbortSignal,
  ): Promise<Response> {
    const headers: Record<string, string> = {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": PROTOCOL_VERSION,
      "mcp-method": method,
    };
    if (name !== undefined) headers["mcp-name"] = name;
    const token = this.token();
    if (token) headers.authorization = `Bearer ${token}`;
    const { _meta, ...rest } = params as { _meta?: Record<string, unknown> };
    const body = {
      jsonrpc: "2.0",
      id,
      method,
      params: {
        ...rest,
        _meta: {
          ..._meta,
          "io.modelcontextprotocol/protocolVersion": PROTOCOL_VERSION,
          "io.modelcontextprotocol/clientCapabilities": {},
          "io.modelcontextprotocol/clientInfo": { name: "memo-web", version: "1" },
        },
      },
    };
    const response = await fetch(this.path, {
      method: "POST",
      headers,
      body: JSON.stringify(body),
      signal,
      credentials: "omit",
      cache: "no-store",
    });
    if (response.status === 401) {
      await response.body?.cancel();
      throw new AuthRequiredError(token !== null);
    }
    if (response.status >= 400 && response.status !== 404) {
      // A transport refusal (403 origin or scope, 413 too large, …) carries a JSON-RPC error.
      const error = await response.json().catch(() => undefined);
      const message = error?.error?.message ?? `The server answered ${response.status}`;
      const scope = /insufficient_scope/.test(response.headers.get("www-authenticate") ?? "");
      throw scope ? new InsufficientScopeError(message) : new McpCallError(message);
    }
    return response;
  }
}
