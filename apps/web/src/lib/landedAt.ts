/** Where a call ran: the session's group box, or an enrolled machine it was swapped to. */
export interface RoutedTo {
  readonly kind: "group" | "machine";
  readonly id: string;
}

/** Where a write landed, for the note beside it (issue 41: a session may point at a machine). */
export function landedAt(result: {
  readonly generation: number | null;
  readonly routedTo: RoutedTo;
}): string {
  // A machine's writes advance no generation of the group box: the machine is what to name.
  if (result.routedTo.kind === "machine" || result.generation === null)
    return `on machine ${result.routedTo.id.slice(0, 8)}`;
  return `generation ${String(result.generation)}`;
}
