import { Badge, type BadgeVariant } from "@berth/ui/badge";
import type { RoutedTo } from "../../../lib/landedAt.ts";

/** Where one terminal's output stream stands, as the panel shows it. */
export type TerminalState =
  | { readonly kind: "connecting" }
  | { readonly kind: "live" }
  | { readonly kind: "exited"; readonly exitCode: number | null; readonly signal: number | null }
  /** An admin swapped the session elsewhere: the terminal was closed where it ran. */
  | { readonly kind: "moved"; readonly routedTo: RoutedTo }
  /** The stream dropped; the browser retries by itself, and Reconnect starts over at once. */
  | { readonly kind: "lost" }
  /** The API refused the stream: only Reconnect (or a new terminal) helps. */
  | { readonly kind: "failed" };

export function movedText(to: RoutedTo): string {
  return to.kind === "machine"
    ? `session moved to machine ${to.id.slice(0, 8)}`
    : "session moved back to its group box";
}

export function exitText(exitCode: number | null, signal: number | null): string {
  if (exitCode !== null) return `exited with code ${exitCode}`;
  return signal === null ? "exited" : `killed by signal ${signal}`;
}

function describe(state: TerminalState): { text: string; variant: BadgeVariant } {
  switch (state.kind) {
    case "connecting":
      return { text: "connecting…", variant: "outline" };
    case "live":
      return { text: "live", variant: "success" };
    case "exited":
      return { text: exitText(state.exitCode, state.signal), variant: "muted" };
    case "moved":
      return { text: movedText(state.routedTo), variant: "muted" };
    case "lost":
      return { text: "connection lost", variant: "warning" };
    case "failed":
      return { text: "not connected", variant: "destructive" };
  }
}

export function TerminalStateBadge({ state }: { state: TerminalState }) {
  const { text, variant } = describe(state);
  return (
    <Badge variant={variant} data-testid="terminal-state">
      {text}
    </Badge>
  );
}
