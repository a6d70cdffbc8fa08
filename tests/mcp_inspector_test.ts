import assert from "node:assert/strict";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { EXPECTED_TOOL_NAMES } from "./fixtures/mcp_protocol_calls.ts";
import { tempDir } from "../testing/temp_dir.ts";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
// The inspector CLI's entry; it takes the target command first, then --method.
const INSPECTOR = "npm:@modelcontextprotocol/inspector-cli@1.0.3/build/index.js";

/**
 * Runs the inspector CLI against `memo mcp` on `project`. The inspector reads
 * its own package.json through `../package.json` relative to its working
 * directory, so it runs in a folder whose parent holds one.
 */
async function inspect(project: string, args: string[]): Promise<unknown> {
  await using sandboxTmp = await tempDir("memo-inspector-");
  const sandbox = sandboxTmp.path;
  await writeFile(join(sandbox, "package.json"), '{"name":"inspector-sandbox","version":"0.0.0"}');
  const cwd = join(sandbox, "run");
  await mkdir(cwd);
  const target = [
    Deno.execPath(),
    "run",
    "-A",
    "--quiet",
    "--config",
    join(ROOT, "deno.json"),
    join(ROOT, "cli.ts"),
    "mcp",
    "--dir",
    project,
  ];
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--quiet", INSPECTOR, ...target, ...args],
    cwd,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1" },
  }).output();
  const out = new TextDecoder().decode(stdout);
  assert.equal(code, 0, `inspector failed: ${new TextDecoder().decode(stderr)}\n${out}`);
  return JSON.parse(out);
}

// deno-lint-ignore no-explicit-any
type Json = any;

Deno.test("inspector-cli lists and calls memo's tools over stdio", async () => {
  await using projectTmp = await tempDir("memo-inspected-");
  const project = projectTmp.path;
  const tools = (await inspect(project, ["--method", "tools/list"])) as Json;
  assert.deepEqual(tools.tools.map((t: Json) => t.name), EXPECTED_TOOL_NAMES);
  const stored = (await inspect(project, [
    "--method",
    "tools/call",
    "--tool-name",
    "remember",
    "--tool-arg",
    "text=Inspector notes are stored in notes.md",
    'labels=["inspector"]',
  ])) as Json;
  assert.equal(stored.structuredContent.status, "written", JSON.stringify(stored));
  const hits = (await inspect(project, [
    "--method",
    "tools/call",
    "--tool-name",
    "recall",
    "--tool-arg",
    "query=inspector notes",
  ])) as Json;
  assert.equal(hits.structuredContent.hits[0].note.id, stored.structuredContent.note.id);
  const resources = (await inspect(project, ["--method", "resources/list"])) as Json;
  assert.equal(resources.resources[0].uri, "memo://stats");
  const prompts = (await inspect(project, ["--method", "prompts/list"])) as Json;
  assert.equal(prompts.prompts.length, 3);
});
