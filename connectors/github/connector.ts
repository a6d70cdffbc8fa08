/**
 * The repository-host connector: GitHub Discussions over GraphQL.
 *
 * @module
 */

import { exchange, hostOf, systemClock } from "../kit/http.ts";
import { checkConnectorId } from "../kit/connector_id.ts";
import { CursorTrail, isBefore, timeOf } from "../kit/paging.ts";
import { cleanToken } from "../kit/text.ts";
import { ConnectorConfigError, RepoHostAuthError, RepoHostError } from "../errors.ts";
import { REPO_HOST_MAX_PAGE_SIZE, REPO_HOST_PAGE_SIZE, REQUEST_TIMEOUT_MS } from "../limits.ts";
import type { Connector, ConnectorRecord, FetchLike, PullContext } from "../types.ts";
import { readDiscussionsAnswer } from "./_answer.ts";
import { resolveGraphqlUrl } from "./api_url.ts";
import { DISCUSSIONS_QUERY } from "./query.ts";
import { discussionToRecord } from "./_record.ts";

/**
 * Type identifier of {@linkcode RepoHostConnector}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createConnectorRegistry, REPO_HOST_TYPE } from "@memo/connectors";
 * assert.equal(REPO_HOST_TYPE, "discussions");
 * assert.ok(createConnectorRegistry().has(REPO_HOST_TYPE));
 * ```
 */
export const REPO_HOST_TYPE = "discussions";

/**
 * How far before the stored `since` an incremental pass still reads. The state holds the newest
 * `updatedAt` over all repositories; a discussion of a repository read early in a pass, edited
 * while later repositories were read, can be older than that. Re-reading the last hour catches it
 * (what did not change is not written again).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { SINCE_LOOKBACK_MS } from "@memo/connectors";
 * assert.equal(SINCE_LOOKBACK_MS, 60 * 60 * 1000); // one hour
 * ```
 */
export const SINCE_LOOKBACK_MS = 3_600_000;

/**
 * Options of {@linkcode RepoHostConnector}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { RepoHostConnector, type RepoHostConnectorOptions } from "@memo/connectors";
 * const options: RepoHostConnectorOptions = {
 *   id: "ghe",
 *   repositories: ["platform/runbooks"],
 *   pageSize: 25,
 *   apiUrl: "https://ghe.example.com",
 * };
 * const github = new RepoHostConnector(options);
 * assert.equal(github.apiUrl, "https://ghe.example.com/api/graphql");
 * assert.equal(github.pageSize, 25);
 * ```
 */
export interface RepoHostConnectorOptions {
  /**
   * Connector id.
   * @default "github"
   */
  id?: string;
  /**
   * GitHub token (classic or fine-grained, with read access to discussions). The registry fills it
   * from `MEMO_GITHUB_TOKEN`, else `GITHUB_TOKEN`.
   * @default undefined (a pass fails with `RepoHostAuthError` before any request)
   */
  token?: string;
  /**
   * GraphQL endpoint, or a GitHub Enterprise Server base URL (`https://ghe.example.com` becomes
   * `https://ghe.example.com/api/graphql`).
   * @default "https://api.github.com/graphql"
   */
  apiUrl?: string;
  /**
   * `fetch` to use.
   * @default the pass's `fetch`, else `globalThis.fetch`
   */
  fetch?: FetchLike;
  /** Repositories as `owner/name` (a pasted `https://github.com/owner/name` also works). */
  repositories: readonly string[];
  /**
   * Discussions per request, 1 to 100.
   * @default 50
   */
  pageSize?: number;
}

/**
 * Reads the discussions of one or more GitHub repositories. Each discussion becomes a record keyed
 * `github:owner/name/discussions/<number>`, labelled with exactly its category name.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { RepoHostConnector } from "@memo/connectors";
 *
 * // Answers like GitHub's GraphQL endpoint: one page holding one discussion.
 * const answerLikeGitHub = () =>
 *   Promise.resolve(Response.json({
 *     data: {
 *       repository: {
 *         nameWithOwner: "octo-org/hello-world",
 *         hasDiscussionsEnabled: true,
 *         discussions: {
 *           pageInfo: { hasNextPage: false, endCursor: null },
 *           nodes: [{
 *             number: 42,
 *             title: "How do I deploy?",
 *             body: "Run `make deploy`.",
 *             url: "https://github.com/octo-org/hello-world/discussions/42",
 *             createdAt: "2024-05-01T10:00:00Z",
 *             updatedAt: "2024-05-02T09:30:00Z",
 *             author: { login: "monalisa" },
 *             category: { name: "Q&A" },
 *             answer: null,
 *             comments: { totalCount: 3 },
 *           }],
 *         },
 *       },
 *     },
 *   }));
 * const github = new RepoHostConnector({
 *   repositories: ["octo-org/hello-world"],
 *   token: "ghp_example",
 *   fetch: answerLikeGitHub,
 * });
 * const [record] = await github.pull({});
 * assert.equal(record.source, "github:octo-org/hello-world/discussions/42");
 * assert.deepEqual(record.metadata.labels, ["Q&A"]);
 * assert.equal(
 *   record.text,
 *   "Run `make deploy`.\n\nCategory: Q&A · Author: @monalisa · Comments: 3",
 * );
 * ```
 */
