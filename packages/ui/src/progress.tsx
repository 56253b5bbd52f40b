import type { ComponentProps } from "react";
import { cn } from "./cn.ts";

/**
 * How much of something is done, as a bar. `value` is a percentage; `null` means the total is
 * unknown, so the bar says "in progress" without a number (no `aria-valuenow`). Name it with
 * `aria-label` or `aria-labelledby`.
 */
export function Progress({
  value,
  className,
  ...props
}: Omit<ComponentProps<"div">, "role" | "children"> & { value: number | null }) {
  const clamped = value === null ? null : Math.min(100, Math.max(0, Math.round(value)));
  return (
    <div
      data-slot="progress"
      role="progressbar"
      aria-valuemin={0}
      aria-valuemax={100}
      aria-valuenow={clamped ?? undefined}
      className={cn("relative h-2 w-full overflow-hidden rounded-full bg-muted", className)}
      {...props}
    >
      <div
        className={cn(
          "h-full bg-primary transition-[width] motion-reduce:transition-none",
          clamped === null && "w-1/3 motion-safe:animate-pulse",
        )}
        style={clamped === null ? undefined : { width: `${String(clamped)}%` }}
      />
    </div>
  );
}
