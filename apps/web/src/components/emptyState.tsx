import { Alert, AlertDescription, AlertTitle } from "@berth/ui/alert";
import type { ReactNode } from "react";
import { EmptyIcon } from "./icons.tsx";

/** What an empty list means, and what to do next. */
export interface Empty {
  title: string;
  next: ReactNode;
}

export function EmptyState({ title, next }: Empty) {
  return (
    <Alert variant="empty">
      <EmptyIcon />
      <AlertTitle>{title}</AlertTitle>
      <AlertDescription>{next}</AlertDescription>
    </Alert>
  );
}
