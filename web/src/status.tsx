/** @jsxImportSource npm:preact@11.2.0 */
/**
 * The Status view: what `memory_stats` says about memory, the recall
 * engines, the embeddings, the secrets guard (its policy and the secrets stored notes hold),
 * the notes per scope (when the server serves more than the project), the clients' hooks (on or
 * off, last run), the damaged sections of `notes.md`, what git left to fix (an unresolved merge in
 * `notes.md`, a
 * clone without memo's merge driver) and, in the hybrid runtime, replication.
 *
 * @module
 */

// deno-lint-ignore no-import-prefix -- bundled by scripts/build_web.ts
import { Fragment } from "npm:preact@11.2.0";
import type { ReplicaStatus } from "@memo/memory";
import { when } from "./api.ts";
import { type Scope, SCOPE_PURPOSE, SCOPES } from "./scope.tsx";

/** `memory_stats`' structured result. */
export interface Stats {
  runtime?: "local" | "hybrid" | "cloud";
  notes: number;
  /** Notes per scope served (absent: the server serves the project alone). */
  scopes?: Partial<Record<Scope, number>>;
  /** Where a note goes without a scope, when the server serves scopes. */
  defaultScope?: Scope;
  labels: Record<string, number>;
  sources: Record<string, number>;
  lastUpdated?: string;
  engine: { default: string; auto: string; reason?: string };
  embeddings?: {
    model: string;
    ready: boolean;
    embedded: number;
    total: number;
    state: string;
    error?: string;
    reason?: string;
  };
  issues?: { kind: string; message: string; line?: number }[];
  replica?: ReplicaStatus;
  secrets?: { policy: string; findings?: number };
  /** The clients' hooks (`memo hook`): on or off, and when each event last ran. */
  hooks?: Record<string, { on: boolean; file?: string; lastRun?: Record<string, string> }>;
  /** `notes.md` holds git's conflict markers: reads merge in memory, writes are refused. */
  unresolvedMerge?: {
    path: string;
    hunks: number;
    base: "file" | "given" | "none";
    conflicts: number;
    twins: number;
  };
  /** In a git work tree whose clone lacks memo's merge driver: the fix. */
  git?: { driver: "missing"; fix: string };
}

const NOTES_TAIL = "/.memo/memory/notes.md";

/** `memo resolve`, with the project's root when the path names it. */
function resolveCommand(path: string): string {
  const root = path.endsWith(NOTES_TAIL) ? path.slice(0, -NOTES_TAIL.length) : "";
  return root ? `memo resolve --dir ${root}` : "memo resolve";
}

/** What git left to fix: an unresolved merge, a missing driver; nothing when all is well. */
function GitCard({ stats }: { stats: Stats }) {
  const m = stats.unresolvedMerge;
  const g = stats.git?.driver === "missing" ? stats.git : undefined;
  if (!m && !g) return null;
  return (
    <section class="card" aria-label="Git">
      <h3>Git</h3>
      {m && (
        <p class="error-text">
          notes.md has an unresolved git merge ({m.hunks} conflict hunk{m.hunks === 1 ? "" : "s"}
          {m.conflicts ? `, ${m.conflicts} conflict cop${m.conflicts === 1 ? "y" : "ies"}` : ""}):
          {" "}
          the notes shown are merged in memory, and writes are refused. Run{" "}
          <code>{resolveCommand(m.path)}</code>, then <code>git add .memo/memory/notes.md</code>.
        </p>
      )}
      {g && (
        <p class="error-text">
          This clone has no merge driver for notes.md: git would merge notes as text and leave
          conflicts. Run <code>{g.fix}</code>.
        </p>
      )}
    </section>
  );
}

/** One client's hooks: on or off, and the last run of each event. */
function hookText(h: NonNullable<Stats["hooks"]>[string]): string {
  const runs = Object.entries(h.lastRun ?? {}).map(([event, at]) => `${event} ${when(at)}`);
  return `${h.on ? "on" : "off"}${runs.length ? `; last run: ${runs.join(", ")}` : "; never ran"}`;
}

/** The secrets guard's line: its policy, and what stored notes hold (never a value). */
function secretsText(s: NonNullable<Stats["secrets"]>): string {
  const policy = s.policy === "allow"
    ? "off (allow)"
    : s.policy === "refuse"
    ? "refuses writes that hold secrets"
    : "redacts secrets before writing";
  if (s.findings === undefined) return policy;
  const found = s.findings === 0
    ? "no secrets in stored notes"
    : `${s.findings} secret${s.findings === 1 ? "" : "s"} in stored notes (run memo scan --redact)`;
  return `${policy}; ${found}`;
}

