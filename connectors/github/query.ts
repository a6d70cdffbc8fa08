/**
 * The GraphQL query of the repository-host connector and the shapes of its
 * answer. The query is checked against GitHub's public schema in the tests.
 *
 * @module
 */

/**
 * One page of a repository's discussions, newest change first.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { DISCUSSIONS_QUERY } from "@memo/connectors";
 * const body = JSON.stringify({
 *   query: DISCUSSIONS_QUERY,
 *   variables: { owner: "octo-org", name: "hello-world", first: 50, after: null },
 * });
 * assert.match(DISCUSSIONS_QUERY, /^query MemoDiscussions\(\$owner: String!, \$name: String!/);
 * assert.equal(JSON.parse(body).variables.first, 50);
 * ```
 */
export const DISCUSSIONS_QUERY: string =
  `query MemoDiscussions($owner: String!, $name: String!, $first: Int!, $after: String) {
  repository(owner: $owner, name: $name) {
    nameWithOwner
    hasDiscussionsEnabled
    discussions(first: $first, after: $after, orderBy: {field: UPDATED_AT, direction: DESC}) {
      pageInfo {
        hasNextPage
        endCursor
      }
      nodes {
        number
        title
        body
        url
        createdAt
        updatedAt
        author {
          login
        }
        category {
          name
        }
        answer {
          url
          author {
            login
          }
        }
        comments {
          totalCount
        }
      }
    }
  }
}`;

/**
 * A discussion as the query returns it.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { DiscussionNode } from "@memo/connectors";
 * const node: DiscussionNode = {
 *   number: 42,
 *   title: "How do I deploy?",
 *   body: "Run `make deploy`.",
 *   url: "https://github.com/octo-org/hello-world/discussions/42",
 *   createdAt: "2024-05-01T10:00:00Z",
 *   updatedAt: "2024-05-02T09:30:00Z",
 *   author: null, // a deleted account
 *   category: { name: "Q&A" },
 *   answer: null,
 *   comments: { totalCount: 0 },
 * };
 * assert.equal(node.author?.login ?? "ghost", "ghost");
 * ```
 */
export interface DiscussionNode {
  /** Number of the discussion within its repository. */
  number: number;
  /** Title. */
  title: string;
  /** Markdown body. */
  body: string;
  /** Address on GitHub. */
  url: string;
  /** ISO 8601 creation time. */
  createdAt: string;
  /** ISO 8601 time of the last change (the order of the listing). */
  updatedAt: string;
  /** Author; null for a deleted account ("ghost"). */
  author: { login: string } | null;
  /** Category; its name is the record's only label. */
  category: { name: string } | null;
  /** The comment chosen as the answer, if any. */
  answer: { url: string; author: { login: string } | null } | null;
  /** Number of comments. */
  comments: { totalCount: number } | null;
}

/**
 * `data.repository` as the query returns it.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { RepositoryData } from "@memo/connectors";
 * // A repository with discussions turned off.
 * const repository: RepositoryData = {
 *   nameWithOwner: "octo-org/quiet",
 *   hasDiscussionsEnabled: false,
 *   discussions: null,
 * };
 * assert.equal(repository.discussions, null);
 * ```
 */
export interface RepositoryData {
  /** Canonical `owner/name`. */
  nameWithOwner?: string;
  /** False when the repository has discussions turned off. */
  hasDiscussionsEnabled?: boolean;
  /** One page of discussions; null when the field failed (discussions off). */
  discussions?: {
    pageInfo: { hasNextPage: boolean; endCursor: string | null };
    nodes: (DiscussionNode | null)[];
  } | null;
}

/**
 * One entry of a GraphQL `errors` array.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { GraphqlErrorEntry } from "@memo/connectors";
 * const error: GraphqlErrorEntry = {
 *   type: "NOT_FOUND",
 *   path: ["repository"],
 *   message: "Could not resolve to a Repository with the name 'octo-org/missing'.",
 * };
 * assert.equal(error.type ?? error.extensions?.type, "NOT_FOUND");
 * ```
 */
export interface GraphqlErrorEntry {
  /** GitHub's error type: `NOT_FOUND`, `FORBIDDEN`, `RATE_LIMITED` … */
  type?: string;
  /** Human-readable message. */
  message?: string;
  /** Path of the field that failed, e.g. `["repository", "discussions"]`. */
  path?: (string | number)[];
  /** Extensions some servers use instead of `type`. */
  extensions?: { type?: string; code?: string };
}
