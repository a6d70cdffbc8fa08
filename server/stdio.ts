/**
 * {@linkcode runStdioServer}: newline-delimited JSON-RPC over web streams (standard input and
 * output by default). Requests are handled concurrently; writes are serialized, one message per
 * line, and nothing but JSON-RPC is ever written.
 *
 * @module
 */

import { JSON_RPC_CODES } from "./json_rpc_codes.ts";
import type { MemoMcpProtocolServer } from "./types.ts";
import { PARSE_ERROR_JSON, rpcErrorJson } from "./protocol/jsonrpc.ts";
import { chunkReader } from "./_chunk_reader.ts";
import { concatBytes } from "../platform/read_limited.ts";

/**
 * Options of {@linkcode runStdioServer}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import {
 *   createMemoMcpProtocolServer,
 *   createMemoMcpRuntimeFromConfig,
 *   runStdioServer,
 *   type StdioServerOptions,
 * } from "@memo/mcp-server";
 *
 * const rootDir = await Deno.makeTempDir();
 * const runtime = createMemoMcpRuntimeFromConfig({ rootDir });
 * const server = createMemoMcpProtocolServer({ runtime });
 * const encoder = new TextEncoder();
 * const long = `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"${"x".repeat(100)}"}}`;
 * const lines: string[] = [];
 * const options: StdioServerOptions = {
 *   // The long line arrives in two chunks, then a short one follows.
 *   input: new ReadableStream({
 *     start(controller) {
 *       controller.enqueue(encoder.encode(long.slice(0, 110)));
 *       const next = '\n{"jsonrpc":"2.0","id":2,"method":"ping"}\n';
 *       controller.enqueue(encoder.encode(long.slice(110) + next));
 *       controller.close();
 *     },
 *   }),
 *   output: new WritableStream({
 *     write: (chunk) => void lines.push(new TextDecoder().decode(chunk)),
 *   }),
 *   maxLineBytes: 100, // a longer line is refused without being kept in memory
 * };
 * await runStdioServer(server, options);
 * const [refused, answered] = lines.map((line) => JSON.parse(line));
 * assert.equal(refused.error.code, -32600);
 * assert.deepEqual(answered, { jsonrpc: "2.0", id: 2, result: {} });
 * await runtime.close();
 * await Deno.remove(rootDir, { recursive: true });
 * ```
 */
export interface StdioServerOptions {
  /**
   * Where messages come from.
   * @default standard input
   */
  input?: ReadableStream<Uint8Array>;
  /**
   * Where responses go.
   * @default standard output
   */
  output?: WritableStream<Uint8Array>;
  /**
   * Stops reading (in-flight requests still answer) when aborted.
   * @default undefined
   */
  signal?: AbortSignal;
  /**
   * Longest line kept in memory, in bytes; a longer one is dropped and answered with -32600 (id
   * null). Lines over the server's `maxInputBytes` but under this still get their request's id in
   * the error.
   * @default 67108864 (64 MiB)
   */
  maxLineBytes?: number;
}

const NEWLINE = 0x0a;
const CR = 0x0d;
const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: true });
const DEFAULT_MAX_LINE = 64 * 1024 * 1024;

/**
 * Serves one protocol server over newline-delimited JSON-RPC. Handles partial lines, several
 * messages in one chunk, CRLF and blank lines; invalid JSON is answered with -32700 and the loop
 * goes on. Resolves when the input closes and every request in flight has been answered.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import {
 *   createMemoMcpProtocolServer,
 *   createMemoMcpRuntimeFromConfig,
 *   runStdioServer,
 * } from "@memo/mcp-server";
 *
 * const rootDir = await Deno.makeTempDir();
 * const runtime = createMemoMcpRuntimeFromConfig({ rootDir });
 * const server = createMemoMcpProtocolServer({ runtime });
 *
 * // `await runStdioServer(server)` serves standard input and output until
 * // stdin closes. Here the input is one JSON-RPC line, then the end.
 * const input = new ReadableStream<Uint8Array>({
 *   start(controller) {
 *     controller.enqueue(new TextEncoder().encode('{"jsonrpc":"2.0","id":1,"method":"ping"}\n'));
 *     controller.close();
 *   },
 * });
 * let written = "";
 * const output = new WritableStream<Uint8Array>({
 *   write(chunk) {
 *     written += new TextDecoder().decode(chunk);
 *   },
 * });
 * await runStdioServer(server, { input, output });
 *
 * assert.equal(written, '{"jsonrpc":"2.0","id":1,"result":{}}\n');
 * await runtime.close();
 * await Deno.remove(rootDir, { recursive: true });
 * ```
 */