function Counts({ title, counts }: { title: string; counts: Record<string, number> }) {
  const entries = Object.entries(counts).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  return (
    <section class="card" aria-label={title}>
      <h3>{title}</h3>
      {entries.length === 0 ? <p class="muted">None.</p> : (
        <ul class="counts">
          {entries.map(([name, n]) => (
            <li key={name}>
              <span>{name}</span> <span class="num">{n}</span>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

/** The notes per scope, broadest first, with what each holds; nothing for the project alone. */
function ScopesCard({ stats }: { stats: Stats }) {
  const served = SCOPES.filter((s) => stats.scopes?.[s] !== undefined);
  if (served.length < 2) return null;
  return (
    <section class="card" aria-label="Scopes">
      <h3>Scopes</h3>
      <ul class="counts scopes">
        {served.map((s) => (
          <li key={s}>
            <span>
              {s}{" "}
              <span class="muted">
                ({SCOPE_PURPOSE[s]}
                {s === stats.defaultScope ? "; new notes go here" : ""})
              </span>
            </span>{" "}
            <span class="num">{stats.scopes![s]}</span>
          </li>
        ))}
      </ul>
    </section>
  );
}

/** The Status view. */
export function StatusView({ stats }: { stats: Stats | null }) {
  if (stats === null) {
    return (
      <section aria-label="Status" class="view">
        <p class="muted">Loading…</p>
      </section>
    );
  }
  const e = stats.embeddings;
  const r = stats.replica;
  const issues = stats.issues ?? [];
  return (
    <section aria-label="Status" class="view status">
      <h2>Status</h2>
      <GitCard stats={stats} />
      <section class="card" aria-label="Memory">
        <h3>Memory</h3>
        <dl>
          <dt>Notes</dt>
          <dd>{stats.notes}</dd>
          <dt>Runtime</dt>
          <dd>{stats.runtime ?? "unknown"}</dd>
          <dt>Last change</dt>
          <dd>{when(stats.lastUpdated)}</dd>
          <dt>Recall engine</dt>
          <dd>
            {stats.engine.default}
            {stats.engine.default === "auto" && ` (now ${stats.engine.auto})`}
            {stats.engine.reason && <span class="muted">: {stats.engine.reason}</span>}
          </dd>
          <dt>Embeddings</dt>
          <dd>
            {e ? `${e.model}, ${e.state}: ${e.embedded} of ${e.total} notes embedded` : "not used"}
            {e?.error && <span class="muted">: {e.error}</span>}
            {e?.reason && !e.error && <span class="muted">: {e.reason}</span>}
          </dd>
          {stats.hooks && Object.entries(stats.hooks).map(([client, h]) => (
            <Fragment key={client}>
              <dt>Hooks: {client}</dt>
              <dd>{hookText(h)}</dd>
            </Fragment>
          ))}
          {stats.secrets && (
            <>
              <dt>Secrets</dt>
              <dd class={stats.secrets.findings ? "error-text" : undefined}>
                {secretsText(stats.secrets)}
              </dd>
            </>
          )}
        </dl>
      </section>
      <ScopesCard stats={stats} />
      {r && (
        <section class="card" aria-label="Replication">
          <h3>Replication</h3>
          <dl>
            <dt>Outbox</dt>
            <dd>{r.outbox} change{r.outbox === 1 ? "" : "s"} not yet pushed</dd>
            <dt>Last push</dt>
            <dd>{when(r.lastPush)}</dd>
            <dt>Last pull</dt>
            <dd>{when(r.lastPull)}</dd>
            <dt>Lag</dt>
            <dd>{r.lagMs === null ? "no pull yet" : `${Math.round(r.lagMs / 1000)} s`}</dd>
            <dt>Conflicts</dt>
            <dd>{r.conflicts}</dd>
            {r.error && (
              <>
                <dt>Error</dt>
                <dd class="error-text">{r.error}</dd>
              </>
            )}
          </dl>
        </section>
      )}
      <section class="card" aria-label="Damaged sections">
        <h3>Damaged sections</h3>
        {issues.length === 0
          ? <p class="muted">None: notes.md reads cleanly.</p>
          : (
            <ul class="issues">
              {issues.map((issue, i) => (
                <li key={i}>
                  {issue.line !== undefined && <span class="line">line {issue.line}</span>}{" "}
                  <span class="kind">{issue.kind}</span>: {issue.message}
                </li>
              ))}
            </ul>
          )}
      </section>
      <div class="two">
        <Counts title="Labels" counts={stats.labels} />
        <Counts title="Sources" counts={stats.sources} />
      </div>
    </section>
  );
}
