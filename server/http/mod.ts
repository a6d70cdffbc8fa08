/**
 * The hosted endpoint's internals: the stateless Streamable HTTP handler
 * (origin check, CORS, bearer authentication, header validation, then
 * JSON-RPC dispatch, in that order), its options and `MEMO_MCP_*` variables,
 * the web page's handler (`page.ts`), and the endpoint that puts them
 * together around a protocol server, and the handlers a host mounts over it
 * (`host_handlers.ts`). The public handlers are in `http.ts`, which composes
 * these with a runtime.
 *
 * @module
 */

export {
  createHttpEndpoint,
  type HttpEndpoint,
  type HttpEndpointOptions,
  type RuntimeSource,
} from "./endpoint.ts";
export { type HttpEnvConfig, type MemoMcpHttpEnv, readHttpEnv } from "./env.ts";
export {
  asError,
  type ComposeEndpoint,
  createHostHandlers,
  type HostHandlers,
  type MemoMcpFetchHandler,
  type MemoMcpFrameworkHandler,
  type MemoMcpRequestHandler,
  runEndpoint,
} from "./host_handlers.ts";
export type { MemoMcpHttpAuthOptions, MemoMcpHttpOptions } from "./options.ts";
export {
  type MemoMcpOAuthIntrospection,
  type MemoMcpOAuthOptions,
  type MemoMcpOAuthScopes,
  OAUTH_ENV_VARIABLES,
  type ProjectOAuthConfig,
  readOAuthEnv,
  readProjectOAuthConfig,
} from "./oauth/mod.ts";
export { DEFAULT_ALLOWED_ORIGINS, isLoopbackHost } from "./origin.ts";
export { httpErrorResponse } from "./responses.ts";
export {
  defaultLogLevel,
  LOG_LEVELS,
  type LogLevel,
  readLogLevel,
  type RequestLogOptions,
  withRequestLog,
} from "./with_request_log.ts";
