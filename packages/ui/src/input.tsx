import type { ComponentProps } from "react";
import { cn } from "./cn.ts";

/** Shared by the text field and the select, so both line up in a form row. */
export const fieldClasses = [
  "h-9 w-full min-w-0 rounded-md border border-input bg-card px-3 text-sm shadow-xs transition-colors",
  "outline-none placeholder:text-muted-foreground focus-visible:border-ring focus-visible:ring-2 focus-visible:ring-ring/40",
  "disabled:cursor-not-allowed disabled:opacity-50 aria-invalid:border-destructive",
].join(" ");

export function Input({ className, type = "text", ...props }: ComponentProps<"input">) {
  return <input data-slot="input" type={type} className={cn(fieldClasses, className)} {...props} />;
}
