/**
 * A light `Request` over a `node:http` request whose body was read whole (or that has none): the
 * method, URL, headers (`get`/`has`), the body (`text()`, `json()`, `arrayBuffer()`) and a signal
 * made when first read, all without Node's own `Request` (undici), whose construction with its web
 * stream costs about as much CPU as a whole request to a bare `node:http` server. Anything else a
 * handler touches builds the host's `Request` once and reads it there, so it behaves as one for
 * every reader. Only `_node_serve.ts` makes one.
 *
 * @module
 */

import type { ServerResponse } from "node:http";
import { delegateRest, HTTP_TOKEN } from "./_light_response.ts";

/** Builds (once) and returns the host's object a light one stands for. */
const REAL = Symbol("real");

/**
 * The host's `Headers` holding Node's raw header list (`[name, value, name, value, …]`), in order.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { headersFromRaw } from "./_node_request.ts";
 * const headers = headersFromRaw(["Accept", "a", "accept", "b", "Host", "h"]);
 * assert.equal(headers.get("accept"), "a, b");
 * assert.equal(headers.get("host"), "h");
 * ```
 */
export function headersFromRaw(raw: string[]): Headers {
  const headers = new Headers();
  for (let i = 0; i < raw.length; i += 2) headers.append(raw[i], raw[i + 1]);
  return headers;
}

/**
 * The controller of a request's `signal`, made when the signal is first read: it aborts when the
 * client goes away before the answer `res` is written (at once when it is gone already).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { ServerResponse } from "node:http";
 * import { clientGone } from "./_node_request.ts";
 * const res = { closed: true, writableFinished: false } as unknown as ServerResponse;
 * assert.equal(clientGone(res).signal.aborted, true);
 * ```
 */
export function clientGone(res: ServerResponse): AbortController {
  const controller = new AbortController();
  const gone = () => {
    if (!res.writableFinished) controller.abort();
  };
  if (res.closed) gone();
  else res.once("close", gone);
  return controller;
}

/**
 * Headers over Node's raw header list: `get` and `has` read an index built on first use; anything
 * else (iteration, `set`, …) builds the host's `Headers` from the same list and goes there.
 */
