import assert from "node:assert/strict";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { FileMemoryStore, type Memo, openMemo } from "@memo/memory";
import {
  ConnectorConfigError,
  type ConnectorProgress,
  RepoHostConnector,
  runConnectors,
  syncConfiguredConnectors,
  UnknownConnectorError,
} from "../connectors/mod.ts";
import { discussion, startFakeGithub } from "./connectors_fake_github.ts";
import { startFakeNotion } from "./connectors_fake_notion.ts";
import { readNotes, STORE_CLOCK } from "./connectors_helpers.ts";
import { text } from "./fixtures/notion/objects.ts";
import { DATABASE_ID, PAGE, sampleWorkspace } from "./fixtures/notion/workspace.ts";
import { sanitizedTest as test } from "../testing/sanitized.ts";

const GITHUB_TOKEN = "ghp_SYNCgithubTOKEN0000000000000000000003";
const NOTION_TOKEN = "ntn_SYNCnotionTOKEN00000000000000000000003";
const ENV = { GITHUB_TOKEN, MEMO_NOTION_TOKEN: NOTION_TOKEN };

async function projectWith(config: unknown): Promise<{ rootDir: string; memo: Memo }> {
  const rootDir = await Deno.makeTempDir({ prefix: "memo-sync-" });
  await mkdir(join(rootDir, ".memo"), { recursive: true });
  await writeFile(join(rootDir, ".memo", "config.json"), JSON.stringify(config, null, 2));
  const memo = await openMemo({ store: new FileMemoryStore({ rootDir, clock: STORE_CLOCK }) });
  return { rootDir, memo };
}

function fakes() {
  const github = startFakeGithub([{
    nameWithOwner: "octo-org/hello-world",
    discussions: [1, 2, 3].map((n) => discussion(n, `2024-05-0${n}T10:00:00Z`)),
  }], { token: GITHUB_TOKEN });
  const notion = startFakeNotion(sampleWorkspace(), { token: NOTION_TOKEN, listPageSize: 2 });
  const config = {
    recall: { engine: "auto" },
    connectors: [
      { id: "gh", type: "discussions", repositories: ["octo-org/hello-world"], apiUrl: github.url },
      { id: "wiki", type: "pages", databaseId: DATABASE_ID.replace(/-/g, ""), apiUrl: notion.url },
    ],
  };
  return {
    github,
    notion,
    config,
    close: async () => void (await github.close(), await notion.close()),
  };
}

test("syncConfiguredConnectors() syncs, re-syncs with zero bytes, and updates changed items in place", async () => {
  const f = fakes();
  const { rootDir, memo } = await projectWith(f.config);
  try {
    const bytes: number[] = [];
    const onProgress = (p: ConnectorProgress) =>
      p.phase === "committed" && bytes.push(p.bytesWritten!);
    const first = await syncConfiguredConnectors(memo, { rootDir, env: ENV, onProgress });
    assert.deepEqual(first.errors, []);
    assert.deepEqual(first.connectors, [
      { id: "gh", type: "discussions", fetched: 3, written: 3, updated: 0, unchanged: 0 },
      { id: "wiki", type: "pages", fetched: 5, written: 5, updated: 0, unchanged: 0 },
    ]);
    assert.equal(first.written, 8);
    const state = JSON.parse(
      await readFile(join(rootDir, ".memo", "connectors", "state.json"), "utf8"),
    );
    assert.equal(state.connectors.gh.since, "2024-05-03T10:00:00Z");
    assert.equal(state.connectors.wiki.since, "2024-05-03T10:25:00.000Z");
    const afterFirst = await readNotes(rootDir);

    // Nothing changed upstream: nothing is written.
    bytes.length = 0;
    const second = await syncConfiguredConnectors(memo, { rootDir, env: ENV, onProgress });
    assert.deepEqual(second.errors, []);
    assert.equal(second.written + second.updated, 0);
    assert.deepEqual(bytes, [0, 0]);
    assert.equal(await readNotes(rootDir), afterFirst);
    // A full pass reads everything again, and still writes nothing.
    bytes.length = 0;
    const full = await syncConfiguredConnectors(memo, {
      rootDir,
      env: ENV,
      onProgress,
      full: true,
    });
    assert.equal(full.unchanged, 8);
    assert.deepEqual(bytes, [0, 0]);

    // An edit upstream: the discussion's body; a Notion page edited again within the same
    // (minute-rounded) last_edited_time as the stored state.
    const repo = f.github.repos.get("octo-org/hello-world")!;
    repo.discussions[0] = discussion(1, "2024-05-04T08:00:00Z", {
      body: "Edited body of discussion 1.",
    });
    f.notion.model.children.get(PAGE.runbook)!.splice(
      0,
      1,
      (await import("./fixtures/notion/objects.ts")).blocks.heading(
        "d1000000-0000-4000-8000-000000000001",
        PAGE.runbook,
        2,
        [text("Before you deploy")],
      ),
    );
    const third = await syncConfiguredConnectors(memo, { rootDir, env: ENV });
    assert.deepEqual(third.errors, []);
    assert.deepEqual(
      third.connectors.map((c) => [c.id, c.written, c.updated]),
      [["gh", 0, 1], ["wiki", 0, 1]],
    );
    const after = await readNotes(rootDir);
    assert.ok(after.includes("Edited body of discussion 1."));
    assert.ok(after.includes("## Before you deploy") && !after.includes("## Before you start"));
    assert.equal(after.match(/<!-- memo:note/g)?.length, 8, "updated in place, not appended");
    const beforeIds = [...afterFirst.matchAll(/"id":"([0-9a-z]+)"/g)].map((m) => m[1]);
    const afterIds = [...after.matchAll(/"id":"([0-9a-z]+)"/g)].map((m) => m[1]);
    assert.deepEqual(afterIds, beforeIds, "same notes, same order");
  } finally {
    await memo.close();
    await Deno.remove(rootDir, { recursive: true });
    await f.close();
  }
});

