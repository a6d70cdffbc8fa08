import assert from "node:assert/strict";
import {
  ConnectorConfigError,
  ConnectorNetworkError,
  ConnectorTimeoutError,
  PAGE_SIZE,
  runConnectors,
  WorkspaceAuthError,
  WorkspaceConnector,
  WorkspaceError,
  WorkspaceRateLimitError,
} from "../connectors/mod.ts";
import { type NotionModel, startFakeNotion } from "./connectors_fake_notion.ts";
import { type Fault, ManualClock } from "./connectors_helpers.ts";
import { blocks, page, text } from "./fixtures/notion/objects.ts";
import { DATABASE_ID, PAGE, sampleWorkspace } from "./fixtures/notion/workspace.ts";

const TOKEN = "ntn_FAKEnotionTOKEN000000000000000000000001";

function fake(clock?: ManualClock) {
  return startFakeNotion(sampleWorkspace(), {
    token: TOKEN,
    listPageSize: 2,
    blockPageSize: 2,
    onHang: () => clock?.advance(30_000),
  });
}

Deno.test("WorkspaceConnector.pull() queries a database page by page with Notion's version headers", async () => {
  const notion = fake();
  try {
    const connector = new WorkspaceConnector({
      token: `  Bearer ${TOKEN}\n`,
      apiUrl: notion.url,
      databaseId: `https://www.notion.so/acme/Runbooks-${DATABASE_ID.replace(/-/g, "")}?v=abc`,
    });
    const records = await connector.pull({});
    assert.deepEqual(records.map((r) => r.title), [
      "Deploy runbook",
      "On-call rota",
      "Meeting notes",
      "Empty page",
      "Nested outline",
    ], "pages in the trash and archived pages are skipped");
    const queries = notion.requests.filter((r) => r.method === "POST");
    assert.equal(queries.length, 4, "7 results, 2 per answer");
    assert.equal(queries[0].path, `/v1/databases/${DATABASE_ID}/query`);
    assert.deepEqual(queries[0].body, {
      sorts: [{ timestamp: "last_edited_time", direction: "descending" }],
      page_size: PAGE_SIZE,
    });
    assert.equal(typeof queries[1].body?.start_cursor, "string");
    for (const r of notion.requests) {
      assert.equal(r.headers["authorization"], `Bearer ${TOKEN}`);
      assert.equal(r.headers["source-version"], "2022-06-28");
      assert.equal(r.headers["notion-version"], "2022-06-28");
      assert.equal(r.headers["content-type"], "application/json");
    }
    const children = notion.requests.filter((r) => r.method === "GET");
    assert.ok(
      children.every((r) => /^\?page_size=25(&start_cursor=[0-9a-f-]+)?$/.test(r.search)),
    );
    assert.ok(children.some((r) => r.search.includes("start_cursor")), "long pages are paged");
    assert.ok(
      !children.some((r) => r.path.includes("d2000000-0000-4000-8000-000000000002")),
      "child pages are not content",
    );

    const runbook = records[0];
    assert.equal(runbook.source, `notion:page/${PAGE.runbook}`);
    assert.deepEqual(runbook.metadata.labels, ["Done", "ops", "deploy"]);
    assert.equal(runbook.updatedAt, "2024-05-03T10:25:00.000Z");
    assert.equal(
      runbook.text,
      [
        "## Before you start",
        "",
        "Run `make deploy` from the **bastion host**, see [the wiki](https://wiki.example.com/deploy).",
        "",
        "- Check the dashboards",
        "  - Error rate below 1%",
        "",
        "1. Tag the release",
        "1. Announce it",
        "",
        "- [x] Rollback plan written",
        "- [ ] Canary healthy",
        "- If it fails",
        "  Roll back with make rollback.",
        "",
        "> Never deploy on Fridays.",
        "",
        "> 💡 Staging is db-stage-2.",
        "",
        "```bash",
        "make deploy TARGET=staging",
        "```",
        "",
        "---",
        "",
        "[image: Deploy pipeline]",
      ].join("\n"),
    );
    assert.doesNotMatch(
      runbook.text,
      /X-Amz-Signature/,
      "signed file URLs expire: never part of the text",
    );
    assert.equal(
      records[1].text,
      "| Week | Who |\n| --- | --- |\n| 19 | Ada |\n| 20 | Grace |\n\nPage: Rota archive",
    );
    assert.equal(records[2].text, "First point.\n\nSecond point.\n\nThird point.");
    assert.equal(records[3].text, "Empty page", "a page without content keeps its title as text");
    assert.equal(records[4].text, "- Level 1\n  - Level 2\n    - Level 3", "maxDepth 3");
  } finally {
    await notion.close();
  }
});

