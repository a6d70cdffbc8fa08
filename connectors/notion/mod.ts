/**
 * The workspace-pages connector (Notion): the connector, id and token
 * normalisation, and the block-to-markdown renderer.
 *
 * @module
 */

export * from "./connector.ts";
export { NOTION_API_URL, NOTION_VERSION } from "./client.ts";
export * from "./ids.ts";
export {
  type BlockNode,
  blocksToMarkdown,
  type NotionBlock,
  type NotionRichText,
  richTextToMarkdown,
} from "./markdown.ts";
