/** @jsxImportSource npm:preact@11.2.0 */
/**
 * The Notes view: the notes newest first, paged and filtered by label and source; search with any
 * engine, matched terms marked and the score's breakdown on demand; one note open, rendered as
 * markdown, with its history (the notes it supersedes and that supersede it), to edit or forget;
 * and the form that remembers a new one, which then lists the similar notes. Superseded notes are
 * hidden unless "Show history" is on. When the server serves more than one scope, each note shows its
 * scope, the list and the search filter by scope, and a new note chooses its scope (an edit may move
 * the note to another).
 *
 * @module
 */

// deno-lint-ignore no-import-prefix -- bundled by scripts/build_web.ts
import { useEffect, useMemo, useRef, useState } from "npm:preact@11.2.0/hooks";
import { type Api, type Note, type SimilarNote, when } from "./api.ts";
import { withinOutputLimit } from "./mcp.ts";
import { Chain, HistoryMark, SimilarNotes } from "./history.tsx";
import { pieces, renderMarkdown, snippetWindow, type Span } from "./text.ts";
import { type Scope, SCOPE_PURPOSE, ScopeBadge, scopeOf, type ServedScopes } from "./scope.tsx";

const PAGE_SIZE = 50;
/** Hits a search shows. */
const HITS = 20;
const ENGINES = ["auto", "lexical", "vector", "hybrid"] as const;
type Engine = typeof ENGINES[number];

interface Hit {
  note: Note;
  score: number;
  engine: string;
  matched: string[];
  explain?: { term: string; field: string; score: number; indexTerm?: string }[];
  parts?: {
    lexical?: { rank: number; score: number };
    vector?: { rank: number; similarity: number };
    fused?: number;
  };
  highlights?: Span[];
  origin?: "cloud";
}

interface Search {
  query: string;
  engine: Engine;
  hits: Hit[];
  ran: string;
  coverage: { embedded: number; total: number };
}

type Mode = { kind: "view" } | { kind: "edit" } | { kind: "new" };

function initialQuery(): { q: string; engine: Engine } {
  const params = new URLSearchParams(location.search);
  const engine = params.get("engine") as Engine | null;
  return { q: params.get("q") ?? "", engine: engine && ENGINES.includes(engine) ? engine : "auto" };
}

function syncUrl(q: string, engine: Engine): void {
  const params = new URLSearchParams();
  if (q) params.set("q", q);
  if (q && engine !== "auto") params.set("engine", engine);
  const search = params.toString();
  history.replaceState(null, "", search ? `?${search}` : location.pathname);
}

function Marked({ text, spans, field, window }: {
  text: string;
  spans: Span[];
  field: Span["field"];
  window?: [number, number];
}) {
  return (
    <>
      {pieces(text, spans, field, window?.[0], window?.[1]).map((p, i) =>
        p.marked ? <mark key={i}>{p.text}</mark> : p.text
      )}
    </>
  );
}

function Labels({ labels }: { labels: string[] }) {
  if (labels.length === 0) return null;
  return (
    <ul class="labels" aria-label="Labels">
      {labels.map((l) => <li key={l}>{l}</li>)}
    </ul>
  );
}

