/**
 * The Cloud API server and its OpenAPI document agree:
 * - `docs/cloud-api.openapi.json` is the document the server serves at
 *   `GET /v1/openapi.json` (and `CLOUD_OPENAPI_DOCUMENT`);
 * - every route of the handler's table is in the document and vice versa, and
 *   probing the handler finds no other route;
 * - a scenario that drives every route through the handler (on a file store
 *   in a temp dir) validates every request body it sends and every answer it
 *   gets against the document's schemas, and every status it sees is one the
 *   document declares for that operation (headers too: `WWW-Authenticate`,
 *   `Retry-After`, `Idempotent-Replayed`).
 *
 * After changing `cloud/openapi/document.ts`, regenerate the file:
 * `deno eval 'import { CLOUD_OPENAPI_DOCUMENT as d } from "./cloud/openapi/document.ts"; await Deno.writeTextFile("docs/cloud-api.openapi.json", JSON.stringify(d, null, 2) + "\n")' && deno fmt docs/cloud-api.openapi.json`
 */

import assert from "node:assert/strict";
import { CLOUD_OPENAPI_DOCUMENT, createMemoCloudHandler, FileCloudStore } from "../cloud/mod.ts";
import { CLOUD_ROUTES, matchRoute } from "../cloud/_routes.ts";
import type { CloudStore } from "../cloud/store.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

const DOC_PATH = new URL("../docs/cloud-api.openapi.json", import.meta.url);
const doc: Json = JSON.parse(await Deno.readTextFile(DOC_PATH));
const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];

// ---------------------------------------------------------------------------
// A small JSON Schema (2020-12 subset) validator: every keyword the document
// uses is implemented, and an unknown keyword fails the test instead of being
// ignored.

const ANNOTATIONS = new Set(["description", "default", "format", "title", "examples"]);
const KEYWORDS = new Set([
  "$ref",
  "type",
  "properties",
  "required",
  "additionalProperties",
  "items",
  "enum",
  "const",
  "pattern",
  "minimum",
  "maximum",
  "minItems",
  "maxItems",
  "minProperties",
  "oneOf",
]);

function resolveRef(ref: string): Json {
  assert.ok(ref.startsWith("#/"), `only local refs: ${ref}`);
  let node = doc;
  for (const part of ref.slice(2).split("/")) {
    node = node?.[part.replaceAll("~1", "/").replaceAll("~0", "~")];
    assert.ok(node !== undefined, `unresolved $ref ${ref}`);
  }
  return node;
}

function typeOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value;
}

