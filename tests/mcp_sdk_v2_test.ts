/**
 * The official MCP SDK v2 client (`@modelcontextprotocol/client`, which
 * implements 2026-07-28), pinned to the stateless revision, against `memo mcp`
 * over stdio and against `deno serve http.ts` over Streamable HTTP: discover,
 * every tool, both resources, every prompt, paging through `list_notes` and
 * `resources/list`, and `subscriptions/listen` while a second process runs
 * `memo remember`. In `auto` mode it negotiates 2026-07-28 too.
 */

import assert from "node:assert/strict";
// deno-lint-ignore no-import-prefix -- test-only, pinned
import { Client, StreamableHTTPClientTransport } from "npm:@modelcontextprotocol/client@2.4.0";
// deno-lint-ignore no-import-prefix -- test-only, pinned
import { StdioClientTransport } from "npm:@modelcontextprotocol/client@2.4.0/stdio";
import { startDenoServe } from "./_serve_process.ts";
import { EXPECTED_TOOL_NAMES } from "./fixtures/mcp_protocol_calls.ts";
import { pageCounter } from "../testing/pages.ts";

const ROOT = new URL("..", import.meta.url).pathname;
const PAGE = 3;

type Mode = { pin: string } | "auto";

function client(mode: Mode): Client {
  return new Client({ name: "memo-test", version: "1.0.0" }, { versionNegotiation: { mode } });
}

function stdioTransport(dir: string): StdioClientTransport {
  return new StdioClientTransport({
    command: Deno.execPath(),
    args: ["run", "-A", "cli.ts", "mcp", "--dir", dir, "--default-page-size", String(PAGE)],
    cwd: ROOT,
    stderr: "ignore",
  });
}

/**
 * subscriptions/listen: the client hears of a note another process (the
 * `memo` CLI) writes.
 */
async function listenWhileAnotherProcessWrites(c: Client, dir: string): Promise<void> {
  const heard: string[] = [];
  c.setNotificationHandler("notifications/resources/list_changed", () => void heard.push("list"));
  c.setNotificationHandler("notifications/resources/updated", (n) => void heard.push(n.params.uri));
  const sub = await c.listen({
    resourcesListChanged: true,
    toolsListChanged: true,
    resourceSubscriptions: ["memo://stats"],
  });
  assert.deepEqual(sub.honoredFilter, {
    resourcesListChanged: true,
    resourceSubscriptions: ["memo://stats"],
  });
  const cli = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "cli.ts", "remember", "Written by a second process", "--dir", dir],
    cwd: ROOT,
    stdout: "null",
    stderr: "null",
  }).output();
  assert.equal(cli.code, 0);
  const deadline = Date.now() + 30_000; // only a stuck test waits this long
  while (!(heard.includes("list") && heard.includes("memo://stats"))) {
    assert.ok(Date.now() < deadline, `heard only ${JSON.stringify(heard)}`);
    await new Promise((r) => setTimeout(r, 20));
  }
  await sub.close();
  assert.equal(await sub.closed, "local");
}

