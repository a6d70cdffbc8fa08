/** @jsxImportSource npm:preact@11.2.0 */
/**
 * Notes that stay true, on the page: a note's chain (the notes it supersedes and the notes that
 * supersede it, each a button that opens it), its validity, and the similar notes a new note's
 * answer lists after "Remember".
 *
 * @module
 */

// deno-lint-ignore no-import-prefix -- bundled by scripts/build_web.ts
import { useEffect, useState } from "npm:preact@11.2.0/hooks";
import { type Api, type Note, type SimilarNote, when } from "./api.ts";

/** A linked note as the chain shows it: its title, or its id when it is gone. */
interface Linked {
  id: string;
  title?: string;
}

/** The titles of `ids`, read with `get_note` (a forgotten note keeps its id only). */
function useLinked(api: Api, ids: readonly string[]): Linked[] {
  const key = ids.join(",");
  const [linked, setLinked] = useState<Linked[]>(ids.map((id) => ({ id })));
  useEffect(() => {
    let live = true;
    Promise.all(ids.map((id) =>
      api.client.tool<{ note: Note }>("get_note", { id }).then(
        ({ note }) => ({ id, title: note.title }),
        () => ({ id }),
      )
    )).then((found) => live && setLinked(found));
    return () => {
      live = false;
    };
  }, [key, api.changes]);
  return linked;
}

function LinkList({ linked, onOpen }: { linked: Linked[]; onOpen: (id: string) => void }) {
  return (
    <ul class="links">
      {linked.map((l) => (
        <li key={l.id}>
          {l.title === undefined
            ? <code title="No longer in memory">{l.id}</code>
            : (
              <button type="button" class="link" onClick={() => onOpen(l.id)}>
                {l.title}
              </button>
            )}
        </li>
      ))}
    </ul>
  );
}

/** A term of a `<dl>` and its time, when there is one. */
function TimeEntry({ term, at }: { term: string; at?: string }) {
  if (at === undefined) return null;
  return (
    <>
      <dt>{term}</dt>
      <dd>
        <time dateTime={at}>{when(at)}</time>
      </dd>
    </>
  );
}

/** A note's history: what it replaces, what replaces it, and when it holds. */
export function Chain({ note, api, onOpen }: {
  note: Note;
  api: Api;
  onOpen: (id: string) => void;
}) {
  const replaces = useLinked(api, note.supersedes ?? []);
  const replacedBy = useLinked(api, note.supersededBy ?? []);
  const dated = note.validFrom !== undefined || note.validUntil !== undefined;
  if (!replaces.length && !replacedBy.length && !dated) return null;
  return (
    <section class="chain" aria-label="History">
      {replacedBy.length > 0 && (
        <p class="notice old">This note is history: a newer note replaces it.</p>
      )}
      <dl>
        {replacedBy.length > 0 && (
          <>
            <dt>Superseded by</dt>
            <dd>
              <LinkList linked={replacedBy} onOpen={onOpen} />
            </dd>
          </>
        )}
        {replaces.length > 0 && (
          <>
            <dt>Supersedes</dt>
            <dd>
              <LinkList linked={replaces} onOpen={onOpen} />
            </dd>
          </>
        )}
        <TimeEntry term="Valid from" at={note.validFrom} />
        <TimeEntry term="Valid until" at={note.validUntil} />
      </dl>
    </section>
  );
}

/** The stored notes like the one just remembered, to open (and correct, merge or forget). */
export function SimilarNotes({ similar, onOpen }: {
  similar: SimilarNote[];
  onOpen: (id: string) => void;
}) {
  if (!similar.length) return null;
  return (
    <section class="card similar" aria-label="Similar notes">
      <h3>Similar notes</h3>
      <p class="muted">
        Already in memory and close to this one. If one says the same thing, or the fact changed,
        open it to check; the Tidy view proposes merges.
      </p>
      <ul class="links">
        {similar.map((s) => (
          <li key={s.id}>
            <button type="button" class="link" onClick={() => onOpen(s.id)}>{s.title}</button>
            <span class="muted">{` ${Math.round(s.score * 100)}% alike`}</span>
          </li>
        ))}
      </ul>
    </section>
  );
}

/** The mark of a superseded note in a list. */
export function HistoryMark({ note }: { note: Note }) {
  return note.supersededBy?.length ? <span class="badge old">superseded</span> : null;
}
