/**
 * Internal: turns one HTTP answer of GitHub's GraphQL endpoint into a page
 * of discussions, or into the right error.
 *
 * @module
 */

import type { HttpAnswer } from "../kit/http.ts";
import { RepoHostAuthError, RepoHostError, RepoHostRateLimitError } from "../errors.ts";
import { clip, redactSecrets } from "../kit/text.ts";
import { parseRetryAfter } from "../retry_after.ts";
import type { DiscussionNode, GraphqlErrorEntry, RepositoryData } from "./query.ts";

/** One page of a repository's discussions. */
export interface DiscussionsPage {
  /** Canonical `owner/name`, when GitHub said. */
  nameWithOwner?: string;
  /** True when the repository has discussions turned off: no nodes, no more pages. */
  disabled: boolean;
  nodes: DiscussionNode[];
  hasNextPage: boolean;
  endCursor: string | null;
}

const RATE_LIMIT_TYPES = new Set(["RATE_LIMITED", "RATE_LIMIT"]);

/**
 * Reads one answer. `where` names the repository for messages; `secrets`
 * are scrubbed from any upstream text that goes into a message; `now`
 * (epoch milliseconds) reads a `Retry-After` given as a date. Only the
 * `firstPage` may say that discussions are turned off (an error on the
 * `discussions` field itself, GitHub's field warning); on a later page that
 * error, like any error within the list (a discussion that could not be
 * read), fails the page.
 */
export function readDiscussionsAnswer(
  answer: HttpAnswer,
  where: string,
  host: string,
  secrets: readonly string[],
  now: number = Date.now(),
  firstPage = true,
): DiscussionsPage {
  const action = `Cannot read GitHub discussions of ${where}`;
  const { status } = answer;
  if (status === 401) {
    throw new RepoHostAuthError(
      `${action}: the token is missing or invalid (HTTP 401); set MEMO_GITHUB_TOKEN or GITHUB_TOKEN`,
    );
  }
  if (status === 403 || status === 429) throw rateLimitError(answer, action, status, now);
  if (status < 200 || status > 299) {
    const html = /^\s*</.test(answer.text)
      ? "; it sent an HTML error page, not a GraphQL answer"
      : "";
    throw new RepoHostError(
      `${action}: ${host} answered HTTP ${status}${
        answer.statusText ? ` ${clip(answer.statusText, 60)}` : ""
      }${html}`,
      { status },
    );
  }
  let body: { data?: { repository?: RepositoryData | null } | null; errors?: unknown };
  try {
    body = JSON.parse(answer.text);
  } catch {
    throw new RepoHostError(
      `${action}: ${host} answered HTTP ${status} with a body that is not JSON`,
      {
        status,
      },
    );
  }
  if (body === null || typeof body !== "object") {
    throw new RepoHostError(`${action}: the answer is not a GraphQL result`, { status });
  }
  const errors: GraphqlErrorEntry[] = Array.isArray(body.errors)
    ? body.errors.filter((e): e is GraphqlErrorEntry => e !== null && typeof e === "object")
    : [];
  const typeOf = (e: GraphqlErrorEntry) =>
    String(e.type ?? e.extensions?.type ?? e.extensions?.code ?? "ERROR").toUpperCase();
  if (errors.some((e) => RATE_LIMIT_TYPES.has(typeOf(e)))) {
    throw rateLimitError(answer, action, status, now, errors.map(typeOf));
  }
  // The field warning of discussions turned off: GitHub's FORBIDDEN on the field itself, and only
  // on the first page (a repository that answered a page has them on), unless the repository says
  // they are on: then the token may not read them (a fine-grained token or an app without
  // Discussions read), which is an error, not an empty repository.
  const turnedOff = (e: GraphqlErrorEntry) =>
    firstPage && body.data?.repository?.hasDiscussionsEnabled !== true &&
    typeOf(e) === "FORBIDDEN" && Array.isArray(e.path) && e.path.length === 2 &&
    e.path[0] === "repository" && e.path[1] === "discussions";
  const fatal = errors.filter((e) => !turnedOff(e));
  if (fatal.length) {
    const joined = fatal
      .map((e) =>
        `${typeOf(e)}: ${clip(redactSecrets(String(e.message ?? "no message"), secrets), 300)}`
      )
      .join("; ");
    throw new RepoHostError(`${action}: ${joined}`, { status, errorTypes: fatal.map(typeOf) });
  }
  const repository = body.data?.repository;
  if (repository === null || repository === undefined || typeof repository !== "object") {
    throw new RepoHostError(`${action}: NOT_FOUND: GitHub returned no repository`, {
      status,
      errorTypes: ["NOT_FOUND"],
    });
  }
  const nameWithOwner = typeof repository.nameWithOwner === "string"
    ? repository.nameWithOwner
    : undefined;
  const disabledPage = {
    nameWithOwner,
    disabled: true,
    nodes: [],
    hasNextPage: false,
    endCursor: null,
  };
  // Discussions turned off: GitHub says so, or answers the field with an error (a field warning).
  if (repository.hasDiscussionsEnabled === false) return disabledPage;
  if (errors.length && !repository.discussions) return disabledPage;
  const discussions = repository.discussions;
  if (!discussions || typeof discussions !== "object" || !Array.isArray(discussions.nodes)) {
    throw new RepoHostError(`${action}: the answer holds no discussions list`, { status });
  }
  const pageInfo = discussions.pageInfo;
  if (!pageInfo || typeof pageInfo.hasNextPage !== "boolean") {
    throw new RepoHostError(`${action}: the answer holds no pageInfo`, { status });
  }
  return {
    nameWithOwner,
    disabled: false,
    nodes: discussions.nodes.filter((n): n is DiscussionNode =>
      n !== null && typeof n === "object"
    ),
    hasNextPage: pageInfo.hasNextPage,
    endCursor: typeof pageInfo.endCursor === "string" ? pageInfo.endCursor : null,
  };
}

function rateLimitError(
  answer: HttpAnswer,
  action: string,
  status: number,
  now: number,
  errorTypes?: string[],
): RepoHostRateLimitError {
  const reset = intHeader(answer.headers, "x-ratelimit-reset");
  const retryAfter = parseRetryAfter(answer.headers.get("retry-after"), now);
  const remaining = answer.headers.get("x-ratelimit-remaining");
  const what = status === 200
    ? "GitHub's rate limit is exhausted (RATE_LIMITED)"
    : status === 403 && remaining !== "0" && retryAfter === undefined
    ? "GitHub refused the request (HTTP 403): a secondary rate limit, or the token may not read it"
    : `rate limited (HTTP ${status})`;
  const when = reset !== undefined
    ? `; the limit resets at ${new Date(reset * 1000).toISOString()}`
    : retryAfter !== undefined
    ? `; retry after ${retryAfter} s`
    : "";
  return new RepoHostRateLimitError(`${action}: ${what}${when}`, {
    status,
    resetEpoch: reset,
    retryAfterSeconds: retryAfter,
    errorTypes,
  });
}

function intHeader(headers: Headers, name: string): number | undefined {
  const raw = headers.get(name);
  if (raw === null || !/^\s*\d{1,12}\s*$/.test(raw)) return undefined;
  return Number(raw.trim());
}
