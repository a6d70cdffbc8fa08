/**
 * The recall engines over MCP, with the official SDK client: the recall
 * result's engine and coverage (checked against the tools' output schemas by
 * the client), `explain`'s parts, `memory_stats`' embeddings, progress
 * notifications (stdio and HTTP), and nothing waiting on the model: an
 * `initialize` and a recall while it loads slowly, a `remember` while a slow
 * embedder runs. The embedders are injected, so no real model loads here.
 */

import assert from "node:assert/strict";
// deno-lint-ignore no-import-prefix -- test-only, pinned
import { Client } from "npm:@modelcontextprotocol/sdk@1.32.2/client/index.js";
// deno-lint-ignore no-import-prefix -- test-only, pinned
import { StreamableHTTPClientTransport } from "npm:@modelcontextprotocol/sdk@1.32.2/client/streamableHttp.js";
// deno-lint-ignore no-import-prefix -- test-only, pinned
import type { Transport } from "npm:@modelcontextprotocol/sdk@1.32.2/shared/transport.js";
import { type Embedder, type EmbedderLoader, openMemo } from "@memo/memory";
import { handleMemoMcpRequest } from "../http.ts";
import { createMemoMcpRuntimeFromConfig } from "../runtimes/factory.ts";
import { createMemoMcpRuntimeFromMemo } from "../runtimes/local/runtime.ts";
import type { MemoMcpRuntime } from "../runtimes/types.ts";
import { createMemoMcpProtocolServer } from "../server/protocol_server.ts";
import { runStdioServer } from "../server/stdio.ts";
import { discussion, startFakeGithub } from "./connectors_fake_github.ts";
import { PLAIN_TIMER, sanitizedTest as test } from "../testing/sanitized.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

const encoder = new TextEncoder();

/**
 * A client transport wired to `runStdioServer` in this process: the real
 * stdio transport and protocol server, with a runtime the test built.
 */
function stdioPipe(runtime: MemoMcpRuntime): Transport {
  const server = createMemoMcpProtocolServer({ runtime });
  let input!: ReadableStreamDefaultController<Uint8Array>;
  const readable = new ReadableStream<Uint8Array>({ start: (c) => void (input = c) });
  const decoder = new TextDecoder();
  let buffer = "";
  let done: Promise<void> = Promise.resolve();
  const transport: Transport = {
    start() {
      const output = new WritableStream<Uint8Array>({
        write(chunk) {
          buffer += decoder.decode(chunk, { stream: true });
          for (let nl = buffer.indexOf("\n"); nl !== -1; nl = buffer.indexOf("\n")) {
            const line = buffer.slice(0, nl);
            buffer = buffer.slice(nl + 1);
            if (line.trim()) transport.onmessage?.(JSON.parse(line));
          }
        },
      });
      done = runStdioServer(server, { input: readable, output });
      return Promise.resolve();
    },
    send(message: Json) {
      input.enqueue(encoder.encode(JSON.stringify(message) + "\n"));
      return Promise.resolve();
    },
    async close() {
      try {
        input.close();
      } catch {
        // already closed
      }
      await done;
      transport.onclose?.();
    },
  };
  return transport;
}

async function connect(transport: Transport): Promise<Client> {
  const client = new Client({ name: "memo-engines-test", version: "1.0.0" });
  await client.connect(transport);
  // The client validates structuredContent against the output schemas it listed.
  await client.listTools();
  return client;
}

const WORDS = ["deploy", "key", "rotate", "staging", "lunch", "noon", "database", "backup"];

/** A deterministic embedder: one dimension per known word, plus one for the rest. */
function toyEmbedder(calls: string[][] = []): Embedder {
  return {
    model: "toy",
    dimensions: WORDS.length + 1,
    embed(texts) {
      calls.push([...texts]);
      return Promise.resolve(texts.map((text) => {
        const v = new Float32Array(WORDS.length + 1);
        for (const word of text.toLowerCase().split(/[^a-z]+/)) {
          if (!word) continue;
          const i = WORDS.findIndex((w) => word.startsWith(w));
          v[i === -1 ? WORDS.length : i] += 1;
        }
        const norm = Math.hypot(...v) || 1;
        return v.map((x) => x / norm);
      }));
    },
  };
}

const NOTES = [
  "The staging deploy key rotates every 90 days",
  "Lunch is at noon on Fridays",
  "The database backup runs nightly",
];

