/**
 * Where a line may break other than after white space: in scripts written without spaces. Chinese and Japanese
 * (ideographs, kana, their punctuation) break between any two characters; Thai, Lao, Khmer and Myanmar between
 * the words `Intl.Segmenter` finds (ICU's dictionaries). Never before closing punctuation, small kana or the
 * prolonged sound mark, nor after opening punctuation (the basic Japanese line-breaking rules, kinsoku).
 */

/** Ideographs, kana and their punctuation: a break may come between any two. */
const IDEOGRAPHIC = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Bopomofo}\u3000-\u303f\uff01-\uff60]/u;
/** Scripts whose words are found with a dictionary. */
const DICTIONARY = /[\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]/u;
const NO_BREAK_BEFORE = /[\p{Pe}\p{Pf}\p{Po}ーぁぃぅぇぉっゃゅょゎゕゖァィゥェォッャュョヮヵヶㇰ-ㇿ々〻゛゜ゝゞヽヾ]/u;
const NO_BREAK_AFTER = /[\p{Ps}\p{Pi}]/u;
const SPACE = /\s/u;

/** The UTF-16 indices of `paragraph` a line may start at, other than after white space. */
export function breakOpportunities(paragraph: string, language: string | undefined): Set<number> {
  const out = new Set<number>();
  const ideographic = IDEOGRAPHIC.test(paragraph);
  const dictionary = DICTIONARY.test(paragraph);
  if (!ideographic && !dictionary) return out;
  const allowed = (index: number): boolean => {
    const before = String.fromCodePoint(paragraph.codePointAt(index - 1 - (/[\udc00-\udfff]/.test(paragraph[index - 1]!) ? 1 : 0))!);
    const after = String.fromCodePoint(paragraph.codePointAt(index)!);
    return !SPACE.test(before) && !SPACE.test(after) && !NO_BREAK_BEFORE.test(after) && !NO_BREAK_AFTER.test(before);
  };
  if (ideographic) {
    let index = 0;
    let previous = "";
    for (const char of paragraph) {
      if (index > 0 && (IDEOGRAPHIC.test(previous) || IDEOGRAPHIC.test(char)) && allowed(index)) out.add(index);
      previous = char;
      index += char.length;
    }
  }
  if (dictionary) {
    for (const { index, segment } of wordSegmenter(language).segment(paragraph)) {
      if (index > 0 && (DICTIONARY.test(segment) || DICTIONARY.test(paragraph[index - 1]!)) && allowed(index)) out.add(index);
    }
  }
  return out;
}

/** A word segmenter for `language`, or for the default locale when the tag is one ICU does not take. */
function wordSegmenter(language: string | undefined): Intl.Segmenter {
  try {
    return new Intl.Segmenter(language, { granularity: "word" });
  } catch {
    return new Intl.Segmenter(undefined, { granularity: "word" });
  }
}
