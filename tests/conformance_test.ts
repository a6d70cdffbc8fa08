/**
 * The MCP conformance suite against `deno serve http.ts`, run under Deno
 * because the suite needs Node ≥ 22 APIs, in both eras:
 *
 * - session (the 2025 `initialize` era, so session-era clients keep working):
 *   `npm:@modelcontextprotocol/conformance@0.1.16`;
 * - stateless (2026-07-28, no handshake): the pinned pre-release
 *   `npm:@modelcontextprotocol/conformance@0.2.0-alpha.12` with
 *   `--spec-version 2026-07-28` and the baseline
 *   `tests/fixtures/conformance/expected-failures-2026.yml`
 *   (`--expected-failures`; every entry there says why it fails).
 *
 * The scenarios that need the suite's fixed-name test tools, prompts and
 * resources (`test_simple_text`, `test_simple_prompt`, `test://static-text`,
 * `json_schema_2020_12_tool`, the `input-required-result-*` tools, a tool with
 * `x-mcp-header` …) and the extension scenarios (tasks, skills), which memo
 * does not implement, do not apply to memo and are not run.
 *
 * memo over stdio cannot be run by the suite: its `server` command only takes
 * `--url` (it has no stdio server mode). stdio is covered by the SDK clients'
 * tests (`mcp_sdk_stdio_test.ts`, `mcp_sdk_v2_test.ts`).
 */

import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
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

const CONFORMANCE_2026 = "npm:@modelcontextprotocol/conformance@0.2.0-alpha.12";
const SPEC_2026 = "2026-07-28";
/** From `conformance list --server --spec-version 2026-07-28`, those that apply to memo. */
const SCENARIOS_2026 = [
  "server-stateless",
  "caching",
  "http-header-validation",
  "sep-2164-resource-not-found",
  "server-sse-multiple-streams",
  "tools-list",
  "resources-list",
  "prompts-list",
  "dns-rebinding-protection",
  "input-required-result-unsupported-methods",
];
// deno-lint-ignore no-control-regex -- the escape that starts a colour code
const ANSI_COLOR = /\x1b\[[0-9;]*m/g;
const BASELINE_2026 = fileURLToPath(
  new URL("./fixtures/conformance/expected-failures-2026.yml", import.meta.url),
);

/** The baseline's `"<scenario>:<check-id>"` entries, by scenario. */
async function readBaseline(path: string): Promise<Map<string, Set<string>>> {
  const byScenario = new Map<string, Set<string>>();
  for (const line of (await Deno.readTextFile(path)).split("\n")) {
    const text = line.trim();
    if (text === "" || text.startsWith("#") || text === "server:") continue;
    const m = text.match(/^- "([a-z0-9-]+):([a-z0-9-]+)"$/);
    assert.ok(m, `unexpected line in ${path}: ${line}`);
    const ids = byScenario.get(m[1]) ?? new Set<string>();
    ids.add(m[2]);
    byScenario.set(m[1], ids);
  }
  return byScenario;
}

interface Check {
  id: string;
  status: string;
}

Deno.test("deno serve http.ts passes the 2026-07-28 conformance scenarios that apply to memo, failing only the baselined checks", async (t) => {
  const baseline = await readBaseline(BASELINE_2026);
  for (const scenario of baseline.keys()) {
    assert.ok(SCENARIOS_2026.includes(scenario), `baseline names ${scenario}, which is not run`);
  }
  const rootDir = await Deno.makeTempDir({ prefix: "memo-conformance-2026-" });
  const outDir = await Deno.makeTempDir({ prefix: "memo-conformance-2026-out-" });
  const server = await startDenoServe({ MEMO_ROOT_DIR: rootDir });
  try {
    // A note, so that resources/list lists one besides memo://stats.
    const seeded = await fetch(`${server.origin}/mcp`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": SPEC_2026,
        "mcp-method": "tools/call",
        "mcp-name": "remember",
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: {
          name: "remember",
          arguments: { text: "Conformance seed: deploys go out on Tuesdays." },
          _meta: {
            "io.modelcontextprotocol/protocolVersion": SPEC_2026,
            "io.modelcontextprotocol/clientCapabilities": {},
          },
        },
      }),
    });
    const seededJson = await seeded.json();
    assert.equal(seeded.status, 200, JSON.stringify(seededJson));
    assert.ok(seededJson.result, JSON.stringify(seededJson));
    assert.equal(seededJson.result.isError, undefined, JSON.stringify(seededJson));

    for (const scenario of SCENARIOS_2026) {
      await t.step(scenario, async () => {
        const expected = baseline.get(scenario) ?? new Set<string>();
        const scenarioOut = await Deno.makeTempDir({ dir: outDir, prefix: `${scenario}-` });
        const out = await new Deno.Command(Deno.execPath(), {
          args: [
            "run",
            "-A",
            CONFORMANCE_2026,
            "server",
            "--url",
            `${server.origin}/mcp`,
            "--scenario",
            scenario,
            "--spec-version",
            SPEC_2026,
            "--expected-failures",
            BASELINE_2026,
            "-o",
            scenarioOut,
          ],
          cwd: outDir,
          env: { NO_COLOR: "1", DENO_NO_UPDATE_CHECK: "1" },
          stdin: "null",
          stdout: "piped",
          stderr: "piped",
        }).output();
        // The suite colours its output even with NO_COLOR set.
        const text = (new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr))
          .replaceAll(ANSI_COLOR, "");
        assert.equal(out.code, 0, `conformance ${scenario} failed:\n${text}`);
        assert.doesNotMatch(text, /^SKIPPED: scenario/m, text);
        assert.match(text, /Baseline check passed: all failures are expected\./, text);
        assert.doesNotMatch(text, /Unexpected failures|Stale baseline/, text);

        // The checks as the suite saved them: exactly the baselined ones fail
        // (a WARNING would count as a failure too), and nothing else.
        const [resultDir] = [...Deno.readDirSync(scenarioOut)].filter((e) => e.isDirectory);
        assert.ok(resultDir, `no results for ${scenario}:\n${text}`);
        const checks: Check[] = JSON.parse(
          await Deno.readTextFile(`${scenarioOut}/${resultDir.name}/checks.json`),
        );
        assert.ok(checks.some((c) => c.status === "SUCCESS"), text);
        const failing = new Set(
          checks.filter((c) => c.status === "FAILURE" || c.status === "WARNING").map((c) => c.id),
        );
        assert.deepEqual(failing, expected, text);
        const failedMatch = text.match(/Passed: \d+\/\d+, (\d+) failed, (\d+) warnings/);
        assert.ok(failedMatch, text);
        assert.equal(Number(failedMatch[1]) === 0, expected.size === 0, text);
        assert.equal(Number(failedMatch[2]), 0, text);
        // Each FAILURE line printed names a baselined check.
        const printed = new Set<string>();
        for (const line of text.split("\n")) {
          const m = line.match(/\[([a-z0-9-]+)\s*\] (FAILURE|WARNING) /);
          if (m) printed.add(m[1]);
        }
        assert.deepEqual(printed, expected, text);
        if (expected.size === 0) assert.doesNotMatch(text, /FAILURE|WARNING|✗/, text);
      });
    }
  } finally {
    await server.stop();
    await Deno.remove(rootDir, { recursive: true }).catch(() => {});
    await Deno.remove(outDir, { recursive: true }).catch(() => {});
  }
});