export async function runStdioServer(
  server: MemoMcpProtocolServer,
  options: StdioServerOptions = {},
): Promise<void> {
  const input = options.input ?? await (await import("../platform/mod.ts")).stdin();
  const output = options.output ?? await (await import("../platform/mod.ts")).stdout();
  const maxLine = options.maxLineBytes ?? DEFAULT_MAX_LINE;
  const writer = output.getWriter();
  let writeFailed = false;
  let writing: Promise<void> = Promise.resolve();
  const failed = () => {
    writeFailed = true; // the client went away; keep draining quietly
  };
  const send = (message: string) => {
    if (writeFailed) return;
    // The stream queues writes in call order: one message per line, never interleaved.
    writing = writer.write(encoder.encode(message + "\n")).catch(failed);
  };
  const inFlight = new Set<Promise<void>>();
  // Aborted when input ends: long-lived requests (subscriptions/listen) then
  // answer and end; the others still answer as usual.
  const connection = new AbortController();
  const context = { transport: "stdio" as const, notify: send, closed: connection.signal };

  const dispatch = (bytes: Uint8Array) => {
    let text: string;
    try {
      text = decoder.decode(bytes);
    } catch {
      return send(PARSE_ERROR_JSON); // JSON-RPC messages MUST be UTF-8
    }
    // The message's own bytes: a line's CR and a leading BOM are framing, not message.
    let framing = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
    if (text.endsWith("\r")) text = text.slice(0, -1), framing++;
    if (text.trim() === "") return;
    const inputBytes = bytes.byteLength - framing;
    const task = server.handle(text, { ...context, inputBytes }).then(
      (reply) => {
        if (reply !== undefined) send(reply);
      },
      () =>
        send(
          rpcErrorJson(
            "null",
            JSON_RPC_CODES.internalError,
            "Cannot handle the message: internal error",
          ),
        ),
    ).finally(() => inFlight.delete(task));
    inFlight.add(task);
  };

  const reader = chunkReader(input);
  const onAbort = () => reader.cancel().catch(() => {});
  options.signal?.addEventListener("abort", onAbort, { once: true });
  let pending: Uint8Array[] = [];
  let pendingBytes = 0;
  let dropping = false;
  const tooLong = () =>
    send(rpcErrorJson(
      "null",
      JSON_RPC_CODES.invalidRequest,
      `Cannot handle the message: a line is longer than ${maxLine} bytes`,
    ));
  try {
    while (!options.signal?.aborted) {
      const { value, done } = await reader.read();
      if (done) break;
      let start = 0;
      for (let nl = value.indexOf(NEWLINE); nl !== -1; nl = value.indexOf(NEWLINE, start)) {
        const piece = value.subarray(start, nl);
        start = nl + 1;
        if (dropping) {
          dropping = false;
          continue;
        }
        // The whole line, however its chunks fell; its CR is framing.
        const last = piece.byteLength > 0
          ? piece[piece.byteLength - 1]
          : pending.at(-1)?.[pending.at(-1)!.byteLength - 1];
        if (pendingBytes + piece.byteLength - (last === CR ? 1 : 0) > maxLine) {
          pending = [];
          pendingBytes = 0;
          tooLong();
          continue;
        }
        if (pendingBytes === 0) dispatch(piece);
        else {
          pending.push(piece);
          dispatch(concatBytes(pending, pendingBytes + piece.byteLength));
          pending = [];
          pendingBytes = 0;
        }
      }
      if (start < value.length && !dropping) {
        const rest = value.slice(start); // copy: the reader may reuse its buffer
        pendingBytes += rest.byteLength;
        pending.push(rest);
        if (pendingBytes > maxLine + 1) { // (room for a CR before the line's end)
          pending = [];
          pendingBytes = 0;
          dropping = true;
          tooLong();
        }
      }
    }
    if (pendingBytes > 0 && !dropping) dispatch(concatBytes(pending, pendingBytes));
  } finally {
    options.signal?.removeEventListener("abort", onAbort);
    reader.releaseLock();
    connection.abort();
    while (inFlight.size) await Promise.all([...inFlight]);
    await writing;
    try {
      writer.releaseLock();
    } catch {
      // already released
    }
  }
}