function Explain({ hit }: { hit: Hit }) {
  const parts = hit.parts ?? {};
  return (
    <div class="explain">
      <p>
        {hit.engine} score {hit.score.toFixed(4)}
        {parts.lexical &&
          ` · lexical rank ${parts.lexical.rank}, BM25 ${parts.lexical.score.toFixed(3)}`}
        {parts.vector &&
          ` · vector rank ${parts.vector.rank}, similarity ${parts.vector.similarity.toFixed(3)}`}
        {parts.fused !== undefined && ` · fused ${parts.fused.toFixed(4)}`}
        {hit.origin === "cloud" && " · from the cloud"}
      </p>
      {hit.explain && hit.explain.length > 0 && (
        <table>
          <caption class="sr-only">Term contributions</caption>
          <thead>
            <tr>
              <th scope="col">Term</th>
              <th scope="col">Field</th>
              <th scope="col">Score</th>
            </tr>
          </thead>
          <tbody>
            {hit.explain.map((c, i) => (
              <tr key={i}>
                <td>
                  {c.indexTerm && c.indexTerm !== c.term ? `${c.term} → ${c.indexTerm}` : c.term}
                </td>
                <td>{c.field}</td>
                <td class="num">{c.score.toFixed(3)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}

function HitItem({ hit, onOpen, open, scopes }: {
  hit: Hit;
  onOpen: () => void;
  open: boolean;
  scopes: ServedScopes;
}) {
  const [explained, setExplained] = useState(false);
  const spans = hit.highlights ?? [];
  const body = hit.note.body;
  return (
    <li class={itemClass(hit.note, open)}>
      <button type="button" class="title" onClick={onOpen}>
        <Marked text={hit.note.title} spans={spans} field="title" />
      </button>
      <HistoryMark note={hit.note} />
      <p class="snippet">
        <Marked text={body} spans={spans} field="body" window={snippetWindow(body, spans)} />
      </p>
      <div class="meta">
        <ScopeBadge note={hit.note} scopes={scopes} />
        <Labels labels={hit.note.labels} />
        {hit.note.source && <span class="source">{hit.note.source}</span>}
        <button
          type="button"
          class="quiet small"
          aria-expanded={explained}
          onClick={() => setExplained(!explained)}
        >
          Explain
        </button>
      </div>
      {explained && <Explain hit={hit} />}
    </li>
  );
}

/** A list item's class: open, and history (superseded). */
function itemClass(note: Note, open: boolean): string {
  return ["item", open ? "open" : "", note.supersededBy?.length ? "old" : ""].filter(Boolean)
    .join(" ");
}

function NoteItem({ note, onOpen, open, scopes }: {
  note: Note;
  onOpen: () => void;
  open: boolean;
  scopes: ServedScopes;
}) {
  return (
    <li class={itemClass(note, open)}>
      <button type="button" class="title" onClick={onOpen}>{note.title}</button>
      <HistoryMark note={note} />
      <div class="meta">
        <ScopeBadge note={note} scopes={scopes} />
        <Labels labels={note.labels} />
        {note.source && <span class="source">{note.source}</span>}
        <time dateTime={note.updated}>{when(note.updated)}</time>
      </div>
    </li>
  );
}

function splitLabels(text: string): string[] {
  return [...new Set(text.split(",").map((l) => l.trim()).filter((l) => l !== ""))];
}

/** What the editor saves. */
interface Draft {
  title: string;
  text: string;
  labels: string[];
  /** The scope chosen; absent when the server serves one scope. */
  scope?: Scope;
  /**
   * The fields the person changed since the editor opened: an edit sends only those, so a field
   * left alone keeps what an agent wrote meanwhile, and labels are split on commas only when
   * typed (a label may hold a comma).
   */
  edited: { title: boolean; text: boolean; labels: boolean };
}

function Editor({ note, readOnly, scopes, onSave, onCancel }: {
  note: Note | null;
  readOnly: boolean;
  scopes: ServedScopes;
  onSave: (draft: Draft) => Promise<void>;
  onCancel: () => void;
}) {
  const [title, setTitle] = useState(note?.title ?? "");
  const [scope, setScope] = useState<Scope>(note ? scopeOf(note) : scopes.defaultScope);
  const choosing = scopes.served.length > 1;
  const [text, setText] = useState(note?.body ?? "");
  const [labels, setLabels] = useState(note?.labels.join(", ") ?? "");
  const [saving, setSaving] = useState(false);
  // The fields as the editor opened them (a newer version of the note does not reset them).
  const opened = useRef({ title, text, labels });
  const name = note ? "Edit note" : "New note";
  return (
    <form
      class="card editor"
      aria-label={name}
      onSubmit={async (e) => {
        e.preventDefault();
        setSaving(true);
        try {
          const was = opened.current;
          await onSave({
            title: title.trim(),
            text,
            labels: splitLabels(labels),
            ...(choosing ? { scope } : {}),
            edited: {
              title: title !== was.title,
              text: text !== was.text,
              labels: labels !== was.labels,
            },
          });
        } finally {
          setSaving(false);
        }
      }}
    >
      <h2>{name}</h2>
      <label>
        Title
        <input
          value={title}
          maxLength={500}
          placeholder={note ? "" : "From the first line when empty"}
          onInput={(e) => setTitle((e.target as HTMLInputElement).value)}
        />
      </label>
      <label>
        Text
        <textarea
          value={text}
          rows={14}
          required
          onInput={(e) => setText((e.target as HTMLTextAreaElement).value)}
        />
      </label>
      <label>
        Labels
        <input
          value={labels}
          placeholder="comma, separated"
          onInput={(e) => setLabels((e.target as HTMLInputElement).value)}
        />
      </label>
      {choosing && (
        <label>
          Scope
          <select
            aria-label="Scope"
            value={scope}
            onChange={(e) => setScope((e.target as HTMLSelectElement).value as Scope)}
          >
            {scopes.served.map((s) => (
              <option value={s} key={s}>{`${s}: ${SCOPE_PURPOSE[s]}`}</option>
            ))}
          </select>
          {note && scope !== scopeOf(note) && (
            <span class="hint">Saving moves the note from {scopeOf(note)} to {scope}.</span>
          )}
        </label>
      )}
      <div class="actions">
        <button type="submit" disabled={readOnly || saving}>{note ? "Save" : "Remember"}</button>
        <button type="button" class="quiet" onClick={onCancel}>Cancel</button>
      </div>
    </form>
  );
}

function ForgetDialog({ open, title, file, onConfirm, onClose }: {
  open: boolean;
  title: string;
  /** The notes file that holds it. */
  file: string;
  onConfirm: () => void;
  onClose: () => void;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) dialog.showModal();
    if (!open && dialog.open) dialog.close();
  }, [open]);
  return (
    <dialog ref={ref} aria-labelledby="forget-title" onClose={onClose}>
      <h2 id="forget-title">Forget this note?</h2>
      <p>
        “{title}” will be deleted from <code>{file}</code> for good.
      </p>
      <div class="actions">
        <button type="button" class="danger" onClick={onConfirm}>Forget</button>
        {/* Focus starts on Cancel: Enter alone never deletes. */}
        <button type="button" class="quiet" onClick={onClose} autofocus>Cancel</button>
      </div>
    </dialog>
  );
}

function Detail({ note, api, scopes, onOpen, onEdit, onForget, onClose }: {
  note: Note;
  api: Api;
  scopes: ServedScopes;
  onOpen: (id: string) => void;
  onEdit: () => void;
  onForget: () => void;
  onClose: () => void;
}) {
  const { readOnly } = api;
  // Rendered once per body, not on every keystroke elsewhere on the page.
  const html = useMemo(() => renderMarkdown(note.body), [note.body]);
  return (
    <article class="card detail" aria-label="Note">
      <h2>{note.title}</h2>
      <div class="meta">
        <ScopeBadge note={note} scopes={scopes} />
        <Labels labels={note.labels} />
        {note.source && <span class="source">{note.source}</span>}
      </div>
      <div
        class="markdown"
        // Safe: markdown-it with html off escapes every tag of the body.
        dangerouslySetInnerHTML={{ __html: html }}
      />
      <Chain note={note} api={api} onOpen={onOpen} />
      <dl class="dates">
        <dt>Created</dt>
        <dd>
          <time dateTime={note.created}>{when(note.created)}</time>
        </dd>
        <dt>Updated</dt>
        <dd>
          <time dateTime={note.updated}>{when(note.updated)}</time>
        </dd>
        <dt>Id</dt>
        <dd>
          <code>{note.id}</code>
        </dd>
      </dl>
      <div class="actions">
        <button type="button" onClick={onEdit} disabled={readOnly}>Edit</button>
        <button type="button" class="danger" onClick={onForget} disabled={readOnly}>Forget</button>
        <button type="button" class="quiet" onClick={onClose}>Close</button>
      </div>
    </article>
  );
}

/** The Notes view, over the scopes the server serves. */
export function NotesView({ api, labels, scopes }: {
  api: Api;
  labels: string[];
  scopes: ServedScopes;
}) {
  const { client, readOnly, onError, changes, maxPageSize } = api;
  const start = useRef(initialQuery()).current;
  const [query, setQuery] = useState(start.q);
  const [engine, setEngine] = useState<Engine>(start.engine);
  const [label, setLabel] = useState("");
  const [source, setSource] = useState("");
  /** The scope filter: "" for every scope served. */
  const [scope, setScope] = useState<Scope | "">("");
  const [search, setSearch] = useState<Search | null>(null);
  const [active, setActive] = useState<{ query: string; engine: Engine } | null>(
    start.q ? { query: start.q, engine: start.engine } : null,
  );
  const [notes, setNotes] = useState<Note[]>([]);
  const [total, setTotal] = useState(0);
  const [cursor, setCursor] = useState<string | undefined>(undefined);
  const [selected, setSelected] = useState<Note | null>(null);
  const [mode, setMode] = useState<Mode>({ kind: "view" });
  const [confirming, setConfirming] = useState(false);
  const [notice, setNotice] = useState<string | null>(null);
  const [history, setHistory] = useState(false);
  const [similar, setSimilar] = useState<{ id: string; notes: SimilarNote[] } | null>(null);

  const filters = () => {
    const f: Record<string, unknown> = {};
    if (label) f.labels = [label];
    if (source.trim()) f.source = source.trim();
    if (history) f.includeSuperseded = true;
    if (scope && scopes.served.includes(scope)) f.scope = scope;
    return f;
  };

  // The page size that fits the server's output limit (long notes make it smaller).
  const pageSize = useRef(Math.min(PAGE_SIZE, maxPageSize));
  const hitsSize = useRef(Math.min(HITS, maxPageSize));
  const loadList = async (after?: string) => {
    const fitted = await withinOutputLimit(
      pageSize.current,
      (limit) =>
        client.tool<{ notes: Note[]; nextCursor?: string; total: number }>("list_notes", {
          order: "newest",
          limit,
          ...filters(),
          ...(after ? { cursor: after } : {}),
        }),
    );
    pageSize.current = fitted.limit;
    const page = fitted.result;
    setNotes((old) => after ? [...old, ...page.notes] : page.notes);
    setTotal(page.total);
    setCursor(page.nextCursor);
  };

  const runSearch = async (q: string, e: Engine) => {
    const fitted = await withinOutputLimit(
      hitsSize.current,
      (limit) =>
        client.tool<
          { hits: Hit[]; engine: string; coverage: { embedded: number; total: number } }
        >("recall", { query: q, engine: e, limit, explain: true, ...filters() }),
    );
    hitsSize.current = fitted.limit;
    const result = fitted.result;
    setSearch({
      query: q,
      engine: e,
      hits: result.hits,
      ran: result.engine,
      coverage: result.coverage,
    });
  };

  /** The search when one is active, else the first page of the list. */
  const reload = () => active ? runSearch(active.query, active.engine) : loadList();

  // The list or the search, again on every change of filter or of memory.
  useEffect(() => {
    reload().catch(onError);
  }, [active, label, source, history, scope, changes]);

  // The open note follows changes, unless it is being edited; an answer that comes after another
  // note was opened (a chain link, a similar note) is dropped.
  const shownId = useRef<string | null>(null);
  shownId.current = selected?.id ?? null;
  useEffect(() => {
    if (!selected || mode.kind !== "view" || changes === 0) return;
    const id = selected.id;
    client.tool<{ note: Note }>("get_note", { id }).then(
      ({ note }) => {
        if (shownId.current === id) setSelected(note);
      },
      () => {
        if (shownId.current !== id) return;
        setSelected(null);
        setNotice("The open note was forgotten.");
      },
    );
  }, [changes]);

  const open = (note: Note) => {
    setSelected(note);
    setMode({ kind: "view" });
    setNotice(null);
  };

  /** Opens a note named by id (a link of the chain, a similar note). */
  const openById = (id: string) =>
    client.tool<{ note: Note }>("get_note", { id }).then(({ note }) => open(note), onError);

  const save = async (draft: Draft) => {
    try {
      if (mode.kind === "new") {
        const args: Record<string, unknown> = { text: draft.text, labels: draft.labels };
        if (draft.title) args.title = draft.title;
        if (draft.scope) args.scope = draft.scope;
        const { note, status, similar: like } = await client.tool<
          { note: Note; status: string; similar?: SimilarNote[] }
        >("remember", args);
        open(note);
        setNotice(status === "unchanged" ? "Already remembered: nothing changed." : null);
        setSimilar(like?.length ? { id: note.id, notes: like } : null);
      } else if (selected) {
        // A note changed since the editor showed it (an agent, a terminal, another window): say
        // so and keep the edit in the editor; saving again sends the edited fields over it.
        const { note: current } = await client.tool<{ note: Note }>("get_note", {
          id: selected.id,
        });
        if (current.hash !== selected.hash) {
          setSelected(current);
          setNotice(
            "This note changed while you edited it. Your edit is still in the editor: Save " +
              "again to put your changes over the new version, or Cancel to keep it.",
          );
          return;
        }
        const args: Record<string, unknown> = { id: selected.id };
        if (draft.edited.text) args.text = draft.text;
        if (draft.edited.labels) args.labels = draft.labels;
        if (draft.edited.title && draft.title) args.title = draft.title;
        // Another scope moves the note, keeping its id.
        if (draft.scope && draft.scope !== scopeOf(selected)) args.scope = draft.scope;
        if (Object.keys(args).length === 1) {
          open(current); // nothing changed: nothing to write
          return;
        }
        const { note } = await client.tool<{ note: Note }>("update_note", args);
        open(note);
      }
      await reload();
    } catch (e) {
      onError(e);
    }
  };

  const forget = async () => {
    if (!selected) return;
    setConfirming(false);
    try {
      await client.tool("forget", { id: selected.id });
      setSelected(null);
      setNotice("Forgotten.");
      await reload();
    } catch (e) {
      onError(e);
    }
  };

  const submitSearch = (e: Event) => {
    e.preventDefault();
    const q = query.trim();
    syncUrl(q, engine);
    setActive(q ? { query: q, engine } : null);
    if (!q) setSearch(null);
  };
  const clear = () => {
    setQuery("");
    setActive(null);
    setSearch(null);
    syncUrl("", engine);
  };

  const showing = active && search;
  return (
    <div class="view notes">
      <div class="column list-column">
        <form role="search" class="search" onSubmit={submitSearch}>
          <input
            type="search"
            aria-label="Query"
            placeholder="Search memory"
            value={query}
            onInput={(e) => setQuery((e.target as HTMLInputElement).value)}
          />
          <select
            aria-label="Engine"
            value={engine}
            onChange={(e) => setEngine((e.target as HTMLSelectElement).value as Engine)}
          >
            {ENGINES.map((name) => <option value={name} key={name}>{name}</option>)}
          </select>
          <button type="submit">Search</button>
          <button type="button" class="quiet" onClick={clear} disabled={!active}>Clear</button>
        </form>
        <div class="filters">
          <select
            aria-label="Label"
            value={label}
            onChange={(e) => setLabel((e.target as HTMLSelectElement).value)}
          >
            <option value="">All labels</option>
            {labels.map((l) => <option value={l} key={l}>{l}</option>)}
          </select>
          <input
            aria-label="Source"
            placeholder="Source prefix, e.g. github:"
            value={source}
            onChange={(e) => setSource((e.target as HTMLInputElement).value)}
          />
          <label class="toggle">
            <input
              type="checkbox"
              checked={history}
              onChange={(e) => setHistory((e.target as HTMLInputElement).checked)}
            />
            Show history
          </label>
          {scopes.served.length > 1 && (
            <select
              aria-label="Scope"
              value={scope}
              onChange={(e) => setScope((e.target as HTMLSelectElement).value as Scope | "")}
            >
              <option value="">All scopes</option>
              {scopes.served.map((s) => <option value={s} key={s}>{s}</option>)}
            </select>
          )}
          <button
            type="button"
            onClick={() => {
              setMode({ kind: "new" });
              setNotice(null);
              setSimilar(null);
            }}
            disabled={readOnly}
          >
            New note
          </button>
        </div>
        {showing
          ? (
            <>
              <p class="muted summary" aria-live="polite">
                {`${search.hits.length} result${search.hits.length === 1 ? "" : "s"} `}
                for “{search.query}” ({search.ran}
                {search.ran !== "lexical" &&
                  `, ${search.coverage.embedded} of ${search.coverage.total} notes embedded`})
              </p>
              <ul class="items" aria-label="Results">
                {search.hits.map((hit) => (
                  <HitItem
                    key={hit.note.id}
                    hit={hit}
                    open={selected?.id === hit.note.id}
                    onOpen={() => open(hit.note)}
                    scopes={scopes}
                  />
                ))}
              </ul>
            </>
          )
          : (
            <>
              <p class="muted summary">
                {total} note{total === 1 ? "" : "s"}, newest first
                {history ? ", history included" : ""}
                {scope ? `, ${scope} scope only` : ""}
              </p>
              <ul class="items" aria-label="Notes">
                {notes.map((note) => (
                  <NoteItem
                    key={note.id}
                    note={note}
                    open={selected?.id === note.id}
                    onOpen={() => open(note)}
                    scopes={scopes}
                  />
                ))}
              </ul>
              {cursor && (
                <button
                  type="button"
                  class="quiet more"
                  onClick={() => loadList(cursor).catch(onError)}
                >
                  More notes
                </button>
              )}
            </>
          )}
      </div>
      <div class="column detail-column">
        {notice && <p class="notice" role="status">{notice}</p>}
        {similar && mode.kind === "view" &&
          (selected?.id === similar.id || similar.notes.some((n) => n.id === selected?.id)) && (
          <SimilarNotes similar={similar.notes} onOpen={openById} />
        )}
        {mode.kind === "new"
          ? (
            <Editor
              note={null}
              readOnly={readOnly}
              scopes={scopes}
              onSave={save}
              onCancel={() => setMode({ kind: "view" })}
            />
          )
          : selected && mode.kind === "edit"
          ? (
            <Editor
              key={selected.id}
              note={selected}
              readOnly={readOnly}
              scopes={scopes}
              onSave={save}
              onCancel={() => setMode({ kind: "view" })}
            />
          )
          : selected
          ? (
            <Detail
              note={selected}
              api={api}
              scopes={scopes}
              onOpen={openById}
              onEdit={() => setMode({ kind: "edit" })}
              onForget={() => setConfirming(true)}
              onClose={() => setSelected(null)}
            />
          )
          : <p class="muted placeholder">Open a note to read it here.</p>}
        <ForgetDialog
          open={confirming}
          title={selected?.title ?? ""}
          file={selected && scopeOf(selected) === "local" ? "notes.local.md" : "notes.md"}
          onConfirm={forget}
          onClose={() => setConfirming(false)}
        />
      </div>
    </div>
  );
}