test("recall over MCP says which engine ran and the coverage; explain shows the parts; partial coverage sends progress", async (t) => {
  const rootDir = await Deno.makeTempDir({ prefix: "memo-engines-" });
  const memo = await openMemo({ rootDir, embedder: toyEmbedder(), embedInBackground: false });
  const runtime = createMemoMcpRuntimeFromMemo(memo, { rootDir });
  for (const text of NOTES) await memo.remember({ text });
  await memo.embed();
  // Written after the embedding, with nothing embedding in the background: not embedded.
  await memo.remember({ text: "Deploy previews are built for every branch" });
  const client = await connect(stdioPipe(runtime));
  const recall = async (args: Record<string, unknown>, onprogress?: (p: Json) => void) =>
    (await client.callTool(
      { name: "recall", arguments: args },
      undefined,
      onprogress ? { onprogress } : undefined,
    )) as Json;
  try {
    await t.step("auto fuses over the embedded notes, and says so", async () => {
      const progress: Json[] = [];
      const r = await recall({ query: "when does the key rotate" }, (p) => progress.push(p));
      assert.notEqual(r.isError, true, JSON.stringify(r));
      assert.equal(r.structuredContent.engine, "hybrid");
      assert.deepEqual(r.structuredContent.coverage, { embedded: 3, total: 4 });
      assert.equal(r.structuredContent.hits[0].note.title, NOTES[0]);
      // The text rendering carries the same facts.
      const text = JSON.parse(r.content[0].text);
      assert.equal(text.engine, "hybrid");
      assert.deepEqual(text.coverage, { embedded: 3, total: 4 });
      // One progress notification: 3 of 4 notes embedded.
      assert.equal(progress.length, 1, JSON.stringify(progress));
      assert.equal(progress[0].progress, 3);
      assert.equal(progress[0].total, 4);
      assert.match(progress[0].message, /3 of 4 notes embedded/);
    });

    await t.step("lexical says lexical; no progress asked, none sent", async () => {
      const r = await recall({ query: "deploy key", engine: "lexical" });
      assert.equal(r.structuredContent.engine, "lexical");
      assert.equal(r.structuredContent.hits[0].engine, "lexical");
    });

    await t.step("explain: every hybrid hit has its lexical, vector and fused parts", async () => {
      const r = await recall({ query: "staging deploy key", engine: "hybrid", explain: true });
      assert.equal(r.structuredContent.engine, "hybrid");
      const [top] = r.structuredContent.hits;
      assert.equal(top.note.title, NOTES[0]);
      assert.equal(top.parts.lexical.rank, 1);
      assert.equal(typeof top.parts.lexical.score, "number");
      assert.equal(top.parts.vector.rank, 1);
      assert.ok(top.parts.vector.similarity > 0.3, JSON.stringify(top.parts));
      assert.equal(typeof top.parts.fused, "number");
    });

    await t.step("vector ranks the embedded notes only", async () => {
      const r = await recall({ query: "deploy", engine: "vector", limit: 10 });
      assert.equal(r.structuredContent.engine, "vector");
      const titles = r.structuredContent.hits.map((h: Json) => h.note.title);
      assert.ok(!titles.includes("Deploy previews are built for every branch"), titles);
    });

    await t.step("memory_stats and memo://stats report the embeddings", async () => {
      const stats = (await client.callTool({ name: "memory_stats", arguments: {} })) as Json;
      assert.notEqual(stats.isError, true, JSON.stringify(stats));
      const { embeddings } = stats.structuredContent;
      assert.equal(embeddings.model, "toy");
      assert.equal(embeddings.ready, true);
      assert.equal(embeddings.state, "ready");
      assert.equal(embeddings.embedded, 3);
      assert.equal(embeddings.total, 4);
      const resource = await client.readResource({ uri: "memo://stats" });
      const shown = JSON.parse((resource.contents[0] as { text: string }).text);
      assert.deepEqual(shown.embeddings, embeddings);
    });

    await t.step("the recall tool's schema names the engines and the coverage", async () => {
      const { tools } = await client.listTools();
      const tool = tools.find((x: Json) => x.name === "recall")!;
      assert.match(tool.description!, /auto/);
      assert.match(tool.description!, /coverage/);
      const output = tool.outputSchema as Json;
      assert.deepEqual(output.anyOf[0].required, ["hits", "engine", "coverage"]);
      assert.ok(output.properties.hits.items.properties.parts);
      const stats = tools.find((x: Json) => x.name === "memory_stats")!.outputSchema as Json;
      assert.ok(stats.properties.embeddings.properties.state);
    });
  } finally {
    await client.close();
    await runtime.close();
    await memo.close();
    await Deno.remove(rootDir, { recursive: true });
  }
});

