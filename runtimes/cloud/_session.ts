/**
 * Internal: a {@linkcode MemoCloudClient}'s connection to the Cloud API: its settled settings, the
 * requests outside any project (`health`, `whoami`), and the requests under its workspace and
 * project, made after the one `whoami` check that learns (or checks) the key's workspace.
 *
 * @module
 */

import { MemoCloudError } from "./errors.ts";
import { type CloudRequest, sendCloudRequest, type TransportSettings } from "./transport.ts";
import { objectOf, unexpected } from "./_answers.ts";
import { clientSettingsOf, ID_PATTERN } from "./_settings.ts";
import type {
  MemoCloudCallOptions,
  MemoCloudClientOptions,
  MemoCloudWriteOptions,
} from "./client_options.ts";
import type { MemoCloudHealth } from "./client_types.ts";

/** What {@linkcode CloudSession.project} sends; `write` asks for an `Idempotency-Key`. */
export type ProjectRequest = Omit<CloudRequest, "auth" | "signal" | "idempotencyKey"> & {
  write?: boolean;
};

/**
 * The connection of one client: built from the client's options (checked; nothing is sent before
 * the first call).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { CloudSession } from "./_session.ts";
 * const paths: string[] = [];
 * const session = new CloudSession({
 *   baseUrl: "http://127.0.0.1:8788",
 *   apiKey: "mk_example",
 *   fetch: (input) => {
 *     paths.push(new URL(String(input)).pathname);
 *     if (String(input).endsWith("/whoami")) return Promise.resolve(Response.json({ workspaceId: "team" }));
 *     return Promise.resolve(Response.json({ notes: 0, revision: 0 }));
 *   },
 * });
 * assert.equal(session.workspaceId, undefined); // not learned yet
 * await session.project({ method: "GET", path: "/stats", action: "read the stats" });
 * assert.equal(session.workspaceId, "team");
 * assert.deepEqual(paths, ["/v1/whoami", "/v1/workspaces/team/projects/default/stats"]);
 * ```
 */
export class CloudSession {
  /** The API base: the origin (and any path prefix) followed by `/v1`. */
  readonly baseUrl: string;
  /** The project the notes belong to. */
  readonly projectId: string;
  readonly #configuredWorkspace: string | undefined;
  #workspace: string | undefined;
  #checking: Promise<string> | undefined;
  readonly #settings: TransportSettings;

  /** Checks the settings; sends nothing. */
  constructor(options: MemoCloudClientOptions) {
    const settings = clientSettingsOf(options);
    this.baseUrl = settings.apiBase;
    this.projectId = settings.projectId;
    this.#configuredWorkspace = settings.configuredWorkspace;
    this.#settings = settings.transport;
  }

  /**
   * The workspace: the configured one, else the key's once the first call learned it (undefined
   * before).
   */
  get workspaceId(): string | undefined {
    return this.#workspace ?? this.#configuredWorkspace;
  }

  /** `GET /v1/health` (public: no key, no workspace check). */
  async health(options: MemoCloudCallOptions = {}): Promise<MemoCloudHealth> {
    const action = "check the Memo Cloud API's health";
    const answer = await this.send({
      method: "GET",
      path: "/health",
      auth: false,
      action,
      signal: options.signal,
    });
    return objectOf(answer, action) as unknown as MemoCloudHealth;
  }

  /** `GET /v1/whoami`: the workspace of the API key. */
  async whoami(options: MemoCloudCallOptions = {}): Promise<{ workspaceId: string }> {
    const action = "ask the Memo Cloud API whose key this is";
    const body = objectOf(
      await this.send({
        method: "GET",
        path: "/whoami",
        auth: true,
        action,
        signal: options.signal,
      }),
      action,
    );
    if (typeof body.workspaceId !== "string") throw unexpected(action);
    return { workspaceId: body.workspaceId };
  }

  /**
   * A request under this client's workspace and project, after the workspace check, with the call's
   * `signal` (and, for a `write`, its `idempotencyKey` or a new one); the answer must be an object.
   */
  async project(
    request: ProjectRequest,
    options: MemoCloudWriteOptions = {},
  ): Promise<Record<string, unknown>> {
    const { write, ...rest } = request;
    options.signal?.throwIfAborted();
    const workspace = await this.#resolveWorkspace(options.signal);
    const answer = await this.send({
      ...rest,
      auth: true,
      path: `/workspaces/${workspace}/projects/${this.projectId}${request.path}`,
      idempotencyKey: write ? options.idempotencyKey ?? crypto.randomUUID() : undefined,
      signal: options.signal,
    });
    return objectOf(answer, request.action);
  }

  /** A request as it is (`path` under the API base). */
  async send(request: CloudRequest): Promise<unknown> {
    return (await sendCloudRequest(this.#settings, request)).body;
  }

  /**
   * The workspace, checked once with `GET /v1/whoami`. One check serves concurrent calls; a failed
   * one is not kept, so the next call checks again.
   */
  #resolveWorkspace(signal: AbortSignal | undefined): Promise<string> {
    if (this.#workspace !== undefined) return Promise.resolve(this.#workspace);
    if (!this.#checking) {
      const checking = this.whoami().then(({ workspaceId }) => {
        const configured = this.#configuredWorkspace;
        if (configured !== undefined && configured !== workspaceId) {
          throw new MemoCloudError(
            "config",
            `Cannot use the Memo Cloud API: the API key belongs to workspace ` +
              `${JSON.stringify(workspaceId.slice(0, 64))}, not ${JSON.stringify(configured)} ` +
              "(fix MEMO_CLOUD_WORKSPACE_ID or cloud.workspaceId, or leave it unset)",
            { details: { workspaceId: configured, keyWorkspaceId: workspaceId.slice(0, 64) } },
          );
        }
        if (!ID_PATTERN.test(workspaceId)) {
          throw unexpected("ask the Memo Cloud API whose key this is");
        }
        this.#workspace = workspaceId;
        return workspaceId;
      });
      this.#checking = checking;
      checking.then(
        () => (this.#checking = undefined),
        () => (this.#checking = undefined),
      );
    }
    return raceSignal(this.#checking, signal);
  }
}

/** Waits for `promise`, or rejects with `signal`'s reason as soon as it aborts. */
function raceSignal<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}
