/**
 * A fake GitHub GraphQL endpoint for the connector tests. It answers the
 * connector's discussions query the way api.github.com does (bodies and
 * headers modelled on GitHub's documentation and the fixtures under
 * `tests/fixtures/github/`), pages with opaque cursors, and injects a fault
 * at a chosen request.
 *
 * @module
 */

import type { DiscussionNode } from "../connectors/mod.ts";
import {
  type Fault,
  type FaultOptions,
  fixtureText,
  hang,
  resetAnswer,
  serve,
  type TestServer,
} from "./connectors_helpers.ts";

/** One repository of the fake. */
export interface FakeRepo {
  nameWithOwner: string;
  /** How discussions are off: GitHub's flag, or an error entry on the field. */
  disabled?: "flag" | "field-warning";
  discussions: DiscussionNode[];
}

/** A request the fake received. */
export interface SeenRequest {
  path: string;
  authorization: string | null;
  variables: Record<string, unknown>;
  query: string;
}

/** The running fake. */
export interface FakeGithub extends TestServer {
  /** Every request, in order. */
  requests: SeenRequest[];
  /**
   * Injects `fault` at request number `at` (1-based, counted from the last
   * `reset`). `retryAfter` replaces the `retry-after` header of a rate-limit
   * fault (seconds or an HTTP date).
   */
  setFault(fault: Fault | undefined, at?: number, options?: FaultOptions): void;
  /** Clears the request log and the fault. */
  reset(): void;
  /** Replaces a repository's discussions (an upstream change). */
  repos: Map<string, FakeRepo>;
}

/** The reset time every answer reports (`x-ratelimit-reset`). */
export const GITHUB_RESET_EPOCH = 1717203600;

/** A discussion node, with defaults. */
export function discussion(
  number: number,
  updatedAt: string,
  overrides: Partial<DiscussionNode> = {},
): DiscussionNode {
  return {
    number,
    title: `Discussion ${number}`,
    body: `Body of discussion ${number}.\n\nIt has **markdown**.`,
    url: `https://github.com/octo-org/hello-world/discussions/${number}`,
    createdAt: "2024-01-01T00:00:00Z",
    updatedAt,
    author: { login: "monalisa" },
    category: { name: number % 2 ? "Q&A" : "Ideas" },
    answer: null,
    comments: { totalCount: number % 5 },
    ...overrides,
  };
}

/**
 * Starts the fake. `token` is the only token it accepts; `onHang` runs when
 * a `timeout` fault holds a request (tests advance their clock there).
 */
