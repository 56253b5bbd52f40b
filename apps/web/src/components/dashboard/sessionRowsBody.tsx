"use client";

import { useMemo } from "react";
import { MarkupBody } from "../markup/markupBody.tsx";
import { rowsMarkup, type OverviewRow } from "./sessionRowsMarkup.ts";

/**
 * The overview's rows as one string of markup, written by the server's render and rebuilt from
 * the same compact rows in the browser, so hydration never builds a thousand rows as elements
 * and the page's data carries each row once, as a short tuple, not a second copy of its markup.
 */
export function SessionRowsBody({
  rows,
  workspaceId,
}: {
  rows: readonly OverviewRow[];
  workspaceId: string;
}) {
  const html = useMemo(() => rowsMarkup(rows, workspaceId), [rows, workspaceId]);
  return <MarkupBody html={html} />;
}