export class RepoHostConnector implements Connector {
  /** Connector id. */
  readonly id: string;
  /** Always `discussions`. */
  readonly type: string = REPO_HOST_TYPE;
  /** The repositories read, for incremental state. */
  readonly scope: string;
  /** The GraphQL endpoint. */
  readonly apiUrl: string;
  /** The repositories, as `owner/name`. */
  readonly repositories: readonly string[];
  /** Discussions per request. */
  readonly pageSize: number;
  #token: string | undefined;
  #fetch: FetchLike | undefined;

  /** Checks the options; throws `ConnectorConfigError` on bad repositories, page size or URL. */
  constructor(options: RepoHostConnectorOptions) {
    this.id = checkConnectorId(options?.id ?? "github");
    this.apiUrl = resolveGraphqlUrl(options.apiUrl);
    this.repositories = checkRepositories(options.repositories);
    this.pageSize = checkPageSize(options.pageSize ?? REPO_HOST_PAGE_SIZE);
    this.#token = cleanToken(options.token);
    this.#fetch = options.fetch;
    this.scope = `${this.apiUrl} ${this.repositories.map((r) => r.toLowerCase()).join(",")}`;
  }

  /** Reads every page of every repository; throws at the first failed page. */
  async pull(context: PullContext = {}): Promise<ConnectorRecord[]> {
    const token = this.#token;
    if (token === undefined) {
      throw new RepoHostAuthError(
        "Cannot read GitHub discussions: the token is missing or invalid (none is set); set MEMO_GITHUB_TOKEN or GITHUB_TOKEN",
        {},
      );
    }
    const fetchFn = this.#fetch ?? context.fetch ?? globalThis.fetch;
    const clock = context.clock ?? systemClock;
    const host = hostOf(this.apiUrl);
    const records: ConnectorRecord[] = [];
    let pages = 0;
    const sinceMs = timeOf(context.since);
    const since = Number.isFinite(sinceMs)
      ? new Date(sinceMs - SINCE_LOOKBACK_MS).toISOString()
      : undefined;
    for (const repository of this.repositories) {
      const [owner, name] = repository.split("/");
      const trail = new CursorTrail((reason) =>
        new RepoHostError(`Cannot read GitHub discussions of ${repository}: ${reason}`)
      );
      let after: string | undefined;
      while (true) {
        const answer = await exchange({
          url: this.apiUrl,
          method: "POST",
          headers: {
            "Authorization": `Bearer ${token}`,
            "Content-Type": "application/json",
            "Accept": "application/json",
            "User-Agent": "memo-connectors",
          },
          body: JSON.stringify({
            query: DISCUSSIONS_QUERY,
            variables: { owner, name, first: this.pageSize, after: after ?? null },
          }),
        }, {
          fetch: fetchFn,
          clock,
          signal: context.signal,
          timeoutMs: REQUEST_TIMEOUT_MS,
          action: `read page ${pages + 1} of GitHub discussions (${repository}) from ${host}`,
        });
        const page = readDiscussionsAnswer(
          answer,
          repository,
          host,
          [token],
          clock.now(),
          after === undefined,
        );
        pages++;
        let reachedOld = false;
        for (const node of page.nodes) {
          if (since !== undefined && isBefore(node.updatedAt, since)) {
            reachedOld = true; // ordered by UPDATED_AT DESC: the rest is older still
            break;
          }
          records.push(discussionToRecord(node, page.nameWithOwner ?? repository));
        }
        context.onProgress?.({
          connector: this.id,
          type: this.type,
          phase: "fetching",
          pages,
          records: records.length,
        });
        if (page.disabled || reachedOld) break;
        after = trail.next(page.hasNextPage, page.endCursor);
        if (after === undefined) break;
      }
    }
    return records;
  }
}

const REPO = /^([A-Za-z0-9](?:[A-Za-z0-9-]{0,38}))\/([A-Za-z0-9._-]{1,100})$/;

function checkRepositories(list: readonly string[] | undefined): string[] {
  if (!Array.isArray(list) || list.length === 0) {
    throw new ConnectorConfigError(
      "Cannot create GitHub connector: repositories must list at least one owner/name",
    );
  }
  const out: string[] = [];
  for (const raw of list) {
    const text = typeof raw === "string" ? raw.trim() : "";
    const pasted = text.match(/^https?:\/\/[^/]+\/([^/]+\/[^/#?]+)/);
    const candidate = (pasted ? pasted[1] : text).replace(/\.git$/, "");
    if (!REPO.test(candidate) || candidate.endsWith("/.") || candidate.endsWith("/..")) {
      throw new ConnectorConfigError(
        `Cannot create GitHub connector: ${
          JSON.stringify(String(raw).slice(0, 100))
        } is not owner/name`,
      );
    }
    if (!out.some((r) => r.toLowerCase() === candidate.toLowerCase())) out.push(candidate);
  }
  return out;
}

function checkPageSize(size: number): number {
  if (!Number.isInteger(size) || size < 1 || size > REPO_HOST_MAX_PAGE_SIZE) {
    throw new ConnectorConfigError(
      `Cannot create GitHub connector: pageSize must be an integer from 1 to ${REPO_HOST_MAX_PAGE_SIZE}`,
    );
  }
  return size;
}