test("a vector recall with local embeddings off is a tool error the model reads", async () => {
  const rootDir = await Deno.makeTempDir({ prefix: "memo-engines-off-" });
  const runtime = createMemoMcpRuntimeFromConfig({
    rootDir,
    recall: { localEmbeddings: false },
    prewarm: false,
  });
  const client = await connect(stdioPipe(runtime));
  try {
    await runtime.remember({ text: NOTES[0] });
    const r = (await client.callTool({
      name: "recall",
      arguments: { query: "key", engine: "vector" },
    })) as Json;
    assert.equal(r.isError, true, JSON.stringify(r));
    assert.match(r.structuredContent.error.message, /^Cannot recall with the vector engine: /);
    const auto = (await client.callTool({ name: "recall", arguments: { query: "key" } })) as Json;
    assert.equal(auto.structuredContent.engine, "lexical");
    const stats = (await client.callTool({ name: "memory_stats", arguments: {} })) as Json;
    assert.equal(stats.structuredContent.embeddings.state, "off");
  } finally {
    await client.close();
    await runtime.close();
    await Deno.remove(rootDir, { recursive: true });
  }
});

const GITHUB_TOKEN = "ghp_ENGINESgithubTOKEN00000000000000000007";

/** A project whose one connector reads three discussions, one page each. */
async function syncProject() {
  const github = startFakeGithub([{
    nameWithOwner: "octo-org/hello-world",
    discussions: [1, 2, 3].map((n) => discussion(n, `2024-05-0${n}T10:00:00Z`)),
  }], { token: GITHUB_TOKEN });
  const rootDir = await Deno.makeTempDir({ prefix: "memo-engines-sync-" });
  await Deno.mkdir(`${rootDir}/.memo`);
  await Deno.writeTextFile(
    `${rootDir}/.memo/config.json`,
    JSON.stringify({
      connectors: [{
        id: "team",
        type: "discussions",
        repositories: ["octo-org/hello-world"],
        pageSize: 1,
        apiUrl: github.url,
      }],
    }),
  );
  const runtime = createMemoMcpRuntimeFromConfig({
    rootDir,
    env: { GITHUB_TOKEN },
    recall: { localEmbeddings: false },
    prewarm: false,
  });
  return {
    runtime,
    async close() {
      await runtime.close();
      await github.close();
      await Deno.remove(rootDir, { recursive: true });
    },
  };
}

function checkSyncProgress(progress: Json[]) {
  assert.ok(progress.length >= 4, JSON.stringify(progress)); // 3 pages (+ the last), commit
  for (let i = 1; i < progress.length; i++) {
    assert.ok(progress[i].progress > progress[i - 1].progress, "progress increases");
  }
  assert.match(progress[0].message, /^team \(discussions\): 1 page, 1 record$/);
  assert.match(progress.at(-1).message, /^team \(discussions\): .*3 written, 0 updated$/);
}

test("sync_connectors sends a progress notification per connector page (stdio)", async () => {
  const project = await syncProject();
  const client = await connect(stdioPipe(project.runtime));
  try {
    const progress: Json[] = [];
    const r = (await client.callTool(
      { name: "sync_connectors", arguments: {} },
      undefined,
      { onprogress: (p: Json) => void progress.push(p) },
    )) as Json;
    assert.notEqual(r.isError, true, JSON.stringify(r));
    assert.equal(r.structuredContent.written, 3);
    checkSyncProgress(progress);
  } finally {
    await client.close();
    await project.close();
  }
});

