/**
 * A correction through MCP, with the official SDK clients: the 2025 era (`@modelcontextprotocol/sdk`
 * 1.32) and the 2026-07-28 era (`@modelcontextprotocol/client` 2.4), each over stdio (`memo mcp`)
 * and over Streamable HTTP (`deno serve http.ts`). Each run checks that recall's first hit is the
 * new fact, the old one is absent and comes back flagged with includeSuperseded, asOf before the
 * correction answers the old fact, notes.md holds both notes linked, the chain shows both ways,
 * and the refusals are tool errors (MCP_NOT_FOUND, MCP_VALIDATION_ERROR).
 */

import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
// deno-lint-ignore no-import-prefix -- test-only, pinned
import { Client as SessionClient } from "npm:@modelcontextprotocol/sdk@1.32.2/client/index.js";
// deno-lint-ignore no-import-prefix -- test-only, pinned
import { StdioClientTransport as SessionStdio } from "npm:@modelcontextprotocol/sdk@1.32.2/client/stdio.js";
// deno-lint-ignore no-import-prefix -- test-only, pinned
import { StreamableHTTPClientTransport as SessionHttp } from "npm:@modelcontextprotocol/sdk@1.32.2/client/streamableHttp.js";
// deno-lint-ignore no-import-prefix -- test-only, pinned
import { Client, StreamableHTTPClientTransport } from "npm:@modelcontextprotocol/client@2.4.0";
// deno-lint-ignore no-import-prefix -- test-only, pinned
import { StdioClientTransport } from "npm:@modelcontextprotocol/client@2.4.0/stdio";
import { startDenoServe } from "./_serve_process.ts";

const ROOT = new URL("..", import.meta.url).pathname;

// deno-lint-ignore no-explicit-any
type Json = any;

/** What the scenario needs of a client, whichever SDK. */
interface McpClient {
  callTool(params: { name: string; arguments: Record<string, unknown> }): Promise<Json>;
  readResource(params: { uri: string }): Promise<Json>;
  listResources(): Promise<Json>;
  close(): Promise<void>;
}

const stdioArgs = (dir: string) => ["run", "-A", "cli.ts", "mcp", "--dir", dir];

async function correctionThrough(client: McpClient, rootDir: string, tag: string) {
  const call = async (name: string, args: Record<string, unknown>) => {
    const r = await client.callTool({ name, arguments: args });
    return { isError: r.isError === true, s: r.structuredContent as Json };
  };
  const ok = async (name: string, args: Record<string, unknown>) => {
    const r = await call(name, args);
    assert.equal(r.isError, false, `${name}: ${JSON.stringify(r.s)}`);
    return r.s;
  };
  const labels = [tag];
  const old = (await ok("remember", { text: `The ${tag} deploy window is Friday 15:00.`, labels }))
    .note;
  const near = await ok("remember", {
    text: `Heads up: the ${tag} deploy window is Friday 15:00.`,
    labels,
  });
  assert.deepEqual(
    near.similar.map((s: Json) => s.id),
    [old.id],
    "similar lists the near-duplicate",
  );
  await ok("supersede", { ids: [near.note.id], by: old.id }); // they say the same thing
  const corrected = await ok("correct", {
    id: old.id,
    text: `The ${tag} deploy window is Monday 10:00.`,
  });
  const fixed = corrected.note;
  assert.deepEqual([corrected.superseded, fixed.supersedes], [[old.id], [old.id]]);

  const query = { query: `${tag} deploy window`, limit: 5, labels };
  const now = (await ok("recall", query)).hits.map((h: Json) => h.note.id);
  assert.deepEqual(now, [fixed.id], "the new fact first, the old one absent");
  const history = (await ok("recall", { ...query, includeSuperseded: true })).hits;
  const flagged = history.find((h: Json) => h.note.id === old.id);
  assert.deepEqual(flagged?.note.supersededBy, [fixed.id]);
  const asOf = new Date(Date.parse(fixed.created) - 1).toISOString();
  const then = (await ok("recall", { ...query, asOf })).hits.map((h: Json) => h.note.id);
  assert.deepEqual(then, [old.id], "asOf before the correction: the old fact");
  const listed = (await ok("list_notes", { limit: 100, labels })).notes.map((n: Json) => n.id);
  assert.ok(
    listed.includes(fixed.id) && !listed.includes(old.id) && !listed.includes(near.note.id),
  );

  // notes.md holds both notes, linked by the newer one's marker.
  const text = await readFile(join(rootDir, ".memo/memory/notes.md"), "utf8");
  assert.ok(text.includes(`{"id":"${old.id}"`));
  assert.match(text, new RegExp(`\\{"id":"${fixed.id}"[^\\n]*"supersedes":\\["${old.id}"\\]`));

  // The chain both ways: get_note and resources/read.
  assert.deepEqual((await ok("get_note", { id: old.id })).note.supersededBy, [fixed.id]);
  assert.deepEqual((await ok("get_note", { id: fixed.id })).note.supersedes, [old.id]);
  const read = await client.readResource({ uri: `memo://notes/${old.id}` });
  assert.match(read.contents[0].text, new RegExp(`superseded by: memo://notes/${fixed.id}`));
  const resources = (await client.listResources()).resources.map((r: Json) => r.uri);
  assert.ok(resources.includes(`memo://notes/${fixed.id}`));
  assert.ok(!resources.includes(`memo://notes/${old.id}`), "resources/list hides superseded notes");

  // Refusals are tool results the model reads.
  const missing = await call("correct", { id: "nope", text: "anything" });
  assert.deepEqual([missing.isError, missing.s.error.code], [true, "MCP_NOT_FOUND"]);
  const unknown = await call("remember", { text: `A ${tag} fact`, supersedes: ["nope"] });
  assert.deepEqual([unknown.isError, unknown.s.error.code], [true, "MCP_VALIDATION_ERROR"]);
  const cycle = await call("supersede", { ids: [fixed.id], by: old.id });
  assert.deepEqual([cycle.isError, cycle.s.error.code], [true, "MCP_VALIDATION_ERROR"]);
  const plan = await ok("tidy", {});
  assert.equal(plan.version, 1);
}

