/**
 * Notion rich text and blocks as markdown. Only blocks that carry text become markdown; files
 * hosted by Notion are named by caption, never by their signed (expiring) URLs, so that an
 * unchanged page renders the same bytes on every sync.
 *
 * @module
 */

/**
 * A rich-text segment, as Notion sends it (only the fields used here).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type NotionRichText, richTextToMarkdown } from "@memo/connectors";
 * const link: NotionRichText = { plain_text: "the wiki", href: "https://wiki.example.com" };
 * assert.equal(richTextToMarkdown([link]), "[the wiki](https://wiki.example.com)");
 * ```
 */
export interface NotionRichText {
  /** The text without styling. */
  plain_text?: string;
  /** Link target, if the segment links somewhere. */
  href?: string | null;
  /** `text`, `mention` or `equation`. */
  type?: string;
  /** Styling. */
  annotations?: {
    bold?: boolean;
    italic?: boolean;
    strikethrough?: boolean;
    code?: boolean;
  };
}

/**
 * A block, as Notion sends it (only the fields used here).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { blocksToMarkdown, type NotionBlock } from "@memo/connectors";
 * const block: NotionBlock = {
 *   id: "1",
 *   type: "quote",
 *   quote: { rich_text: [{ plain_text: "Never deploy on Fridays." }] },
 * };
 * assert.equal(blocksToMarkdown([{ block, children: [] }]), "> Never deploy on Fridays.");
 * ```
 */
export interface NotionBlock {
  /** Block id. */
  id: string;
  /** Block type (`paragraph`, `heading_1` …); the block's data sits under this key. */
  type: string;
  /** Whether the block has nested blocks. */
  has_children?: boolean;
  /** Whether the block is in the trash. */
  in_trash?: boolean;
  /** Whether the block is archived (older name of `in_trash`). */
  archived?: boolean;
  /** The type's data, and other fields. */
  [type: string]: unknown;
}

/**
 * A block with the children fetched for it.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type BlockNode, blocksToMarkdown } from "@memo/connectors";
 * const bullet = (id: string, text: string) => ({
 *   id,
 *   type: "bulleted_list_item",
 *   bulleted_list_item: { rich_text: [{ plain_text: text }] },
 * });
 * const outline: BlockNode = {
 *   block: { ...bullet("1", "Level 1"), has_children: true },
 *   children: [{ block: bullet("2", "Level 2"), children: [] }],
 * };
 * assert.equal(blocksToMarkdown([outline]), "- Level 1\n  - Level 2");
 * ```
 */
export interface BlockNode {
  /** The block. */
  block: NotionBlock;
  /** Its children, as read (empty when not read). */
  children: BlockNode[];
}

/**
 * Renders rich text as markdown: bold, italic, strikethrough, inline code and links. White space at
 * the edges of a styled segment stays outside the markers.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { richTextToMarkdown } from "@memo/connectors";
 * const markdown = richTextToMarkdown([
 *   { plain_text: "Run " },
 *   { plain_text: "make deploy", annotations: { code: true } },
 *   { plain_text: " now", annotations: { bold: true } },
 * ]);
 * assert.equal(markdown, "Run `make deploy` **now**");
 * ```
 */
