import { cn } from "@berth/ui/cn";
import type { ComponentProps } from "react";

/** The page's content column under the top bar: `narrow` for a single form. */
export function PageMain({
  narrow = false,
  className,
  ...props
}: ComponentProps<"main"> & { narrow?: boolean }) {
  return (
    <main
      className={cn(
        "mx-auto flex w-full flex-col gap-6 px-4 py-8 sm:px-6",
        narrow ? "max-w-md" : "max-w-7xl",
        className,
      )}
      {...props}
    />
  );
}
