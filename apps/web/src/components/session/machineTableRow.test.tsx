import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { SIMULATED_CLUSTER_TITLE, UNISOLATED_TITLE } from "./isolationCell.tsx";
import { MachineTableRow } from "./machineTableRow.tsx";
import type { MachineView } from "./machineView.ts";

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

/** The row as the server renders it (in a table body, so the markup is valid). */
function row(overrides: Partial<MachineView> = {}): string {
  return renderToStaticMarkup(
    <table>
      <tbody>
        <MachineTableRow machine={machine(overrides)} />
      </tbody>
    </table>,
  );
}

/** The isolation cell's inside. */
function isolation(overrides: Partial<MachineView>): string | undefined {
  return /<td data-testid="machine-isolation">(.*?)<\/td>/.exec(row(overrides))?.[1];
}

describe("a session's machine row", () => {
  it("shows what a machine's owner chose as text, never as markup", () => {
    const html = row({ name: hostile, instanceId: hostile, kind: "selfhosted", os: hostile });
    expect(html).not.toContain("<img");
    expect(html).not.toMatch(/" on\w+=/);
    expect(html).toContain(
      "&lt;img src=x onerror=&quot;alert(1)&quot;&gt;&#x27; onmouseover=&#x27;",
    );
  });

  it("carries every field the table shows, with the test ids the pages are checked by", () => {
    const html = row();
    expect(html).toContain('data-testid="machine-0b4c6f0e-6d0f-4a53-9d53-2f1f6f1f6f1f"');
    expect(html).toMatch(/data-testid="machine-generations"[^>]*>2 \/ 1</);
    expect(html).toMatch(/data-testid="machine-state"[^>]*>.*warm</);
    expect(html).toContain(
      'data-testid="machine-backend" class="text-xs text-muted-foreground">local<',
    );
    expect(html).toMatch(/data-testid="archive-complete"[^>]*>archive behind</);
    expect(html).toContain(">viewer 1, process 2<");
    expect(html).toContain(">2030-01-02 03:04 UTC<");
    expect(row({ archiveComplete: true })).toMatch(
      /data-testid="archive-complete"[^>]*>archiveComplete</,
    );
    expect(row({ kind: "selfhosted", active: false })).toContain(
      'data-testid="machine-active">no<',
    );
  });

  it("shows the box's isolation over its network and limits, an unisolated box with a warning badge", () => {
    const isolated = isolation({});
    expect(isolated).toContain('class="badge badge-outline"');
    expect(isolated).toContain(">bubblewrap<");
    expect(isolated).toContain(">network egress<");
    expect(isolated).toContain(">no limits<");
    expect(isolated).not.toContain("badge-warning");

    const unisolated = isolation({
      confinement: {
        isolation: "none",
        network: "host",
        limits: { processes: 512, memoryBytes: 2 * 1024 ** 3, cpuWeight: 100, diskBytes: null },
      },
    });
    expect(unisolated).toContain(
      `class="badge badge-warning" title="${UNISOLATED_TITLE.replaceAll("'", "&#x27;")}">unisolated<`,
    );
    expect(unisolated).toContain(">network host<");
    expect(unisolated).toContain(">procs 512 · mem 2.0 GiB · cpu 100<");
    // A kube-sim box: unisolated for good (a host process), never said to be replaced.
    const simulated = isolation({
      backend: "kubernetes",
      confinement: {
        isolation: "none",
        network: "host",
        limits: { processes: null, memoryBytes: null, cpuWeight: null, diskBytes: null },
      },
    });
    expect(simulated).toContain(
      `title="${SIMULATED_CLUSTER_TITLE.replaceAll("'", "&#x27;")}">unisolated<`,
    );

    // A box recorded before Berth recorded isolation; no box; an enrolled machine.
    expect(isolation({ confinement: null })).toContain(">unknown<");
    expect(isolation({ confinement: null, instanceId: null, state: "cold" })).toBe("—");
    expect(isolation({ confinement: null, instanceId: null, kind: "selfhosted" })).toBe("—");
  });
});
