import type { ComponentProps } from "react";
import { cn } from "./cn.ts";

/**
 * A dense data table. It scrolls inside its own frame (both ways, up to `maxHeight`), so the
 * header row stays in view over long lists and wide tables never widen the page. Rows and cells
 * are styled from here, not one class list per cell, so a thousand-row table stays light to
 * send, parse and hydrate.
 */
export function Table({
  className,
  frameClassName,
  lazyColumns,
  style,
  ...props
}: ComponentProps<"table"> & {
  frameClassName?: string;
  /**
   * For long tables: a CSS grid column template (e.g. `2fr 8rem 1fr`) that lays the rows out
   * as grid rows whose off-screen ones the browser skips (`.table-lazy` in the kit's styles).
   */
  lazyColumns?: string;
}) {
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
        className={cn(
          "w-full caption-top border-separate border-spacing-0 text-sm",
          "[&_tbody_tr:hover]:bg-muted/50 [&_td]:border-b [&_td]:border-border [&_td]:px-3 [&_td]:py-2 [&_td]:align-middle",
          "[&_tbody_th]:border-b [&_tbody_th]:border-border [&_tbody_th]:px-3 [&_tbody_th]:py-2 [&_tbody_th]:text-left [&_tbody_th]:align-middle [&_tbody_th]:font-medium [&_tbody_th]:whitespace-nowrap",
          lazyColumns !== undefined && "table-lazy",
          className,
        )}
        style={
          lazyColumns === undefined
            ? style
            : { ...style, ["--table-columns" as string]: lazyColumns }
        }
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

export function TableRow(props: ComponentProps<"tr">) {
  return <tr {...props} />;
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

export function TableCell(props: ComponentProps<"td">) {
  return <td {...props} />;
}

/** A row's own heading cell (`<th scope="row">`), styled like a strong cell. */
export function TableRowHead(props: ComponentProps<"th">) {
  return <th scope="row" {...props} />;
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
