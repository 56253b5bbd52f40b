import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { StateBadge } from "./stateBadge.tsx";

const enrolledStates = ["online", "offline", "revoked"] as const;

describe("an enrolled machine's state badge", () => {
  it("names the state and tells the three apart by colour, not by text alone", () => {
    const badges = enrolledStates.map((state) =>
      renderToStaticMarkup(<StateBadge state={state} />),
    );
    const classes = badges.map((html) => /class="([^"]+)"/.exec(html)?.[1]);
    expect(classes).toEqual([
      "badge badge-success",
      "badge badge-muted",
      "badge badge-destructive",
    ]);
    for (const [i, state] of enrolledStates.entries()) {
      expect(badges[i]).toContain(`data-state="${state}"`);
      expect(badges[i]).toContain(`</span>${state}</span>`);
    }
  });
});
