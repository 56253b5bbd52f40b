import { Alert, AlertDescription } from "@berth/ui/alert";

/** The link named a workspace the person is not in: the page shows `shown` instead. */
export function NotInLinkedWorkspace({ shown }: { readonly shown: string }) {
  return (
    <Alert role="status" variant="warning">
      <AlertDescription className="text-foreground">
        You are not a member of the workspace in the link; showing {shown} instead.
      </AlertDescription>
    </Alert>
  );
}