class LightHeaders {
  #raw: string[];
  #index: Map<string, string> | undefined;
  #real: Headers | undefined;
  constructor(raw: string[]) {
    this.#raw = raw;
  }
  /** The host's `Headers`, built once. */
  [REAL](): Headers {
    let real = this.#real;
    if (real === undefined) real = this.#real = headersFromRaw(this.#raw);
    return real;
  }
  get(name: string): string | null {
    if (this.#real !== undefined || typeof name !== "string") return this[REAL]().get(name);
    let index = this.#index;
    if (index === undefined) {
      index = this.#index = new Map();
      const raw = this.#raw;
      for (let i = 0; i < raw.length; i += 2) {
        const key = raw[i].toLowerCase();
        const seen = index.get(key);
        index.set(key, seen === undefined ? raw[i + 1] : `${seen}, ${raw[i + 1]}`);
      }
    }
    // The index holds valid lower-case names only: a hit is the answer; a miss is null for a
    // valid name, and the host's error for another.
    const value = index.get(name) ?? index.get(name.toLowerCase());
    if (value !== undefined) return value;
    return HTTP_TOKEN.test(name) ? null : this[REAL]().get(name);
  }
  has(name: string): boolean {
    if (this.#real !== undefined || typeof name !== "string" || !HTTP_TOKEN.test(name)) {
      return this[REAL]().has(name);
    }
    return this.get(name) !== null;
  }
}
Object.setPrototypeOf(LightHeaders.prototype, Headers.prototype);
delegateRest(LightHeaders.prototype, Headers.prototype, (self) => (self as LightHeaders)[REAL]());

const decoder = new TextDecoder();
const unusable = () =>
  Promise.reject(new TypeError("Body is unusable: Body has already been read"));

/**
 * The request a handler gets from the Node adapter when the body was read whole (`body`) or there
 * is none (`null`). Its `signal` aborts when the client goes away before the answer is written.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { EventEmitter } from "node:events";
 * import type { ServerResponse } from "node:http";
 * import { NodeRequest } from "./_node_request.ts";
 *
 * const res = Object.assign(new EventEmitter(), { closed: false, writableFinished: false });
 * const body = new TextEncoder().encode('{"a":1}');
 * const request = new NodeRequest("POST", "http://x/mcp", ["Content-Type", "application/json"], body, res as unknown as ServerResponse);
 * assert.ok(request instanceof Request);
 * assert.equal(request.headers.get("content-type"), "application/json");
 * assert.deepEqual(await request.json(), { a: 1 });
 * assert.equal(request.bodyUsed, true);
 * assert.equal(request.signal.aborted, false);
 * res.emit("close");
 * assert.equal(request.signal.aborted, true);
 * ```
 */
export class NodeRequest {
  #method: string;
  #url: string;
  #headers: LightHeaders;
  #body: Uint8Array | null;
  #used = false;
  #answer: ServerResponse;
  #controller: AbortController | undefined;
  #real: Request | undefined;
  constructor(
    method: string,
    url: string,
    rawHeaders: string[],
    body: Uint8Array | null,
    answer: ServerResponse,
  ) {
    this.#method = method;
    this.#url = url;
    this.#headers = new LightHeaders(rawHeaders);
    this.#body = body;
    this.#answer = answer;
  }
  /** The host's `Request` with the same method, URL, headers and body, built once. */
  [REAL](): Request {
    let real = this.#real;
    if (real === undefined) {
      const method = this.#method;
      const body = method === "GET" || method === "HEAD" ? null : this.#body;
      real = this.#real = new Request(this.#url, {
        method,
        headers: this.#headers[REAL](),
        body: body as BodyInit | null,
      });
      // A body already read here stays read there.
      if (this.#used && body !== null) void real.arrayBuffer().catch(() => {});
    }
    return real;
  }
  get method(): string {
    return this.#method;
  }
  get url(): string {
    return this.#url;
  }
  get headers(): Headers {
    return this.#headers as unknown as Headers;
  }
  get signal(): AbortSignal {
    return (this.#controller ??= clientGone(this.#answer)).signal;
  }
  get bodyUsed(): boolean {
    return this.#real !== undefined ? this.#real.bodyUsed : this.#used;
  }
  get body(): Request["body"] {
    if (this.#real === undefined && this.#body === null) return null;
    return this[REAL]().body;
  }
  #bytes(): Uint8Array | undefined {
    if (this.#used) return undefined;
    this.#used = true;
    return this.#body ?? new Uint8Array(0);
  }
  text(): Promise<string> {
    if (this.#real !== undefined) return this.#real.text();
    const bytes = this.#bytes();
    return bytes === undefined ? unusable() : Promise.resolve(decoder.decode(bytes));
  }
  json(): Promise<unknown> {
    if (this.#real !== undefined) return this.#real.json();
    const bytes = this.#bytes();
    if (bytes === undefined) return unusable();
    try {
      return Promise.resolve(JSON.parse(decoder.decode(bytes)));
    } catch (e) {
      return Promise.reject(e);
    }
  }
  arrayBuffer(): Promise<ArrayBuffer> {
    if (this.#real !== undefined) return this.#real.arrayBuffer();
    const bytes = this.#bytes();
    return bytes === undefined ? unusable() : Promise.resolve(new Uint8Array(bytes).buffer);
  }
}
/** A light request is read as the `Request` it stands for. */
export interface NodeRequest extends Request {}
Object.setPrototypeOf(NodeRequest.prototype, Request.prototype);
delegateRest(NodeRequest.prototype, Request.prototype, (self) => (self as NodeRequest)[REAL]());
