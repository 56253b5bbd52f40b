"use client";

import type { ReactNode } from "react";
import {
  AlertDialog,
  AlertDialogAction,
  AlertDialogCancel,
  AlertDialogContent,
  AlertDialogDescription,
  AlertDialogFooter,
  AlertDialogHeader,
  AlertDialogTitle,
  AlertDialogTrigger,
} from "@berth/ui/alert-dialog";
import { Button } from "@berth/ui/button";

/**
 * A destructive action behind a confirmation that says what it does. The dialog stays open
 * until the call answers (the caller closes it on success), so a refusal — shown in `error` —
 * is read where it was asked.
 */
export function ConfirmDestructive({
  open,
  onOpenChange,
  trigger,
  title,
  description,
  error,
  action,
  pending,
  onConfirm,
}: {
  readonly open: boolean;
  readonly onOpenChange: (open: boolean) => void;
  /** The button that opens it: its text, and an accessible name when the text is not enough. */
  readonly trigger: { readonly label: string; readonly ariaLabel?: string };
  readonly title: ReactNode;
  readonly description: ReactNode;
  readonly error: ReactNode;
  /** The confirming button's text, idle and while the call runs. */
  readonly action: { readonly label: string; readonly pendingLabel: string };
  readonly pending: boolean;
  readonly onConfirm: () => void;
}) {
  return (
    <AlertDialog open={open} onOpenChange={onOpenChange}>
      <AlertDialogTrigger asChild>
        <Button size="sm" variant="destructive-outline" aria-label={trigger.ariaLabel}>
          {trigger.label}
        </Button>
      </AlertDialogTrigger>
      <AlertDialogContent>
        <AlertDialogHeader>
          <AlertDialogTitle>{title}</AlertDialogTitle>
          <AlertDialogDescription>{description}</AlertDialogDescription>
        </AlertDialogHeader>
        {error}
        <AlertDialogFooter>
          <AlertDialogCancel>Cancel</AlertDialogCancel>
          <AlertDialogAction
            disabled={pending}
            onClick={(event) => {
              // Closed by the caller on success, not by Radix on the click.
              event.preventDefault();
              onConfirm();
            }}
          >
            {pending ? action.pendingLabel : action.label}
          </AlertDialogAction>
        </AlertDialogFooter>
      </AlertDialogContent>
    </AlertDialog>
  );
}
