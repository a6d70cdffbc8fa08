import assert from "node:assert/strict";
import {
  type BlockNode,
  blocksToMarkdown,
  type NotionBlock,
  richTextToMarkdown,
} from "./markdown.ts";

const rt = (plain_text: string, annotations = {}, href: string | null = null) => ({
  plain_text,
  annotations,
  href,
});
const node = (
  type: string,
  data: Record<string, unknown>,
  children: BlockNode[] = [],
): BlockNode => ({
  block: { id: crypto.randomUUID(), type, [type]: data } as NotionBlock,
  children,
});

Deno.test("richTextToMarkdown() styles segments and keeps edge spaces outside the markers", () => {
  assert.equal(
    richTextToMarkdown([
      rt("Use "),
      rt(" bold ", { bold: true }),
      rt("and", { italic: true, strikethrough: true }),
      rt(" a `tick`", { code: true }),
      rt(" docs", {}, "https://example.com/d"),
      rt("no link", {}, "javascript:alert(1)"),
    ]),
    "Use  **bold** ~~_and_~~ `a 'tick'` [docs](https://example.com/d)no link",
  );
  assert.equal(richTextToMarkdown(undefined), "");
  assert.equal(richTextToMarkdown([{ nothing: true }]), "");
});

Deno.test("blocksToMarkdown() renders the text-carrying blocks", async (t) => {
  const cases: [string, BlockNode[], string][] = [
    ["headings flatten line breaks", [node("heading_1", { rich_text: [rt("A\nB")] })], "# A B"],
    ["toggleable heading keeps its children", [
      node("heading_3", { rich_text: [rt("H")], is_toggleable: true }, [
        node("paragraph", { rich_text: [rt("inside")] }),
      ]),
    ], "### H\n\ninside"],
    ["numbered children indent by three", [
      node("numbered_list_item", { rich_text: [rt("one")] }, [
        node("bulleted_list_item", { rich_text: [rt("sub")] }),
      ]),
    ], "1. one\n   - sub"],
    [
      "multi-line list text hangs",
      [node("bulleted_list_item", { rich_text: [rt("a\nb")] })],
      "- a\n  b",
    ],
    ["quote with children", [
      node("quote", { rich_text: [rt("q")] }, [node("paragraph", { rich_text: [rt("more")] })]),
    ], "> q\n>\n> more"],
    ["callout without emoji", [node("callout", { rich_text: [rt("c")], icon: null })], "> c"],
    ["code holding backticks", [
      node("code", { rich_text: [rt("a ```b```")], language: "plain text" }),
    ], "~~~\na ```b```\n~~~"],
    ["code holding both fences at line starts", [
      node("code", { rich_text: [rt("```\n~~~\n````")], language: "plain text" }),
    ], "`````\n```\n~~~\n````\n`````"],
    ["equation", [node("equation", { expression: "e=mc^2" })], "$$e=mc^2$$"],
    [
      "bookmark",
      [node("bookmark", { url: "https://example.com", caption: [] })],
      "[https://example.com](https://example.com)",
    ],
    ["external image", [
      node("image", {
        type: "external",
        external: { url: "https://example.com/i.png" },
        caption: [rt("Cat")],
      }),
    ], "![Cat](https://example.com/i.png)"],
    ["hosted file without caption", [
      node("file", {
        type: "file",
        file: { url: "https://s3/x?sig=1" },
        caption: [],
        name: "report.pdf",
      }),
    ], "[file: report.pdf]"],
    ["hosted image without caption is left out", [
      node("image", { type: "file", file: { url: "https://s3/x" }, caption: [] }),
    ], ""],
    ["table without rows", [node("table", { table_width: 2 })], ""],
    ["columns are transparent", [
      node("column_list", {}, [
        node("column", {}, [node("paragraph", { rich_text: [rt("left")] })]),
        node("column", {}, [
          node("paragraph", { rich_text: [rt("right")] }),
        ]),
      ]),
    ], "left\n\nright"],
    ["unknown block with text", [node("template", { rich_text: [rt("tpl")] })], "tpl"],
    ["unsupported block", [node("unsupported", {}), node("breadcrumb", {})], ""],
    ["empty paragraphs vanish", [
      node("paragraph", { rich_text: [] }),
      node("paragraph", { rich_text: [rt("x")] }),
    ], "x"],
  ];
  for (const [name, nodes, expected] of cases) {
    await t.step(name, () => assert.equal(blocksToMarkdown(nodes), expected));
  }
});
