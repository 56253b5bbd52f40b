import type { SubmitEvent } from "react";

/**
 * A form's submit handler that keeps the page where it is and hands `handle` the submitted
 * fields and the form itself (to reset it once the call has succeeded, say).
 */
export function submitHandler(
  handle: (fields: FormData, form: HTMLFormElement) => void,
): (event: SubmitEvent<HTMLFormElement>) => void {
  return (event) => {
    event.preventDefault();
    const form = event.currentTarget;
    handle(new FormData(form), form);
  };
}
