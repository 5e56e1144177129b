// Splits a stream of text into lines in time linear in its length: the chunks of an unfinished
// line are kept as they came and joined once, when its end arrives; only a new chunk is searched
// for a line end. (Concatenating and rescanning on every chunk made a 15 MB line take seconds.)

export interface LineSplitterOptions {
  /** The most characters a line may hold; past it the line is dropped and `onOverflow` told. */
  max: number;
  /** Whether a lone CR ends a line too (SSE); otherwise only LF does, a CR before it dropped (stdio). */
  crEnds?: boolean;
  onLine(line: string): void;
  onOverflow(): void;
}

export class LineSplitter {
  private parts: string[] = [];
  private length = 0;
  /** The line is over the cap: everything up to its end is skipped. */
  private skipping = false;
  /** The last chunk ended on a CR: an LF that starts the next belongs to it. */
  private afterCr = false;
  /** Where the next CR of the chunk being split is (-1 none left, -2 not looked for yet). */
  private cr = -2;

  constructor(private readonly options: LineSplitterOptions) {}

  push(chunk: string): void {
    let from = 0;
    if (this.afterCr && chunk.startsWith("\n")) from = 1;
    this.afterCr = false;
    this.cr = -2;
    while (from < chunk.length) {
      const at = this.endOf(chunk, from);
      if (at === -1) {
        this.keep(chunk.slice(from));
        return;
      }
      this.keep(chunk.slice(from, at));
      this.finish();
      if (this.options.crEnds && chunk[at] === "\r") {
        if (at + 1 === chunk.length) {
          this.afterCr = true;
          return;
        }
        from = chunk[at + 1] === "\n" ? at + 2 : at + 1;
      } else from = at + 1;
    }
  }

  /** The stream ended: what is left is a last line. */
  end(): void {
    if (this.length > 0 || this.parts.length > 0) this.finish();
  }

  private endOf(chunk: string, from: number): number {
    const lf = chunk.indexOf("\n", from);
    if (!this.options.crEnds) return lf;
    // the next CR is looked for again only once passed: a chunk of many LF lines stays one scan
    if (this.cr !== -1 && this.cr < from) this.cr = chunk.indexOf("\r", from);
    const cr = this.cr;
    if (cr === -1) return lf;
    return lf === -1 ? cr : Math.min(cr, lf);
  }

  private keep(text: string): void {
    if (this.skipping || text === "") return;
    this.length += text.length;
    if (this.length > this.options.max) {
      this.parts = [];
      this.length = 0;
      this.skipping = true;
      this.options.onOverflow();
      return;
    }
    this.parts.push(text);
  }

  private finish(): void {
    const skipped = this.skipping;
    let line = this.parts.length === 1 ? this.parts[0]! : this.parts.join("");
    this.parts = [];
    this.length = 0;
    this.skipping = false;
    if (skipped) return;
    if (!this.options.crEnds && line.endsWith("\r")) line = line.slice(0, -1);
    this.options.onLine(line);
  }
}
