import {
  Card,
  CardAction,
  CardContent,
  CardDescription,
  CardHeader,
  CardTitle,
} from "@berth/ui/card";
import type { ReactNode } from "react";

/**
 * A region of the page, drawn as a card, whose heading is also its accessible name; `action`
 * sits at the header's right (counts, a button), `description` under the title.
 */
export function Section({
  title,
  description,
  action,
  children,
}: {
  title: string;
  description?: ReactNode;
  action?: ReactNode;
  children: ReactNode;
}) {
  return (
    <section aria-label={title}>
      <Card>
        <CardHeader>
          <CardTitle asChild>
            <h2>{title}</h2>
          </CardTitle>
          {description === undefined ? null : <CardDescription>{description}</CardDescription>}
          {action === undefined ? null : <CardAction>{action}</CardAction>}
        </CardHeader>
        <CardContent className="flex flex-col gap-4">{children}</CardContent>
      </Card>
    </section>
  );
}