/** The problems of `value` against `schema` (empty when it conforms). */
function validate(schema: Json, value: unknown, at = "$"): string[] {
  for (const key of Object.keys(schema)) {
    if (!KEYWORDS.has(key) && !ANNOTATIONS.has(key)) {
      throw new Error(`validator: unsupported keyword ${key} at ${at}`);
    }
  }
  if (schema.$ref) return validate(resolveRef(schema.$ref), value, at);
  const problems: string[] = [];
  if (schema.type !== undefined) {
    const types: string[] = Array.isArray(schema.type) ? schema.type : [schema.type];
    const actual = typeOf(value);
    const ok = types.includes(actual) || (actual === "integer" && types.includes("number"));
    if (!ok) return [`${at}: expected ${types.join("|")}, got ${actual}`];
  }
  if (schema.const !== undefined && JSON.stringify(value) !== JSON.stringify(schema.const)) {
    problems.push(`${at}: expected ${JSON.stringify(schema.const)}`);
  }
  if (
    schema.enum && !schema.enum.some((e: unknown) => JSON.stringify(e) === JSON.stringify(value))
  ) {
    problems.push(`${at}: ${JSON.stringify(value)} not in ${JSON.stringify(schema.enum)}`);
  }
  if (typeof value === "string" && schema.pattern && !new RegExp(schema.pattern, "u").test(value)) {
    problems.push(`${at}: ${JSON.stringify(value)} does not match ${schema.pattern}`);
  }
  if (typeof value === "number") {
    if (schema.minimum !== undefined && value < schema.minimum) problems.push(`${at}: < minimum`);
    if (schema.maximum !== undefined && value > schema.maximum) problems.push(`${at}: > maximum`);
  }
  if (Array.isArray(value)) {
    if (schema.minItems !== undefined && value.length < schema.minItems) {
      problems.push(`${at}: fewer than ${schema.minItems} items`);
    }
    if (schema.maxItems !== undefined && value.length > schema.maxItems) {
      problems.push(`${at}: more than ${schema.maxItems} items`);
    }
    if (schema.items) {
      value.forEach((item, i) => problems.push(...validate(schema.items, item, `${at}[${i}]`)));
    }
  }
  if (typeOf(value) === "object") {
    const object = value as Record<string, unknown>;
    const keys = Object.keys(object);
    if (schema.minProperties !== undefined && keys.length < schema.minProperties) {
      problems.push(`${at}: fewer than ${schema.minProperties} properties`);
    }
    for (const name of schema.required ?? []) {
      if (!(name in object)) problems.push(`${at}: missing ${name}`);
    }
    for (const key of keys) {
      const sub = schema.properties?.[key];
      if (sub) problems.push(...validate(sub, object[key], `${at}.${key}`));
      else if (schema.additionalProperties === false) {
        problems.push(`${at}: unexpected property ${key}`);
      } else if (typeof schema.additionalProperties === "object") {
        problems.push(...validate(schema.additionalProperties, object[key], `${at}.${key}`));
      }
    }
  }
  if (schema.oneOf) {
    const matching = schema.oneOf.filter((s: Json) => validate(s, value, at).length === 0);
    if (matching.length !== 1) {
      problems.push(`${at}: matches ${matching.length} of the oneOf schemas, not exactly one`);
    }
  }
  return problems;
}

function assertValid(schema: Json, value: unknown, what: string): void {
  const problems = validate(schema, value);
  assert.deepEqual(problems, [], `${what}: ${JSON.stringify(value).slice(0, 400)}`);
}

Deno.test("the validator refuses what it should (so that it can fail)", () => {
  const schema = {
    type: "object",
    properties: { a: { type: "integer", minimum: 1 }, b: { type: "string", pattern: "^x" } },
    required: ["a"],
    additionalProperties: false,
  };
  assert.deepEqual(validate(schema, { a: 1, b: "xy" }), []);
  assert.equal(validate(schema, { a: 0 }).length, 1);
  assert.equal(validate(schema, { a: 1, c: 1 }).length, 1);
  assert.equal(validate(schema, { b: "y" }).length, 2);
  assert.equal(validate({ $ref: "#/components/schemas/CloudNote" }, { id: "x" }).length > 0, true);
  assert.throws(() => validate({ anyOf: [] }, 1), /unsupported keyword anyOf/);
});

// ---------------------------------------------------------------------------

Deno.test("docs/cloud-api.openapi.json is the document the server serves", async () => {
  assert.deepEqual(doc, JSON.parse(JSON.stringify(CLOUD_OPENAPI_DOCUMENT)));
  const dataDir = await Deno.makeTempDir();
  const store = new FileCloudStore({ dataDir });
  try {
    const handler = createMemoCloudHandler({ store, apiKeys: new Map([["k", "team"]]) });
    const response = await handler(new Request("http://127.0.0.1:8788/v1/openapi.json"));
    assert.equal(response.status, 200);
    assert.deepEqual(await response.json(), doc);
  } finally {
    await store.close();
    await Deno.remove(dataDir, { recursive: true });
  }
});

Deno.test("the document is well formed: 3.1, refs resolve, path parameters declared, unique operation ids", () => {
  assert.equal(doc.openapi, "3.1.0");
  const walk = (node: Json) => {
    if (Array.isArray(node)) node.forEach(walk);
    else if (node && typeof node === "object") {
      if (typeof node.$ref === "string") resolveRef(node.$ref);
      Object.values(node).forEach(walk);
    }
  };
  walk(doc);
  const ids = new Set<string>();
  for (const [path, item] of Object.entries<Json>(doc.paths)) {
    const names = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
    for (const method of METHODS.filter((m) => item[m])) {
      const op = item[method];
      assert.ok(!ids.has(op.operationId), `duplicate operationId ${op.operationId}`);
      ids.add(op.operationId);
      const declared = [...(item.parameters ?? []), ...(op.parameters ?? [])]
        .map((p: Json) => (p.$ref ? resolveRef(p.$ref) : p))
        .filter((p: Json) => p.in === "path")
        .map((p: Json) => p.name);
      assert.deepEqual(declared.sort(), [...names].sort(), `${method} ${path} path parameters`);
      assert.ok(op.responses && Object.keys(op.responses).length > 0);
    }
  }
});

