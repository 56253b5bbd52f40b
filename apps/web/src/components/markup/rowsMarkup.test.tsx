import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { rowsMarkup, type OverviewRow } from "../dashboard/sessionRowsMarkup.ts";
import { machineRowsMarkup, type MachineView } from "../session/machineRowsMarkup.ts";
import { StateBadge } from "../stateBadge.tsx";
import { boxStates, stateVariant } from "../stateVariant.ts";
import escapeHtml from "escape-html";
import { SIMULATED_CLUSTER_TITLE, UNISOLATED_TITLE } from "../session/isolationMarkup.ts";
import { badgeMarkup } from "./badgeMarkup.ts";

const hostile = `<img src=x onerror="alert(1)">' onmouseover='alert(2)`;

function machine(overrides: Partial<MachineView> = {}): MachineView {
  return {
    sandboxId: "0b4c6f0e-6d0f-4a53-9d53-2f1f6f1f6f1f",
    sessionId: "5a1e2c3d-0000-4000-8000-000000000001",
    backend: "local",
    name: "group box",
    kind: "group",
    state: "warm",
    active: true,
    isSessionGroup: true,
    instanceId: "box-1",
    leaseEpoch: 3,
    workspaceGeneration: 2,
    archiveGeneration: 1,
    archiveComplete: false,
    holders: { turn: 0, viewer: 1, direct: 0, process: 2 },
    os: null,
    arch: null,
    hasDisplay: false,
    confinement: {
      isolation: "bubblewrap",
      network: "egress",
      limits: { processes: null, memoryBytes: null, cpuWeight: null, diskBytes: null },
    },
    lastSeenAt: new Date("2030-01-02T03:04:05Z"),
    ...overrides,
  };
}

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

  it("escape every value a machine's owner chose: its name and instance become text", () => {
    const html = machineRowsMarkup([
      machine({ name: hostile, instanceId: hostile, kind: "selfhosted", os: hostile }),
    ]);
    expect(html).not.toContain("<img");
    expect(html).not.toMatch(/' on\w+=/);
    expect(html).toContain("&lt;img src=x onerror=&quot;alert(1)&quot;&gt;&#39; onmouseover=&#39;");
  });

  it("carry every MachineView field the table shows, with the test ids the pages are checked by", () => {
    const html = machineRowsMarkup([machine()]);
    expect(html).toContain("data-testid='machine-0b4c6f0e-6d0f-4a53-9d53-2f1f6f1f6f1f'");
    expect(html).toContain(
      "data-testid='machine-generations' class='font-mono text-xs tabular-nums'>2 / 1<",
    );
    expect(html).toContain("data-testid='archive-complete'");
    expect(html).toContain(">archive behind<");
    expect(html).toContain(">viewer 1, process 2<");
    expect(html).toContain(">2030-01-02 03:04 UTC<");
    expect(machineRowsMarkup([machine({ archiveComplete: true })])).toContain(">archiveComplete<");
  });

  it("show the box's isolation over its network and limits, an unisolated box with a warning badge", () => {
    const cell = (overrides: Partial<MachineView>) =>
      /<td data-testid='machine-isolation'>(.*?)<\/td>/.exec(
        machineRowsMarkup([machine(overrides)]),
      )?.[1];

    const isolated = cell({});
    expect(isolated).toContain("class='badge badge-outline'");
    expect(isolated).toContain(">bubblewrap<");
    expect(isolated).toContain(">network egress<");
    expect(isolated).toContain(">no limits<");
    expect(isolated).not.toContain("badge-warning");

    const unisolated = cell({
      confinement: {
        isolation: "none",
        network: "host",
        limits: { processes: 512, memoryBytes: 2 * 1024 ** 3, cpuWeight: 100, diskBytes: null },
      },
    });
    expect(unisolated).toContain(
      `<span class='badge badge-warning' title='${escapeHtml(UNISOLATED_TITLE)}'>unisolated</span>`,
    );
    expect(unisolated).toContain(">network host<");
    expect(unisolated).toContain(">procs 512 · mem 2.0 GiB · cpu 100<");
    // A kube-sim box: unisolated for good (a host process), never said to be replaced.
    const simulated = cell({
      backend: "kubernetes",
      confinement: {
        isolation: "none",
        network: "host",
        limits: { processes: null, memoryBytes: null, cpuWeight: null, diskBytes: null },
      },
    });
    expect(simulated).toContain(`title='${escapeHtml(SIMULATED_CLUSTER_TITLE)}'>unisolated<`);

    // A box recorded before Berth recorded isolation; no box; an enrolled machine.
    expect(cell({ confinement: null })).toContain(">unknown<");
    expect(cell({ confinement: null, instanceId: null, state: "cold" })).toBe("—");
    expect(cell({ confinement: null, instanceId: null, kind: "selfhosted" })).toBe("—");
  });

  it("escape a session's title in the overview, in its text and in the attribute the filter reads", () => {
    const row: OverviewRow = ["id-1", hostile, "cold", "—", null, "local", "2030-01-01 00:00 UTC"];
    const html = rowsMarkup([row], "ws-1");
    expect(html).not.toContain("<img");
    expect(html).not.toMatch(/' on\w+=/);
    expect(html).toContain("data-search='&lt;img src=x onerror=&quot;alert(1)&quot;&gt;&#39;");
  });
});
