/**
 * Where a call ran (issue 41): the session's group box, named by its sandbox group, or an
 * enrolled machine. Every write's answer carries it, so a write is never retried blind: it
 * says where it landed, whichever way the pointer moved after.
 */
export interface RoutedTo {
  readonly kind: "group" | "machine";
  readonly id: string;
}
