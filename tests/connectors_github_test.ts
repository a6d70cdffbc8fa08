import assert from "node:assert/strict";
import {
  ConnectorNetworkError,
  ConnectorTimeoutError,
  RepoHostAuthError,
  RepoHostConnector,
  RepoHostError,
  RepoHostRateLimitError,
  runConnectors,
} from "../connectors/mod.ts";
import { discussion, GITHUB_RESET_EPOCH, startFakeGithub } from "./connectors_fake_github.ts";
import { type Fault, ManualClock } from "./connectors_helpers.ts";

const TOKEN = "ghp_FAKEgithubTOKEN0000000000000000000001";

function fixture(clock?: ManualClock) {
  return startFakeGithub([
    {
      nameWithOwner: "octo-org/hello-world",
      discussions: [
        discussion(1, "2024-05-01T10:00:00Z"),
        discussion(2, "2024-05-03T10:00:00Z", { author: null }),
        discussion(3, "2024-05-02T10:00:00Z", {
          answer: {
            url: "https://github.com/octo-org/hello-world/discussions/3#discussioncomment-1",
            author: null,
          },
        }),
        discussion(4, "2024-04-01T10:00:00Z"),
        discussion(5, "2024-04-02T10:00:00Z", { category: { name: "Show and tell" } }),
      ],
    },
    { nameWithOwner: "octo-org/quiet", disabled: "flag", discussions: [] },
    { nameWithOwner: "octo-org/legacy", disabled: "field-warning", discussions: [] },
  ], { token: TOKEN, onHang: () => clock?.advance(30_000) });
}

Deno.test("RepoHostConnector.pull() reads every page of every repository, newest first", async () => {
  const gh = fixture();
  try {
    const connector = new RepoHostConnector({
      token: TOKEN,
      apiUrl: `${gh.url}/graphql`,
      repositories: [
        "octo-org/hello-world",
        "octo-org/quiet",
        "https://github.com/octo-org/legacy",
      ],
      pageSize: 2,
    });
    const pages: number[] = [];
    const records = await connector.pull({ onProgress: (p) => pages.push(p.pages) });
    assert.deepEqual(records.map((r) => r.source), [
      "github:octo-org/hello-world/discussions/2",
      "github:octo-org/hello-world/discussions/3",
      "github:octo-org/hello-world/discussions/1",
      "github:octo-org/hello-world/discussions/5",
      "github:octo-org/hello-world/discussions/4",
    ]);
    assert.deepEqual(pages, [1, 2, 3, 4, 5]);
    assert.equal(gh.requests.length, 5);
    assert.equal(gh.requests[0].authorization, `Bearer ${TOKEN}`);
    assert.deepEqual(gh.requests[0].variables, {
      owner: "octo-org",
      name: "hello-world",
      first: 2,
      after: null,
    });
    assert.equal(typeof gh.requests[1].variables.after, "string");
    const two = records[0];
    assert.deepEqual(two.metadata.labels, ["Ideas"]);
    assert.equal(two.metadata.author, "ghost");
    assert.match(two.text, /Author: @ghost/);
    assert.deepEqual(records[1].metadata.labels, ["Q&A"]);
    assert.match(
      records[1].text,
      /Answered by @ghost: https:\/\/github.com\/octo-org\/hello-world\/discussions\/3#discussioncomment-1/,
    );
    assert.deepEqual(records[3].metadata.labels, ["Show and tell"]);
    for (const r of records) assert.equal(r.metadata.labels.length, 1);
  } finally {
    await gh.close();
  }
});

Deno.test("RepoHostConnector.pull() stops paging at discussions older than since", async () => {
  const gh = fixture();
  try {
    const connector = new RepoHostConnector({
      token: TOKEN,
      apiUrl: gh.url,
      repositories: ["octo-org/hello-world"],
      pageSize: 2,
    });
    const records = await connector.pull({ since: "2024-05-02T11:00:00Z" });
    assert.deepEqual(records.map((r) => r.metadata.number), [2, 3], "an hour of lookback");
    assert.equal(
      gh.requests.length,
      2,
      "the second page holds an older discussion: no third request",
    );
    assert.equal(
      gh.requests[0].path,
      "/api/graphql",
      "a bare base URL is GitHub Enterprise's /api/graphql",
    );
  } finally {
    await gh.close();
  }
});

