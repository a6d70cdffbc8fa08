import assert from "node:assert/strict";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { MemoMcpRuntime } from "../../runtimes/types.ts";
import { createMemoMcpRuntimeFromConfig } from "../../runtimes/factory.ts";
import { createMemoMcpRuntimeFromEnv } from "../../runtimes/start/from_env.ts";
import { createMemoCloudMcpRuntime } from "../../runtimes/cloud/runtime.ts";
import { createMemoMcpProtocolServer } from "../protocol_server.ts";
import { sanitizedTest as test } from "../../testing/sanitized.ts";

type Json = Record<string, unknown>;

/** The recall tool of `tools/list`, its description and its `engine` argument's. */
async function recallTool(runtime: MemoMcpRuntime): Promise<{ text: string; engine: string }> {
  const server = createMemoMcpProtocolServer({ runtime });
  const reply = await server.handle(
    JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    { transport: "http", protocolVersion: "2025-06-18" },
  );
  const tools = JSON.parse(reply!).result.tools as Json[];
  const recall = tools.find((t) => t.name === "recall")!;
  const schema = recall.inputSchema as { properties: { engine: { description: string } } };
  return { text: recall.description as string, engine: schema.properties.engine.description };
}

async function withRoot(fn: (rootDir: string) => Promise<void>): Promise<void> {
  const rootDir = await Deno.makeTempDir({ prefix: "memo-recall-text-" });
  try {
    await fn(rootDir);
  } finally {
    await Deno.remove(rootDir, { recursive: true });
  }
}

test("the recall tool says what auto does with the runtime's configured model", async (t) => {
  const cases: [string, Parameters<typeof createMemoMcpRuntimeFromConfig>[0], RegExp, RegExp][] = [
    [
      "use-lite, the default: auto stays lexical",
      {},
      /and auto \(the default\)\. Here auto is lexical: with use-lite, fusing did not beat lexical recall/,
      /^Ranking engine; auto when omitted\. auto is lexical with use-lite;/,
    ],
    [
      "a hub model: auto is hybrid",
      { recall: { embeddingModel: "Xenova/all-MiniLM-L6-v2" } },
      /Here auto is hybrid with Xenova\/all-MiniLM-L6-v2: it fuses lexical and vector ranks/,
      /auto is hybrid with Xenova\/all-MiniLM-L6-v2 \(lexical for the notes not embedded yet\)/,
    ],
    [
      "local embeddings off",
      { recall: { localEmbeddings: false } },
      /Here auto is lexical: local embeddings are off, so vector and hybrid are refused\./,
      /vector and hybrid are refused \(local embeddings are off\)/,
    ],
    [
      "another default engine",
      { recall: { engine: "lexical" } },
      /and auto; the default here is lexical\. Here auto is lexical: with use-lite/,
      /^Ranking engine; lexical when omitted\./,
    ],
  ];
  for (const [name, options, text, engine] of cases) {
    await t.step(name, async () => {
      await withRoot(async (rootDir) => {
        const runtime = createMemoMcpRuntimeFromConfig({ ...options, rootDir, prewarm: false });
        const tool = await recallTool(runtime);
        assert.match(tool.text, text);
        assert.match(tool.engine, engine);
        // Telling loaded no note: the notes are still to open.
        await runtime.close();
      });
    });
  }
});

test("the recall tool reads the project's .memo/config.json recall block, and says less for the cloud runtime", async () => {
  await withRoot(async (rootDir) => {
    await mkdir(join(rootDir, ".memo"), { recursive: true });
    await writeFile(
      join(rootDir, ".memo", "config.json"),
      JSON.stringify({ recall: { engine: "hybrid", embeddingModel: "Xenova/all-MiniLM-L6-v2" } }),
    );
    const local = createMemoMcpRuntimeFromEnv({ env: {}, rootDir, prewarm: false });
    const tool = await recallTool(local);
    assert.match(
      tool.text,
      /and auto; the default here is hybrid\. Here auto is hybrid with Xenova/,
    );
    await local.close();
  });
  const cloud = createMemoCloudMcpRuntime({ baseUrl: "http://127.0.0.1:9", apiKey: "k", env: {} });
  const tool = await recallTool(cloud);
  assert.match(
    tool.text,
    /\(the default\)\. With a hub model, auto is hybrid over the notes embedded so far/,
  );
  await cloud.close();
});
