import type { ReactNode } from "react";
import { ErrorAlert } from "./errorAlert.tsx";

/**
 * A list query as a table: a loading line while it runs, its failure, then a row per item, or
 * the `empty` note when there are none (without one, an empty list is a table with no rows).
 * A column given as `false` is left out; `row` renders one `<tr>` with its key.
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
  empty?: string;
  caption?: string;
  columns: readonly (string | false)[];
  row: (item: T) => ReactNode;
}) {
  const items = query.data;
  return (
    <>
      {query.isPending ? <p aria-busy="true">{loading}</p> : null}
      <ErrorAlert error={query.error} prefix={failure} />
      {items === undefined ? null : items.length === 0 && empty !== undefined ? (
        <p className="note">{empty}</p>
      ) : (
        <table>
          {caption === undefined ? null : <caption>{caption}</caption>}
          <thead>
            <tr>
              {columns
                .filter((column) => column !== false)
                .map((column) => (
                  <th key={column} scope="col">
                    {column}
                  </th>
                ))}
            </tr>
          </thead>
          <tbody>{items.map((item) => row(item))}</tbody>
        </table>
      )}
    </>
  );
}
