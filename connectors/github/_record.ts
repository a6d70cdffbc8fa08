/**
 * Internal: a discussion as a {@linkcode ConnectorRecord}.
 *
 * @module
 */

import type { ConnectorRecord } from "../types.ts";
import type { DiscussionNode } from "./query.ts";

/**
 * Builds the record of one discussion. The text is the discussion's body followed by one line of
 * facts (category, author, comments, answer); the labels are exactly the category name.
 */
export function discussionToRecord(node: DiscussionNode, repository: string): ConnectorRecord {
  const category = node.category?.name?.trim() || "General";
  const author = node.author?.login || "ghost";
  const comments = typeof node.comments?.totalCount === "number" ? node.comments.totalCount : 0;
  const answerAuthor = node.answer ? node.answer.author?.login || "ghost" : undefined;
  const facts = [
    `Category: ${category}`,
    `Author: @${author}`,
    `Comments: ${comments}`,
  ];
  if (node.answer) facts.push(`Answered by @${answerAuthor}: ${node.answer.url}`);
  const body = typeof node.body === "string" ? node.body.replace(/\r\n/g, "\n").trimEnd() : "";
  const text = `${body || "_No description._"}\n\n${facts.join(" · ")}`;
  const title = typeof node.title === "string" && node.title.trim()
    ? node.title.trim()
    : `Discussion #${node.number}`;
  return {
    source: `github:${repository}/discussions/${node.number}`,
    title,
    text,
    url: node.url,
    createdAt: node.createdAt,
    updatedAt: node.updatedAt,
    metadata: {
      labels: [category],
      repository,
      number: node.number,
      author,
      category,
      comments,
      answered: node.answer !== null && node.answer !== undefined,
      ...(node.answer ? { answerUrl: node.answer.url } : {}),
    },
  };
}