export function richTextToMarkdown(segments: unknown): string {
  if (!Array.isArray(segments)) return "";
  let out = "";
  for (const raw of segments as NotionRichText[]) {
    const text = typeof raw?.plain_text === "string" ? raw.plain_text : "";
    if (!text) continue;
    const a = raw.annotations ?? {};
    const lead = text.match(/^\s*/)![0];
    const trail = text.slice(lead.length).match(/\s*$/)![0];
    let core = text.slice(lead.length, text.length - trail.length);
    if (core) {
      if (a.code) core = "`" + core.replace(/`/g, "'") + "`";
      if (a.bold) core = `**${core}**`;
      if (a.italic) core = `_${core}_`;
      if (a.strikethrough) core = `~~${core}~~`;
      if (typeof raw.href === "string" && /^https?:\/\//i.test(raw.href) && !a.code) {
        core = `[${core}](${raw.href})`;
      }
    }
    out += lead + core + trail;
  }
  return out;
}

/** Plain text of rich text, without markdown. */
export function plainText(segments: unknown): string {
  if (!Array.isArray(segments)) return "";
  return (segments as NotionRichText[]).map((
    s,
  ) => (typeof s?.plain_text === "string" ? s.plain_text : "")).join("");
}

/** List blocks: items of one family sit on consecutive lines, forming one markdown list. */
const LIST_FAMILY: Record<string, string> = {
  bulleted_list_item: "-",
  to_do: "-",
  toggle: "-",
  numbered_list_item: "1.",
};

/**
 * Block types whose children cost no depth: those that only hold other blocks, and a table, whose
 * rows are the table itself (read at any depth, else a table at the last level is empty).
 */
export const CONTAINER_TYPES: ReadonlySet<string> = new Set([
  "column_list",
  "column",
  "synced_block",
  "table",
]);

/** Block types whose children are other pages or databases, never fetched as content. */
export const PAGE_TYPES: ReadonlySet<string> = new Set(["child_page", "child_database"]);

/**
 * Renders a tree of blocks as markdown. Consecutive list items of one kind (bulleted, to-do and
 * toggle items; numbered items) sit on consecutive lines and indent their children; everything else
 * is separated by a blank line.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type BlockNode, blocksToMarkdown, type NotionBlock } from "@memo/connectors";
 * const text = (plain_text: string) => [{ plain_text }];
 * const leaf = (block: NotionBlock): BlockNode => ({ block, children: [] });
 * const markdown = blocksToMarkdown([
 *   leaf({ id: "1", type: "heading_2", heading_2: { rich_text: text("Steps") } }),
 *   leaf({ id: "2", type: "to_do", to_do: { checked: true, rich_text: text("Build") } }),
 * ]);
 * assert.equal(markdown, "## Steps\n\n- [x] Build");
 * ```
 */
export function blocksToMarkdown(nodes: readonly BlockNode[], indent = ""): string {
  let out = "";
  let previousList: string | undefined;
  for (const node of nodes) {
    const md = blockToMarkdown(node, indent);
    if (!md) continue;
    const list = LIST_FAMILY[node.block.type];
    if (out) out += list !== undefined && list === previousList ? "\n" : "\n\n";
    out += md;
    previousList = list;
  }
  return out;
}

function blockToMarkdown(node: BlockNode, indent: string): string {
  const { block } = node;
  const data = (block[block.type] ?? {}) as Record<string, unknown>;
  const text = richTextToMarkdown(data.rich_text);
  const inner = indent + (block.type === "numbered_list_item" ? "   " : "  ");
  const nested = () => blocksToMarkdown(node.children, inner);
  const after = () => blocksToMarkdown(node.children, indent);
  const join = (head: string, tail: string, sep: string) =>
    head && tail ? `${head}${sep}${tail}` : head || tail;
  const hang = (marker: string) => indent + marker + continueLines(text, inner);
  switch (block.type) {
    case "paragraph":
      return join(text ? indent + continueLines(text, indent) : "", after(), "\n\n");
    case "heading_1":
    case "heading_2":
    case "heading_3": {
      const level = Number(block.type.slice(-1));
      const head = text ? `${indent}${"#".repeat(level)} ${text.replace(/\s*\n\s*/g, " ")}` : "";
      return join(head, after(), "\n\n");
    }
    case "bulleted_list_item":
    case "toggle":
      return join(hang("- "), nested(), "\n");
    case "numbered_list_item":
      return join(hang("1. "), nested(), "\n");
    case "to_do":
      return join(hang(data.checked === true ? "- [x] " : "- [ ] "), nested(), "\n");
    case "quote":
    case "callout": {
      const icon = block.type === "callout" ? calloutIcon(data.icon) : "";
      const body = [icon + text, blocksToMarkdown(node.children, "")].filter(Boolean).join("\n\n");
      return body ? body.split("\n").map((l) => `${indent}>${l ? " " + l : ""}`).join("\n") : "";
    }
    case "code": {
      const language = typeof data.language === "string" && /^[\w+#.-]{1,40}$/.test(data.language)
        ? data.language.replace(/^plain text$/, "")
        : "";
      const code = plainText(data.rich_text);
      const fence = codeFence(code);
      return [`${fence}${language}`, ...code.split("\n"), fence].map((l) => indent + l).join("\n");
    }
    case "equation": {
      const expression = typeof data.expression === "string" ? data.expression : "";
      return expression ? `${indent}$$${expression}$$` : "";
    }
    case "divider":
      return `${indent}---`;
    case "child_page":
    case "child_database": {
      const title = typeof data.title === "string" ? data.title.trim() : "";
      return title ? `${indent}${block.type === "child_page" ? "Page" : "Database"}: ${title}` : "";
    }
    case "bookmark":
    case "embed":
    case "link_preview": {
      const url = typeof data.url === "string" ? data.url : "";
      const caption = richTextToMarkdown(data.caption);
      if (!/^https?:\/\//i.test(url)) return caption ? indent + caption : "";
      return `${indent}[${caption || url}](${url})`;
    }
    case "image":
    case "video":
    case "audio":
    case "pdf":
    case "file":
      return fileToMarkdown(block.type, data, indent);
    case "table":
      return tableToMarkdown(node, indent);
    case "column_list":
    case "column":
    case "synced_block":
      return after();
    default:
      return text ? join(indent + continueLines(text, indent), after(), "\n\n") : after();
  }
}

function continueLines(text: string, indent: string): string {
  return text.replace(/\n/g, "\n" + indent);
}

function calloutIcon(icon: unknown): string {
  if (icon && typeof icon === "object" && (icon as { type?: string }).type === "emoji") {
    const emoji = (icon as { emoji?: unknown }).emoji;
    if (typeof emoji === "string" && emoji.length <= 16) return emoji + " ";
  }
  return "";
}

function fileToMarkdown(type: string, data: Record<string, unknown>, indent: string): string {
  const caption = richTextToMarkdown(data.caption);
  const name = typeof data.name === "string" ? data.name : "";
  const external = data.type === "external"
    ? (data.external as { url?: unknown } | undefined)?.url
    : undefined;
  const label = caption || name || type;
  if (typeof external === "string" && /^https?:\/\//i.test(external)) {
    return type === "image"
      ? `${indent}![${label}](${external})`
      : `${indent}[${label}](${external})`;
  }
  // A file hosted by Notion has a signed URL that changes on every request: name it only.
  return caption || name ? `${indent}[${type}: ${caption || name}]` : "";
}

function tableToMarkdown(node: BlockNode, indent: string): string {
  const rows = node.children
    .filter((c) => c.block.type === "table_row")
    .map((c) => {
      const cells = (c.block.table_row as { cells?: unknown[] } | undefined)?.cells ?? [];
      return cells.map((cell) =>
        richTextToMarkdown(cell).replace(/\|/g, "\\|").replace(/\n/g, " ")
      );
    });
  if (!rows.length) return "";
  const width = Math.max(...rows.map((r) => r.length), 1);
  const line = (cells: string[]) =>
    `${indent}| ${Array.from({ length: width }, (_, i) => cells[i] ?? "").join(" | ")} |`;
  const out = [line(rows[0]), `${indent}|${" --- |".repeat(width)}`];
  for (const r of rows.slice(1)) out.push(line(r));
  return out.join("\n");
}

/**
 * A fence no line of `code` can close (CommonMark closes a fence with a run of its character, at
 * least as long, opening a line): three backticks, else three tildes when the code holds backticks,
 * else more backticks than the longest run that opens one of its lines.
 */
function codeFence(code: string): string {
  if (!code.includes("```")) return "```";
  if (!/^ {0,3}~{3,}/m.test(code)) return "~~~";
  let longest = 0;
  for (const m of code.matchAll(/^ {0,3}(`{3,})/gm)) longest = Math.max(longest, m[1].length);
  return "`".repeat(Math.max(3, longest + 1));
}
