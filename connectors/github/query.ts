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
 * import { DISCUSSIONS_QUERY } from "@memo/connectors";
 * const body = JSON.stringify({
 *   query: DISCUSSIONS_QUERY,
 *   variables: { owner: "octo-org", name: "hello-world", first: 50, after: null },
 * });
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

/** A discussion as the query returns it. */
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

/** `data.repository` as the query returns it. */
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

/** One entry of a GraphQL `errors` array. */
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
