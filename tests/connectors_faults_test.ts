/**
 * Fault at every page: for every request k of one connector's pass and every
 * fault (401, 403, 429, GraphQL RATE_LIMITED, 500, an HTML 502, a timeout on
 * the injected clock, a connection that breaks, a cursor that repeats or is
 * null while more pages are promised), the pass fails as a whole: no byte of
 * it reaches notes.md, the error is in `errors`, the other connector still
 * commits, and a retry once the fault clears leaves the same file as a clean
 * run.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { FileMemoryStore, openMemo } from "@memo/memory";
import {
  type Connector,
  FileConnectorState,
  RepoHostConnector,
  runConnectors,
  type RunConnectorsResult,
  WorkspaceConnector,
} from "../connectors/mod.ts";
import { discussion, startFakeGithub } from "./connectors_fake_github.ts";
import { startFakeNotion } from "./connectors_fake_notion.ts";
import {
  type Fault,
  FAULTS,
  ManualClock,
  readNotes,
  STORE_CLOCK,
  withOrdinalIds,
} from "./connectors_helpers.ts";
import { DATABASE_ID, sampleWorkspace } from "./fixtures/notion/workspace.ts";
import { sanitizedTest as test } from "../testing/sanitized.ts";

const GITHUB_TOKEN = "ghp_FAULTSgithubTOKEN00000000000000000002";
const NOTION_TOKEN = "secret_FAULTSnotionTOKEN0000000000000000002";

const EXPECTED: Record<"github" | "notion", Record<Fault, string>> = {
  github: {
    "401": "RepoHostAuthError",
    "403": "RepoHostRateLimitError",
    "429": "RepoHostRateLimitError",
    "rate-limited": "RepoHostRateLimitError",
    "500": "RepoHostError",
    "html-502": "RepoHostError",
    "timeout": "ConnectorTimeoutError",
    "reset": "ConnectorNetworkError",
    "cursor-repeat": "RepoHostError",
    "cursor-null": "RepoHostError",
    "field-error": "RepoHostError",
  },
  notion: {
    "401": "WorkspaceAuthError",
    "403": "WorkspaceAuthError",
    "429": "WorkspaceRateLimitError",
    "rate-limited": "WorkspaceRateLimitError",
    "500": "WorkspaceError",
    "html-502": "WorkspaceError",
    "timeout": "ConnectorTimeoutError",
    "reset": "ConnectorNetworkError",
    "cursor-repeat": "WorkspaceError",
    "cursor-null": "WorkspaceError",
    "field-error": "WorkspaceError",
  },
};

test("runConnectors() with a fault at every page of a pass writes nothing of it and recovers", async (t) => {
  const clock = new ManualClock();
  const github = startFakeGithub([
    {
      nameWithOwner: "octo-org/hello-world",
      discussions: [1, 2, 3, 4, 5].map((n) => discussion(n, `2024-05-0${n}T10:00:00Z`)),
    },
    {
      nameWithOwner: "octo-org/second",
      discussions: [6, 7, 8].map((n) =>
        discussion(n, `2024-04-0${n - 5}T10:00:00Z`, {
          url: `https://github.com/octo-org/second/discussions/${n}`,
        })
      ),
    },
  ], { token: GITHUB_TOKEN, onHang: () => clock.advance(30_000) });
  const notion = startFakeNotion(sampleWorkspace(), {
    token: NOTION_TOKEN,
    listPageSize: 2,
    blockPageSize: 2,
    onHang: () => clock.advance(30_000),
  });
  const make = (): Record<"github" | "notion", Connector> => ({
    github: new RepoHostConnector({
      id: "gh",
      token: GITHUB_TOKEN,
      apiUrl: `${github.url}/graphql`,
      repositories: ["octo-org/hello-world", "octo-org/second"],
      pageSize: 2,
    }),
    notion: new WorkspaceConnector({
      id: "wiki",
      token: NOTION_TOKEN,
      apiUrl: notion.url,
      databaseId: DATABASE_ID,
    }),
  });
  const dirs: string[] = []; // removed at the end
  const project = async () => {
    const rootDir = await Deno.makeTempDir({ prefix: "memo-faults-" });
    dirs.push(rootDir);
    const memo = await openMemo({
      store: new FileMemoryStore({ rootDir, clock: STORE_CLOCK }),
      localEmbeddings: false, // the connectors are under test: no model loads beside them
    });
    const state = new FileConnectorState(join(rootDir, ".memo", "connectors", "state.json"));
    return { rootDir, memo, state };
  };
  const run = async (p: Awaited<ReturnType<typeof project>>, list: Connector[]) => {
    github.reset();
    notion.reset();
    return await runConnectors(list, p.memo, { clock, state: p.state });
  };

  try {
    // Clean references: both in one run; and each connector alone, in both orders.
    const clean = await project();
    const cleanResult = await run(clean, Object.values(make()));
    assert.deepEqual(cleanResult.errors, []);
    const requests = { github: github.requests.length, notion: 0 };
    github.reset();
    notion.reset();
    const count = await project();
    await run(count, [make().notion]);
    requests.notion = notion.requests.length;
    const both = withOrdinalIds(await readNotes(clean.rootDir));
    const reversed = await project();
    await run(reversed, [make().notion]);
    const notionOnly = withOrdinalIds(await readNotes(reversed.rootDir));
    await run(reversed, [make().github]);
    const notionThenGithub = withOrdinalIds(await readNotes(reversed.rootDir));
    const alone = await project();
    await run(alone, [make().github]);
    const githubOnly = withOrdinalIds(await readNotes(alone.rootDir));
    assert.ok(requests.github >= 5 && requests.notion >= 15, JSON.stringify(requests));
    for (const p of [clean, count, reversed, alone]) await p.memo.close();

    for (const victim of ["github", "notion"] as const) {
      const other = victim === "github" ? "notion" : "github";
      const fake = victim === "github" ? github : notion;
      for (const fault of FAULTS) {
        if (victim === "notion" && fault === "rate-limited") continue; // Notion has no GraphQL errors
        await t.step(`${victim}: ${fault} at each of ${requests[victim]} requests`, async () => {
          for (let k = 1; k <= requests[victim]; k++) {
            const p = await project();
            try {
              const connectors = make();
              github.reset();
              notion.reset();
              fake.setFault(fault, k);
              const result: RunConnectorsResult = await runConnectors(
                [connectors.github, connectors.notion],
                p.memo,
                { clock, state: p.state },
              );
              const where = `${victim} ${fault} at request ${k}`;
              assert.equal(result.errors.length, 1, where);
              const [error] = result.errors;
              assert.equal(error.connector, connectors[victim].id, where);
              assert.equal(error.type, connectors[victim].type, where);
              assert.equal(
                error.error.name,
                EXPECTED[victim][fault],
                `${where}: ${error.error.message}`,
              );
              if (victim === "github" && ["403", "429", "rate-limited"].includes(fault)) {
                assert.equal(typeof error.error.resetEpoch, "number", where);
              }
              if (victim === "notion" && fault === "429") {
                assert.equal(error.error.retryAfterSeconds, 17);
              }
              const failed = result.connectors.find((c) => c.id === connectors[victim].id)!;
              assert.deepEqual([failed.fetched, failed.written, failed.updated, failed.unchanged], [
                0,
                0,
                0,
                0,
              ]);
              const ok = result.connectors.find((c) => c.id === connectors[other].id)!;
              assert.ok(ok.written > 0, `${where}: the other connector commits`);
              const notes = await readNotes(p.rootDir);
              assert.ok(
                !notes.includes(victim === "github" ? '"source":"github:' : '"source":"notion:'),
                where,
              );
              assert.equal(
                withOrdinalIds(notes),
                victim === "github" ? notionOnly : githubOnly,
                where,
              );
              assert.equal(
                await p.state.read(connectors[victim].id),
                undefined,
                `${where}: no state moved`,
              );
              assert.equal(clock.pending, 0, `${where}: no timer left`);

              // The fault clears: a retry gives the same file as a clean run.
              const retry = await run(p, [connectors.github, connectors.notion]);
              assert.deepEqual(retry.errors, [], where);
              const again = retry.connectors.find((c) => c.id === connectors[other].id)!;
              assert.equal(again.written + again.updated, 0, `${where}: nothing rewritten`);
              assert.equal(
                withOrdinalIds(await readNotes(p.rootDir)),
                victim === "github" ? notionThenGithub : both,
                where,
              );
            } finally {
              await p.memo.close();
            }
          }
        });
      }
    }
  } finally {
    await github.close();
    await notion.close();
    for (const dir of dirs) await Deno.remove(dir, { recursive: true });
  }
});
