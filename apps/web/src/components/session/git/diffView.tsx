import { parseDiff, type DiffLine } from "./parseDiff.ts";

const rowClasses: Record<DiffLine["kind"], string> = {
  added: "bg-success/15 text-foreground",
  removed: "bg-destructive/10 text-foreground",
  context: "text-foreground",
  hunk: "bg-muted text-muted-foreground",
  meta: "text-muted-foreground",
};

const markClasses: Record<DiffLine["kind"], string> = {
  added: "text-success",
  removed: "text-destructive",
  context: "",
  hunk: "",
  meta: "",
};

/**
 * A unified diff with its lines tinted by kind (the theme's success and destructive tints, so it
 * reads in light and dark) and old/new line numbers from the hunk headers. Screen readers get
 * each line's own +/- sign, which is kept in the text rather than drawn.
 */
export function DiffView({
  text,
  truncated,
  label,
}: {
  text: string;
  truncated: boolean;
  label: string;
}) {
  const lines = parseDiff(text);
  return (
    <figure className="flex flex-col gap-1">
      <figcaption className="text-xs font-medium text-muted-foreground">{label}</figcaption>
      <div className="overflow-x-auto rounded-md border border-border bg-card">
        <table className="w-full border-collapse font-mono text-xs leading-5" aria-label={label}>
          <tbody>
            {lines.map((line, index) => (
              <tr key={index} data-kind={line.kind} className={rowClasses[line.kind]}>
                <td className="w-10 border-r border-border px-2 text-right text-muted-foreground select-none">
                  {line.oldNumber ?? ""}
                </td>
                <td className="w-10 border-r border-border px-2 text-right text-muted-foreground select-none">
                  {line.newNumber ?? ""}
                </td>
                <td className="px-2 whitespace-pre">
                  {line.kind === "added" || line.kind === "removed" ? (
                    <>
                      <span className={markClasses[line.kind]}>{line.text.slice(0, 1)}</span>
                      {line.text.slice(1)}
                    </>
                  ) : (
                    line.text
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {truncated ? (
        <p className="text-xs text-muted-foreground">
          The diff is longer than the box sends at once; only its beginning is shown.
        </p>
      ) : null}
    </figure>
  );
}
