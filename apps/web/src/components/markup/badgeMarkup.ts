import escapeHtml from "escape-html";
import type { BadgeVariant } from "@berth/ui/badge";

/**
 * The kit's badge (`@berth/ui/badge`, `.badge` in its stylesheet) as markup, for rows written as
 * one string of HTML (see sessionRowsBody.tsx). `state` adds the state dot, as StateBadge does.
 */
export function badgeMarkup(
  variant: BadgeVariant,
  text: string,
  options: { state?: string; testId?: string; title?: string } = {},
): string {
  const attributes = [
    `class='badge badge-${variant}'`,
    options.state === undefined ? "" : `data-state='${escapeHtml(options.state)}'`,
    options.testId === undefined ? "" : `data-testid='${escapeHtml(options.testId)}'`,
    options.title === undefined ? "" : `title='${escapeHtml(options.title)}'`,
  ].filter((attribute) => attribute !== "");
  const dot =
    options.state === undefined ? "" : "<span aria-hidden='true' class='badge-dot'></span>";
  return `<span ${attributes.join(" ")}>${dot}${escapeHtml(text)}</span>`;
}