Deno.test("WorkspaceConnector.pull() reads a table's rows at any depth: they are the table", async () => {
  const notion = fake();
  try {
    const connector = new WorkspaceConnector({
      token: TOKEN,
      apiUrl: notion.url,
      databaseId: DATABASE_ID,
      maxDepth: 1,
    });
    const records = await connector.pull({});
    const rota = records.find((r) => r.title === "On-call rota")!;
    assert.equal(
      rota.text,
      "| Week | Who |\n| --- | --- |\n| 19 | Ada |\n| 20 | Grace |\n\nPage: Rota archive",
    );
  } finally {
    await notion.close();
  }
});

Deno.test("WorkspaceConnector.pull() searches the workspace for pages when no database is given", async () => {
  const notion = fake();
  try {
    const connector = new WorkspaceConnector({
      token: TOKEN,
      apiUrl: `${notion.url}/v1/`,
      includeContent: false,
    });
    const records = await connector.pull({});
    assert.deepEqual(records.map((r) => r.title), [
      "Deploy runbook",
      "On-call rota",
      "Team handbook",
    ]);
    assert.equal(
      records[2].text,
      "Team handbook",
      "all title segments, whatever the property's name",
    );
    const first = notion.requests[0];
    assert.equal(first.path, "/v1/search");
    assert.deepEqual(first.body, {
      filter: { property: "object", value: "page" },
      sort: { direction: "descending", timestamp: "last_edited_time" },
      page_size: 25,
    });
    assert.ok(notion.requests.every((r) => r.method === "POST"), "no content requests");
  } finally {
    await notion.close();
  }
});

/** A hex id in Notion's hyphenated form: `kind` tells the objects apart, `n` counts them. */
const uuid = (kind: number, n: number) =>
  `${kind.toString(16).padStart(8, "0")}-0000-4000-8000-${n.toString(16).padStart(12, "0")}`;

/**
 * A database of `pages` pages and a workspace search that finds them all;
 * page `i` (from 0) has `blockCounts[i]` paragraphs (0 when not given).
 */
function boundaryWorkspace(pages: number, blockCounts: number[] = []): NotionModel {
  const database = uuid(0xdb, 1);
  const list = Array.from({ length: pages }, (_, i) =>
    page({
      id: uuid(0xa0, i + 1),
      title: `Page ${i + 1}`,
      databaseId: database,
      created: "2024-05-01T10:00:00.000Z",
      // Newest first: page 1 is the most recently edited.
      edited: new Date(Date.parse("2024-05-02T10:00:00.000Z") - i * 60_000).toISOString(),
    }));
  const children = new Map(list.map((p, i) => [
    p.id,
    Array.from(
      { length: blockCounts[i] ?? 0 },
      (_, b) => blocks.paragraph(uuid(0xb0 + i, b + 1), p.id, [text(`Paragraph ${b + 1}.`)]),
    ),
  ]));
  return { databases: new Map([[database, list]]), searchable: list, children };
}

