/**
 * Inputs a store cannot keep are refused at the API with a 400 and the field
 * named (PostgreSQL answered them with a 500: text cannot hold NUL, and no
 * UTF-8 column holds an unpaired surrogate), and `POST notes` refuses an empty
 * draft itself, the same with every store, before it takes the
 * `Idempotency-Key`.
 */

import assert from "node:assert/strict";
import { createMemoCloudHandler } from "../app.ts";
import { FileCloudStore } from "../file/store.ts";

const BASE = "http://127.0.0.1:8788/v1/workspaces/team/projects/default";

async function withHandler(
  fn: (
    send: (method: string, path: string, body: unknown, key?: string) => Promise<
      { status: number; json: Record<string, unknown> }
    >,
  ) => Promise<void>,
): Promise<void> {
  const dataDir = await Deno.makeTempDir();
  const store = new FileCloudStore({ dataDir });
  const handler = createMemoCloudHandler({
    store,
    apiKeys: [{ key: "k-team", workspaceId: "team" }],
    rateLimit: 0,
  });
  let n = 0;
  try {
    await fn(async (method, path, body, key = `key-${n++}`) => {
      const response = await handler(
        new Request(`${BASE}${path}`, {
          method,
          headers: {
            authorization: "Bearer k-team",
            "content-type": "application/json",
            "idempotency-key": key,
          },
          body: JSON.stringify(body),
        }),
      );
      return { status: response.status, json: await response.json() };
    });
  } finally {
    await store.close();
    await Deno.remove(dataDir, { recursive: true });
  }
}

Deno.test("cloud fields: NUL and unpaired surrogates in a note are a 400 naming the field", async () => {
  await withHandler(async (send) => {
    const refused = [
      ["POST", "/notes", { text: "a\u0000b" }, "text"],
      ["POST", "/notes", { text: "ok", source: "gh:a\u0000" }, "source"],
      ["POST", "/notes", { text: "ok", title: "\ud800" }, "title"],
      ["POST", "/notes", { text: "ok", labels: ["fine", "\udc00x"] }, "labels"],
      ["POST", "/notes:batch", { notes: [{ text: "ok" }, { text: "x\ud83d" }] }, "text"],
    ] as const;
    for (const [method, path, body, field] of refused) {
      const { status, json } = await send(method, path, body);
      assert.equal(status, 400, JSON.stringify(body));
      const error = json.error as { code: string; message: string; details: { field: string } };
      assert.equal(error.code, "invalid_request");
      assert.equal(error.details.field, field);
      assert.match(error.message, /NUL character or an unpaired UTF-16 surrogate/);
    }
    const batch = await send("POST", "/notes:batch", {
      notes: [{ text: "ok" }, { text: "\u0000" }],
    });
    assert.deepEqual((batch.json.error as { details: unknown }).details, {
      index: 1,
      field: "text",
    });

    const written = await send("POST", "/notes", { text: "a pair is fine: \ud83d\ude00" });
    assert.equal(written.status, 201);
    const id = (written.json.note as { id: string }).id;
    const patched = await send("PATCH", `/notes/${id}`, { text: "nul\u0000" });
    assert.equal(patched.status, 400);
    assert.equal((patched.json.error as { details: { field: string } }).details.field, "text");
    const stats = await send("POST", "/recall", { query: "pair" });
    assert.equal((stats.json.hits as unknown[]).length, 1); // nothing refused was stored
  });
});

Deno.test("cloud fields: POST notes refuses an empty draft itself, without details.index, keeping the key free", async () => {
  await withHandler(async (send) => {
    const empty = await send("POST", "/notes", { text: "  \n " }, "same-key");
    assert.equal(empty.status, 400);
    assert.deepEqual(empty.json, {
      error: { code: "invalid_request", message: "Cannot create the note: text is empty" },
    });
    const badSource = await send("POST", "/notes", { text: "x", source: "two words" }, "same-key");
    assert.equal(badSource.status, 400);
    assert.equal((badSource.json.error as { details?: unknown }).details, undefined);
    // Refused before the store, so the key was not taken.
    const written = await send("POST", "/notes", { text: "now something" }, "same-key");
    assert.equal(written.status, 201);
  });
});

Deno.test("cloud fields: PATCH with blank text is refused before the store, keeping the key free", async () => {
  await withHandler(async (send) => {
    const created = await send("POST", "/notes", { text: "keep me" });
    const id = (created.json.note as { id: string }).id;
    const blank = await send("PATCH", `/notes/${id}`, { text: " \n " }, "patch-key");
    assert.equal(blank.status, 400);
    assert.deepEqual(blank.json, {
      error: {
        code: "invalid_request",
        message: "Cannot update the note: text is empty",
        details: { field: "text" },
      },
    });
    // The key was not taken: the same key now runs the real patch.
    const patched = await send("PATCH", `/notes/${id}`, { text: "kept, changed" }, "patch-key");
    assert.equal(patched.status, 200);
    assert.equal((patched.json.note as { body: string }).body, "kept, changed");
  });
});