Deno.test("every route of the handler is in the document, and every documented route is the handler's", async () => {
  const documented = Object.entries<Json>(doc.paths).flatMap(([path, item]) =>
    METHODS.filter((m) => item[m]).map((m) => `${m.toUpperCase()} ${path} ${item[m].operationId}`)
  ).sort();
  const routed = CLOUD_ROUTES.map((r) => `${r.method} ${r.path} ${r.operation}`).sort();
  assert.deepEqual(routed, documented);

  // Probe the handler itself: each documented operation is routed, and no other method is
  // (HEAD, implicit in the document, wherever GET is).
  const dataDir = await Deno.makeTempDir();
  const store = new FileCloudStore({ dataDir });
  try {
    const handler = createMemoCloudHandler({ store, apiKeys: new Map([["k", "team"]]) });
    for (const [template, item] of Object.entries<Json>(doc.paths)) {
      const path = template.replace("{workspaceId}", "team").replace("{projectId}", "p")
        .replace("{noteId}", "n1");
      for (const method of METHODS.filter((m) => m !== "trace")) { // fetch forbids TRACE
        const response = await handler(
          new Request(`http://127.0.0.1:8788${path}`, {
            method: method.toUpperCase(),
            headers: { authorization: "Bearer k" },
          }),
        );
        const body = await response.text();
        const unrouted = response.status === 404 && /no such route/.test(body);
        if (method === "head") { // implicit in the document: routed as GET is, without a body
          const get = await handler(
            new Request(`http://127.0.0.1:8788${path}`, { headers: { authorization: "Bearer k" } }),
          );
          await get.body?.cancel();
          assert.equal(response.status, get.status, `HEAD ${template} answers as GET`);
          assert.equal(body, "", `HEAD ${template} has no body`);
          continue;
        }
        assert.equal(unrouted, !item[method], `${method} ${template}: ${response.status} ${body}`);
      }
    }
    for (const path of ["/", "/v1", "/v1/", "/v2/health", "/v1/health/", "/v1/workspaces/team"]) {
      const response = await handler(new Request(`http://127.0.0.1:8788${path}`));
      assert.equal(response.status, 404, path);
      assert.match(await response.text(), /no such route/);
    }
    assert.equal(matchRoute("GET", "/v1/workspaces//projects/p/stats"), undefined);
    // 413 is declared exactly where the body limit applies: on the routes that read a body.
    for (const route of CLOUD_ROUTES) {
      const op = doc.paths[route.path][route.method.toLowerCase()];
      assert.equal("413" in op.responses, route.body === true, `413 of ${route.operation}`);
    }
  } finally {
    await store.close();
    await Deno.remove(dataDir, { recursive: true });
  }
});

// ---------------------------------------------------------------------------

interface Seen {
  operation: string;
  status: number;
}

