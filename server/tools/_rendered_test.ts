import assert from "node:assert/strict";
import { createMemoMcpRuntimeFromConfig } from "../../mod.ts";
import { createMemoMcpProtocolServer } from "../protocol_server.ts";

Deno.test("recall over the protocol server: a result rendered once answers the same bytes, and a change renders anew", async () => {
  const rootDir = await Deno.makeTempDir();
  const runtime = createMemoMcpRuntimeFromConfig({ rootDir, prewarm: false });
  try {
    const server = createMemoMcpProtocolServer({ runtime });
    const recall = (id: number, structured: boolean) =>
      server.handle(
        JSON.stringify({
          jsonrpc: "2.0",
          id,
          method: "tools/call",
          params: { name: "recall", arguments: { query: "deploy staging", limit: 5 } },
        }),
        { transport: "http", protocolVersion: structured ? "2025-11-25" : "2025-03-26" },
      );
    await runtime.remember({ text: "We deploy to staging every Friday." });
    const first = await recall(1, true);
    assert.equal(await recall(1, true), first); // from the recall cache: the kept rendering
    const parsed = JSON.parse(first!);
    assert.equal(parsed.result.structuredContent.hits.length, 1);
    assert.equal(parsed.result.content[0].text, JSON.stringify(parsed.result.structuredContent));
    // The text content alone (an era without structuredContent), from the same rendering.
    const textOnly = JSON.parse((await recall(2, false))!);
    assert.equal(textOnly.result.content[0].text, parsed.result.content[0].text);
    assert.equal(textOnly.result.structuredContent, undefined);
    await runtime.remember({ text: "The staging deploy needs the VPN." });
    const after = JSON.parse((await recall(3, true))!);
    assert.equal(after.result.structuredContent.hits.length, 2);
    assert.equal(after.result.content[0].text, JSON.stringify(after.result.structuredContent));
  } finally {
    await runtime.close();
    await Deno.remove(rootDir, { recursive: true });
  }
});
