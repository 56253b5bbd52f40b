import type { ComponentProps } from "react";
import { cn } from "./cn.ts";

/**
 * A form label. Wrapping its control (`<Label>Email <Input /></Label>`) names the control
 * without ids; the text sits above the control.
 */
export function Label({ className, ...props }: ComponentProps<"label">) {
  return (
    <label
      data-slot="label"
      className={cn(
        "flex flex-col gap-1.5 text-sm leading-none font-medium select-none has-[:disabled]:opacity-60",
        className,
      )}
      {...props}
    />
  );
}
