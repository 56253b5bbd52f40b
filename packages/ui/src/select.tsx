import type { ComponentProps } from "react";
import { cn } from "./cn.ts";
import { fieldClasses } from "./input.tsx";

/**
 * The browser's own `<select>` (keyboard, screen readers and mobile pickers for free), dressed
 * like the text field with a drawn chevron in place of the platform arrow.
 */
export function Select({ className, ...props }: ComponentProps<"select">) {
  return (
    <span data-slot="select" className="relative inline-flex w-full min-w-0">
      <select
        className={cn(fieldClasses, "cursor-pointer appearance-none pr-8", className)}
        {...props}
      />
      <svg
        aria-hidden="true"
        viewBox="0 0 16 16"
        className="pointer-events-none absolute top-1/2 right-2.5 size-4 -translate-y-1/2 text-muted-foreground"
      >
        <path
          d="m4 6 4 4 4-4"
          fill="none"
          stroke="currentColor"
          strokeWidth="1.5"
          strokeLinecap="round"
          strokeLinejoin="round"
        />
      </svg>
    </span>
  );
}