/** Every part of the surface, through the stateless protocol. */
async function exercise(c: Client, dir: string): Promise<void> {
  assert.equal(c.getNegotiatedProtocolVersion(), "2026-07-28");
  const discovered = await c.discover();
  assert.equal(discovered.supportedVersions[0], "2026-07-28");
  assert.ok(discovered.capabilities.tools);
  assert.deepEqual(c.getServerVersion()?.name, "memo");

  const tools = await c.listTools();
  assert.deepEqual(tools.tools.map((t) => t.name), EXPECTED_TOOL_NAMES);

  const ids: string[] = [];
  for (let i = 0; i < 5; i++) {
    const r = await c.callTool({
      name: "remember",
      arguments: { text: `Stateless note ${i} about deploys`, labels: ["v2"] },
    });
    assert.equal(r.isError, undefined, JSON.stringify(r));
    const { note, status } = r.structuredContent as { note: { id: string }; status: string };
    assert.equal(status, "written");
    ids.push(note.id);
  }
  const recall = await c.callTool({ name: "recall", arguments: { query: "deploys", limit: 2 } });
  assert.equal((recall.structuredContent as { hits: unknown[] }).hits.length, 2);
  const got = await c.callTool({ name: "get_note", arguments: { id: ids[0] } });
  assert.equal((got.structuredContent as { note: { id: string } }).note.id, ids[0]);
  const updated = await c.callTool({
    name: "update_note",
    arguments: { id: ids[1], title: "Renamed by the v2 client" },
  });
  assert.equal(
    (updated.structuredContent as { note: { title: string } }).note.title,
    "Renamed by the v2 client",
  );
  const forgotten = await c.callTool({ name: "forget", arguments: { id: ids[4] } });
  assert.equal((forgotten.structuredContent as { forgotten: { id: string } }).forgotten.id, ids[4]);
  const sync = await c.callTool({ name: "sync_connectors", arguments: {} });
  assert.deepEqual((sync.structuredContent as { errors: unknown[] }).errors, []);
  const stats = await c.callTool({ name: "memory_stats", arguments: {} });
  assert.equal((stats.structuredContent as { notes: number }).notes, 4);
  const unknown = await c.callTool({ name: "get_note", arguments: { id: "nope" } });
  assert.equal(unknown.isError, true);

  // list_notes, a page at a time.
  const seen: string[] = [];
  let cursor: string | undefined;
  const nextPage = pageCounter("the pages of c.callTool()");
  do {
    nextPage();
    const page = await c.callTool({
      name: "list_notes",
      arguments: cursor ? { limit: 2, cursor } : { limit: 2 },
    });
    const s = page.structuredContent as { notes: { id: string }[]; nextCursor?: string };
    seen.push(...s.notes.map((n) => n.id));
    cursor = s.nextCursor;
  } while (cursor);
  assert.deepEqual(seen, ids.slice(0, 4));

  // resources/list: memo://stats first, then the notes. The server pages by
  // PAGE (3) and there are 5 entries, so the client's aggregate follows
  // nextCursor to the second page.
  const all = await c.listResources();
  assert.equal(all.nextCursor, undefined);
  assert.deepEqual(
    all.resources.map((r) => r.uri),
    ["memo://stats", ...ids.slice(0, 4).map((id) => `memo://notes/${id}`)],
  );

  const statsResource = await c.readResource({ uri: "memo://stats" });
  assert.equal(JSON.parse((statsResource.contents[0] as { text: string }).text).notes, 4);
  const noteResource = await c.readResource({ uri: `memo://notes/${ids[0]}` });
  assert.match((noteResource.contents[0] as { text: string }).text, /Stateless note 0/);

  const prompts = await c.listPrompts();
  assert.deepEqual(prompts.prompts.map((p) => p.name), [
    "recall_context",
    "capture_session",
    "review_memory",
  ]);
  const context = await c.getPrompt({ name: "recall_context", arguments: { topic: "deploys" } });
  assert.ok(context.messages.length >= 2);
  const capture = await c.getPrompt({ name: "capture_session", arguments: {} });
  assert.equal(capture.messages.length, 1);
  const review = await c.getPrompt({ name: "review_memory", arguments: { labels: "v2" } });
  assert.match(JSON.stringify(review.messages), /labelled v2/);

  await listenWhileAnotherProcessWrites(c, dir);
}

Deno.test("the SDK v2 client pinned to 2026-07-28 uses memo mcp over stdio", async () => {
  const dir = await Deno.makeTempDir({ prefix: "memo-v2-stdio-" });
  const c = client({ pin: "2026-07-28" });
  await c.connect(stdioTransport(dir));
  try {
    await exercise(c, dir);
  } finally {
    await c.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("the SDK v2 client pinned to 2026-07-28 uses deno serve http.ts", async () => {
  const dir = await Deno.makeTempDir({ prefix: "memo-v2-http-" });
  const server = await startDenoServe({
    MEMO_ROOT_DIR: dir,
    MEMO_MCP_DEFAULT_PAGE_SIZE: String(PAGE),
  });
  const c = client({ pin: "2026-07-28" });
  await c.connect(new StreamableHTTPClientTransport(new URL(`${server.origin}/mcp`)));
  try {
    await exercise(c, dir);
  } finally {
    await c.close();
    await server.stop();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("the SDK v2 client in auto mode negotiates 2026-07-28 on both transports", async () => {
  const dir = await Deno.makeTempDir({ prefix: "memo-v2-auto-" });
  const server = await startDenoServe({ MEMO_ROOT_DIR: dir });
  try {
    for (
      const transport of [
        stdioTransport(dir),
        new StreamableHTTPClientTransport(new URL(`${server.origin}/mcp`)),
      ]
    ) {
      const c = client("auto");
      await c.connect(transport);
      try {
        assert.equal(c.getNegotiatedProtocolVersion(), "2026-07-28");
        assert.equal((await c.listTools()).tools.length, 11);
      } finally {
        await c.close();
      }
    }
  } finally {
    await server.stop();
    await Deno.remove(dir, { recursive: true });
  }
});
