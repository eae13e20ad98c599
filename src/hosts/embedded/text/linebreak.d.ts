/** The part of the `linebreak` package (UAX #14 line break opportunities) the text engine uses; it ships no types. */
declare module "linebreak" {
  interface Break {
    /** Where the next line would start, in UTF-16 code units. */
    readonly position: number;
    /** Whether the line must break there (a hard line break). */
    readonly required: boolean;
  }
  export default class LineBreaker {
    constructor(text: string);
    /** The next opportunity, or null after the last. */
    nextBreak(): Break | null;
  }
}
