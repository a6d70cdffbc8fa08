/** @jsxImportSource npm:preact@11.2.0 */
/**
 * The Tidy view: the proposals of the `tidy` tool, each for a person to accept or skip. A merge
 * keeps the newest note and supersedes the others: "Accept" applies that one proposal through
 * the `supersede` tool (nothing is deleted; the superseded notes stay as history). Expired notes
 * (their `validUntil` has passed) are listed for a person to correct or forget in Notes.
 *
 * @module
 */

// deno-lint-ignore no-import-prefix -- bundled by scripts/build_web.ts
import { useEffect, useState } from "npm:preact@11.2.0/hooks";
import { type Api, when } from "./api.ts";

interface Ref {
  id: string;
  title: string;
  created: string;
}

type Proposal =
  | { kind: "merge"; keep: Ref; supersede: (Ref & { score: number })[] }
  | { kind: "expired"; note: Ref & { validUntil: string } };

/** A proposal's identity, to remember it was skipped. */
function keyOf(p: Proposal): string {
  return p.kind === "merge"
    ? `merge:${p.keep.id}:${p.supersede.map((s) => s.id).join(",")}`
    : `expired:${p.note.id}`;
}

function MergeItem({ proposal, readOnly, onAccept, onSkip }: {
  proposal: Extract<Proposal, { kind: "merge" }>;
  readOnly: boolean;
  onAccept: () => void;
  onSkip: () => void;
}) {
  const id = `merge-${proposal.keep.id}`;
  return (
    <li class="item proposal" aria-labelledby={id}>
      <p id={id}>
        Merge into <strong>{proposal.keep.title}</strong> <span class="muted">(newest, kept)</span>
      </p>
      <ul class="links" aria-label="Notes it supersedes">
        {proposal.supersede.map((s) => (
          <li key={s.id}>
            {s.title} <span class="muted">{`${Math.round(s.score * 100)}% alike`}</span>
          </li>
        ))}
      </ul>
      <div class="actions">
        <button type="button" onClick={onAccept} disabled={readOnly}>Accept</button>
        <button type="button" class="quiet" onClick={onSkip}>Skip</button>
      </div>
    </li>
  );
}

function ExpiredItem({ proposal, onSkip }: {
  proposal: Extract<Proposal, { kind: "expired" }>;
  onSkip: () => void;
}) {
  const id = `expired-${proposal.note.id}`;
  return (
    <li class="item proposal" aria-labelledby={id}>
      <p id={id}>
        <strong>{proposal.note.title}</strong> stopped holding on{" "}
        <time dateTime={proposal.note.validUntil}>{when(proposal.note.validUntil)}</time>
      </p>
      <p class="muted">Open it in Notes to correct or forget it; accepting merges leaves it.</p>
      <div class="actions">
        <button type="button" class="quiet" onClick={onSkip}>Skip</button>
      </div>
    </li>
  );
}

/** The Tidy view. */
export function TidyView({ api }: { api: Api }) {
  const { client, readOnly, onError, changes } = api;
  const [proposals, setProposals] = useState<Proposal[] | null>(null);
  const [skipped, setSkipped] = useState<Set<string>>(new Set());
  const [notice, setNotice] = useState<string | null>(null);

  const load = () =>
    client.tool<{ proposals: Proposal[] }>("tidy", {}).then(
      (plan) => setProposals(plan.proposals),
      onError,
    );
  useEffect(() => {
    load();
  }, [changes]);

  const skip = (p: Proposal) => setSkipped((old) => new Set([...old, keyOf(p)]));
  const accept = async (p: Extract<Proposal, { kind: "merge" }>) => {
    try {
      const ids = p.supersede.map((s) => s.id);
      const { superseded } = await client.tool<{ superseded: string[] }>("supersede", {
        ids,
        by: p.keep.id,
      });
      const n = superseded.length;
      setNotice(
        `Accepted: “${p.keep.title}” now supersedes ${n} note${n === 1 ? "" : "s"}.`,
      );
      await load();
    } catch (e) {
      onError(e);
    }
  };

  const shown = (proposals ?? []).filter((p) => !skipped.has(keyOf(p)));
  return (
    <section class="view tidy" aria-label="Tidy">
      <h2>Tidy</h2>
      <p class="muted">
        Notes that say the same thing, and notes whose validity has passed. Nothing changes until
        you accept a proposal; a merge keeps the newest note and the others stay as history.
      </p>
      {notice && <p class="notice" role="status">{notice}</p>}
      {proposals === null
        ? <p class="muted">Looking for duplicates…</p>
        : shown.length === 0
        ? <p class="muted">Nothing to tidy.</p>
        : (
          <ul class="items" aria-label="Proposals">
            {shown.map((p) =>
              p.kind === "merge"
                ? (
                  <MergeItem
                    key={keyOf(p)}
                    proposal={p}
                    readOnly={readOnly}
                    onAccept={() => accept(p)}
                    onSkip={() => skip(p)}
                  />
                )
                : <ExpiredItem key={keyOf(p)} proposal={p} onSkip={() => skip(p)} />
            )}
          </ul>
        )}
    </section>
  );
}
