import { TableBody } from "@berth/ui/table";

/**
 * A table's rows as one string of markup, every value escaped by the function that built it.
 * React neither builds nor hydrates the rows, and sets the markup again only when it changes.
 */
export function MarkupBody({ html }: { html: string }) {
  return <TableBody dangerouslySetInnerHTML={{ __html: html }} />;
}
