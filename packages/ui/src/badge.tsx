import { Slot } from "@radix-ui/react-slot";
import type { ComponentProps } from "react";
import { cn } from "./cn.ts";

export type BadgeVariant =
  "default" | "secondary" | "muted" | "outline" | "success" | "warning" | "destructive";

export type BadgeProps = ComponentProps<"span"> & { variant?: BadgeVariant; asChild?: boolean };

/** A short status word or count (styled by `.badge` in the kit's stylesheet). */
export function Badge({ className, variant = "default", asChild = false, ...props }: BadgeProps) {
  const Element = asChild ? Slot : "span";
  return <Element className={cn("badge", `badge-${variant}`, className)} {...props} />;
}
