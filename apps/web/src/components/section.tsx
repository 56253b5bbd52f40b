import type { ReactNode } from "react";

/** A region of the page whose heading is also its accessible name. */
export function Section({ title, children }: { title: string; children: ReactNode }) {
  return (
    <section aria-label={title}>
      <h2>{title}</h2>
      {children}
    </section>
  );
}
