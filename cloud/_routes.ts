/**
 * Internal: the route table of the Cloud API v1 and its matcher. Paths are written as in the
 * OpenAPI document (`{workspaceId}` …); a test checks that the two agree.
 *
 * @module
 */

/** What a route does (its OpenAPI `operationId`). */
export type CloudOperation =
  | "getHealth"
  | "getOpenApi"
  | "whoami"
  | "createNote"
  | "listNotes"
  | "getNote"
  | "updateNote"
  | "deleteNote"
  | "upsertNotes"
  | "correctNote"
  | "supersedeNotes"
  | "tidyNotes"
  | "applyTidy"
  | "deleteNotes"
  | "recall"
  | "listChanges"
  | "getStats"
  | "getInstanceStats";

/** One route. */
export interface CloudRoute {
  /** HTTP method. */
  readonly method: "GET" | "POST" | "PATCH" | "DELETE";
  /** Path template, as in the OpenAPI document. */
  readonly path: string;
  /** What it does. */
  readonly operation: CloudOperation;
  /** Public (no key, no rate limit). */
  readonly public?: boolean;
  /** For operators: an operator key (`MEMO_CLOUD_OPERATOR_KEYS`), no rate limit. */
  readonly operator?: boolean;
  /** A write: it needs an `Idempotency-Key`. */
  readonly write?: boolean;
  /** It reads a JSON body. */
  readonly body?: boolean;
}

const PROJECT = "/v1/workspaces/{workspaceId}/projects/{projectId}";

/** A project write that takes a JSON body: `POST ${PROJECT}${path}`. */
function postWrite(path: string, operation: CloudOperation): CloudRoute {
  return { method: "POST", path: `${PROJECT}${path}`, operation, write: true, body: true };
}

/** Every route of the Cloud API v1. */
export const CLOUD_ROUTES: readonly CloudRoute[] = [
  { method: "GET", path: "/v1/health", operation: "getHealth", public: true },
  { method: "GET", path: "/v1/openapi.json", operation: "getOpenApi", public: true },
  { method: "GET", path: "/v1/whoami", operation: "whoami" },
  { method: "GET", path: "/v1/stats", operation: "getInstanceStats", operator: true },
  postWrite("/notes", "createNote"),
  { method: "GET", path: `${PROJECT}/notes`, operation: "listNotes" },
  { method: "GET", path: `${PROJECT}/notes/{noteId}`, operation: "getNote" },
  {
    method: "PATCH",
    path: `${PROJECT}/notes/{noteId}`,
    operation: "updateNote",
    write: true,
    body: true,
  },
  { method: "DELETE", path: `${PROJECT}/notes/{noteId}`, operation: "deleteNote", write: true },
  postWrite("/notes:batch", "upsertNotes"),
  postWrite("/notes:correct", "correctNote"),
  postWrite("/notes:supersede", "supersedeNotes"),
  { method: "GET", path: `${PROJECT}/tidy`, operation: "tidyNotes" },
  postWrite("/tidy:apply", "applyTidy"),
  postWrite("/notes:batchDelete", "deleteNotes"),
  { method: "POST", path: `${PROJECT}/recall`, operation: "recall", body: true },
  { method: "GET", path: `${PROJECT}/changes`, operation: "listChanges" },
  { method: "GET", path: `${PROJECT}/stats`, operation: "getStats" },
];

/** A matched route and its path parameters (raw, not decoded). */
export interface RouteMatch {
  route: CloudRoute;
  params: Record<string, string>;
}

const COMPILED = CLOUD_ROUTES.map((route) => ({ route, segments: route.path.split("/") }));

/** The route of `method` and `pathname`, or `undefined` (404). */
export function matchRoute(method: string, pathname: string): RouteMatch | undefined {
  const segments = pathname.split("/");
  for (const { route, segments: template } of COMPILED) {
    if (route.method !== method || template.length !== segments.length) continue;
    const params: Record<string, string> = {};
    let ok = true;
    for (let i = 0; i < template.length && ok; i++) {
      const t = template[i];
      if (t.startsWith("{") && t.endsWith("}")) {
        ok = segments[i] !== "";
        params[t.slice(1, -1)] = segments[i];
      } else {
        ok = t === segments[i];
      }
    }
    if (ok) return { route, params };
  }
  return undefined;
}
