/**
 * Where a line may break in a paragraph: the Unicode line breaking algorithm (UAX #14, by the `linebreak` package)
 * gives the opportunities after spaces and hyphens, between Chinese and Japanese characters (never before closing
 * punctuation or small kana, never after opening punctuation), and around numbers. Scripts written without spaces
 * between words (Thai, Lao, Khmer, Myanmar) need a dictionary, which UAX #14 leaves to the implementation: inside
 * their runs the word boundaries of the runtime's ICU word segmenter (`Intl.Segmenter`) are added.
 */
import LineBreaker from "linebreak";

/** Characters of the scripts whose words are found with a dictionary (UAX #14's class SA, "complex context"). */
const DICTIONARY_SCRIPT = /[\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]/u;
const DICTIONARY_RUN = /[\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}\p{M}]+/gu;

/**
 * The UTF-16 offsets in `paragraph` where a new line may start (0 and the end are left out). `language`: a BCP 47
 * tag that picks the word dictionary (left out: the script's own).
 */
export function breakOpportunities(paragraph: string, language?: string): Set<number> {
  const breaks = new Set<number>();
  const breaker = new LineBreaker(paragraph);
  for (let next = breaker.nextBreak(); next !== null; next = breaker.nextBreak()) {
    if (next.position > 0 && next.position < paragraph.length) breaks.add(next.position);
  }
  if (!DICTIONARY_SCRIPT.test(paragraph)) return breaks;
  const segmenter = new Intl.Segmenter(language, { granularity: "word" });
  for (const run of paragraph.matchAll(DICTIONARY_RUN)) {
    for (const word of segmenter.segment(run[0])) {
      const at = run.index + word.index;
      if (word.index > 0) breaks.add(at);
    }
  }
  return breaks;
}
