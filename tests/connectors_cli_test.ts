import assert from "node:assert/strict";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { runCli } from "../cli/main.ts";
import { recordingIO } from "../testing/cli_io.ts";
import { tempDir } from "../testing/temp_dir.ts";
import { discussion, startFakeGithub } from "./connectors_fake_github.ts";
import { startFakeNotion } from "./connectors_fake_notion.ts";
import { DATABASE_ID, sampleWorkspace } from "./fixtures/notion/workspace.ts";

const GITHUB_TOKEN = "ghp_CLIgithubTOKEN00000000000000000000004";
const NOTION_TOKEN = "secret_CLInotionTOKEN000000000000000000004";

async function setup() {
  const github = startFakeGithub([{
    nameWithOwner: "octo-org/hello-world",
    discussions: [1, 2].map((n) => discussion(n, `2024-05-0${n}T10:00:00Z`)),
  }], { token: GITHUB_TOKEN });
  const notion = startFakeNotion(sampleWorkspace(), { token: NOTION_TOKEN });
  const rootDir = await Deno.makeTempDir({ prefix: "memo-cli-sync-" });
  await mkdir(join(rootDir, ".memo"), { recursive: true });
  await writeFile(
    join(rootDir, ".memo", "config.json"),
    JSON.stringify({
      connectors: [
        {
          id: "gh",
          type: "discussions",
          repositories: ["octo-org/hello-world"],
          apiUrl: github.url,
        },
        {
          id: "wiki",
          type: "pages",
          databaseId: DATABASE_ID,
          apiUrl: notion.url,
          includeContent: false,
        },
      ],
    }),
  );
  const run = async (argv: string[], env: Record<string, string>, terminal = false) => {
    const io = recordingIO(rootDir);
    io.env = env;
    io.stderrIsTerminal = terminal;
    const code = await runCli(argv, io);
    return { code, out: io.out.join(""), err: io.err.join("") };
  };
  return {
    rootDir,
    run,
    close: async () => {
      await github.close();
      await notion.close();
      await Deno.remove(rootDir, { recursive: true });
    },
  };
}

Deno.test("memo sync runs every connector and prints a summary", async () => {
  const s = await setup();
  try {
    const env = { MEMO_GITHUB_TOKEN: GITHUB_TOKEN, NOTION_TOKEN };
    const r = await s.run(["sync"], env);
    assert.equal(r.code, 0, r.err);
    assert.equal(r.err, "", "no progress when stderr is not a terminal");
    assert.equal(
      r.out,
      "gh (discussions): 2 fetched, 2 written, 0 updated, 0 unchanged\n" +
        "wiki (pages): 5 fetched, 5 written, 0 updated, 0 unchanged\n" +
        "Synced 2 connectors: 7 written, 0 updated, 0 unchanged.\n",
    );
    const again = await s.run(["sync", "--connector", "gh"], env, true);
    assert.equal(again.code, 0);
    assert.match(again.out, /^gh \(discussions\): 1 fetched, 0 written, 0 updated, 1 unchanged\n/);
    assert.match(again.err, /memo: gh \(discussions\): 1 page, 1 records/);
    assert.match(again.err, /memo: gh \(discussions\): 1 records, 0 written, 0 updated\n/);
  } finally {
    await s.close();
  }
});

Deno.test("memo sync exits 1 when a connector fails, and --json prints the RunConnectorsResult", async () => {
  const s = await setup();
  try {
    const r = await s.run(["sync", "--json", "--dir", s.rootDir], { GITHUB_TOKEN });
    assert.equal(r.code, 1);
    const result = JSON.parse(r.out);
    assert.deepEqual(Object.keys(result), [
      "connectors",
      "written",
      "updated",
      "unchanged",
      "errors",
    ]);
    assert.deepEqual(result.connectors[0], {
      id: "gh",
      type: "discussions",
      fetched: 2,
      written: 2,
      updated: 0,
      unchanged: 0,
    });
    assert.deepEqual(result.errors, [{
      connector: "wiki",
      type: "pages",
      error: {
        name: "ConnectorConfigError",
        message:
          "Cannot read Notion pages: no token is set; set MEMO_NOTION_TOKEN or NOTION_TOKEN to the integration secret",
        code: "CONNECTOR_CONFIG",
      },
    }]);
    assert.equal(
      r.err,
      "memo: connector wiki failed: Cannot read Notion pages: no token is set; set MEMO_NOTION_TOKEN or NOTION_TOKEN to the integration secret\n",
    );
    const human = await s.run(["sync"], { GITHUB_TOKEN });
    assert.equal(human.code, 1);
    assert.match(
      human.out,
      /wiki \(pages\): failed: ConnectorConfigError: Cannot read Notion pages/,
    );
    assert.match(human.out, /; 1 failed\.\n$/);
  } finally {
    await s.close();
  }
});

Deno.test("memo sync --connector with an unknown id is a usage error", async () => {
  const s = await setup();
  try {
    const r = await s.run(["sync", "--connector", "nope"], {});
    assert.equal(r.code, 2);
    assert.match(r.err, /^memo: Cannot sync: unknown connector nope \(configured: gh, wiki\)/);
    await using empty = await tempDir("memo-cli-sync-empty-");
    const io = recordingIO(empty.path);
    assert.equal(await runCli(["sync"], io), 0);
    assert.match(io.out.join(""), /No connectors configured/);
  } finally {
    await s.close();
  }
});
