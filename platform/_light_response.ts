/**
 * A `Response` that keeps its status, header list and string body as they were given, and builds
 * Node's own `Response` (undici, with its web stream) only when something reads more than its
 * status. The Node adapter (`_node_serve.ts`) writes such an answer straight from its parts, with
 * one `end()`, never reading it through a web stream: on Node a `Response` read whole costs about
 * as much CPU as a whole request to a bare `node:http` server. Deno never makes one.
 *
 * @module
 */

/** A header list as the endpoint builds it: `[name, value]` pairs, in order. */
export type LightHeaderList = readonly (readonly [string, string])[];

/** What {@linkcode lightParts} hands the adapter. */
export interface LightParts {
  status: number;
  /** Lower-case names in the order a `Headers` iterates them, duplicates joined; `set-cookie` apart. */
  headers: readonly (readonly [string, string])[];
  cookies: readonly string[];
  body: string | null;
}

const PARTS = Symbol("light parts");
const REAL = Symbol("real response");

let enabled = false;

/**
 * From now on, {@linkcode textResponse} in this process makes light answers: called by the Node
 * adapter when it starts serving, so that a handler run by anything else (a test, a user's own
 * server) keeps getting the host's own `Response`.
 */
export function enableLightResponses(): void {
  enabled = true;
}

/** Whether {@linkcode enableLightResponses} was called in this process. */
export function lightResponsesEnabled(): boolean {
  return enabled;
}

/**
 * A light answer: behaves as `new Response(body, { status, headers })` for every reader.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { LightResponse } from "./_light_response.ts";
 *
 * const res = new LightResponse('{"ok":true}', 201, [["content-type", "application/json"]]);
 * assert.ok(res instanceof Response);
 * assert.equal(res.status, 201);
 * assert.equal(res.headers.get("content-type"), "application/json");
 * assert.deepEqual(await res.json(), { ok: true });
 * ```
 */
export class LightResponse {
  [PARTS]: { status: number; headers: LightHeaderList; body: string | null };
  [REAL]: Response | undefined;
  constructor(body: string | null, status: number, headers: LightHeaderList) {
    this[PARTS] = { status, headers, body };
    this[REAL] = undefined;
  }
  get status(): number {
    return this[REAL]?.status ?? this[PARTS].status;
  }
  get ok(): boolean {
    const status = this.status;
    return status >= 200 && status <= 299;
  }
}
/** A light answer is read as the `Response` it stands for. */
export interface LightResponse extends Response {}
Object.setPrototypeOf(LightResponse.prototype, Response.prototype);

/** The host's own `Response`, built once from the parts the first time something needs it. */
function realOf(light: LightResponse): Response {
  let real = light[REAL];
  if (real === undefined) {
    const { status, headers, body } = light[PARTS];
    // Validates as the constructor would have (status range, header names and values).
    real = light[REAL] = new Response(body, { status, headers: headers as [string, string][] });
  }
  return real;
}
delegateRest(LightResponse.prototype, Response.prototype, (self) => realOf(self as LightResponse));

/**
 * The parts of `response` if it is a light answer nothing has read but its status, else
 * undefined (then it is written as any `Response` is). The headers come as a `Headers` would
 * iterate them: names in lower case and sorted, duplicates joined with `, `, `set-cookie` apart,
 * and `content-type: text/plain;charset=UTF-8` for a string body without a type, as the
 * `Response` constructor adds it.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { LightResponse, lightParts } from "./_light_response.ts";
 *
 * const res = new LightResponse("hi", 200, [["Vary", "Origin"], ["vary", "Accept"]]);
 * assert.deepEqual(lightParts(res)?.headers, [
 *   ["content-type", "text/plain;charset=UTF-8"],
 *   ["vary", "Origin, Accept"],
 * ]);
 * await res.text();
 * assert.equal(lightParts(res), undefined); // read: written as any Response
 * ```
 */
export function lightParts(response: Response): LightParts | undefined {
  if (!(response instanceof LightResponse) || response[REAL] !== undefined) return undefined;
  const { status, headers, body } = response[PARTS];
  const sorted = sortedHeaders(headers, body !== null);
  return sorted && { status, headers: sorted.headers, cookies: sorted.cookies, body };
}

const sortedCache = new WeakMap<LightHeaderList, SortedHeaders>();
interface SortedHeaders {
  headers: readonly (readonly [string, string])[];
  cookies: readonly string[];
}
/**
 * A valid HTTP header name (RFC 9110's token), as the host's `Headers` accepts it.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { HTTP_TOKEN } from "./_light_response.ts";
 * assert.ok(HTTP_TOKEN.test("mcp-protocol-version"));
 * assert.ok(!HTTP_TOKEN.test("bad name"));
 * ```
 */
export const HTTP_TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const BAD_VALUE = /[\0\r\n]|^[\t ]|[\t ]$/;

/**
 * A header list in a `Headers`' order, kept per list (the endpoint's lists without an origin are
 * constants). Undefined when a name or value is one the `Response` constructor would refuse or
 * change: then the host's `Response` is built and says so.
 */
function sortedHeaders(list: LightHeaderList, hasBody: boolean): SortedHeaders | undefined {
  if (hasBody) {
    const cached = sortedCache.get(list);
    if (cached !== undefined) return cached;
  }
  const joined = new Map<string, string>();
  const cookies: string[] = [];
  for (const [name, value] of list) {
    if (!HTTP_TOKEN.test(name) || BAD_VALUE.test(value)) return undefined;
    const lower = name.toLowerCase();
    if (lower === "set-cookie") {
      cookies.push(value);
      continue;
    }
    const seen = joined.get(lower);
    joined.set(lower, seen === undefined ? value : `${seen}, ${value}`);
  }
  if (hasBody && !joined.has("content-type")) {
    joined.set("content-type", "text/plain;charset=UTF-8");
  }
  const headers: [string, string][] = [];
  for (const name of [...joined.keys()].sort()) headers.push([name, joined.get(name)!]);
  const out = { headers, cookies };
  if (hasBody && Object.isFrozen(list)) sortedCache.set(list, out);
  return out;
}

/**
 * Gives `proto` every property of `base` it does not define itself, each forwarding to the host
 * object that `real` builds: getters read it, methods run on it.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { delegateRest } from "./_light_response.ts";
 *
 * const real = new Headers({ a: "1" });
 * class View {}
 * Object.setPrototypeOf(View.prototype, Headers.prototype);
 * delegateRest(View.prototype, Headers.prototype, () => real);
 * assert.equal((new View() as Headers).get("a"), "1");
 * ```
 */
export function delegateRest(proto: object, base: object, real: (self: object) => object): void {
  for (const key of Reflect.ownKeys(base)) {
    if (key === "constructor" || Object.prototype.hasOwnProperty.call(proto, key)) continue;
    const d = Object.getOwnPropertyDescriptor(base, key)!;
    if (d.get) {
      const get = d.get;
      const set = d.set;
      Object.defineProperty(proto, key, {
        configurable: true,
        enumerable: d.enumerable,
        get(this: object) {
          return get.call(real(this));
        },
        ...(set
          ? {
            set(this: object, value: unknown) {
              set.call(real(this), value);
            },
          }
          : {}),
      });
    } else if (typeof d.value === "function") {
      const method = d.value as (...args: unknown[]) => unknown;
      Object.defineProperty(proto, key, {
        configurable: true,
        enumerable: d.enumerable,
        writable: true,
        value: function (this: object, ...args: unknown[]) {
          return method.apply(real(this), args);
        },
      });
    }
  }
}