Deno.test("a correction through MCP: stdio and HTTP, the 2025 and 2026-07-28 eras", async (t) => {
  const dirs: string[] = [];
  const temp = async () => {
    const dir = await Deno.makeTempDir({ prefix: "memo-history-mcp-" });
    dirs.push(dir);
    return dir;
  };
  const httpDir = await temp();
  const server = await startDenoServe({ MEMO_ROOT_DIR: httpDir });
  try {
    await t.step("stdio, 2025-11-25 (SDK 1.32)", async () => {
      const dir = await temp();
      const client = new SessionClient({ name: "memo-test", version: "1.0.0" });
      await client.connect(
        new SessionStdio({
          command: Deno.execPath(),
          args: stdioArgs(dir),
          cwd: ROOT,
          stderr: "ignore",
        }),
      );
      try {
        await correctionThrough(client as McpClient, dir, "stdio-session");
      } finally {
        await client.close();
      }
    });
    await t.step("stdio, 2026-07-28 (SDK 2.4)", async () => {
      const dir = await temp();
      const client = new Client(
        { name: "memo-test", version: "1.0.0" },
        { versionNegotiation: { mode: { pin: "2026-07-28" } } },
      );
      await client.connect(
        new StdioClientTransport({
          command: Deno.execPath(),
          args: stdioArgs(dir),
          cwd: ROOT,
          stderr: "ignore",
        }),
      );
      try {
        assert.equal(client.getNegotiatedProtocolVersion(), "2026-07-28");
        await correctionThrough(client as unknown as McpClient, dir, "stdio-stateless");
      } finally {
        await client.close();
      }
    });
    await t.step("HTTP, 2025-11-25 (SDK 1.32)", async () => {
      const client = new SessionClient({ name: "memo-test", version: "1.0.0" });
      await client.connect(new SessionHttp(new URL(`${server.origin}/mcp`)));
      try {
        await correctionThrough(client as McpClient, httpDir, "http-session");
      } finally {
        await client.close();
      }
    });
    await t.step("HTTP, 2026-07-28 (SDK 2.4)", async () => {
      const client = new Client(
        { name: "memo-test", version: "1.0.0" },
        { versionNegotiation: { mode: { pin: "2026-07-28" } } },
      );
      await client.connect(new StreamableHTTPClientTransport(new URL(`${server.origin}/mcp`)));
      try {
        assert.equal(client.getNegotiatedProtocolVersion(), "2026-07-28");
        await correctionThrough(client as unknown as McpClient, httpDir, "http-stateless");
      } finally {
        await client.close();
      }
    });
  } finally {
    await server.stop();
    for (const dir of dirs) await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
});
