import type { ComponentProps } from "react";
import { cn } from "./cn.ts";

/**
 * A grey placeholder the shape of content still loading. Hidden from screen readers: the
 * region that holds it says what is loading (`aria-busy` and a text).
 */
export function Skeleton({ className, ...props }: ComponentProps<"div">) {
  return (
    <div
      data-slot="skeleton"
      aria-hidden="true"
      className={cn("animate-pulse rounded-md bg-muted motion-reduce:animate-none", className)}
      {...props}
    />
  );
}
