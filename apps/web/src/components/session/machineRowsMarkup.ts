import type { AppRouter } from "@berth/api";
import type { inferRouterOutputs } from "@trpc/server";
import escapeHtml from "escape-html";
import { formatTime } from "../../lib/formatTime.ts";
import { badgeMarkup } from "../markup/badgeMarkup.ts";
import { stateVariant } from "../stateVariant.ts";
import { isolationCell } from "./isolationMarkup.ts";

export type MachineView = inferRouterOutputs<AppRouter>["machines"]["list"][number];

/** Whether a verified archive holds every admitted write, as the group box's badge says it. */
function archiveCell(machine: MachineView): string {
  // An enrolled machine's files are its owner's: Berth never archives them.
  if (machine.kind !== "group")
    return badgeMarkup("outline", "not archived", {
      title: "Berth never archives an enrolled machine's files",
    });
  return machine.archiveComplete
    ? badgeMarkup("success", "archiveComplete", {
        testId: "archive-complete",
        title: "A verified archive holds every admitted write",
      })
    : badgeMarkup("warning", "archive behind", {
        testId: "archive-complete",
        title: "Writes since the last archive would be lost with the box",
      });
}

function holders(machine: MachineView): string {
  const held = Object.entries(machine.holders)
    .filter(([, count]) => count > 0)
    .map(([kind, count]) => `${kind} ${String(count)}`);
  return held.length === 0 ? "none" : held.join(", ");
}

function platform(machine: MachineView): string {
  if (machine.os === null) return "—";
  return `${machine.os}/${machine.arch ?? "?"}${machine.hasDisplay ? " · display" : ""}`;
}

function rowMarkup(machine: MachineView): string {
  const instance = machine.instanceId;
  return (
    `<tr data-testid='machine-${escapeHtml(machine.sandboxId)}'>` +
    `<th scope='row' class='min-w-32 whitespace-normal'>${escapeHtml(machine.name)}</th>` +
    // The group box names its backend (a Kubernetes box is a Sandbox on the cluster).
    `<td>${machine.kind === "group" ? `group box <span data-testid='machine-backend' class='text-xs text-muted-foreground'>${escapeHtml(machine.backend ?? "")}</span>` : "self-hosted"}</td>` +
    `<td>${badgeMarkup(stateVariant(machine.state), machine.state, { state: machine.state, testId: "machine-state" })}</td>` +
    `<td>${machine.active ? "yes" : "no"}</td>` +
    isolationCell(machine) +
    // Long and only ever copied: cut short here, whole on hover and when copied.
    `<td class='max-w-32'><code class='block truncate text-xs text-muted-foreground'${instance === null ? "" : ` title='${escapeHtml(instance)}'`}>${escapeHtml(instance ?? "—")}</code></td>` +
    `<td class='tabular-nums'>${machine.leaseEpoch === null ? "—" : String(machine.leaseEpoch)}</td>` +
    `<td data-testid='machine-generations' class='font-mono text-xs tabular-nums'>${String(machine.workspaceGeneration)} / ${machine.archiveGeneration === null ? "—" : String(machine.archiveGeneration)}</td>` +
    `<td>${archiveCell(machine)}</td>` +
    `<td class='whitespace-nowrap'>${escapeHtml(holders(machine))}</td>` +
    `<td class='whitespace-nowrap'>${escapeHtml(platform(machine))}</td>` +
    `<td class='whitespace-nowrap text-muted-foreground'>${escapeHtml(formatTime(machine.lastSeenAt))}</td>` +
    `</tr>`
  );
}

/** Every machine's row as markup, each value escaped: what MachinesTable shows. */
export function machineRowsMarkup(machines: readonly MachineView[]): string {
  return machines.map(rowMarkup).join("");
}
