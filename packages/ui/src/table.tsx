import type { ComponentProps } from "react";
import { cn } from "./cn.ts";

/**
 * A dense data table. It scrolls inside its own frame (both ways, up to `maxHeight`), so the
 * header row stays in view over long lists and wide tables never widen the page.
 */
export function Table({
  className,
  frameClassName,
  ...props
}: ComponentProps<"table"> & { frameClassName?: string }) {
  return (
    <div
      data-slot="table-frame"
      className={cn(
        "relative max-h-[36rem] w-full overflow-auto rounded-lg border border-border",
        frameClassName,
      )}
    >
      <table
        data-slot="table"
        className={cn("w-full caption-top border-separate border-spacing-0 text-sm", className)}
        {...props}
      />
    </div>
  );
}

export function TableHeader({ className, ...props }: ComponentProps<"thead">) {
  return <thead data-slot="table-header" className={cn(className)} {...props} />;
}

export function TableBody({ className, ...props }: ComponentProps<"tbody">) {
  return (
    <tbody
      data-slot="table-body"
      className={cn("[&_tr:last-child>*]:border-b-0", className)}
      {...props}
    />
  );
}

export function TableRow({ className, ...props }: ComponentProps<"tr">) {
  return (
    <tr
      data-slot="table-row"
      className={cn("transition-colors hover:bg-muted/50", className)}
      {...props}
    />
  );
}

/**
 * A column heading: sticky, on an opaque background so rows slide under it. A long heading wraps
 * rather than widening a dense table.
 */
export function TableHead({ className, ...props }: ComponentProps<"th">) {
  return (
    <th
      data-slot="table-head"
      className={cn(
        "sticky top-0 z-10 border-b border-border bg-muted px-3 py-2 text-left align-bottom text-xs font-medium text-muted-foreground",
        className,
      )}
      {...props}
    />
  );
}

export function TableCell({ className, ...props }: ComponentProps<"td">) {
  return (
    <td
      data-slot="table-cell"
      className={cn("border-b border-border px-3 py-2 align-middle", className)}
      {...props}
    />
  );
}

/** A row's own heading cell (`<th scope="row">`), styled like a strong cell. */
export function TableRowHead({ className, ...props }: ComponentProps<"th">) {
  return (
    <th
      data-slot="table-row-head"
      scope="row"
      className={cn(
        "border-b border-border px-3 py-2 text-left align-middle font-medium whitespace-nowrap",
        className,
      )}
      {...props}
    />
  );
}

export function TableCaption({ className, ...props }: ComponentProps<"caption">) {
  return (
    <caption
      data-slot="table-caption"
      className={cn("px-3 py-2 text-left text-xs text-muted-foreground", className)}
      {...props}
    />
  );
}
