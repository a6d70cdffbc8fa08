/**
 * Front matter of markdown notes (Obsidian, basic-memory, Jekyll-style): the `---` block at the
 * top of a file, read as a small YAML subset.
 *
 * @module
 */

/** A front matter value: a string, a list of strings, or `null` (empty or not supported). */
export type FrontMatterValue = string | string[] | null;

/** A file split into its front matter and body. */
export interface FrontMatter {
  /** The keys and values (no front matter: empty). */
  data: Record<string, FrontMatterValue>;
  /** The text after the front matter (the whole text when there is none). */
  body: string;
  /** 1-based line where the body starts. */
  bodyLine: number;
}

/** Why front matter could not be read, and on which 1-based line. */
export interface FrontMatterError {
  error: string;
  line: number;
}

/**
 * Splits off and reads a file's front matter: the lines between a first line `---` and the next
 * `---` (or `...`) line. The YAML subset read: `key: value` (plain, `"double"` or `'single'`
 * quoted), flow lists `key: [a, "b"]`, block lists (`key:` then `- a` lines), block scalars
 * (`key: |` or `>` then indented lines), comments and blank lines. Nested maps and flow maps are
 * accepted and read as `null`. Anything else is an error with its line.
 */
export function readFrontMatter(text: string): FrontMatter | FrontMatterError {
  const lines = text.split(/\r?\n/);
  if (lines[0]?.trimEnd() !== "---") return { data: {}, body: text, bodyLine: 1 };
  let end = -1;
  for (let i = 1; i < lines.length; i++) {
    const l = lines[i].trimEnd();
    if (l === "---" || l === "...") {
      end = i;
      break;
    }
  }
  if (end < 0) return { error: "front matter has no closing --- line", line: 1 };
  const data: Record<string, FrontMatterValue> = {};
  let pending:
    | { key: string; mode: "open" | "list" | "nested" | "scalar"; folded: boolean }
    | null = null;
  const scalar: string[] = [];
  const closeScalar = () => {
    if (pending?.mode === "scalar") {
      data[pending.key] = pending.folded ? scalar.join(" ").trim() : scalar.join("\n").trimEnd();
    }
    scalar.length = 0;
  };
  for (let i = 1; i < end; i++) {
    const raw = lines[i];
    const line = i + 1;
    const indented = /^\s/.test(raw);
    const trimmed = raw.trim();
    if (pending?.mode === "scalar" && (indented || trimmed === "")) {
      scalar.push(trimmed);
      continue;
    }
    if (trimmed === "" || trimmed.startsWith("#")) continue;
    if (
      pending && (pending.mode === "open" || pending.mode === "list") && /^-(\s|$)/.test(trimmed)
    ) {
      const item = readScalar(trimmed.slice(1).trim());
      if (typeof item === "object") return { error: item.error, line };
      if (pending.mode === "open") data[pending.key] = [];
      pending.mode = "list";
      if (item !== "") (data[pending.key] as string[]).push(item);
      continue;
    }
    if (indented && pending && (pending.mode === "open" || pending.mode === "nested")) {
      pending.mode = "nested";
      data[pending.key] = null;
      continue;
    }
    closeScalar();
    pending = null;
    const match = /^([^\s#:\-][^:]*?|-[^\s:][^:]*?)\s*:(?:\s+(.*))?$/.exec(raw) ??
      /^("[^"]*"|'[^']*')\s*:(?:\s+(.*))?$/.exec(raw);
    if (!match || indented) return { error: `cannot read front matter line: ${trimmed}`, line };
    const key = match[1].replace(/^["']|["']$/g, "");
    const value = (match[2] ?? "").trim();
    if (value === "" || value === "~" || value === "null") {
      data[key] = null;
      pending = { key, mode: "open", folded: false };
    } else if (/^[|>][-+0-9]*$/.test(value)) {
      pending = { key, mode: "scalar", folded: value.startsWith(">") };
    } else if (value.startsWith("[")) {
      const list = readFlowList(value);
      if (typeof list === "object" && !Array.isArray(list)) return { error: list.error, line };
      data[key] = list;
    } else if (value.startsWith("{")) {
      if (!value.endsWith("}")) return { error: "front matter map has no closing }", line };
      data[key] = null;
    } else {
      const v = readScalar(value);
      if (typeof v === "object") return { error: v.error, line };
      data[key] = v;
    }
  }
  closeScalar();
  return { data, body: lines.slice(end + 1).join("\n"), bodyLine: end + 2 };
}

/** A plain or quoted scalar (a trailing ` # comment` dropped from plain ones). */
function readScalar(value: string): string | { error: string } {
  if (value.startsWith('"')) {
    const m = /^("(?:[^"\\]|\\.)*")\s*(#.*)?$/.exec(value);
    if (!m) return { error: "front matter string has no closing quote" };
    try {
      return JSON.parse(m[1]);
    } catch {
      return { error: "front matter string has a bad escape" };
    }
  }
  if (value.startsWith("'")) {
    const m = /^'((?:[^']|'')*)'\s*(#.*)?$/.exec(value);
    if (!m) return { error: "front matter string has no closing quote" };
    return m[1].replace(/''/g, "'");
  }
  return value.replace(/\s+#.*$/, "").trim();
}

/** A flow list `[a, "b, c", 'd']`. */
function readFlowList(value: string): string[] | { error: string } {
  const m = /^\[(.*)\]\s*(#.*)?$/.exec(value);
  if (!m) return { error: "front matter list has no closing ]" };
  const out: string[] = [];
  let rest = m[1].trim();
  while (rest !== "") {
    let item: string;
    if (rest.startsWith('"') || rest.startsWith("'")) {
      const q = rest.startsWith('"')
        ? /^("(?:[^"\\]|\\.)*")\s*(,|$)/.exec(rest)
        : /^('(?:[^']|'')*')\s*(,|$)/.exec(rest);
      if (!q) return { error: "front matter list has a bad quoted item" };
      const v = readScalar(q[1]);
      if (typeof v === "object") return v;
      item = v;
      rest = rest.slice(q[0].length).trim();
    } else {
      const comma = rest.indexOf(",");
      item = (comma < 0 ? rest : rest.slice(0, comma)).trim();
      rest = comma < 0 ? "" : rest.slice(comma + 1).trim();
      if (item.startsWith("[") || item.startsWith("{")) {
        return { error: "front matter list holds a nested list or map" };
      }
    }
    if (item !== "") out.push(item);
  }
  return out;
}