/** A handler whose every exchange is checked against the document. */
function checkedClient(handler: (request: Request) => Promise<Response>, seen: Seen[]) {
  return async (
    method: string,
    path: string,
    init: { body?: unknown; rawBody?: string; headers?: Record<string, string> } = {},
  ): Promise<{ status: number; json: Json; headers: Headers }> => {
    const url = new URL(path, "http://127.0.0.1:8788");
    const match = matchRoute(method, url.pathname);
    assert.ok(match, `${method} ${url.pathname} is routed`);
    const op = doc.paths[match.route.path][method.toLowerCase()];
    if (init.body !== undefined && op.requestBody) {
      assertValid(
        op.requestBody.content["application/json"].schema,
        init.body,
        `request of ${op.operationId}`,
      );
    }
    const text = init.rawBody ?? (init.body === undefined ? undefined : JSON.stringify(init.body));
    const response = await handler(
      new Request(url, {
        method,
        headers: { "content-type": "application/json", ...init.headers },
        body: text,
      }),
    );
    const json = await response.json();
    const status = String(response.status);
    assert.ok(
      op.responses[status],
      `${op.operationId} answered ${status}, which the document does not declare`,
    );
    const declared = op.responses[status].$ref
      ? resolveRef(op.responses[status].$ref)
      : op.responses[status];
    assert.equal(
      response.headers.get("content-type"),
      "application/json; charset=utf-8",
    );
    assertValid(
      declared.content["application/json"].schema,
      json,
      `${op.operationId} ${status}`,
    );
    for (const [name, header] of Object.entries<Json>(declared.headers ?? {})) {
      const spec = header.$ref ? resolveRef(header.$ref) : header;
      const value = response.headers.get(name);
      if (name === "Idempotent-Replayed" && value === null) continue; // only on replays
      if (spec.required === false && value === null) continue; // the rate limit's, when off
      assert.ok(value !== null, `${op.operationId} ${status} lacks header ${name}`);
      const typed = spec.schema.type === "integer" ? Number(value) : value;
      assertValid(spec.schema, typed, `${op.operationId} ${status} header ${name}`);
    }
    if (response.headers.get("idempotent-replayed") !== null) {
      assert.ok(declared.headers?.["Idempotent-Replayed"], `${op.operationId} replays undeclared`);
    }
    seen.push({ operation: op.operationId, status: response.status });
    return { status: response.status, json, headers: response.headers };
  };
}

