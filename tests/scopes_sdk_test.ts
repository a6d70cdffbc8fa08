/**
 * Scopes (issue 32) through the MCP SDK v1 client: over stdio (`memo mcp`) and HTTP (`memo serve`
 * on loopback without auth) every note in an answer carries its `scope`, and `scope` writes,
 * filters and moves; a hosted endpoint (`memo serve` with a bearer token, and `deno serve http.ts`)
 * serves the project alone: it offers no other scope and refuses `scope: "user"` with a validation
 * error that says why.
 *
 * @module
 */

import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
// deno-lint-ignore no-import-prefix -- test-only, pinned
import { Client } from "npm:@modelcontextprotocol/sdk@1.32.2/client/index.js";
// deno-lint-ignore no-import-prefix -- test-only, pinned
import { StdioClientTransport } from "npm:@modelcontextprotocol/sdk@1.32.2/client/stdio.js";
// deno-lint-ignore no-import-prefix -- test-only, pinned
import { StreamableHTTPClientTransport } from "npm:@modelcontextprotocol/sdk@1.32.2/client/streamableHttp.js";
import { tempDir } from "../testing/temp_dir.ts";
import { type ServeProcess, startDenoServe, startMemoServe } from "./_serve_process.ts";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const TOKEN = "scopes-test-token-4c1e";

// deno-lint-ignore no-explicit-any
type Json = any;

async function callTool(client: Client, name: string, args: Record<string, unknown>) {
  return (await client.callTool({ name, arguments: args })) as {
    isError?: boolean;
    structuredContent?: Json;
    content: { type: string; text?: string }[];
  };
}

/** Writes in every scope, a move, and reads: each note answered carries its scope. */
async function exerciseScopes(client: Client, rootDir: string, memoHome: string, where: string) {
  const { tools } = await client.listTools();
  const remember = tools.find((t: Json) => t.name === "remember");
  assert.deepEqual(
    [...remember.inputSchema.properties.scope.enum].sort(),
    ["local", "project", "user"],
    `${where}: remember offers every scope`,
  );
  assert.match(remember.description, /user for what is about the person/, where);

  const ids: Record<string, string> = {};
  for (const scope of ["project", "local", "user"] as const) {
    const r = await callTool(client, "remember", {
      text: `The ${scope} note about deploys`,
      scope,
    });
    assert.ok(!r.isError, `${where}: remember in ${scope}: ${JSON.stringify(r.content)}`);
    assert.equal(r.structuredContent.note.scope, scope, where);
    ids[scope] = r.structuredContent.note.id;
  }
  const plain = await callTool(client, "remember", { text: "A note without a scope" });
  assert.equal(plain.structuredContent.note.scope, "project", `${where}: the default scope`);

  const listed = await callTool(client, "list_notes", {});
  assert.deepEqual(
    listed.structuredContent.notes.map((n: Json) => n.scope).sort(),
    ["local", "project", "project", "user"],
    `${where}: list_notes`,
  );
  const recalled = await callTool(client, "recall", { query: "deploys" });
  const hits: Json[] = recalled.structuredContent.hits ?? recalled.structuredContent.results;
  assert.deepEqual(
    hits.map((h) => (h.note ?? h).scope).sort(),
    ["local", "project", "user"],
    `${where}: recall: ${JSON.stringify(recalled.structuredContent)}`,
  );
  const onlyUser = await callTool(client, "recall", { query: "deploys", scope: "user" });
  assert.deepEqual(
    (onlyUser.structuredContent.hits ?? onlyUser.structuredContent.results).map((h: Json) =>
      (h.note ?? h).id
    ),
    [ids.user],
    `${where}: recall narrowed to user`,
  );
  const two = await callTool(client, "list_notes", { scope: ["local", "user"] });
  assert.deepEqual(
    two.structuredContent.notes.map((n: Json) => n.id).sort(),
    [ids.local, ids.user].sort(),
    `${where}: list_notes narrowed to two scopes`,
  );
  const got = await callTool(client, "get_note", { id: ids.local });
  assert.equal((got.structuredContent.note ?? got.structuredContent).scope, "local", where);

  // update_note with another scope moves the note, keeping its id.
  const moved = await callTool(client, "update_note", { id: ids.project, scope: "user" });
  assert.ok(!moved.isError, `${where}: ${JSON.stringify(moved.content)}`);
  const note = moved.structuredContent.note ?? moved.structuredContent;
  assert.deepEqual([note.id, note.scope], [ids.project, "user"], where);
  const home = await readFile(join(memoHome, "memory", "notes.md"), "utf8");
  assert.ok(home.includes(ids.project) && home.includes(ids.user), `${where}: the user file`);
  const project = await readFile(join(rootDir, ".memo", "memory", "notes.md"), "utf8");
  assert.ok(!project.includes(ids.project), `${where}: moved out of the project file`);

  const stats = await callTool(client, "memory_stats", {});
  assert.deepEqual(stats.structuredContent.scopes, { project: 1, local: 1, user: 2 }, where);
}