Deno.test("WorkspaceConnector.pull() asks for 25 items in every request: 25 block children take one, 26 take two", async () => {
  assert.equal(PAGE_SIZE, 25);
  const notion = startFakeNotion(boundaryWorkspace(2, [25, 26]), { token: TOKEN });
  try {
    const connector = new WorkspaceConnector({
      token: TOKEN,
      apiUrl: notion.url,
      databaseId: uuid(0xdb, 1),
    });
    const records = await connector.pull({});
    assert.deepEqual(records.map((r) => r.title), ["Page 1", "Page 2"]);
    const paragraphs = (n: number) =>
      Array.from({ length: n }, (_, i) => `Paragraph ${i + 1}.`).join("\n\n");
    assert.equal(records[0].text, paragraphs(25));
    assert.equal(records[1].text, paragraphs(26), "the 26th block comes from the second request");

    const blockRequests = (pageId: string) =>
      notion.requests.filter((r) => r.path === `/v1/blocks/${pageId}/children`);
    const first = blockRequests(uuid(0xa0, 1));
    assert.deepEqual(first.map((r) => r.search), ["?page_size=25"], "25 blocks: one request");
    const second = blockRequests(uuid(0xa0, 2));
    assert.deepEqual(
      second.map((r) => r.search),
      ["?page_size=25", `?page_size=25&start_cursor=${uuid(0xb1, 26)}`],
      "26 blocks: two requests, the second from the first one's cursor",
    );
    assert.equal(notion.requests.length, 1 + 1 + 2, "one query, then the blocks");
    assert.equal(notion.requests[0].body?.page_size, 25);
  } finally {
    await notion.close();
  }
});

Deno.test("WorkspaceConnector.pull() asks for 25 pages per query and search: 25 pages take one request, 26 take two", async (t) => {
  for (const [pages, requests] of [[25, 1], [26, 2]] as const) {
    await t.step(`${pages} pages`, async () => {
      const notion = startFakeNotion(boundaryWorkspace(pages), { token: TOKEN });
      try {
        for (
          const options of [{ databaseId: uuid(0xdb, 1) }, {}] as { databaseId?: string }[]
        ) {
          notion.reset();
          const connector = new WorkspaceConnector({
            token: TOKEN,
            apiUrl: notion.url,
            includeContent: false,
            ...options,
          });
          const records = await connector.pull({});
          const kind = options.databaseId ? "query" : "search";
          assert.equal(records.length, pages, kind);
          assert.equal(notion.requests.length, requests, kind);
          for (const [i, r] of notion.requests.entries()) {
            assert.equal(
              r.path,
              options.databaseId ? `/v1/databases/${uuid(0xdb, 1)}/query` : "/v1/search",
            );
            assert.equal(r.body?.page_size, 25, `${kind} request ${i + 1}`);
            assert.equal(r.body?.start_cursor, i === 0 ? undefined : uuid(0xa0, 26), kind);
          }
        }
      } finally {
        await notion.close();
      }
    });
  }
});

Deno.test("the fake Notion API pages as Notion does: page_size at most 100, 100 when not given", async () => {
  const notion = startFakeNotion(boundaryWorkspace(1, [130]), { token: TOKEN });
  const pageId = uuid(0xa0, 1);
  const children = async (search: string) => {
    const response = await fetch(`${notion.url}/v1/blocks/${pageId}/children${search}`, {
      headers: { authorization: `Bearer ${TOKEN}`, "notion-version": "2022-06-28" },
    });
    return { status: response.status, body: await response.json() };
  };
  try {
    for (
      const [search, count, more] of [["", 100, true], ["?page_size=500", 100, true], [
        "?page_size=25",
        25,
        true,
      ], [`?page_size=100&start_cursor=${uuid(0xb0, 101)}`, 30, false]] as const
    ) {
      const { status, body } = await children(search);
      assert.equal(status, 200, search);
      assert.equal(body.results.length, count, search);
      assert.equal(body.has_more, more, search);
      assert.equal(body.next_cursor, more ? uuid(0xb0, count + 1) : null, search);
    }
    for (const search of ["?page_size=0", "?page_size=2.5", "?page_size=ten"]) {
      const { status, body } = await children(search);
      assert.equal(status, 400, search);
      assert.equal(body.code, "validation_error", search);
    }
  } finally {
    await notion.close();
  }
});

Deno.test("WorkspaceConnector.pull() asks for pages edited on or after the stored minute", async () => {
  const notion = fake();
  try {
    const connector = new WorkspaceConnector({
      token: TOKEN,
      apiUrl: notion.url,
      databaseId: DATABASE_ID,
    });
    const records = await connector.pull({ since: "2024-05-03T09:00:00.000Z" });
    assert.deepEqual(records.map((r) => r.title), ["Deploy runbook", "On-call rota"]);
    assert.deepEqual(notion.requests[0].body?.filter, {
      timestamp: "last_edited_time",
      last_edited_time: { on_or_after: "2024-05-03T09:00:00.000Z" },
    });
    notion.reset();
    const search = new WorkspaceConnector({
      token: TOKEN,
      apiUrl: notion.url,
      includeContent: false,
    });
    const found = await search.pull({ since: "2024-05-02T00:00:00.000Z" });
    assert.deepEqual(found.map((r) => r.title), ["Deploy runbook", "On-call rota"]);
    assert.equal(notion.requests.length, 2, "a search stops at the first older page");
  } finally {
    await notion.close();
  }
});