Deno.test("the document's schemas validate the server's real answers on every route", async () => {
  const dataDir = await Deno.makeTempDir();
  const store = new FileCloudStore({ dataDir });
  const seen: Seen[] = [];
  try {
    const handler = createMemoCloudHandler({
      store,
      apiKeys: [{ key: "k-team", workspaceId: "team" }, { key: "k-other", workspaceId: "other" }],
      maxBodyBytes: 4096,
      maxBatchBodyBytes: 8192,
      idempotencyWaitMs: 0,
    });
    const call = checkedClient(handler, seen);
    const auth = { authorization: "Bearer k-team" };
    const P = "/v1/workspaces/team/projects/default";
    let n = 0;
    const write = (extra: Record<string, string> = {}) => ({
      ...auth,
      "idempotency-key": `key-${++n}`,
      ...extra,
    });

    assert.equal((await call("GET", "/v1/health")).status, 200);
    assert.equal((await call("GET", "/v1/openapi.json")).status, 200);
    assert.equal((await call("GET", "/v1/whoami", { headers: auth })).status, 200);
    assert.equal((await call("GET", "/v1/whoami")).status, 401);
    assert.equal((await call("GET", "/v1/whoami?x=1", { headers: auth })).status, 400);

    const created = await call("POST", `${P}/notes`, {
      body: { text: "Deploys run with make deploy", labels: ["ops"], source: "doc:deploys" },
      headers: write(),
    });
    assert.equal(created.status, 201);
    const id = created.json.note.id;
    const same = await call("POST", `${P}/notes`, {
      body: { text: "Deploys run with make deploy", labels: ["ops"], source: "doc:deploys" },
      headers: write(),
    });
    assert.equal(same.json.status, "unchanged");
    const replayHeaders = write();
    await call("POST", `${P}/notes`, { body: { text: "Second note" }, headers: replayHeaders });
    const replay = await call("POST", `${P}/notes`, {
      body: { text: "Second note" },
      headers: replayHeaders,
    });
    assert.equal(replay.headers.get("idempotent-replayed"), "true");
    assert.equal(
      (await call("POST", `${P}/notes`, { rawBody: "{", headers: write() })).status,
      400,
    );
    assert.equal(
      (await call("POST", `${P}/notes`, {
        rawBody: `{"text":"${"x".repeat(5000)}"}`,
        headers: write(),
      }))
        .status,
      413,
    );
    assert.equal(
      (await call("POST", "/v1/workspaces/other/projects/default/notes", {
        body: { text: "x" },
        headers: write(),
      })).status,
      403,
    );
    assert.equal(
      (await call("POST", `${P}/notes`, {
        body: { text: "x" },
        headers: { "idempotency-key": "z" },
      }))
        .status,
      401,
    );

    assert.equal((await call("GET", `${P}/notes?limit=1`, { headers: auth })).status, 200);
    const page = await call("GET", `${P}/notes?limit=1&order=newest`, { headers: auth });
    assert.ok(page.json.nextCursor);
    assert.equal((await call("GET", `${P}/notes?cursor=nope`, { headers: auth })).status, 400);

    assert.equal((await call("GET", `${P}/notes/${id}`, { headers: auth })).status, 200);
    assert.equal((await call("GET", `${P}/notes/nope`, { headers: auth })).status, 404);

    const updated = await call("PATCH", `${P}/notes/${id}`, {
      body: { labels: ["ops", "ci"] },
      headers: write({ "if-match": String(created.json.note.revision) }),
    });
    assert.equal(updated.status, 200);
    const edited = await call("PATCH", `${P}/notes/${id}`, {
      body: { text: "Deploys run with make ship", updated: "2026-02-01T10:00:00.000Z" },
      headers: write({ "if-match": String(updated.json.note.revision) }),
    });
    assert.equal(edited.json.note.updated, "2026-02-01T10:00:00.000Z");
    const timeAlone = await call("PATCH", `${P}/notes/${id}`, {
      rawBody: JSON.stringify({ updated: "2026-02-01T10:00:00.000Z" }),
      headers: write(),
    });
    assert.equal(timeAlone.status, 400, "updated alone changes nothing");
    const conflictHeaders = write({ "if-match": `"${created.json.note.revision}"` });
    const conflict = await call("PATCH", `${P}/notes/${id}`, {
      body: { title: "Deploys" },
      headers: conflictHeaders,
    });
    assert.equal(conflict.status, 409);
    // Answers the store gave are kept with the key: a repeat replays them, declared header and all.
    const replayedConflict = await call("PATCH", `${P}/notes/${id}`, {
      body: { title: "Deploys" },
      headers: conflictHeaders,
    });
    assert.equal(replayedConflict.status, 409);
    assert.equal(replayedConflict.headers.get("idempotent-replayed"), "true");
    for (
      const [method, path, body] of [
        ["PATCH", `${P}/notes/nope`, { title: "t" }],
        ["DELETE", `${P}/notes/nope`, undefined],
      ] as const
    ) {
      const headers = write();
      const first = await call(method, path, { body, headers });
      const again = await call(method, path, { body, headers });
      assert.equal(again.status, first.status);
      assert.ok([400, 404].includes(again.status), `${method} ${path}: ${again.status}`);
      assert.equal(again.headers.get("idempotent-replayed"), "true");
    }
    assertValid(
      { $ref: "#/components/schemas/CloudNote" },
      conflict.json.error.details.note,
      "the current note of a 409",
    );
    assert.equal(
      (await call("PATCH", `${P}/notes/nope`, { body: { title: "t" }, headers: write() }))
        .status,
      404,
    );

    const batch = await call("POST", `${P}/notes:batch`, {
      body: {
        notes: [
          {
            id: "replica-1",
            text: "Staging database is db-stage-2",
            created: "2025-01-02T03:04:05.000Z",
          },
          { text: "Deploys run with make deploy", labels: ["ops"], source: "doc:deploys" },
        ],
      },
      headers: write(),
    });
    assert.equal(batch.status, 200);
    assert.equal(batch.json.results[0].note.id, "replica-1");
    const bad = await call("POST", `${P}/notes:batch`, {
      rawBody: JSON.stringify({ notes: [{ text: "ok" }, { text: "ok", extra: 1 }] }),
      headers: write(),
    });
    assert.equal(bad.status, 400);
    assert.equal(bad.json.error.details.index, 1);
    assert.equal(
      (await call("POST", `${P}/notes:batch`, {
        rawBody: JSON.stringify({ notes: [{ text: "y".repeat(9000) }] }),
        headers: write(),
      })).status,
      413,
    );

    const recall = await call("POST", `${P}/recall`, {
      body: { query: "staging database", explain: true, limit: 5 },
      headers: auth,
    });
    assert.equal(recall.json.hits[0].note.id, "replica-1");
    assert.ok(recall.json.hits[0].explain.length > 0);
    assert.equal(
      (await call("POST", `${P}/recall`, { body: { query: "x", engine: "vector" }, headers: auth }))
        .status,
      400,
    );

    // Notes that stay true: a correction, the history filters, supersede links, tidy.
    const wrong = await call("POST", `${P}/notes`, {
      body: { text: "Staging lives in eu-west-1", validFrom: "2020-01-01" },
      headers: write(),
    });
    const first = await call("POST", `${P}/notes`, {
      body: { text: "Canary deploys hold at 5% of traffic for 30 minutes." },
      headers: write(),
    });
    const twin = await call("POST", `${P}/notes`, {
      body: { text: "FYI: canary deploys hold at 5% of traffic for 30 minutes." },
      headers: write(),
    });
    assert.deepEqual(twin.json.similar.map((s: Json) => s.id), [first.json.note.id]);
    const corrected = await call("POST", `${P}/notes:correct`, {
      body: {
        id: wrong.json.note.id,
        text: "Staging lives in eu-central-1",
      },
      headers: write(),
    });
    assert.equal(corrected.status, 200);
    assert.deepEqual(corrected.json.superseded, [wrong.json.note.id]);
    assert.equal(
      (await call("POST", `${P}/notes:correct`, {
        body: { id: "nope", text: "x" },
        headers: write(),
      }))
        .status,
      404,
    );
    const history = await call(
      "GET",
      `${P}/notes?includeSuperseded=true&since=2020-01-01&until=2100-01-01`,
      { headers: auth },
    );
    assert.ok(history.json.notes.some((n: Json) => n.supersededBy?.[0] === corrected.json.note.id));
    assert.equal((await call("GET", `${P}/notes?asOf=yesterday`, { headers: auth })).status, 400);
    const old = await call("GET", `${P}/notes/${wrong.json.note.id}`, { headers: auth });
    assert.deepEqual(old.json.note.supersededBy, [corrected.json.note.id]);
    const then = await call("POST", `${P}/recall`, {
      body: { query: "staging lives", asOf: old.json.note.created, includeSuperseded: false },
      headers: auth,
    });
    assert.equal(then.json.hits[0].note.id, wrong.json.note.id);
    const refused = await call("POST", `${P}/notes`, {
      rawBody: JSON.stringify({ text: "A note replacing an unknown one", supersedes: ["nope"] }),
      headers: write(),
    });
    assert.equal(refused.status, 400);
    const plan = await call("GET", `${P}/tidy`, { headers: auth });
    assert.equal(plan.json.proposals[0]?.kind, "merge", JSON.stringify(plan.json));
    const applied = await call("POST", `${P}/tidy:apply`, { body: plan.json, headers: write() });
    assert.equal(applied.json.merged, 1);
    const merged = await call("POST", `${P}/notes:supersede`, {
      body: { ids: [first.json.note.id], by: twin.json.note.id },
      headers: write(),
    });
    assert.equal(merged.status, 200);
    assert.equal(
      (await call("POST", `${P}/notes:supersede`, {
        rawBody: JSON.stringify({ ids: [], by: "x" }),
        headers: write(),
      }))
        .status,
      400,
    );
    assert.equal(
      (await call("POST", `${P}/tidy:apply`, {
        rawBody: JSON.stringify({ ...plan.json, sha256: "0".repeat(64) }),
        headers: write(),
      })).status,
      400,
    );

    assert.equal((await call("DELETE", `${P}/notes/replica-1`, { headers: write() })).status, 200);
    assert.equal((await call("DELETE", `${P}/notes/replica-1`, { headers: write() })).status, 404);

    const changes = await call("GET", `${P}/changes?limit=1000`, { headers: auth });
    assert.ok(changes.json.changes.some((c: Json) => c.op === "delete"));
    assert.ok(changes.json.changes.some((c: Json) => c.op === "upsert"));
    assert.equal((await call("GET", `${P}/changes?since=x`, { headers: auth })).status, 400);

    const stats = await call("GET", `${P}/stats`, { headers: auth });
    assert.ok(stats.json.revision > 0);
    assert.equal(
      (await call("GET", "/v1/workspaces/BAD/projects/p/stats", { headers: auth })).status,
      400,
    );

    // Batch delete: by ids (one unknown), by prefix, neither, both, and replayed with its key.
    for (const [i, text] of ["gone 1", "gone 2", "kept 3"].entries()) {
      const source = `import:${text.startsWith("gone") ? "old" : "new"}/${i}`;
      const made = await call("POST", `${P}/notes`, { body: { text, source }, headers: write() });
      assert.equal(made.status, 201);
    }
    const byPrefixHeaders = write();
    const byPrefix = await call("POST", `${P}/notes:batchDelete`, {
      body: { sourcePrefix: "import:old/" },
      headers: byPrefixHeaders,
    });
    assert.equal(byPrefix.status, 200);
    assert.deepEqual(byPrefix.json.deleted.map((n: Json) => n.body), ["gone 1", "gone 2"]);
    const replayedDelete = await call("POST", `${P}/notes:batchDelete`, {
      body: { sourcePrefix: "import:old/" },
      headers: byPrefixHeaders,
    });
    assert.equal(replayedDelete.headers.get("idempotent-replayed"), "true");
    const kept = (await call("GET", `${P}/notes?source=import:new/`, { headers: auth })).json;
    const byIds = await call("POST", `${P}/notes:batchDelete`, {
      body: { ids: [kept.notes[0].id, "nope"] },
      headers: write(),
    });
    assert.deepEqual(byIds.json.notFound, ["nope"]);
    assert.equal(
      (await call("POST", `${P}/notes:batchDelete`, {
        rawBody: JSON.stringify({ ids: ["a"], sourcePrefix: "x" }),
        headers: write(),
      })).status,
      400,
    );

    // The instance's figures: an operator key, not a workspace key nor none.
    const operated = checkedClient(
      createMemoCloudHandler({
        store,
        apiKeys: new Map([["k-team", "team"]]),
        operatorKeys: ["op-key"],
      }),
      seen,
    );
    const figures = await operated("GET", "/v1/stats", {
      headers: { authorization: "Bearer op-key" },
    });
    assert.equal(figures.status, 200);
    assert.equal(figures.json.store, "file");
    assert.equal((await operated("GET", "/v1/stats", { headers: auth })).status, 403);
    assert.equal((await operated("GET", "/v1/stats")).status, 401);

    // 429, from a handler that allows one request per second.
    const limited = checkedClient(
      createMemoCloudHandler({
        store,
        apiKeys: new Map([["k-team", "team"]]),
        rateLimit: 1,
        clock: () => new Date("2026-01-01T00:00:00.500Z"),
      }),
      seen,
    );
    assert.equal((await limited("GET", `${P}/stats`, { headers: auth })).status, 200);
    assert.equal((await limited("GET", `${P}/stats`, { headers: auth })).status, 429);

    // 500, from a store that fails.
    const broken: CloudStore = {
      kind: "file",
      idempotency: store.idempotency,
      project: () => Promise.reject(new Error("disk on fire")),
      close: () => Promise.resolve(),
    };
    const failing = checkedClient(
      createMemoCloudHandler({ store: broken, apiKeys: new Map([["k-team", "team"]]) }),
      seen,
    );
    assert.equal((await failing("GET", `${P}/stats`, { headers: auth })).status, 500);
    assert.equal(
      (await failing("POST", `${P}/notes`, { body: { text: "x" }, headers: write() })).status,
      500,
    );
  } finally {
    await store.close();
    await Deno.remove(dataDir, { recursive: true });
  }
  // Every operation was driven.
  const operations = new Set(seen.map((s) => s.operation));
  assert.deepEqual([...operations].sort(), CLOUD_ROUTES.map((r) => r.operation).sort());
});
