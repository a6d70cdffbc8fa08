/**
 * Text for the page: note bodies rendered as markdown (untrusted: raw HTML
 * off, links only to http(s) and mailto, images not loaded), and the spans
 * of a recall hit's highlights cut into plain and marked pieces.
 *
 * @module
 */

// deno-lint-ignore no-import-prefix -- bundled by scripts/build_web.ts
import MarkdownIt from "npm:markdown-it@15.0.3";

const SAFE_LINK = /^(?:https?:|mailto:)/i;

const md = new MarkdownIt({ html: false, linkify: true, typographer: false, breaks: true });
// Only absolute http(s) and mailto links; anything else renders as its text.
md.validateLink = (url: string) => SAFE_LINK.test(url.trim());
// Images are not loaded (no request leaves for a note's address): `![a](u)` reads as text, as
// written (with the rule off, its `[a](u)` would read as a link).
// deno-lint-ignore no-explicit-any
md.renderer.rules.image = (tokens: any, idx: number) => {
  const token = tokens[idx];
  const title = token.attrGet("title");
  const source = `![${token.content}](${token.attrGet("src") ?? ""}${title ? ` "${title}"` : ""})`;
  return md.utils.escapeHtml(source);
};
const defaultLinkOpen = md.renderer.rules.link_open ??
  // deno-lint-ignore no-explicit-any
  ((tokens: any, idx: number, options: any, _env: any, self: any) =>
    self.renderToken(tokens, idx, options));
// deno-lint-ignore no-explicit-any
md.renderer.rules.link_open = (tokens: any, idx: number, options: any, env: any, self: any) => {
  tokens[idx].attrSet("rel", "noopener noreferrer nofollow");
  tokens[idx].attrSet("target", "_blank");
  return defaultLinkOpen(tokens, idx, options, env, self);
};

/** A note body as HTML, safe to insert: raw HTML in it is escaped, not kept. */
export function renderMarkdown(body: string): string {
  return md.render(body);
}

/** One piece of a highlighted text. */
export interface Piece {
  /** The text. */
  text: string;
  /** Whether it is a matched term. */
  marked: boolean;
}

/** A recall hit's highlight span. */
export interface Span {
  field: "title" | "body";
  start: number;
  end: number;
}

/**
 * Cuts `text[from, to)` into pieces, marking the spans of `field`. Adds an
 * ellipsis where the window cuts the text.
 */
export function pieces(
  text: string,
  spans: readonly Span[],
  field: Span["field"],
  from = 0,
  to = text.length,
): Piece[] {
  const out: Piece[] = [];
  let at = from;
  const mine = spans.filter((s) => s.field === field && s.end > from && s.start < to)
    .sort((a, b) => a.start - b.start);
  for (const span of mine) {
    const start = Math.max(span.start, at);
    const end = Math.min(span.end, to);
    if (end <= start) continue;
    if (start > at) out.push({ text: text.slice(at, start), marked: false });
    out.push({ text: text.slice(start, end), marked: true });
    at = end;
  }
  if (at < to) out.push({ text: text.slice(at, to), marked: false });
  if (from > 0) out.unshift({ text: "…", marked: false });
  if (to < text.length) out.push({ text: "…", marked: false });
  return out;
}

/** The window of a body to show for a hit: around its first highlight, at most `size` characters. */
export function snippetWindow(
  body: string,
  spans: readonly Span[],
  size = 200,
): [number, number] {
  const first = spans.filter((s) => s.field === "body").sort((a, b) => a.start - b.start)[0];
  if (body.length <= size) return [0, body.length];
  if (!first) return [0, size];
  let from = Math.max(0, first.start - Math.floor(size / 3));
  // Start at a word boundary.
  if (from > 0) {
    const space = body.lastIndexOf(" ", from);
    if (space !== -1 && first.start - space < size / 2) from = space + 1;
  }
  return [from, Math.min(body.length, from + size)];
}
