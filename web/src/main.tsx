/** @jsxImportSource npm:preact@11.2.0 */
/**
 * memo's web page: browse, search, edit and sync the project's memory. The
 * page is an MCP client of the endpoint that served it (see `mcp.ts`); it
 * reads its configuration from `<meta name="memo-config">`.
 *
 * @module
 */

// deno-lint-ignore no-import-prefix -- bundled by scripts/build_web.ts
import { render } from "npm:preact@11.2.0";
// deno-lint-ignore no-import-prefix -- bundled by scripts/build_web.ts
import { useCallback, useEffect, useMemo, useRef, useState } from "npm:preact@11.2.0/hooks";
import { AuthRequiredError, InsufficientScopeError, McpClient, type PageConfig } from "./mcp.ts";
import { completeSignIn } from "./oauth.ts";
import { NotesView } from "./notes.tsx";
import { type Stats, StatusView } from "./status.tsx";
import { ConnectorsView } from "./connectors.tsx";
import { TidyView } from "./tidy.tsx";
import { SignIn } from "./sign_in.tsx";
import { type Api, errorText } from "./api.ts";
import { servedScopes } from "./scope.tsx";

const TOKEN_KEY = "memo.token";
/** The scopes of an OAuth token (space-separated), beside it. */
const SCOPES_KEY = "memo.scopes";

function readConfig(): PageConfig {
  const meta = document.querySelector('meta[name="memo-config"]');
  const fallback = { mcpPath: "/mcp", readOnly: false, authRequired: false, version: "" };
  try {
    return { ...fallback, ...JSON.parse(meta?.getAttribute("content") ?? "{}") };
  } catch {
    return fallback;
  }
}

function stored(key: string): string | null {
  try {
    return sessionStorage.getItem(key);
  } catch {
    return null;
  }
}

/** Whether an OAuth token's scopes lack the write scope (the page then disables writes). */
function readOnlyScopes(config: PageConfig, scopes: string | null): boolean {
  if (!config.oauth || scopes === null) return false;
  return !scopes.split(" ").includes(config.oauth.scopes[1]);
}

type Tab = "notes" | "tidy" | "status" | "connectors";

const TAB_NAMES: Record<Tab, string> = {
  notes: "Notes",
  tidy: "Tidy",
  status: "Status",
  connectors: "Connectors",
};

