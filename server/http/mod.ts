/**
 * The hosted endpoint's internals: the stateless Streamable HTTP handler, its auth, CORS,
 * body and options, the web page's handler and the endpoint around a protocol server. The
 * public handlers are in `http.ts`.
 *
 * @module
 */

export {
  type AuthOutcome,
  authRefusalResponse,
  createAuthenticator,
  equalBytes,
  type HttpAuthenticator,
  type MemoMcpHttpAuthOptions,
} from "./auth.ts";
export { type BodyOutcome, readBodyLimited } from "./body.ts";
export {
  ALLOW_HEADERS,
  ALLOW_METHODS,
  corsHeaders,
  EXPOSE_HEADERS,
  type HeaderList,
  preflightHeaders,
  VARY_ORIGIN,
} from "./cors.ts";
export {
  createHttpEndpoint,
  type HttpEndpoint,
  type HttpEndpointOptions,
  type RuntimeSource,
} from "./endpoint.ts";
export {
  asError,
  type ComposeEndpoint,
  createDefaultServer,
  createHostHandlers,
  exitIfUnworkable,
  type HostHandlers,
  type MemoMcpFetchHandler,
  type MemoMcpFrameworkHandler,
  type MemoMcpRequestHandler,
  runEndpoint,
} from "./host_handlers.ts";
export {
  createHttpHandler,
  type HttpHandlerConfig,
  originRefusal,
  pathOf,
  type ProtocolServerSource,
} from "./handler.ts";
export type { MemoMcpHttpEnv, MemoMcpHttpOptions } from "./options.ts";
export {
  type MemoMcpOAuthIntrospection,
  type MemoMcpOAuthOptions,
  type MemoMcpOAuthScopes,
  OAUTH_ENV_VARIABLES,
  type ProjectOAuthConfig,
  readProjectOAuthConfig,
} from "./oauth/mod.ts";
export { DEFAULT_ALLOWED_ORIGINS, isLoopbackHost } from "./origin.ts";
export {
  type AsyncPageHandler,
  createPageHandler,
  type OAuthPageHandlerConfig,
  PAGE_CSP,
  pageCsp,
  type PageHandler,
  type PageHandlerConfig,
} from "./page.ts";
export { httpErrorResponse } from "./responses.ts";
export {
  defaultLogLevel,
  LOG_LEVELS,
  type LogLevel,
  type RequestLogOptions,
  withRequestLog,
} from "./with_request_log.ts";
