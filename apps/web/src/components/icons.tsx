import type { ComponentProps } from "react";

/**
 * The few line icons the dashboard draws, inline so nothing is fetched. Decorative: each sits
 * beside text that says the same, so all are hidden from screen readers.
 */
function Icon({ children, ...props }: ComponentProps<"svg">) {
  return (
    <svg
      aria-hidden="true"
      viewBox="0 0 24 24"
      fill="none"
      stroke="currentColor"
      strokeWidth={2}
      strokeLinecap="round"
      strokeLinejoin="round"
      width={16}
      height={16}
      {...props}
    >
      {children}
    </svg>
  );
}

/** A circle with an exclamation mark: something failed. */
export function AlertIcon(props: ComponentProps<"svg">) {
  return (
    <Icon {...props}>
      <circle cx="12" cy="12" r="9" />
      <path d="M12 7.5v5.5M12 16.5h.01" />
    </Icon>
  );
}

/** An open tray: nothing here yet. */
export function EmptyIcon(props: ComponentProps<"svg">) {
  return (
    <Icon {...props}>
      <path d="M3 13h5l1.5 2.5h5L16 13h5" />
      <path d="M5.5 6.5 3 13v5a1.5 1.5 0 0 0 1.5 1.5h15A1.5 1.5 0 0 0 21 18v-5l-2.5-6.5A1.5 1.5 0 0 0 17.1 5.5H6.9a1.5 1.5 0 0 0-1.4 1Z" />
    </Icon>
  );
}

/** A mooring post with its rope: Berth's mark in the top bar. */
export function BerthMark(props: ComponentProps<"svg">) {
  return (
    <Icon {...props}>
      <path d="M8 4h8M9 4v16M15 4v16M6 20h12" />
      <path d="M9 10c2 1.5 4 1.5 6 0" />
    </Icon>
  );
}