Deno.test("WorkspaceConnector.pull() maps each failure to its error without echoing the body", async (t) => {
  const clock = new ManualClock();
  const notion = fake(clock);
  const checks: Partial<Record<Fault, (e: unknown) => void>> = {
    "401": (e) => {
      assert.ok(e instanceof WorkspaceAuthError);
      assert.match(e.message, /^authorization failed \(401\/403\)/);
      assert.equal(e.status, 401);
    },
    "403": (e) => {
      assert.ok(e instanceof WorkspaceAuthError);
      assert.match(e.message, /^authorization failed \(401\/403\)/);
      assert.equal(e.apiCode, "restricted_resource");
    },
    "429": (e) => {
      assert.ok(e instanceof WorkspaceRateLimitError);
      assert.equal(e.retryAfterSeconds, 17);
    },
    "500": (e) => {
      assert.ok(e instanceof WorkspaceError);
      assert.equal(e.status, 500);
      assert.doesNotMatch(e.message, /Unexpected error occurred/);
    },
    "html-502": (e) => {
      assert.ok(e instanceof WorkspaceError);
      assert.match(e.message, /HTTP 502.*HTML error page/);
      assert.doesNotMatch(e.message, /cloudflare|<html/i);
    },
    "timeout": (e) => assert.ok(e instanceof ConnectorTimeoutError),
    "reset": (e) => assert.ok(e instanceof ConnectorNetworkError),
    "cursor-repeat": (e) => assert.match((e as Error).message, /repeated a paging cursor/),
    "cursor-null": (e) => assert.match((e as Error).message, /gave no cursor/),
  };
  try {
    for (const [fault, check] of Object.entries(checks)) {
      await t.step(`${fault} at request 3`, async () => {
        notion.reset();
        notion.setFault(fault as Fault, 3);
        const connector = new WorkspaceConnector({
          token: TOKEN,
          apiUrl: notion.url,
          databaseId: DATABASE_ID,
        });
        const e = await connector.pull({ clock }).then(() => undefined, (e) => e);
        assert.ok(e, "the pass must fail");
        check!(e);
        assert.doesNotMatch(`${(e as Error).message} ${JSON.stringify(e)}`, new RegExp(TOKEN));
      });
    }
    assert.equal(clock.pending, 0);
  } finally {
    await notion.close();
  }
});

Deno.test("WorkspaceConnector.pull() reads a 429's Retry-After as seconds or as an HTTP date", async () => {
  // 89.8 s before the date below: rounded up to 90.
  const clock = new ManualClock(Date.parse("2026-10-21T07:26:30.200Z"));
  const notion = fake(clock);
  // (A Retry-After of up to 10 s is waited out inside the pass: see the next test.)
  const cases: [string, number | undefined][] = [
    ["Wed, 21 Oct 2026 07:28:00 GMT", 90],
    ["45", 45],
    ["in a while", undefined],
  ];
  try {
    for (const [retryAfter, expected] of cases) {
      notion.reset();
      notion.setFault("429", 2, { retryAfter });
      const connector = new WorkspaceConnector({
        id: "wiki",
        token: TOKEN,
        apiUrl: notion.url,
        databaseId: DATABASE_ID,
      });
      const e = await connector.pull({ clock }).then(() => undefined, (e) => e);
      assert.ok(e instanceof WorkspaceRateLimitError, retryAfter);
      assert.equal(e.retryAfterSeconds, expected, retryAfter);
      if (expected === undefined) {
        assert.doesNotMatch(e.message, /retry after/);
      } else {
        assert.match(e.message, new RegExp(`; retry after ${expected} s$`));
      }

      notion.reset();
      notion.setFault("429", 2, { retryAfter });
      const result = await runConnectors([connector], {
        rememberMany: () => Promise.reject(new Error("a failed pass commits nothing")),
      }, { clock });
      assert.equal(result.errors.length, 1);
      assert.equal(result.errors[0].error.name, "WorkspaceRateLimitError");
      assert.equal(result.errors[0].error.retryAfterSeconds, expected, retryAfter);
      if (expected === undefined) {
        assert.ok(!("retryAfterSeconds" in result.errors[0].error), "unreadable: left out");
      }
    }
  } finally {
    await notion.close();
  }
});