function App({ config }: { config: PageConfig }) {
  const [token, setToken] = useState<string | null>(() => stored(TOKEN_KEY));
  const tokenRef = useRef(token);
  tokenRef.current = token;
  const client = useMemo(() => new McpClient(config.mcpPath, () => tokenRef.current), [config]);
  const [tokenReadOnly, setTokenReadOnly] = useState(() =>
    readOnlyScopes(config, stored(SCOPES_KEY))
  );
  // The page may be the OAuth callback: finish the sign-in before anything else.
  const [callback] = useState(() => completeSignIn(config.oauth));
  const [finishing, setFinishing] = useState(true);
  const [problem, setProblem] = useState<string | null>(null);
  const [signIn, setSignIn] = useState<{ refused: boolean } | null>(
    config.authRequired && token === null ? { refused: false } : null,
  );
  const [live, setLive] = useState(false);
  // Subscribe, then read: the views load once the listen stream answered (or failed).
  const [started, setStarted] = useState(false);
  const [changes, setChanges] = useState(0);
  const [stats, setStats] = useState<Stats | null>(null);
  const [tab, setTab] = useState<Tab>("notes");
  const [alert, setAlert] = useState<string | null>(null);

  const forgetToken = () => {
    try {
      sessionStorage.removeItem(TOKEN_KEY);
      sessionStorage.removeItem(SCOPES_KEY);
    } catch { /* nothing stored */ }
    tokenRef.current = null;
    setToken(null);
    setTokenReadOnly(false);
  };
  const onError = useCallback((e: unknown) => {
    if (e instanceof AuthRequiredError) {
      if (e.refused) forgetToken(); // a token the server no longer takes is not kept
      setSignIn({ refused: e.refused });
      return;
    }
    if (e instanceof InsufficientScopeError) setTokenReadOnly(true);
    setAlert(errorText(e));
  }, []);
  const readOnly = config.readOnly || tokenReadOnly;
  const maxPageSize = config.maxPageSize ?? 100;
  const api: Api = useMemo(() => ({ client, readOnly, onError, changes, maxPageSize }), [
    client,
    readOnly,
    onError,
    changes,
    maxPageSize,
  ]);
  const ready = signIn === null && !finishing;
  const scopes = useMemo(() => servedScopes(stats), [stats?.scopes, stats?.defaultScope]);

  useEffect(() => {
    callback.then((session) => {
      if (session !== undefined) {
        try {
          sessionStorage.setItem(TOKEN_KEY, session.token);
          sessionStorage.setItem(SCOPES_KEY, session.scopes.join(" "));
        } catch { /* storage off: keep it in memory only */ }
        tokenRef.current = session.token;
        setToken(session.token);
        setTokenReadOnly(readOnlyScopes(config, session.scopes.join(" ")));
        setSignIn(null);
      }
    }, (e) => setProblem(e instanceof Error ? e.message : String(e)))
      .finally(() => setFinishing(false));
  }, [callback]);

  // Live updates: one listen stream while signed in; a change bumps `changes`.
  useEffect(() => {
    if (!ready) return;
    const stop = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const onChange = () => {
      clearTimeout(timer);
      timer = setTimeout(() => setChanges((n) => n + 1), 100);
    };
    const onState = (open: boolean) => {
      setLive(open);
      setStarted(true);
    };
    client.listen(onChange, onState, onError, stop.signal);
    return () => {
      clearTimeout(timer);
      stop.abort();
      setLive(false);
    };
  }, [client, ready, token]);

  useEffect(() => {
    if (!ready || !started) return;
    client.tool<Stats>("memory_stats", {}).then(setStats, onError);
  }, [client, ready, started, token, changes]);

  const submitToken = (value: string) => {
    try {
      sessionStorage.setItem(TOKEN_KEY, value);
    } catch { /* storage off: keep it in memory only */ }
    tokenRef.current = value;
    setToken(value);
    setAlert(null);
    // Check it at once, so a refused token is told before anything else.
    client.tool<Stats>("memory_stats", {}).then((s) => {
      setStats(s);
      setSignIn(null);
    }, (e) => {
      if (e instanceof AuthRequiredError) {
        forgetToken();
        setSignIn({ refused: true });
      } else onError(e);
    });
  };
  const signOut = () => {
    forgetToken();
    setStats(null);
    setSignIn({ refused: false });
  };

  return (
    <>
      <header class="top">
        <h1>memo</h1>
        <div class="badges">
          {stats?.runtime && <span class="badge" title="Runtime">{stats.runtime}</span>}
          {readOnly && (
            <span
              class="badge warn"
              title={config.readOnly
                ? "The server is read-only"
                : "Your access token may only read"}
            >
              read-only
            </span>
          )}
          <span
            role="status"
            aria-label="Live updates"
            class={live ? "live on" : "live"}
            title={live ? "Changes appear as they happen" : "Not receiving changes"}
          >
            {live ? "live" : "offline"}
          </span>
        </div>
        {ready && (
          <nav class="tabs" aria-label="Views">
            {(Object.keys(TAB_NAMES) as Tab[]).map((t) => (
              <button
                type="button"
                aria-pressed={tab === t}
                onClick={() => setTab(t)}
                key={t}
              >
                {TAB_NAMES[t]}
              </button>
            ))}
          </nav>
        )}
        {token !== null && ready && (
          <button type="button" class="quiet" onClick={signOut}>Sign out</button>
        )}
      </header>
      <main>
        {alert !== null && (
          <div role="alert" class="alert">
            <span>{alert}</span>
            <button type="button" class="quiet" onClick={() => setAlert(null)}>Dismiss</button>
          </div>
        )}
        {finishing ? <p class="muted">Signing in…</p> : signIn !== null
          ? (
            <SignIn
              refused={signIn.refused}
              onSubmit={submitToken}
              oauth={config.oauth}
              problem={problem}
            />
          )
          : !started
          ? <p class="muted">Connecting…</p>
          : tab === "notes"
          ? (
            <NotesView
              api={api}
              labels={Object.keys(stats?.labels ?? {}).sort()}
              scopes={scopes}
            />
          )
          : tab === "tidy"
          ? <TidyView api={api} />
          : tab === "status"
          ? <StatusView stats={stats} />
          : <ConnectorsView api={api} />}
      </main>
      <footer class="foot">memo {config.version}</footer>
    </>
  );
}

render(<App config={readConfig()} />, document.getElementById("app")!);
