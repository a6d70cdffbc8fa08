/**
 * Internal: a Notion page object as a {@linkcode ConnectorRecord}.
 *
 * @module
 */

import type { ConnectorRecord } from "../types.ts";
import { normalizeNotionId } from "./ids.ts";
import { plainText } from "./markdown.ts";

/** A page object, as Notion sends it (only the fields used here). */
export interface NotionPage {
  object: "page";
  id: string;
  url?: string;
  created_time: string;
  last_edited_time: string;
  in_trash?: boolean;
  archived?: boolean;
  properties?: Record<string, { type?: string; [key: string]: unknown }>;
}

/**
 * True for a full page object that is neither in the trash nor archived.
 * Database objects (search results) and partial pages are not pages to sync.
 */
export function isLivePage(item: unknown): item is NotionPage {
  if (!item || typeof item !== "object") return false;
  const p = item as Partial<NotionPage>;
  return p.object === "page" && typeof p.id === "string" && p.in_trash !== true &&
    p.archived !== true && typeof p.last_edited_time === "string" &&
    typeof p.created_time === "string";
}

/**
 * The page's title: every segment of its title-type property, whatever that
 * property is called ("Name", "Title", "Task" …).
 */
export function pageTitle(page: NotionPage): string {
  for (const property of Object.values(page.properties ?? {})) {
    if (property?.type === "title") return plainText(property.title).replace(/\s+/g, " ").trim();
  }
  return "";
}

/** The names of the page's select and multi-select values, in property order. */
export function pageLabels(page: NotionPage): string[] {
  const labels: string[] = [];
  for (const property of Object.values(page.properties ?? {})) {
    const values = property?.type === "select"
      ? [property.select]
      : property?.type === "multi_select"
      ? (Array.isArray(property.multi_select) ? property.multi_select : [])
      : [];
    for (const v of values) {
      const name = v && typeof v === "object" ? (v as { name?: unknown }).name : undefined;
      if (typeof name === "string" && name.trim() && !labels.includes(name.trim())) {
        labels.push(name.trim());
      }
    }
  }
  return labels;
}

/** Builds the record of a page from its object and its content as markdown. */
export function pageToRecord(page: NotionPage, content: string): ConnectorRecord {
  const id = normalizeNotionId(page.id, "page id");
  const title = pageTitle(page) || "Untitled";
  const text = content.trim() ? content.trimEnd() : title;
  return {
    source: `notion:page/${id}`,
    title,
    text,
    url: typeof page.url === "string" ? page.url : `https://www.notion.so/${id.replace(/-/g, "")}`,
    createdAt: page.created_time,
    updatedAt: page.last_edited_time,
    metadata: {
      labels: pageLabels(page),
      pageId: id,
      ...(page.properties ? { properties: Object.keys(page.properties) } : {}),
    },
  };
}