/** A hosted endpoint: `user` is neither offered nor accepted, and the refusal says why. */
async function expectHosted(client: Client, rootDir: string, where: string) {
  const { tools } = await client.listTools();
  for (const name of ["remember", "update_note", "recall", "list_notes"]) {
    const tool = tools.find((t: Json) => t.name === name);
    const text = JSON.stringify(tool.inputSchema.properties.scope ?? {});
    assert.doesNotMatch(text, /"user"|"local"/, `${where}: ${name} offers the project alone`);
  }
  for (
    const [name, args] of [
      ["remember", { text: "Ada prefers tabs", scope: "user" }],
      ["recall", { query: "tabs", scope: "user" }],
      ["list_notes", { scope: ["project", "local"] }],
    ] as const
  ) {
    const r = await callTool(client, name, args);
    assert.equal(r.isError, true, `${where}: ${name} refuses: ${JSON.stringify(r)}`);
    const text = r.content.map((c) => c.text ?? "").join("\n");
    assert.equal(r.structuredContent?.error?.code, "MCP_VALIDATION_ERROR", `${where}: ${name}`);
    assert.match(text, /hosted/, `${where}: ${name} says why: ${text}`);
    assert.match(text, /project scope only/, `${where}: ${name}: ${text}`);
  }
  const ok = await callTool(client, "remember", { text: "The project note", scope: "project" });
  assert.ok(!ok.isError, `${where}: ${JSON.stringify(ok.content)}`);
  assert.match(
    await readFile(join(rootDir, ".memo", "memory", "notes.md"), "utf8"),
    /project note/,
  );
  await assert.rejects(readFile(join(rootDir, ".memo", "memory", "notes.local.md")));
}

async function httpClient(server: ServeProcess, token?: string): Promise<Client> {
  const client = new Client({ name: "memo-scopes-test", version: "1.0.0" });
  const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${server.origin}/mcp`), {
      requestInit: { headers },
    }),
  );
  return client;
}

Deno.test("the SDK clients see scope in answers over stdio and HTTP; a hosted endpoint refuses the user scope", async () => {
  await using stdioDir = await tempDir("memo-scopes-sdk-stdio-");
  await using httpDir = await tempDir("memo-scopes-sdk-http-");
  await using hostedDir = await tempDir("memo-scopes-sdk-hosted-");
  await using deployedDir = await tempDir("memo-scopes-sdk-deployed-");
  await using homes = await tempDir("memo-scopes-sdk-homes-");
  const home = (name: string) => join(homes.path, name);
  const servers: ServeProcess[] = [];
  const clients: Client[] = [];
  try {
    // The four servers start side by side.
    const stdio = new StdioClientTransport({
      command: Deno.execPath(),
      args: ["run", "-A", "--quiet", "cli.ts", "mcp", "--dir", stdioDir.path],
      cwd: ROOT,
      stderr: "pipe",
      env: { ...Deno.env.toObject(), NO_COLOR: "1", MEMO_HOME: home("stdio") },
    });
    const stdioClient = new Client({ name: "memo-scopes-test", version: "1.0.0" });
    const [, own, hosted, deployed] = await Promise.all([
      stdioClient.connect(stdio).then(() => clients.push(stdioClient)),
      startMemoServe(["--dir", httpDir.path, "--no-ui"], { MEMO_HOME: home("http") }),
      startMemoServe(["--dir", hostedDir.path, "--no-ui"], {
        MEMO_HOME: home("hosted"),
        MEMO_MCP_BEARER_TOKEN: TOKEN,
      }),
      startDenoServe({ MEMO_ROOT_DIR: deployedDir.path, MEMO_HOME: home("deployed") }),
    ]);
    servers.push(own, hosted, deployed);

    await exerciseScopes(stdioClient, stdioDir.path, home("stdio"), "stdio");
    const ownClient = await httpClient(own);
    clients.push(ownClient);
    await exerciseScopes(ownClient, httpDir.path, home("http"), "memo serve on loopback");

    const hostedClient = await httpClient(hosted, TOKEN);
    clients.push(hostedClient);
    await expectHosted(hostedClient, hostedDir.path, "memo serve with a bearer token");
    const deployedClient = await httpClient(deployed);
    clients.push(deployedClient);
    await expectHosted(deployedClient, deployedDir.path, "deno serve http.ts");
    // No hosted endpoint created the user scope.
    for (const name of ["hosted", "deployed"]) {
      await assert.rejects(Deno.stat(home(name)), Deno.errors.NotFound, name);
    }
  } finally {
    for (const client of clients) await client.close().catch(() => {});
    for (const server of servers) await server.stop();
  }
});
