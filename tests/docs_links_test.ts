// Every relative link in README.md and docs/*.md resolves: to a file or folder
// that exists and, with a `#fragment`, to a heading of that markdown file (as
// GitHub names headings). Fast, no network.
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");

/** Markdown without its fenced code blocks and inline code spans. */
function withoutCode(markdown: string): string {
  return markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, "").replace(/`[^`\n]*`/g, "");
}

/** GitHub's anchor for a heading's text: lower case, punctuation dropped, spaces to `-`. */
export function slug(heading: string): string {
  return heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1") // a link keeps its text
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, "")
    .replace(/ /g, "-");
}

/** The anchors of a markdown text's headings, with GitHub's `-1`, `-2` for repeats. */
export function anchors(markdown: string): Set<string> {
  const out = new Set<string>();
  const seen = new Map<string, number>();
  const text = markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, "");
  for (const m of text.matchAll(/^#{1,6}[ \t]+(.+?)[ \t#]*$/gm)) {
    const base = slug(m[1]);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

/** Relative link targets of a markdown text, as `[path, fragment?]` (path "" for `#x`). */
export function links(markdown: string): [string, string | undefined][] {
  const out: [string, string | undefined][] = [];
  for (const m of withoutCode(markdown).matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
    const target = m[1];
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
    const hash = target.indexOf("#");
    const path = decodeURIComponent(hash < 0 ? target : target.slice(0, hash));
    out.push([path, hash < 0 ? undefined : decodeURIComponent(target.slice(hash + 1))]);
  }
  return out;
}

Deno.test("slug() and anchors() name headings as GitHub does", () => {
  assert.equal(
    slug("`memo init --client`: let memo write the configuration"),
    "memo-init---client-let-memo-write-the-configuration",
  );
  assert.equal(slug("Coming from …"), "coming-from-");
  assert.equal(slug("`notes.md`"), "notesmd");
  assert.equal(slug("The test suite (issue 22)"), "the-test-suite-issue-22");
  assert.equal(slug("`POST …/notes:batch`"), "post-notesbatch");
  assert.deepEqual(
    [...anchors("# A\n\n```md\n# Not\n```\n## A\n### B ##\n")],
    ["a", "a-1", "b"],
  );
  assert.deepEqual(links("[a](x.md#y) [b](https://e.org) [c](#top) `[d](no.md)` [e](../f.md)"), [
    ["x.md", "y"],
    ["", "top"],
    ["../f.md", undefined],
  ]);
});

Deno.test("every relative link in README.md and docs/*.md resolves, #anchors included", () => {
  const pages = [
    join(ROOT, "README.md"),
    ...readdirSync(join(ROOT, "docs")).filter((n) => n.endsWith(".md")).map((n) =>
      join(ROOT, "docs", n)
    ),
  ];
  const cache = new Map<string, Set<string>>();
  const anchorsOf = (path: string) => {
    let found = cache.get(path);
    if (!found) cache.set(path, found = anchors(readFileSync(path, "utf8")));
    return found;
  };
  const broken: string[] = [];
  let checked = 0;
  let fragments = 0;
  for (const page of pages) {
    for (const [target, fragment] of links(readFileSync(page, "utf8"))) {
      checked++;
      const path = target === "" ? page : join(dirname(page), target);
      const where = `${relative(ROOT, page)} → ${target}${
        fragment === undefined ? "" : "#" + fragment
      }`;
      if (!existsSync(path) || !(statSync(path).isFile() || statSync(path).isDirectory())) {
        broken.push(`${where} (no such file)`);
      } else if (fragment !== undefined && path.endsWith(".md")) {
        fragments++;
        if (!anchorsOf(path).has(fragment)) broken.push(`${where} (no such heading)`);
      }
    }
  }
  assert.ok(checked >= 100, `only ${checked} links checked`);
  assert.ok(fragments >= 20, `only ${fragments} #anchors checked`);
  assert.deepEqual(broken, [], `broken links:\n${broken.join("\n")}`);
});
