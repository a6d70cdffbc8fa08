/**
 * Tokens never appear in an error message, a progress event, the
 * RunConnectorsResult, the CLI's output, notes.md or the state file: every
 * fault of both fakes is run with distinctive tokens, and everything the
 * run produced is scanned for them.
 */

import assert from "node:assert/strict";
import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { openMemo } from "@memo/memory";
import {
  type ConnectorProgress,
  createConnectorRegistry,
  parseConnectorConfig,
  syncConfiguredConnectors,
} from "../connectors/mod.ts";
import { runCli } from "../cli/main.ts";
import { recordingIO } from "../testing/cli_io.ts";
import { discussion, startFakeGithub } from "./connectors_fake_github.ts";
import { startFakeNotion } from "./connectors_fake_notion.ts";
import { FAULTS, ManualClock } from "./connectors_helpers.ts";
import { DATABASE_ID, sampleWorkspace } from "./fixtures/notion/workspace.ts";
import { sanitizedTest as test } from "../testing/sanitized.ts";
import { tempDir } from "../testing/temp_dir.ts";

const GITHUB_TOKEN = "ghp_ZZtokenCANARYgithub7f3a9c1e5b2d8f4a6c0e";
const NOTION_TOKEN = "ntn_ZZtokenCANARYnotion9e1c3a5f7b2d4e6a8c0f";
const CANARIES = [
  GITHUB_TOKEN,
  NOTION_TOKEN,
  "ZZtokenCANARY",
  "7f3a9c1e5b2d8f4a6c0e",
  "9e1c3a5f7b2d4e6a8c0f",
];

async function filesUnder(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) out.push(await readFile(join(entry.parentPath, entry.name), "utf8"));
  }
  return out;
}

function assertClean(what: string, text: string) {
  for (const c of CANARIES) {
    assert.ok(!text.includes(c), `${what} holds a token: ${text.slice(0, 300)}`);
  }
}

test("no token reaches an error, a progress event, the result, the CLI output or a file", async (t) => {
  const clock = new ManualClock();
  const github = startFakeGithub([{
    nameWithOwner: "octo-org/hello-world",
    discussions: [1, 2, 3].map((n) => discussion(n, `2024-05-0${n}T10:00:00Z`)),
  }], { token: GITHUB_TOKEN, onHang: () => clock.advance(30_000) });
  const notion = startFakeNotion(sampleWorkspace(), {
    token: NOTION_TOKEN,
    listPageSize: 2,
    onHang: () => clock.advance(30_000),
  });
  const config = {
    connectors: [
      {
        id: "gh",
        type: "discussions",
        repositories: ["octo-org/hello-world"],
        apiUrl: github.url,
        pageSize: 1,
      },
      { id: "wiki", type: "pages", databaseId: DATABASE_ID, apiUrl: notion.url },
    ],
  };
  const envs = {
    right: { MEMO_GITHUB_TOKEN: ` ${GITHUB_TOKEN} `, MEMO_NOTION_TOKEN: `Bearer ${NOTION_TOKEN}` },
    wrong: { GITHUB_TOKEN: GITHUB_TOKEN + "x", NOTION_TOKEN: "ntn_" + GITHUB_TOKEN },
    malformed: { NOTION_TOKEN: GITHUB_TOKEN, GITHUB_TOKEN: NOTION_TOKEN },
  };
  try {
    for (const fault of [undefined, ...FAULTS]) {
      for (const [name, env] of Object.entries(envs)) {
        await t.step(`${fault ?? "no fault"}, ${name} tokens`, async () => {
          await using rootDirTmp = await tempDir("memo-tokens-");
          const rootDir = rootDirTmp.path;
          await mkdir(join(rootDir, ".memo"), { recursive: true });
          await writeFile(join(rootDir, ".memo", "config.json"), JSON.stringify(config));
          for (const at of [1, 2]) {
            // The connectors' own errors, before the runner scrubs anything.
            for (const entry of parseConnectorConfig(config)) {
              github.reset();
              notion.reset();
              github.setFault(fault, at);
              notion.setFault(fault, at);
              try {
                const connector = createConnectorRegistry().create(entry, { env });
                await connector.pull({
                  clock,
                  onProgress: (p) => assertClean("progress", JSON.stringify(p)),
                });
              } catch (e) {
                const error = e as Error;
                assertClean(
                  "error",
                  `${error.name} ${error.message} ${error.stack} ${JSON.stringify(error)}`,
                );
              }
            }
            github.reset();
            notion.reset();
            github.setFault(fault, at);
            notion.setFault(fault, at + 1);
            const events: ConnectorProgress[] = [];
            const memo = await openMemo({ rootDir });
            try {
              const result = await syncConfiguredConnectors(memo, {
                rootDir,
                env,
                clock,
                full: true,
                onProgress: (p) => events.push(p),
              });
              assertClean("result", JSON.stringify(result));
              assertClean("progress", JSON.stringify(events));
              if (fault && name === "right") {
                assert.equal(result.errors.length, 2, JSON.stringify(result.errors));
              }
            } finally {
              await memo.close();
            }
            github.reset();
            notion.reset();
            github.setFault(fault, at);
            notion.setFault(fault, at);
            const io = recordingIO(rootDir);
            io.env = env;
            io.stderrIsTerminal = true;
            await runCli(["sync", "--full", ...(at === 2 ? ["--json"] : [])], io);
            assertClean("stdout", io.out.join(""));
            assertClean("stderr", io.err.join(""));
          }
          for (const text of await filesUnder(join(rootDir, ".memo"))) assertClean("a file", text);
        });
      }
    }
  } finally {
    await github.close();
    await notion.close();
  }
});