test("initialize, and a recall with auto, answer while the model loads slowly", async () => {
  const rootDir = await Deno.makeTempDir({ prefix: "memo-engines-slow-" });
  let loading = false;
  let loaded = false;
  // Loads for 30 s, or until the memory client closes: whatever waited for the model would
  // answer only after `loaded` is true, however slow the machine.
  const slowLoader: EmbedderLoader = ({ signal }) => {
    loading = true;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => (loaded = true, resolve(toyEmbedder())), 30_000);
      signal?.addEventListener("abort", () => {
        clearTimeout(timer);
        reject(signal.reason);
      }, { once: true });
    });
  };
  const seed = await openMemo({ rootDir, localEmbeddings: false });
  for (const text of NOTES) await seed.remember({ text });
  await seed.close();
  // A hub model's name: auto fuses with it, so prewarm loads it in the background (with
  // use-lite's, auto would stay lexical and nothing would load).
  const runtime = createMemoMcpRuntimeFromConfig({
    rootDir,
    recall: { embeddingModel: "test/slow-toy" },
    embedder: slowLoader,
    prewarm: true,
  });
  // prewarm: the notes load and then the model starts loading, in the background (on timers that
  // do not keep the process alive: poll).
  const deadline = Date.now() + 30_000;
  while (!loading) {
    if (Date.now() > deadline) throw new Error("prewarm never started loading the model");
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  const client = new Client({ name: "memo-engines-slow", version: "1.0.0" });
  try {
    await client.connect(stdioPipe(runtime)); // initialize
    assert.equal(loaded, false, "initialize did not wait for the model");
    const r =
      (await client.callTool({ name: "recall", arguments: { query: "deploy key" } })) as Json;
    assert.equal(r.structuredContent.engine, "lexical");
    assert.equal(r.structuredContent.hits[0].note.title, NOTES[0]);
    const stats = (await client.callTool({ name: "memory_stats", arguments: {} })) as Json;
    assert.equal(stats.structuredContent.embeddings.state, "loading");
    assert.equal(loaded, false, "everything answered before the model loaded");
  } finally {
    await client.close();
    await runtime.close();
    await Deno.remove(rootDir, { recursive: true });
  }
});

test("a remember returns while a slow embedder embeds in the background", async () => {
  const rootDir = await Deno.makeTempDir({ prefix: "memo-engines-busy-" });
  let inFlight = 0;
  let batches = 0;
  const toy = toyEmbedder();
  // Each batch waits until the test lets it go (or 30 s: a remember that waited for it would
  // then return with no batch in flight, and fail).
  const gate = Promise.withResolvers<void>();
  const cap = setTimeout(gate.resolve, 30_000);
  const slow: Embedder = {
    model: "slow-toy",
    dimensions: toy.dimensions,
    async embed(texts, options) {
      inFlight++;
      batches++;
      try {
        await gate.promise;
        return await toy.embed(texts, options);
      } finally {
        inFlight--;
      }
    },
  };
  const memo = await openMemo({ rootDir, embedder: slow });
  const runtime = createMemoMcpRuntimeFromMemo(memo, { rootDir });
  const server = createMemoMcpProtocolServer({ runtime, timer: PLAIN_TIMER });
  const remember = async (text: string, id: number) =>
    JSON.parse(
      (await server.handle(JSON.stringify({
        jsonrpc: "2.0",
        id,
        method: "tools/call",
        params: { name: "remember", arguments: { text } },
      })))!,
    ).result.structuredContent;
  try {
    assert.equal((await remember(NOTES[0], 1)).status, "written");
    // The background worker picks the note up and calls the embedder.
    const deadline = Date.now() + 30_000;
    while (inFlight === 0) {
      if (Date.now() > deadline) throw new Error("the embedder was never called");
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    assert.equal((await remember(NOTES[1], 2)).status, "written");
    assert.equal(inFlight, 1, "the remember returned while the embedder was still running");
    assert.ok(batches >= 1);
  } finally {
    gate.resolve();
    clearTimeout(cap);
    await runtime.close();
    await memo.close();
    await Deno.remove(rootDir, { recursive: true });
  }
});

// Embeddings off (syncProject), so without the sanitizers; last in the file, because the HTTP
// handler's short watch timer may still run for up to 50 ms after it.
Deno.test("over HTTP, progress notifications come on the answer's event stream", async (t) => {
  const project = await syncProject();
  const options = { runtime: project.runtime, env: {} };
  const http = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    (request) => handleMemoMcpRequest(request, options),
  );
  const client = new Client({ name: "memo-engines-http", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${http.addr.port}/mcp`)),
  );
  try {
    await client.listTools();
    await t.step("sync_connectors", async () => {
      const progress: Json[] = [];
      const r = (await client.callTool(
        { name: "sync_connectors", arguments: {} },
        undefined,
        { onprogress: (p: Json) => void progress.push(p) },
      )) as Json;
      assert.equal(r.structuredContent.written, 3, JSON.stringify(r));
      checkSyncProgress(progress);
    });
    await t.step("a call without a progress token gets a plain JSON answer", async () => {
      const response = await fetch(`http://127.0.0.1:${http.addr.port}/mcp`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "mcp-protocol-version": "2025-06-18",
        },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "tools/call",
          params: { name: "memory_stats", arguments: {} },
        }),
      });
      assert.match(response.headers.get("content-type") ?? "", /application\/json/);
      assert.equal((await response.json()).result.structuredContent.notes, 3);
    });
  } finally {
    await client.close();
    await http.shutdown();
    await project.close();
  }
});
