/**
 * Is a message English? A deliberately simple check (the model's lexicon and taxonomy are English, so other
 * languages are counted and left out of sentiment and topics rather than misread). Pure. Rules, in order:
 * 1. no letters at all (emoji, numbers, links): English, nothing to misread;
 * 2. fewer than half of the letters are ASCII (Cyrillic, CJK, Arabic…): not English;
 * 3. fewer than `MIN_WORDS` words: English (too short to tell; "gm ser", "wen airdrop" are English chat);
 * 4. otherwise not English when at least 2 words, and more words than the English ones, are stop words of Spanish,
 *    Portuguese, French, German, Italian, Dutch or Indonesian; English otherwise. Stop words rather than
 *    vocabulary, because crypto slang ("wagmi ngmi ser") has no English stop words but is English chat.
 */

export const MIN_WORDS = 4;

const ENGLISH = new Set(
  (
    'the a an and or but is are was were be been am i you he she it we they me my your our their this that these ' +
    'those to of in on at for with from by about as not no do does did have has had will would can could should ' +
    'what when where why how who which if so just there here all any some get got its im dont cant wont thats'
  ).split(' '),
);

/**
 * Frequent function words of the other languages of crypto chat, without words that are also English or crypto
 * slang ("a", "no", "se", "die", "me", "per", "um", "van", "dat", "wat", "ada" are left out).
 */
const FOREIGN = new Set(
  // Spanish
  (
    'el la los las del que y en es por para con una pero muy esta este como mas más está son hay también ' +
    'tengo tiene puedo alguien gracias hola ' +
    // Portuguese
    'o os da do das dos em uma não nao é com para mais está você voce isso tem muito obrigado ' +
    // French
    'le les des est et une pour pas avec sur dans qui je tu il nous vous ce cette mais très tres merci bonjour ' +
    // German
    'der das und ist nicht ein eine mit auf den dem ich du wir sie es zu von auch wie aber noch danke ' +
    // Italian
    'il di che è sono non una con gli della questo ciao grazie ' +
    // Dutch
    'het een en niet ik je zijn ook maar bedankt ' +
    // Indonesian
    'yang dan ini itu tidak saya aku kamu dengan untuk bisa sudah apa'
  ).split(' '),
);

const LETTER = /\p{L}/u;
const WORDS = /[\p{L}']+/gu;

export function isEnglish(text: string): boolean {
  let letters = 0;
  let ascii = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i) | 32;
    if (c >= 97 && c <= 122) {
      ascii++;
      letters++;
    } else if (text.charCodeAt(i) > 127) {
      const cp = text.codePointAt(i)!;
      if (cp > 0xffff) i++;
      if (LETTER.test(String.fromCodePoint(cp))) letters++;
    }
  }
  if (letters === 0) return true;
  if (ascii * 2 < letters) return false;
  const words = text.toLowerCase().match(WORDS) ?? [];
  if (words.length < MIN_WORDS) return true;
  let english = 0;
  let foreign = 0;
  for (const w of words) {
    if (ENGLISH.has(w)) english++;
    else if (FOREIGN.has(w)) foreign++;
  }
  return !(foreign >= 2 && foreign > english);
}
