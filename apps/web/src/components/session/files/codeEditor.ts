import { LanguageDescription, HighlightStyle, syntaxHighlighting } from "@codemirror/language";
import { Compartment, EditorState } from "@codemirror/state";
import { EditorView } from "@codemirror/view";
import { tags } from "@lezer/highlight";
import { basicSetup } from "codemirror";

// Loaded only in the browser, and only once a file is opened (see fileView.tsx): CodeMirror
// needs `window`, and most pages never open an editor.

/** The theme's own variables, so the editor follows light and dark with the rest of the page. */
const themeColours = EditorView.theme({
  "&": {
    backgroundColor: "var(--card)",
    color: "var(--foreground)",
    fontSize: "0.8125rem",
    maxHeight: "32rem",
    border: "1px solid var(--border)",
    borderRadius: "calc(var(--radius) - 2px)",
  },
  "&.cm-focused": { outline: "2px solid var(--ring)", outlineOffset: "1px" },
  ".cm-scroller": { fontFamily: "var(--font-mono)", overflow: "auto" },
  ".cm-content": { caretColor: "var(--foreground)" },
  ".cm-cursor, .cm-dropCursor": { borderLeftColor: "var(--foreground)" },
  ".cm-gutters": {
    backgroundColor: "var(--muted)",
    color: "var(--muted-foreground)",
    borderRight: "1px solid var(--border)",
  },
  ".cm-activeLine": { backgroundColor: "color-mix(in oklch, var(--accent) 55%, transparent)" },
  ".cm-activeLineGutter": { backgroundColor: "var(--accent)", color: "var(--accent-foreground)" },
  "&.cm-focused > .cm-scroller > .cm-selectionLayer .cm-selectionBackground, .cm-selectionBackground, ::selection":
    { backgroundColor: "color-mix(in oklch, var(--primary) 28%, transparent)" },
  ".cm-panels": { backgroundColor: "var(--muted)", color: "var(--foreground)" },
  ".cm-tooltip": {
    backgroundColor: "var(--card)",
    color: "var(--foreground)",
    border: "1px solid var(--border)",
  },
});

const syntaxColours = HighlightStyle.define([
  { tag: [tags.keyword, tags.operatorKeyword, tags.modifier], color: "var(--primary)" },
  { tag: [tags.string, tags.special(tags.string), tags.regexp], color: "var(--success)" },
  {
    tag: [tags.number, tags.bool, tags.atom, tags.null, tags.constant(tags.name)],
    color: "var(--warning)",
  },
  { tag: [tags.comment, tags.meta], color: "var(--muted-foreground)", fontStyle: "italic" },
  {
    tag: [tags.typeName, tags.className, tags.namespace, tags.tagName],
    color: "var(--primary)",
    fontWeight: "600",
  },
  {
    tag: [tags.function(tags.variableName), tags.definition(tags.variableName)],
    fontWeight: "600",
  },
  { tag: [tags.propertyName, tags.attributeName], color: "var(--accent-foreground)" },
  { tag: tags.heading, fontWeight: "700" },
  { tag: tags.emphasis, fontStyle: "italic" },
  { tag: tags.strong, fontWeight: "700" },
  { tag: tags.link, textDecoration: "underline" },
  { tag: tags.invalid, color: "var(--destructive)" },
]);

export interface CodeEditor {
  text(): string;
  setText(text: string): void;
  setEditable(editable: boolean): void;
  focus(): void;
  destroy(): void;
}

/** An editor of one file, read-only until `setEditable(true)`, highlighted by its name. */
export function createCodeEditor(
  parent: HTMLElement,
  { text, fileName, label }: { text: string; fileName: string; label: string },
): CodeEditor {
  const language = new Compartment();
  const editability = new Compartment();
  const editableExtensions = (editable: boolean) => [
    EditorView.editable.of(editable),
    EditorState.readOnly.of(!editable),
  ];
  const view = new EditorView({
    parent,
    state: EditorState.create({
      doc: text,
      extensions: [
        basicSetup,
        themeColours,
        syntaxHighlighting(syntaxColours),
        EditorView.contentAttributes.of({ "aria-label": label }),
        language.of([]),
        editability.of(editableExtensions(false)),
      ],
    }),
  });
  let destroyed = false;

  void loadLanguage(fileName).then((support) => {
    if (support !== undefined && !destroyed)
      view.dispatch({ effects: language.reconfigure(support) });
  });

  return {
    text: () => view.state.doc.toString(),
    setText(next) {
      if (view.state.doc.toString() === next) return;
      view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: next } });
    },
    setEditable(editable) {
      view.dispatch({ effects: editability.reconfigure(editableExtensions(editable)) });
    },
    focus: () => view.focus(),
    destroy() {
      destroyed = true;
      view.destroy();
    },
  };
}

/** A file's language by its name; each language's parser is fetched only when first needed. */
async function loadLanguage(fileName: string) {
  const { languages } = await import("@codemirror/language-data");
  const description = LanguageDescription.matchFilename(languages, fileName);
  if (description === null) return undefined;
  try {
    return await description.load();
  } catch {
    // Without its parser the file still reads fine, only unhighlighted.
    return undefined;
  }
}
