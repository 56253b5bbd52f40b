import { Skeleton } from "@berth/ui/skeleton";

/**
 * A table's shape while its rows load: a header bar and `rows` lines of grey cells. The text
 * (`label`) is for screen readers; sighted people see the skeleton.
 */
export function LoadingRows({
  label,
  columns,
  rows = 3,
}: {
  label: string;
  columns: number;
  rows?: number;
}) {
  const cells = Array.from({ length: Math.max(columns, 1) }, (_, i) => i);
  return (
    <div aria-busy="true" className="overflow-hidden rounded-lg border border-border">
      <span className="sr-only">{label}</span>
      <div className="flex h-9 items-center gap-4 border-b border-border bg-muted px-3">
        {cells.map((cell) => (
          <Skeleton key={cell} className="h-2.5 flex-1 bg-border" />
        ))}
      </div>
      {Array.from({ length: rows }, (_, row) => (
        <div
          key={row}
          className="flex h-10 items-center gap-4 border-b border-border px-3 last:border-b-0"
        >
          {cells.map((cell) => (
            <Skeleton key={cell} className="h-3.5 flex-1" />
          ))}
        </div>
      ))}
    </div>
  );
}
