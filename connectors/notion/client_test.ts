import assert from "node:assert/strict";
import { ManualClock } from "../../tests/connectors_helpers.ts";
import { WorkspaceError } from "../errors.ts";
import type { FetchLike } from "../types.ts";
import { notionList } from "./client.ts";
import { WorkspaceConnector } from "./connector.ts";

const answer =
  (status: number, body: string, headers: Record<string, string> = {}): FetchLike => () =>
    Promise.resolve(new Response(body, { status, headers }));

const call = (fetch: FetchLike) =>
  notionList(
    { apiUrl: "https://api.notion.com", token: "ntn_x", fetch, clock: new ManualClock() },
    { method: "POST", path: "/v1/search", body: {} },
    "search the Notion workspace (page 2)",
    "share the pages with the integration",
  );

Deno.test("notionList() explains Notion's failures without repeating its messages", async (t) => {
  const cases: [string, FetchLike, RegExp][] = [
    [
      "refused cursor",
      answer(
        400,
        JSON.stringify({
          object: "error",
          status: 400,
          code: "validation_error",
          message: 'body.start_cursor should be a valid uuid, instead was `"zz"`.',
        }),
      ),
      /^Cannot search the Notion workspace \(page 2\): Notion refused the paging cursor \(HTTP 400 validation_error\); run the sync again$/,
    ],
    [
      "plain 503",
      answer(503, "upstream unavailable", {}),
      /^Cannot search the Notion workspace \(page 2\): Notion answered HTTP 503$/,
    ],
    [
      "HTML 504",
      answer(504, "<html><body>Gateway Timeout</body></html>"),
      /HTTP 504; it sent an HTML error page$/,
    ],
    [
      "odd code",
      answer(409, JSON.stringify({ code: "conflict_error; drop table", message: "x" })),
      /HTTP 409$/,
    ],
    [
      "404",
      answer(404, JSON.stringify({ code: "object_not_found", message: "Could not find block" })),
      /HTTP 404 object_not_found: it does not exist or is not shared with the integration; share the pages with the integration$/,
    ],
    ["2xx not JSON", answer(200, "<html>"), /HTTP 200 with a body that is not JSON/],
    [
      "2xx not a list",
      answer(200, JSON.stringify({ object: "page" })),
      /the answer is not a Notion list/,
    ],
  ];
  for (const [name, fetch, pattern] of cases) {
    await t.step(name, async () => {
      const e = await call(fetch).then(() => undefined, (e) => e);
      assert.ok(e instanceof WorkspaceError, name);
      assert.match(e.message, pattern);
      assert.doesNotMatch(
        e.message,
        /instead was|Could not find|upstream unavailable|Gateway Timeout|drop table/,
      );
    });
  }
});

Deno.test("WorkspaceConnector.pull() skips databases and partial pages in search results", async () => {
  const page = (id: string, extra = {}) => ({
    object: "page",
    id,
    created_time: "2024-05-01T00:00:00.000Z",
    last_edited_time: "2024-05-01T00:00:00.000Z",
    properties: { Name: { id: "title", type: "title", title: [{ plain_text: `Page ${id}` }] } },
    url: `https://www.notion.so/${id}`,
    ...extra,
  });
  const results = [
    page("0f8fad5bd9cb469fa16570867728950e"),
    {
      object: "database",
      id: "1f8fad5bd9cb469fa16570867728950e",
      last_edited_time: "2024-05-01T00:00:00.000Z",
    },
    { object: "page", id: "2f8fad5bd9cb469fa16570867728950e" },
    page("3f8fad5bd9cb469fa16570867728950e", { archived: true }),
  ];
  const fetch = answer(
    200,
    JSON.stringify({ object: "list", results, next_cursor: null, has_more: false }),
  );
  const records = await new WorkspaceConnector({ token: "ntn_x", fetch, includeContent: false })
    .pull({});
  assert.deepEqual(records.map((r) => [r.source, r.title, r.url]), [[
    "notion:page/0f8fad5b-d9cb-469f-a165-70867728950e",
    "Page 0f8fad5bd9cb469fa16570867728950e",
    "https://www.notion.so/0f8fad5bd9cb469fa16570867728950e",
  ]]);
});