export function startFakeGithub(
  repos: FakeRepo[],
  options: { token: string; onHang?: () => void },
): FakeGithub {
  const state = {
    requests: [] as SeenRequest[],
    fault: undefined as Fault | undefined,
    at: 0,
    retryAfter: undefined as string | undefined,
    repeatNext: undefined as string | undefined,
  };
  const byName = new Map(repos.map((r) => [r.nameWithOwner.toLowerCase(), r]));
  const headers = (extra: Record<string, string> = {}) => ({
    "content-type": "application/json; charset=utf-8",
    "x-ratelimit-limit": "5000",
    "x-ratelimit-remaining": "4990",
    "x-ratelimit-reset": String(GITHUB_RESET_EPOCH),
    "x-ratelimit-used": "10",
    "x-ratelimit-resource": "graphql",
    "x-github-request-id": "0000:1111:2222333:4444555:66667777",
    ...extra,
  });
  const json = async (file: string, status: number, extra: Record<string, string> = {}) =>
    new Response(await fixtureText(`github/${file}`), { status, headers: headers(extra) });

  const server = serve(async (request) => {
    const url = new URL(request.url);
    if (request.method !== "POST" || !/^\/(api\/)?graphql$/.test(url.pathname)) {
      return new Response('{"message":"Not Found"}', { status: 404, headers: headers() });
    }
    let body: { query?: string; variables?: Record<string, unknown> } = {};
    try {
      body = await request.json();
    } catch {
      return new Response('{"message":"Problems parsing JSON"}', {
        status: 400,
        headers: headers(),
      });
    }
    state.requests.push({
      path: url.pathname,
      authorization: request.headers.get("authorization"),
      variables: body.variables ?? {},
      query: body.query ?? "",
    });
    const n = state.requests.length;
    if (request.headers.get("authorization") !== `Bearer ${options.token}`) {
      return await json("bad_credentials.json", 401);
    }
    const fault = n === state.at ? state.fault : undefined;
    switch (fault) {
      case "401":
        return await json("bad_credentials.json", 401);
      case "403":
        return await json("secondary_rate_limit.json", 403, {
          "retry-after": state.retryAfter ?? "60",
        });
      case "429":
        return await json("secondary_rate_limit.json", 429, {
          "x-ratelimit-remaining": "0",
          ...(state.retryAfter === undefined ? {} : { "retry-after": state.retryAfter }),
        });
      case "rate-limited":
        return await json("rate_limited.json", 200, { "x-ratelimit-remaining": "0" });
      case "500":
        return await json("server_error.json", 500);
      case "html-502":
        return new Response(await fixtureText("github/bad_gateway.html"), {
          status: 502,
          headers: { "content-type": "text/html; charset=utf-8" },
        });
      case "timeout":
        return await hang(request, options.onHang);
      case "reset":
        return resetAnswer();
      case "field-error":
        // The repository is there, its discussions field failed (GitHub's partial answer).
        return new Response(
          JSON.stringify({
            data: { repository: { hasDiscussionsEnabled: true, discussions: null } },
            errors: [{
              type: "SERVICE_UNAVAILABLE",
              path: ["repository", "discussions"],
              message: "Something went wrong while executing your query.",
            }],
          }),
          { status: 200, headers: headers() },
        );
    }
    const v = body.variables ?? {};
    const repo = byName.get(`${v.owner}/${v.name}`.toLowerCase());
    if (!repo) {
      const text = (await fixtureText("github/not_found.json")).replace(
        "octo-org/missing",
        `${v.owner}/${v.name}`,
      );
      return new Response(text, { status: 200, headers: headers() });
    }
    if (repo.disabled === "flag") return await json("discussions_disabled.json", 200);
    if (repo.disabled === "field-warning") return await json("discussions_field_warning.json", 200);
    const sorted = [...repo.discussions].sort((a, b) => b.updatedAt.localeCompare(a.updatedAt));
    const after = typeof v.after === "string" ? v.after : undefined;
    let start = 0;
    if (after !== undefined) {
      const decoded = /^cursor:v2:(\d+)$/.exec(atob(after));
      if (!decoded) {
        return new Response(
          JSON.stringify({
            errors: [{
              type: "INVALID_CURSOR_ARGUMENTS",
              path: ["repository", "discussions"],
              message: "`" + after + "` does not appear to be a valid cursor.",
            }],
          }),
          { status: 200, headers: headers() },
        );
      }
      start = Number(decoded[1]);
    }
    const first = Math.min(Math.max(Number(v.first) || 1, 1), 100);
    const nodes = sorted.slice(start, start + first);
    const end = start + nodes.length;
    let hasNextPage = end < sorted.length;
    let endCursor: string | null = nodes.length ? btoa(`cursor:v2:${end}`) : null;
    if (state.repeatNext !== undefined && after === state.repeatNext) {
      hasNextPage = true;
      endCursor = after;
      state.repeatNext = undefined;
    } else if (fault === "cursor-repeat") {
      hasNextPage = true;
      if (after !== undefined) endCursor = after;
      else {
        endCursor = btoa(`cursor:v2:${end}`);
        state.repeatNext = endCursor;
      }
    } else if (fault === "cursor-null") {
      hasNextPage = true;
      endCursor = null;
    }
    return new Response(
      JSON.stringify({
        data: {
          repository: {
            nameWithOwner: repo.nameWithOwner,
            hasDiscussionsEnabled: true,
            discussions: { pageInfo: { hasNextPage, endCursor }, nodes },
          },
        },
      }),
      { status: 200, headers: headers() },
    );
  });

  return {
    ...server,
    requests: state.requests,
    repos: byName,
    setFault(fault, at = 1, faultOptions = {}) {
      state.fault = fault;
      state.at = at;
      state.retryAfter = faultOptions.retryAfter;
    },
    reset() {
      state.requests.length = 0;
      state.fault = undefined;
      state.at = 0;
      state.retryAfter = undefined;
      state.repeatNext = undefined;
    },
  };
}
