import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import type { OverviewRow } from "./overviewRow.ts";
import { SessionRow } from "./sessionRow.tsx";

const hostile = `<img src=x onerror="alert(1)">' onmouseover='alert(2)`;

const row = (overrides: Partial<OverviewRow> = {}): OverviewRow => ({
  id: "5a1e2c3d-0000-4000-8000-000000000001",
  title: "Idle session",
  state: "cold",
  generations: "—",
  archive: null,
  backend: "local",
  created: "2030-01-01 00:00 UTC",
  ...overrides,
});

const rendered = (overrides: Partial<OverviewRow> = {}) =>
  renderToStaticMarkup(
    <table>
      <tbody>
        <SessionRow row={row(overrides)} workspaceId="ws-1" />
      </tbody>
    </table>,
  );

describe("an overview row", () => {
  it("shows a hostile title as text, in a link to the session", () => {
    const html = rendered({ title: hostile });
    expect(html).not.toContain("<img");
    expect(html).not.toMatch(/' on\w+=/);
    expect(html).toContain(
      `<a href="/sessions/5a1e2c3d-0000-4000-8000-000000000001?workspace=ws-1">&lt;img src=x onerror=&quot;alert(1)&quot;&gt;&#x27; onmouseover=&#x27;alert(2)</a>`,
    );
  });

  it("names an untitled session, and shows the state and the archive as badges", () => {
    const html = rendered({ title: "", state: "warm", generations: "2 / 1", archive: "behind" });
    expect(html).toContain(">Untitled session</a>");
    expect(html).toContain(`class="badge badge-success" data-state="warm"`);
    expect(html).toContain("<td>2 / 1</td>");
    expect(html).toContain(`<span class="badge badge-warning">behind</span>`);
    expect(rendered({ archive: "complete" })).toContain(
      `<span class="badge badge-success">complete</span>`,
    );
    expect(rendered()).toContain("<td>—</td>");
  });
});
