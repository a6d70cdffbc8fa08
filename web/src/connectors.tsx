/** @jsxImportSource npm:preact@11.2.0 */
/**
 * The Connectors view: runs `sync_connectors` with a progress token and
 * shows its progress as it arrives, then each connector's counts and errors.
 *
 * @module
 */

// deno-lint-ignore no-import-prefix -- bundled by scripts/build_web.ts
import { useState } from "npm:preact@11.2.0/hooks";
import type { Api } from "./api.ts";

interface SyncResult {
  connectors: {
    id: string;
    type: string;
    fetched: number;
    written: number;
    updated: number;
    unchanged: number;
  }[];
  written: number;
  updated: number;
  unchanged: number;
  errors: { connector: string; type: string; error: { name: string; message: string } }[];
}

/** The Connectors view. */
export function ConnectorsView({ api }: { api: Api }) {
  const [running, setRunning] = useState(false);
  const [progress, setProgress] = useState<string[]>([]);
  const [result, setResult] = useState<SyncResult | null>(null);
  const [failure, setFailure] = useState<string | null>(null);

  const sync = async () => {
    setRunning(true);
    setProgress([]);
    setResult(null);
    setFailure(null);
    try {
      const r = await api.client.callTool<SyncResult>(
        "sync_connectors",
        {},
        (message) => setProgress((p) => [...p, message]),
      );
      if (r.structured) setResult(r.structured);
      if (r.isError && !r.structured?.errors?.length) setFailure(r.text);
    } catch (e) {
      api.onError(e);
    } finally {
      setRunning(false);
    }
  };

  return (
    <section aria-label="Connectors" class="view">
      <h2>Connectors</h2>
      <p>
        Pull the connectors configured in <code>.memo/config.json</code>{" "}
        (GitHub Discussions, Notion pages) into memory. Items already stored are not written twice.
      </p>
      <button type="button" onClick={sync} disabled={api.readOnly || running}>
        {running ? "Syncing…" : "Sync"}
      </button>
      {api.readOnly && <p class="muted">The server is read-only: syncing is off.</p>}
      <ol aria-label="Sync progress" class="progress" aria-live="polite">
        {progress.map((line, i) => <li key={i}>{line}</li>)}
      </ol>
      {failure && <p role="alert" class="alert">{failure}</p>}
      {result && (
        <section class="card" aria-label="Sync result">
          <h3>Result</h3>
          <p>
            {result.written} written, {result.updated} updated, {result.unchanged} unchanged
          </p>
          {result.connectors.length === 0
            ? <p class="muted">No connector is configured.</p>
            : (
              <table>
                <caption class="sr-only">Each connector's counts</caption>
                <thead>
                  <tr>
                    <th scope="col">Connector</th>
                    <th scope="col">Fetched</th>
                    <th scope="col">Written</th>
                    <th scope="col">Updated</th>
                    <th scope="col">Unchanged</th>
                  </tr>
                </thead>
                <tbody>
                  {result.connectors.map((c) => (
                    <tr key={c.id}>
                      <th scope="row">{c.id} ({c.type})</th>
                      <td>{c.fetched}</td>
                      <td>{c.written}</td>
                      <td>{c.updated}</td>
                      <td>{c.unchanged}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
          {result.errors.length > 0 && (
            <>
              <h3>Errors</h3>
              <ul class="errors">
                {result.errors.map((e, i) => (
                  <li key={i} class="error-text">
                    {e.connector} ({e.type}): {e.error.message}
                  </li>
                ))}
              </ul>
            </>
          )}
        </section>
      )}
    </section>
  );
}
