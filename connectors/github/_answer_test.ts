import assert from "node:assert/strict";
import type { HttpAnswer } from "../kit/http.ts";
import { RepoHostError, RepoHostRateLimitError } from "../errors.ts";
import { readDiscussionsAnswer } from "./_answer.ts";

const answer = (
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): HttpAnswer => ({
  status,
  statusText: "",
  headers: new Headers(headers),
  text: typeof body === "string" ? body : JSON.stringify(body),
});
const read = (a: HttpAnswer) =>
  readDiscussionsAnswer(a, "o/r", "api.github.com", ["ghp_secret123"]);

Deno.test("readDiscussionsAnswer() recognises GitHub's rate-limit answers", () => {
  for (const type of ["RATE_LIMITED", "RATE_LIMIT"]) {
    assert.throws(
      () =>
        read(
          answer(200, { errors: [{ type, message: "API rate limit exceeded" }] }, {
            "x-ratelimit-reset": "1717203600",
            "x-ratelimit-remaining": "0",
          }),
        ),
      (e) =>
        e instanceof RepoHostRateLimitError && e.resetEpoch === 1717203600 &&
        /resets at 2024-06-01T01:00:00.000Z/.test(e.message),
    );
  }
  assert.throws(
    () => read(answer(200, { errors: [{ extensions: { code: "RATE_LIMITED" }, message: "x" }] })),
    (e) => e instanceof RepoHostRateLimitError && e.resetEpoch === undefined,
  );
  assert.throws(
    () => read(answer(403, "", { "x-ratelimit-remaining": "0", "x-ratelimit-reset": "oops" })),
    (e) =>
      e instanceof RepoHostRateLimitError && e.resetEpoch === undefined &&
      /rate limited \(HTTP 403\)/.test(e.message),
  );
});

Deno.test("readDiscussionsAnswer() joins fatal errors, scrubbing secrets and keeping them short", () => {
  assert.throws(
    () =>
      read(answer(200, {
        errors: [
          {
            type: "FORBIDDEN",
            path: ["repository"],
            message: "token ghp_secret123 may not read o/r",
          },
          { type: "INSUFFICIENT_SCOPES", message: "x".repeat(1000) },
          { path: ["repository", "discussions"], type: "FORBIDDEN", message: "ignored: disabled" },
        ],
      })),
    (e) =>
      e instanceof RepoHostError &&
      e.message.startsWith(
        "Cannot read GitHub discussions of o/r: FORBIDDEN: token [redacted] may not read o/r; INSUFFICIENT_SCOPES: xxx",
      ) &&
      e.message.length < 500 && !e.message.includes("ignored") &&
      JSON.stringify(e.errorTypes) === '["FORBIDDEN","INSUFFICIENT_SCOPES"]',
  );
});

Deno.test("readDiscussionsAnswer() treats bodies that are not GraphQL results as failures", () => {
  assert.throws(() => read(answer(200, "<html>")), /not JSON/);
  assert.throws(() => read(answer(200, "null")), /not a GraphQL result/);
  assert.throws(() => read(answer(200, { data: { repository: null } })), /NOT_FOUND/);
  assert.throws(
    () => read(answer(200, { data: { repository: { hasDiscussionsEnabled: true } } })),
    /no discussions list/,
  );
  assert.throws(() => read(answer(302, "")), /answered HTTP 302/);
  const ok = read(answer(200, {
    data: {
      repository: {
        nameWithOwner: "O/R",
        hasDiscussionsEnabled: true,
        discussions: { pageInfo: { hasNextPage: false, endCursor: null }, nodes: [null] },
      },
    },
  }));
  assert.deepEqual(ok, {
    nameWithOwner: "O/R",
    disabled: false,
    nodes: [],
    hasNextPage: false,
    endCursor: null,
  });
});

Deno.test("readDiscussionsAnswer() reads GitHub's documented answers (tests/fixtures/github)", async () => {
  const fixture = (name: string) =>
    Deno.readTextFile(new URL(`../../tests/fixtures/github/${name}`, import.meta.url));
  const page = read(answer(200, await fixture("discussions_page.json")));
  assert.equal(page.nameWithOwner, "octo-org/hello-world");
  assert.deepEqual(page.nodes.map((n) => n.number), [42, 7]);
  assert.equal(page.nodes[1].author, null);
  const scopes = await fixture("insufficient_scopes.json");
  assert.throws(
    () => read(answer(200, scopes)),
    (e) =>
      e instanceof RepoHostError &&
      e.message.startsWith(
        "Cannot read GitHub discussions of o/r: INSUFFICIENT_SCOPES: Your token has not been granted",
      ) && e.message.includes("; FORBIDDEN: Resource not accessible by personal access token"),
  );
  assert.deepEqual(
    read(answer(200, await fixture("discussions_field_warning.json"))).disabled,
    true,
  );
  assert.deepEqual(read(answer(200, await fixture("discussions_disabled.json"))).disabled, true);
  // Discussions on, and the token may not read them: an error, not an empty repository.
  const denied = {
    data: { repository: { nameWithOwner: "o/r", hasDiscussionsEnabled: true, discussions: null } },
    errors: [{
      type: "FORBIDDEN",
      path: ["repository", "discussions"],
      message: "Resource not accessible by personal access token",
    }],
  };
  assert.throws(
    () => read(answer(200, denied)),
    (e) =>
      e instanceof RepoHostError &&
      e.message.endsWith("FORBIDDEN: Resource not accessible by personal access token"),
  );
});
