import { useId, type ReactNode } from 'react';

/** A region of a screen named by its heading (h2, or h3 inside another section). */
export function Section(props: {
  title: ReactNode;
  level?: 2 | 3;
  className?: string;
  /** The section's own address (`/team#alerts`). */
  anchor?: string;
  children: ReactNode;
}) {
  const id = useId();
  const Heading = props.level === 3 ? 'h3' : 'h2';
  return (
    <section aria-labelledby={id} className={props.className} id={props.anchor}>
      <Heading id={id}>{props.title}</Heading>
      {props.children}
    </section>
  );
}
