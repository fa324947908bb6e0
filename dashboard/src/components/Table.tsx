import type { ReactNode } from 'react';

/**
 * An accessible table's frame: scrollable and focusable, its caption, its column headers, and one
 * row saying it has nothing when `empty` is a text (the caller says when: loading is not empty).
 */
export function Table(props: {
  caption: string;
  /** The table's own class (its columns' widths). */
  className?: string;
  headers: readonly ReactNode[];
  empty?: string | false | undefined;
  busy?: boolean;
  children?: ReactNode;
}) {
  return (
    <div className="table-wrap" tabIndex={0}>
      <table className={props.className}>
        <caption>{props.caption}</caption>
        <thead>
          <tr>
            {props.headers.map((header, i) => (
              <th key={i} scope="col">
                {header}
              </th>
            ))}
          </tr>
        </thead>
        <tbody aria-busy={props.busy ? true : undefined}>
          {typeof props.empty === 'string' ? (
            <tr>
              <td colSpan={props.headers.length} className="empty">
                {props.empty}
              </td>
            </tr>
          ) : (
            props.children
          )}
        </tbody>
      </table>
    </div>
  );
}
