// The portal's tables in one shape: a column is its head and what a row shows under it, so a page says
// which columns it shows and the table draws the heads, the rows and, with nothing to list, the empty notice.
// A list of cards is drawn the same way from the query that reads it: each item, or the empty notice.
import { useQuery, type QueryKey } from '@tanstack/react-query';
import { Fragment, type ReactNode } from 'react';
import { ColumnHeads, Empty, Loaded } from './ui';

/** One column: its head (false or null where it is left out for this reader) and a row's cell under it. */
export type Column<R> = Readonly<{
  head: string | false | null;
  cell: (row: R) => ReactNode;
  /** The cell names its row (a row header, read out with each of the row's other cells). */
  names?: boolean;
  className?: string;
}>;

export function Table<R>({
  rows,
  columns,
  rowKey,
  empty,
  className,
  caption,
  rowClass,
}: {
  rows: readonly R[];
  columns: ReadonlyArray<Column<R>>;
  rowKey: (row: R, index: number) => string | number;
  /** What an empty list says; without it, an empty list is an empty table. */
  empty?: ReactNode;
  className?: string;
  caption?: string;
  rowClass?: (row: R) => string | undefined;
}) {
  if (empty !== undefined && rows.length === 0) return <Empty>{empty}</Empty>;
  const shown = columns.filter((column) => column.head);
  return (
    <table className={className}>
      {caption ? <caption className="muted">{caption}</caption> : null}
      <ColumnHeads columns={shown.map((column) => column.head)} />
      <tbody>
        {rows.map((row, index) => (
          <tr key={rowKey(row, index)} className={rowClass?.(row)}>
            {shown.map((column) =>
              column.names ? (
                <th key={String(column.head)} scope="row" className={column.className}>
                  {column.cell(row)}
                </th>
              ) : (
                <td key={String(column.head)} className={column.className}>
                  {column.cell(row)}
                </td>
              ),
            )}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/**
 * A list of cards (each its own list item) read by one query: its loading or failure notice, then each item,
 * or what an empty list says.
 */
export function List<R>({
  read,
  itemKey,
  empty,
  className,
  children,
}: {
  read: Readonly<{ queryKey: QueryKey; queryFn: () => Promise<readonly R[]> }>;
  itemKey: (item: R) => string | number;
  empty: ReactNode;
  className?: string;
  children: (item: R) => ReactNode;
}) {
  const query = useQuery(read);
  return (
    <Loaded query={query}>
      {(items) =>
        items.length === 0 ? (
          <Empty>{empty}</Empty>
        ) : (
          <ul className={className}>
            {items.map((item) => (
              <Fragment key={itemKey(item)}>{children(item)}</Fragment>
            ))}
          </ul>
        )
      }
    </Loaded>
  );
}
