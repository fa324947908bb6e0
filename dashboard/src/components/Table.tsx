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
  /**
   * The children are row groups (`<tbody>` each, headed by a `<th scope="rowgroup">`): a day's
   * movements, an operation's routes. Otherwise they are rows of the one body.
   */
  rowGroups?: boolean;
  children?: ReactNode;
}) {
  const busy = props.busy ? true : undefined;
  return (
    <div className="table-wrap" tabIndex={0}>
      <table className={props.className} aria-busy={props.rowGroups ? busy : undefined}>
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
        {typeof props.empty === 'string' ? (
          <tbody aria-busy={busy}>
            <tr>
              <td colSpan={props.headers.length} className="empty">
                {props.empty}
              </td>
            </tr>
          </tbody>
        ) : props.rowGroups ? (
          props.children
        ) : (
          <tbody aria-busy={busy}>{props.children}</tbody>
        )}
      </table>
    </div>
  );
}
