/** An open terminal as this tab remembers it: the box's id and the number people see. */
export interface StoredTerminal {
  readonly id: string;
  readonly number: number;
}

const keyOf = (sessionId: string) => `berth.terminals.${sessionId}`;

function isStoredTerminal(value: unknown): value is StoredTerminal {
  if (typeof value !== "object" || value === null) return false;
  const { id, number } = value as Record<string, unknown>;
  return typeof id === "string" && id !== "" && typeof number === "number";
}

/**
 * The session's terminals this browser tab had open. Per tab (sessionStorage), so a reload
 * re-attaches them while another tab on the same session keeps its own set; anything
 * unreadable counts as none rather than breaking the panel.
 */
export function readStoredTerminals(sessionId: string): StoredTerminal[] {
  try {
    const parsed: unknown = JSON.parse(sessionStorage.getItem(keyOf(sessionId)) ?? "[]");
    return Array.isArray(parsed) ? parsed.filter(isStoredTerminal) : [];
  } catch {
    return [];
  }
}

export function writeStoredTerminals(sessionId: string, terminals: readonly StoredTerminal[]) {
  try {
    if (terminals.length === 0) sessionStorage.removeItem(keyOf(sessionId));
    else sessionStorage.setItem(keyOf(sessionId), JSON.stringify(terminals));
  } catch {
    // Storage full or denied (a private window): the terminals work, a reload forgets them.
  }
}
