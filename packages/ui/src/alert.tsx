import { cva, type VariantProps } from "class-variance-authority";
import type { ComponentProps } from "react";
import { cn } from "./cn.ts";

export const alertVariants = cva(
  [
    "grid w-full grid-cols-1 gap-y-1 rounded-lg border px-4 py-3 text-sm",
    // With a leading icon: the icon spans both rows, the text flows into the second column.
    "has-[>svg]:grid-cols-[auto_1fr] has-[>svg]:gap-x-3 [&>svg]:row-span-2 [&>svg]:mt-0.5 [&>svg]:size-4",
  ],
  {
    variants: {
      variant: {
        default: "border-border bg-card text-card-foreground [&>svg]:text-muted-foreground",
        // An empty list: a quiet, dashed panel rather than a box that looks like a problem.
        empty:
          "border-dashed border-border bg-muted/40 text-foreground [&>svg]:text-muted-foreground",
        warning: "border-warning/40 bg-warning/10 text-foreground [&>svg]:text-warning",
        destructive:
          "border-destructive/40 bg-destructive/10 text-destructive [&_[data-slot=alert-description]]:text-destructive/90",
      },
    },
    defaultVariants: { variant: "default" },
  },
);

/**
 * A message panel: an optional leading icon, a title and a description of what to do next.
 * It has no role of its own: a failure passes `role="alert"` so it is announced; an empty
 * state is plain content.
 */
export function Alert({
  className,
  variant,
  ...props
}: ComponentProps<"div"> & VariantProps<typeof alertVariants>) {
  return <div data-slot="alert" className={cn(alertVariants({ variant }), className)} {...props} />;
}

export function AlertTitle({ className, ...props }: ComponentProps<"div">) {
  return (
    <div
      data-slot="alert-title"
      className={cn("leading-5 font-medium tracking-tight", className)}
      {...props}
    />
  );
}

export function AlertDescription({ className, ...props }: ComponentProps<"div">) {
  return (
    <div
      data-slot="alert-description"
      className={cn("text-sm text-muted-foreground [&_p]:leading-relaxed", className)}
      {...props}
    />
  );
}