Deno.test("RepoHostConnector.pull() maps each failure to its error, never echoing the token or body", async (t) => {
  const clock = new ManualClock();
  const gh = fixture(clock);
  const expected: Record<Exclude<Fault, never>, (e: unknown) => void> = {
    "401": (e) => {
      assert.ok(e instanceof RepoHostAuthError);
      assert.equal(e.status, 401);
      assert.match(e.message, /token is missing or invalid/);
    },
    "403": (e) => {
      assert.ok(e instanceof RepoHostRateLimitError);
      assert.equal(e.status, 403);
      assert.equal(e.resetEpoch, GITHUB_RESET_EPOCH);
      assert.equal(e.retryAfterSeconds, 60);
    },
    "429": (e) => {
      assert.ok(e instanceof RepoHostRateLimitError);
      assert.equal(e.status, 429);
      assert.equal(e.resetEpoch, GITHUB_RESET_EPOCH);
    },
    "rate-limited": (e) => {
      assert.ok(e instanceof RepoHostRateLimitError);
      assert.equal(e.status, 200);
      assert.equal(e.resetEpoch, GITHUB_RESET_EPOCH);
      assert.deepEqual(e.errorTypes, ["RATE_LIMITED"]);
    },
    "500": (e) => {
      assert.ok(e instanceof RepoHostError && !(e instanceof RepoHostRateLimitError));
      assert.equal(e.status, 500);
    },
    "html-502": (e) => {
      assert.ok(e instanceof RepoHostError);
      assert.equal(e.status, 502);
      assert.match(e.message, /HTML error page/);
      assert.doesNotMatch(e.message, /Unicorn|<html|server is currently/i);
    },
    "timeout": (e) => {
      assert.ok(e instanceof ConnectorTimeoutError);
      assert.equal(e.timeoutMs, 30_000);
    },
    "reset": (e) => assert.ok(e instanceof ConnectorNetworkError),
    "cursor-repeat": (e) => {
      assert.ok(e instanceof RepoHostError);
      assert.match(e.message, /repeated a paging cursor/);
    },
    "cursor-null": (e) => {
      assert.ok(e instanceof RepoHostError);
      assert.match(e.message, /gave no cursor/);
    },
    // Not "discussions turned off": the first page had some.
    "field-error": (e) => {
      assert.ok(e instanceof RepoHostError);
      assert.match(e.message, /SERVICE_UNAVAILABLE: Something went wrong/);
    },
  };
  try {
    for (const [fault, check] of Object.entries(expected)) {
      await t.step(`${fault} at page 2`, async () => {
        gh.reset();
        gh.setFault(fault as Fault, 2);
        const connector = new RepoHostConnector({
          token: TOKEN,
          apiUrl: `${gh.url}/graphql`,
          repositories: ["octo-org/hello-world"],
          pageSize: 2,
        });
        const error = await connector.pull({ clock }).then(() => undefined, (e) => e);
        assert.ok(error, "the pass must fail");
        check(error);
        assert.doesNotMatch(String((error as Error).message), new RegExp(TOKEN));
        assert.doesNotMatch(JSON.stringify(error), new RegExp(TOKEN));
      });
    }
    assert.equal(clock.pending, 0, "every timer is cleared");
  } finally {
    await gh.close();
  }
});

Deno.test("RepoHostConnector.pull() reads a 403's or 429's Retry-After as seconds or as an HTTP date", async (t) => {
  // 89.8 s before the date below: rounded up to 90.
  const clock = new ManualClock(Date.parse("2026-10-21T07:26:30.200Z"));
  const gh = fixture(clock);
  const cases: [string, number | undefined][] = [
    ["Wed, 21 Oct 2026 07:28:00 GMT", 90],
    ["Tue, 20 Oct 2026 07:28:00 GMT", 0], // a day past
    ["45", 45],
    ["in a while", undefined],
  ];
  try {
    for (const fault of ["403", "429"] as const) {
      for (const [retryAfter, expected] of cases) {
        await t.step(`${fault} with retry-after: ${retryAfter}`, async () => {
          gh.reset();
          gh.setFault(fault, 2, { retryAfter });
          const connector = new RepoHostConnector({
            token: TOKEN,
            apiUrl: `${gh.url}/graphql`,
            repositories: ["octo-org/hello-world"],
            pageSize: 2,
          });
          const e = await connector.pull({ clock }).then(() => undefined, (e) => e);
          assert.ok(e instanceof RepoHostRateLimitError);
          assert.equal(e.status, Number(fault));
          assert.equal(e.retryAfterSeconds, expected);
          assert.equal(e.resetEpoch, GITHUB_RESET_EPOCH);

          gh.reset();
          gh.setFault(fault, 2, { retryAfter });
          const result = await runConnectors([connector], {
            rememberMany: () => Promise.reject(new Error("a failed pass commits nothing")),
          }, { clock });
          assert.equal(result.errors[0]?.error.name, "RepoHostRateLimitError");
          assert.equal(result.errors[0].error.retryAfterSeconds, expected);
          if (expected === undefined) {
            assert.ok(!("retryAfterSeconds" in result.errors[0].error), "unreadable: left out");
          }
        });
      }
    }
  } finally {
    await gh.close();
  }
});

Deno.test("RepoHostConnector.pull() joins fatal GraphQL errors and treats disabled discussions as empty", async () => {
  const gh = fixture();
  try {
    const missing = new RepoHostConnector({
      token: TOKEN,
      apiUrl: `${gh.url}/graphql`,
      repositories: ["octo-org/missing"],
    });
    const e = await missing.pull({}).then(() => undefined, (e) => e);
    assert.ok(e instanceof RepoHostError);
    assert.match(
      e.message,
      /NOT_FOUND: Could not resolve to a Repository with the name 'octo-org\/missing'/,
    );
    assert.deepEqual(e.errorTypes, ["NOT_FOUND"]);
    const quiet = new RepoHostConnector({
      token: TOKEN,
      apiUrl: `${gh.url}/graphql`,
      repositories: ["octo-org/quiet", "octo-org/legacy"],
    });
    assert.deepEqual(await quiet.pull({}), []);
  } finally {
    await gh.close();
  }
});

Deno.test("RepoHostConnector.pull() without a token fails before any request", async () => {
  const gh = fixture();
  try {
    const connector = new RepoHostConnector({
      apiUrl: gh.url,
      repositories: ["octo-org/hello-world"],
    });
    await assert.rejects(
      connector.pull({}),
      (e) => e instanceof RepoHostAuthError && /missing or invalid/.test(e.message),
    );
    assert.equal(gh.requests.length, 0);
    const wrong = new RepoHostConnector({
      token: "ghp_wrong",
      apiUrl: gh.url,
      repositories: ["octo-org/hello-world"],
    });
    await assert.rejects(wrong.pull({}), RepoHostAuthError);
  } finally {
    await gh.close();
  }
});
