/**
 * The MCP conformance suite (`npm:@modelcontextprotocol/conformance@0.1.16`,
 * run under Deno because it needs Node ≥ 22 APIs) against
 * `deno serve http.ts`. The scenarios that need the suite's fixed-name test
 * tools (`test_simple_text` …) do not apply to memo and are not run.
 */

import assert from "node:assert/strict";
import { startDenoServe } from "./_serve_process.ts";

const CONFORMANCE = "npm:@modelcontextprotocol/conformance@0.1.16";
const SCENARIOS = [
  "server-initialize",
  "ping",
  "logging-set-level",
  "tools-list",
  "resources-list",
  "prompts-list",
  "dns-rebinding-protection",
];

Deno.test("deno serve http.ts passes the conformance scenarios that apply to memo", async (t) => {
  const rootDir = await Deno.makeTempDir({ prefix: "memo-conformance-" });
  const outDir = await Deno.makeTempDir({ prefix: "memo-conformance-out-" });
  // A note, so that resources/list has more than memo://stats.
  await Deno.mkdir(`${rootDir}/.memo`, { recursive: true });
  const server = await startDenoServe({ MEMO_ROOT_DIR: rootDir });
  try {
    for (const scenario of SCENARIOS) {
      await t.step(scenario, async () => {
        const out = await new Deno.Command(Deno.execPath(), {
          args: [
            "run",
            "-A",
            CONFORMANCE,
            "server",
            "--url",
            `${server.origin}/mcp`,
            "--scenario",
            scenario,
            "-o",
            outDir,
          ],
          cwd: outDir,
          env: { NO_COLOR: "1", DENO_NO_UPDATE_CHECK: "1" },
          stdin: "null",
          stdout: "piped",
          stderr: "piped",
        }).output();
        const text = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
        assert.equal(out.code, 0, `conformance ${scenario} failed:\n${text}`);
        assert.match(text, /Passed:\s*\d+\/\d+, 0 failed|0 failed/, text);
        assert.doesNotMatch(text, /FAILURE|✗/, text);
      });
    }
  } finally {
    await server.stop();
    await Deno.remove(rootDir, { recursive: true }).catch(() => {});
    await Deno.remove(outDir, { recursive: true }).catch(() => {});
  }
});
