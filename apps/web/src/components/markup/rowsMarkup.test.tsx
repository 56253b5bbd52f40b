import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { rowsMarkup, type OverviewRow } from "../dashboard/sessionRowsMarkup.ts";
import { StateBadge } from "../stateBadge.tsx";
import { boxStates, stateVariant } from "../stateVariant.ts";
import { badgeMarkup } from "./badgeMarkup.ts";

const hostile = `<img src=x onerror="alert(1)">' onmouseover='alert(2)`;

/** Markup with its attribute quotes made React's, to compare the two writers. */
const sameQuotes = (html: string) => html.replaceAll("'", '"');

describe("rows written as markup", () => {
  it("draw a state badge exactly as StateBadge renders it", () => {
    for (const state of [...boxStates, "online", "offline"] as const) {
      expect(sameQuotes(badgeMarkup(stateVariant(state), state, { state }))).toBe(
        renderToStaticMarkup(<StateBadge state={state} />),
      );
    }
  });

  it("escape a session's title in the overview, in its text and in the attribute the filter reads", () => {
    const row: OverviewRow = ["id-1", hostile, "cold", "—", null, "local", "2030-01-01 00:00 UTC"];
    const html = rowsMarkup([row], "ws-1");
    expect(html).not.toContain("<img");
    expect(html).not.toMatch(/' on\w+=/);
    expect(html).toContain("data-search='&lt;img src=x onerror=&quot;alert(1)&quot;&gt;&#39;");
  });
});
