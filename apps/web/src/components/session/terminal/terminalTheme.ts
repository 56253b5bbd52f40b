import type { ITheme } from "@xterm/xterm";

/**
 * The terminal's colours from the page's design tokens, read where the terminal is drawn, so it
 * matches the card around it in light and dark. xterm reads any CSS colour (oklch included).
 */
export function terminalTheme(element: Element): ITheme {
  const style = getComputedStyle(element);
  const token = (name: string, fallback: string) => style.getPropertyValue(name).trim() || fallback;
  const background = token("--card", "#ffffff");
  return {
    background,
    foreground: token("--foreground", "#1f2328"),
    cursor: token("--primary", "#1f2328"),
    cursorAccent: background,
    selectionBackground: token("--accent", "#d0d7de"),
    selectionForeground: token("--accent-foreground", "#1f2328"),
  };
}

export function terminalFont(element: Element): string {
  return getComputedStyle(element).getPropertyValue("--font-mono").trim() || "monospace";
}

/** Calls `changed` whenever the system switches between light and dark; returns the stop. */
export function watchColorScheme(changed: () => void): () => void {
  const query = matchMedia("(prefers-color-scheme: dark)");
  query.addEventListener("change", changed);
  return () => {
    query.removeEventListener("change", changed);
  };
}
