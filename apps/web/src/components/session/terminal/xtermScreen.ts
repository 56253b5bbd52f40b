import type { FitAddon } from "@xterm/addon-fit";
import type { Terminal } from "@xterm/xterm";
import { terminalFont, terminalTheme, watchColorScheme } from "./terminalTheme.ts";

export interface ScreenEvents {
  /** Keystrokes (and pastes) as the terminal encodes them for a shell. */
  readonly keys: (data: string) => void;
  /** The size the screen fits into its container, whenever that changes. */
  readonly resized: (cols: number, rows: number) => void;
}

/** A terminal's size in character cells. */
export interface ScreenSize {
  readonly cols: number;
  readonly rows: number;
}

interface Pending {
  readonly data: string;
  readonly size: ScreenSize | undefined;
}

/**
 * An xterm.js screen for one remote terminal. Output may arrive before xterm is loaded (it is
 * imported on first use, in the browser only): it waits here and is drawn once the screen is
 * shown. Each chunk of output is drawn at the size the remote terminal had when it was written
 * (a replay after a reload included), since a shell's cursor moves over wrapped lines only
 * land right at that width; the screen asks the remote terminal to take the size that fits its
 * container, and the output written after that comes at the new size. The theme follows
 * light/dark switches.
 */
export class XtermScreen {
  readonly #events: ScreenEvents;
  #pending: Pending[] = [];
  #terminal: Terminal | undefined;
  /** The size last asked of the remote terminal. */
  #asked: ScreenSize | undefined;
  #focusOnOpen = false;

  constructor(events: ScreenEvents) {
    this.#events = events;
  }

  /** Output written by the remote terminal while it had `size` (none: Berth's own lines). */
  write(data: string, size?: ScreenSize): void {
    if (this.#terminal === undefined) this.#pending.push({ data, size });
    else draw(this.#terminal, data, size);
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
    for (const { data, size } of this.#pending) draw(terminal, data, size);
    this.#pending = [];
    const typed = terminal.onData((data) => {
      this.#events.keys(data);
    });
    // A hidden panel (another terminal's tab is shown) keeps its size: the fit addon would
    // shrink it to its minimum of 2×1, and the shell would redraw itself for that. Shown
    // again, it refits.
    const refit = () => {
      if (container.clientWidth === 0 || container.clientHeight === 0) return;
      const size = fit.proposeDimensions();
      if (size === undefined || Number.isNaN(size.cols) || Number.isNaN(size.rows)) return;
      if (size.cols !== terminal.cols || size.rows !== terminal.rows) fit.fit();
      if (this.#asked?.cols === size.cols && this.#asked.rows === size.rows) return;
      this.#asked = { cols: size.cols, rows: size.rows };
      this.#events.resized(size.cols, size.rows);
    };
    const observer = new ResizeObserver(refit);
    observer.observe(container);
    // xterm measures its font only once shown (on its own intersection observer, made before
    // this one, so it has measured when this one calls). Output written while the panel was
    // hidden (a replay behind another terminal's tab) is in the buffer but may not have been
    // rendered: shown, every row is drawn again.
    const shown = new IntersectionObserver((entries) => {
      if (entries.some((entry) => entry.isIntersecting)) terminal.refresh(0, terminal.rows - 1);
      refit();
    });
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
      this.#terminal = undefined;
      terminal.dispose();
    };
  }
}

function draw(terminal: Terminal, data: string, size: ScreenSize | undefined): void {
  if (size !== undefined && (size.cols !== terminal.cols || size.rows !== terminal.rows)) {
    terminal.resize(size.cols, size.rows);
  }
  terminal.write(data);
}
