import { Table, TableBody, TableCaption, TableHead, TableHeader, TableRow } from "@berth/ui/table";
import type { ReactNode } from "react";
import { type Empty, EmptyState } from "./emptyState.tsx";
import { ErrorAlert } from "./errorAlert.tsx";
import { LoadingRows } from "./loadingRows.tsx";

/**
 * A list query as a table: skeleton rows while it runs, its failure, then a row per item, or
 * the `empty` panel when there are none (without one, an empty list is a table with no rows).
 * A column given as `false` is left out; `row` renders one `<TableRow>` with its key.
 */
export function QueryTable<T>({
  query,
  loading,
  failure,
  empty,
  caption,
  columns,
  row,
}: {
  query: { isPending: boolean; error: unknown; data: readonly T[] | undefined };
  loading: string;
  failure: string;
  empty?: Empty;
  caption?: string;
  columns: readonly (string | false)[];
  row: (item: T) => ReactNode;
}) {
  const items = query.data;
  const shown = columns.filter((column) => column !== false);
  return (
    <>
      {query.isPending ? <LoadingRows label={loading} columns={shown.length} /> : null}
      <ErrorAlert error={query.error} prefix={failure} />
      {items === undefined ? null : items.length === 0 && empty !== undefined ? (
        <EmptyState {...empty} />
      ) : (
        <Table>
          {caption === undefined ? null : <TableCaption>{caption}</TableCaption>}
          <TableHeader>
            <TableRow className="hover:bg-transparent">
              {shown.map((column, i) => (
                // An unnamed column (row actions) still needs a key of its own.
                <TableHead key={column === "" ? `column-${String(i)}` : column} scope="col">
                  {column === "" ? <span className="sr-only">Actions</span> : column}
                </TableHead>
              ))}
            </TableRow>
          </TableHeader>
          <TableBody>{items.map((item) => row(item))}</TableBody>
        </Table>
      )}
    </>
  );
}