test("syncConfiguredConnectors() runs only the named connectors and refuses unknown ids", async () => {
  const f = fakes();
  const { rootDir, memo } = await projectWith(f.config);
  try {
    const result = await syncConfiguredConnectors(memo, { rootDir, env: ENV, only: ["wiki"] });
    assert.deepEqual(result.connectors.map((c) => c.id), ["wiki"]);
    assert.equal(f.github.requests.length, 0);
    await assert.rejects(
      syncConfiguredConnectors(memo, { rootDir, env: ENV, only: ["wiki", "nope"] }),
      (e) =>
        e instanceof UnknownConnectorError &&
        e.message === "Cannot sync: unknown connector nope (configured: gh, wiki)",
    );
  } finally {
    await memo.close();
    await Deno.remove(rootDir, { recursive: true });
    await f.close();
  }
});

test("syncConfiguredConnectors() fails a connector with a bad entry and still runs the others", async () => {
  const f = fakes();
  const config = structuredClone(f.config) as typeof f.config & {
    connectors: Record<string, unknown>[];
  };
  config.connectors[1].maxDepth = 99;
  config.connectors.push({ id: "odd", type: "mailbox" });
  const { rootDir, memo } = await projectWith(config);
  try {
    const result = await syncConfiguredConnectors(memo, { rootDir, env: {} });
    assert.deepEqual(result.errors.map((e) => [e.connector, e.error.name]), [
      ["gh", "RepoHostAuthError"],
      ["wiki", "ConnectorConfigError"],
      ["odd", "ConnectorConfigError"],
    ]);
    assert.match(result.errors[1].error.message, /maxDepth/);
    assert.match(result.errors[2].error.message, /unknown type "mailbox"/);
    assert.equal(f.github.requests.length + f.notion.requests.length, 0, "no token: no request");
    assert.equal(await readNotes(rootDir), "");
  } finally {
    await memo.close();
    await Deno.remove(rootDir, { recursive: true });
    await f.close();
  }
});

test("syncConfiguredConnectors() refuses a config file that holds a token", async () => {
  const { rootDir, memo } = await projectWith({
    connectors: [{
      id: "gh",
      type: "discussions",
      repositories: ["a/b"],
      token: "ghp_INFILE00000",
    }],
  });
  try {
    await assert.rejects(
      syncConfiguredConnectors(memo, { rootDir, env: ENV }),
      (e) =>
        e instanceof ConnectorConfigError &&
        /tokens come only from the environment/.test(e.message) &&
        !e.message.includes("ghp_INFILE00000"),
    );
    await writeFile(join(rootDir, ".memo", "config.json"), "{ not json");
    await assert.rejects(syncConfiguredConnectors(memo, { rootDir, env: ENV }), /not valid JSON/);
  } finally {
    await memo.close();
    await Deno.remove(rootDir, { recursive: true });
  }
});

test("runConnectors() writes an item seen twice in a pass once, keeping the newer copy", async () => {
  const github = startFakeGithub([{
    nameWithOwner: "octo-org/hello-world",
    discussions: [
      discussion(1, "2024-05-05T10:00:00Z", { title: "Newer copy" }),
      discussion(2, "2024-05-04T10:00:00Z"),
      discussion(1, "2024-05-03T10:00:00Z", { title: "Older copy" }),
    ],
  }], { token: GITHUB_TOKEN });
  const rootDir = await Deno.makeTempDir({ prefix: "memo-sync-" });
  const memo = await openMemo({ store: new FileMemoryStore({ rootDir, clock: STORE_CLOCK }) });
  try {
    const connector = new RepoHostConnector({
      token: GITHUB_TOKEN,
      apiUrl: github.url,
      repositories: ["octo-org/hello-world"],
      pageSize: 1,
    });
    const result = await runConnectors([connector], memo);
    assert.deepEqual(result.connectors[0], {
      id: "github",
      type: "discussions",
      fetched: 2,
      written: 2,
      updated: 0,
      unchanged: 0,
    });
    const notes = await readNotes(rootDir);
    assert.equal(notes.match(/discussions\/1"/g)?.length, 1);
    assert.ok(notes.includes("## Newer copy") && !notes.includes("Older copy"));
  } finally {
    await memo.close();
    await Deno.remove(rootDir, { recursive: true });
    await github.close();
  }
});