Deno.test("WorkspaceConnector.pull() explains a 404, a multi-source database and a refused cursor", async () => {
  const model = sampleWorkspace();
  model.multiSource = new Set(["11111111-2222-4333-8444-555555555555"]);
  const notion = startFakeNotion(model, { token: TOKEN });
  try {
    const missing = new WorkspaceConnector({
      token: TOKEN,
      apiUrl: notion.url,
      databaseId: "aaaaaaaabbbbccccddddeeeeeeeeeeee",
    });
    const e404 = await missing.pull({}).then(() => undefined, (e) => e);
    assert.ok(e404 instanceof WorkspaceError);
    assert.equal(e404.status, 404);
    assert.equal(e404.apiCode, "object_not_found");
    assert.match(e404.message, /share the database with the integration/);
    assert.doesNotMatch(e404.message, /Could not find database/);

    const multi = new WorkspaceConnector({
      token: TOKEN,
      apiUrl: notion.url,
      databaseId: "11111111-2222-4333-8444-555555555555",
    });
    const e400 = await multi.pull({}).then(() => undefined, (e) => e);
    assert.ok(e400 instanceof WorkspaceError);
    assert.match(e400.message, /multiple data sources/);
    assert.doesNotMatch(e400.message, /not supported in this API version/);
  } finally {
    await notion.close();
  }
});

Deno.test("WorkspaceConnector refuses a token of the wrong form before any request", async () => {
  const notion = fake();
  try {
    for (const token of [undefined, "", "ghp_notnotion", "Bearer secret_has space"]) {
      const connector = new WorkspaceConnector({
        token,
        apiUrl: notion.url,
        databaseId: DATABASE_ID,
      });
      const e = await connector.pull({}).then(() => undefined, (e) => e);
      assert.ok(e instanceof ConnectorConfigError, String(token));
      assert.match(e.message, /MEMO_NOTION_TOKEN or NOTION_TOKEN/);
      if (token) assert.ok(!e.message.includes(token));
    }
    assert.equal(notion.requests.length, 0);
    const secretPrefix = new WorkspaceConnector({
      token: "secret_abc",
      apiUrl: notion.url,
      databaseId: DATABASE_ID,
    });
    await assert.rejects(
      secretPrefix.pull({}),
      WorkspaceAuthError,
      "secret_ tokens are sent (and refused by the fake)",
    );
  } finally {
    await notion.close();
  }
});

Deno.test("WorkspaceConnector.pull() waits out a 429 whose Retry-After is short, then goes on with the pass", async () => {
  const clock = new ManualClock(Date.parse("2026-10-21T07:26:30.200Z"));
  const notion = fake(clock);
  try {
    for (const retryAfter of ["2", "Wed, 21 Oct 2026 07:26:30 GMT" /* just past: no wait */]) {
      notion.reset();
      notion.setFault("429", 2, { retryAfter });
      const connector = new WorkspaceConnector({
        token: TOKEN,
        apiUrl: notion.url,
        databaseId: DATABASE_ID,
      });
      const pulling = connector.pull({ clock });
      let done = false;
      pulling.then(() => done = true, () => done = true);
      // The wait is on the pass's clock: move it on until the pass ends (a few seconds at most).
      for (let i = 0; i < 50 && !done; i++) {
        await new Promise((r) => setTimeout(r, 10));
        clock.advance(1000);
      }
      const records = await pulling;
      assert.ok(records.length > 0, retryAfter);
      assert.ok(notion.requests.filter((r) => r.path.endsWith("/query")).length >= 2, retryAfter);
    }
    assert.equal(clock.pending, 0);
  } finally {
    await notion.close();
  }
});
