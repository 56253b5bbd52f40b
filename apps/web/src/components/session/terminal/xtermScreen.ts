import type { FitAddon } from "@xterm/addon-fit";
import type { Terminal } from "@xterm/xterm";
import { terminalFont, terminalTheme, watchColorScheme } from "./terminalTheme.ts";

export interface ScreenEvents {
  /** Keystrokes (and pastes) as the terminal encodes them for a shell. */
  readonly keys: (data: string) => void;
  /** The size the screen fits into its container, whenever that changes. */
  readonly resized: (cols: number, rows: number) => void;
}

/**
 * An xterm.js screen for one remote terminal. Output may arrive before xterm is loaded (it is
 * imported on first use, in the browser only): it waits here and is drawn once the screen is
 * shown. The screen follows its container's size, and the theme when light/dark switches.
 */
export class XtermScreen {
  readonly #events: ScreenEvents;
  #pending: string[] = [];
  #terminal: Terminal | undefined;
  /** Set once the terminal has been fitted to a shown container: output is drawn from then. */
  #drawing = false;
  #focusOnOpen = false;

  constructor(events: ScreenEvents) {
    this.#events = events;
  }

  write(data: string): void {
    if (this.#terminal !== undefined && this.#drawing) this.#terminal.write(data);
    else this.#pending.push(data);
  }

  /** A line of Berth's own, set apart from the shell's output. */
  note(text: string): void {
    this.write(`\r\n\u001b[2m[berth] ${text}\u001b[0m\r\n`);
  }

  /** Takes the keyboard now, or as soon as xterm is loaded. */
  focus(): void {
    if (this.#terminal === undefined) this.#focusOnOpen = true;
    else this.#terminal.focus();
  }

  /** Draws into `container`; the returned function takes the screen down again. */
  show(container: HTMLElement): () => void {
    let stopped = false;
    let stop = () => {
      stopped = true;
    };
    void Promise.all([import("@xterm/xterm"), import("@xterm/addon-fit")]).then(
      ([{ Terminal }, { FitAddon }]) => {
        if (stopped) return;
        stop = this.#open(container, new Terminal(this.#options(container)), new FitAddon());
      },
    );
    return () => {
      stop();
    };
  }

  #options(container: HTMLElement) {
    return {
      theme: terminalTheme(container),
      fontFamily: terminalFont(container),
      fontSize: 13,
      // The ANSI palette is made for dark backgrounds: keep its colours readable on light ones.
      minimumContrastRatio: 4.5,
      scrollback: 5000,
      cursorBlink: true,
    };
  }

  #open(container: HTMLElement, terminal: Terminal, fit: FitAddon): () => void {
    terminal.loadAddon(fit);
    terminal.open(container);
    this.#terminal = terminal;
    const typed = terminal.onData((data) => {
      this.#events.keys(data);
    });
    const resized = terminal.onResize(({ cols, rows }) => {
      this.#events.resized(cols, rows);
    });
    // A hidden panel (another terminal's tab is shown) measures nothing and fit leaves the size
    // alone; shown again, it refits. Output waits for the first real fit: a backlog replayed
    // into xterm's default 80 columns puts a prompt's cursor moves in the wrong places.
    const refit = () => {
      const size = fit.proposeDimensions();
      if (size === undefined || Number.isNaN(size.cols) || Number.isNaN(size.rows)) return;
      fit.fit();
      if (this.#drawing) return;
      this.#drawing = true;
      for (const data of this.#pending) terminal.write(data);
      this.#pending = [];
      // The remote terminal may have another size (a reattach keeps the size it had).
      this.#events.resized(terminal.cols, terminal.rows);
    };
    const observer = new ResizeObserver(refit);
    observer.observe(container);
    // xterm measures its font only once shown (on its own intersection observer, made before
    // this one, so it has measured when this one calls).
    const shown = new IntersectionObserver(refit);
    shown.observe(container);
    refit();
    if (this.#focusOnOpen) terminal.focus();
    this.#focusOnOpen = false;
    const unwatch = watchColorScheme(() => {
      terminal.options.theme = terminalTheme(container);
    });
    return () => {
      unwatch();
      observer.disconnect();
      shown.disconnect();
      typed.dispose();
      resized.dispose();
      this.#terminal = undefined;
      this.#drawing = false;
      terminal.dispose();
    };
  }
}
