/**
 * VADER (Hutto & Gilbert, ICWSM 2014) in TypeScript: the rules of vaderSentiment.py 3.3.2, reading its lexicon as
 * data (`SentimentLexicon`), so that the same rules run over VADER's own lexicon merged with ours
 * (`crypto-lexicon.ts`). Pure: no I/O; `lexicon-file.ts` reads `vader_lexicon.txt`.
 *
 * What is VADER's, rule by rule (the constants are the paper's empirically derived ones):
 * - tokens: the text split on white space, each token stripped of leading and trailing ASCII punctuation unless that
 *   leaves 2 characters or fewer (so `:)` and `it,` stay as they are: Python's `_strip_punc_if_word`);
 * - lexicon lookup of each lower-cased token; booster/dampener words (`BOOSTERS`) and "kind" before "of" score 0;
 * - ALL CAPS emphasis: a lexicon word in capitals in a text that also has words not in capitals gains ±0.733, and
 *   so does a booster in capitals;
 * - boosters/dampeners in the 3 words before a lexicon word add ±0.293, scaled 1, 0.95, 0.9 with distance;
 * - negation: a negation word (`NEGATIONS`, or any word with "n't") in the 3 words before flips and dampens the
 *   valence (× −0.74); "never so/this" amplifies instead (× 1.25); "without doubt" does not negate; "no" before a
 *   lexicon word negates it and loses its own valence; "least" before a word negates it unless "at least"/"very least";
 * - special idioms (`IDIOMS`) replace the valence; "kind of", "sort of" three words back dampen it;
 * - "but": valences before it × 0.5, after it × 1.5;
 * - emphasis: each "!" (up to 4) adds 0.292, 2–3 "?" add 0.18 each, more add 0.96, in the direction of the sum;
 * - compound = sum / √(sum² + α), α = 15; pos/neg/neu are the shares of positive valence (+1 each), negative
 *   valence (−1 each) and neutral tokens, with the emphasis added to the dominant side.
 *
 * What is ours, documented in docs/methodology/community-social.md:
 * - curly apostrophes are read as straight ones, and emoji are split into tokens of their own (VADER 3.3 replaces
 *   them by descriptions from a lexicon the npm package does not ship; ours scores emoji directly);
 * - multi-word entries of the lexicon ("to the moon", "rug pull") are matched on tokens stripped of punctuation,
 *   case-insensitively, and joined into one token before the rules run, so that negation, boosters and capitals
 *   apply to them as to a word;
 * - "but" is found case-insensitively and applied to the scores by position (vaderSentiment.py's `list.index` of a
 *   value can pick an equal earlier value; the intent, by position, is what is implemented).
 */

export const B_INCR = 0.293;
export const B_DECR = -0.293;
export const C_INCR = 0.733;
export const N_SCALAR = -0.74;
/**
 * Ours: the valences of a sentence that only asks (ends in a single "?") are multiplied by this. A question names
 * what it asks about ("is the yield real or is it a ponzi?") without expressing a feeling about it; frustration
 * shows as "??", "?!", capitals or a sentence of its own, which keep their weight.
 */
export const QUESTION_SCALAR = 0;
/** Normalisation constant of the compound score: approximates the largest expected sum. */
export const ALPHA = 15;

export const NEGATIONS: ReadonlySet<string> = new Set([
  'aint',
  'arent',
  'cannot',
  'cant',
  'couldnt',
  'darent',
  'didnt',
  'doesnt',
  "ain't",
  "aren't",
  "can't",
  "couldn't",
  "daren't",
  "didn't",
  "doesn't",
  'dont',
  'hadnt',
  'hasnt',
  'havent',
  'isnt',
  'mightnt',
  'mustnt',
  'neither',
  "don't",
  "hadn't",
  "hasn't",
  "haven't",
  "isn't",
  "mightn't",
  "mustn't",
  'neednt',
  "needn't",
  'never',
  'none',
  'nope',
  'nor',
  'not',
  'nothing',
  'nowhere',
  'oughtnt',
  'shant',
  'shouldnt',
  'uhuh',
  'wasnt',
  'werent',
  "oughtn't",
  "shan't",
  "shouldn't",
  'uh-uh',
  "wasn't",
  "weren't",
  'without',
  'wont',
  'wouldnt',
  "won't",
  "wouldn't",
  'rarely',
  'seldom',
  'despite',
]);

const incr = [
  'absolutely',
  'amazingly',
  'awfully',
  'completely',
  'considerable',
  'considerably',
  'decidedly',
  'deeply',
  'effing',
  'enormous',
  'enormously',
  'entirely',
  'especially',
  'exceptional',
  'exceptionally',
  'extreme',
  'extremely',
  'fabulously',
  'flipping',
  'flippin',
  'frackin',
  'fracking',
  'fricking',
  'frickin',
  'frigging',
  'friggin',
  'fully',
  'fuckin',
  'fucking',
  'fuggin',
  'fugging',
  'greatly',
  'hella',
  'highly',
  'hugely',
  'incredible',
  'incredibly',
  'intensely',
  'major',
  'majorly',
  'more',
  'most',
  'particularly',
  'purely',
  'quite',
  'really',
  'remarkably',
  'so',
  'substantially',
  'thoroughly',
  'total',
  'totally',
  'tremendous',
  'tremendously',
  'uber',
  'unbelievably',
  'unusually',
  'utter',
  'utterly',
  'very',
];
const decr = [
  'almost',
  'barely',
  'hardly',
  'just enough',
  'kind of',
  'kinda',
  'kindof',
  'kind-of',
  'less',
  'little',
  'marginal',
  'marginally',
  'occasional',
  'occasionally',
  'partly',
  'scarce',
  'scarcely',
  'slight',
  'slightly',
  'somewhat',
  'sort of',
  'sorta',
  'sortof',
  'sort-of',
];
/** Booster (+0.293) and dampener (−0.293) words: English degree adverbs (vaderSentiment.py's `BOOSTER_DICT`). */
export const BOOSTERS: ReadonlyMap<string, number> = new Map([
  ...incr.map((w) => [w, B_INCR] as const),
  ...decr.map((w) => [w, B_DECR] as const),
]);

/** Idioms whose valence replaces that of the lexicon word in them (vaderSentiment.py's `SPECIAL_CASES`). */
export const IDIOMS: ReadonlyMap<string, number> = new Map([
  ['the shit', 3],
  ['the bomb', 3],
  ['bad ass', 1.5],
  ['badass', 1.5],
  ['bus stop', 0],
  ['yeah right', -2],
  ['kiss of death', -1.5],
  ['to die for', 3],
  ['beating heart', 3.1],
  ['broken heart', -2.9],
]);

/**
 * The lexicon the rules read: valences by lower-case token (words, emoticons, emoji, and multi-word entries joined
 * by single spaces), and the multi-word entries indexed by their first word for matching.
 */
export interface SentimentLexicon {
  readonly version: string;
  readonly valences: ReadonlyMap<string, number>;
  /** First word → the entries starting with it, as word lists, longest first. */
  readonly phrases: ReadonlyMap<string, readonly (readonly string[])[]>;
}

/** Parses `vader_lexicon.txt` (token TAB mean TAB sd TAB ratings); a token listed twice keeps its last valence. */
export function parseVaderLexicon(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    const trimmed = line.trim();
    if (!trimmed) continue;
    const [word, measure] = trimmed.split('\t');
    const value = Number(measure);
    if (word === undefined || measure === undefined || !Number.isFinite(value)) {
      throw new Error(`vader lexicon: malformed line ${JSON.stringify(line.slice(0, 80))}`);
    }
    out.set(word, value);
  }
  return out;
}

/** Builds the lexicon the rules read from valences by token (multi-word tokens become phrases). */
export function sentimentLexicon(version: string, valences: ReadonlyMap<string, number>): SentimentLexicon {
  const phrases = new Map<string, string[][]>();
  for (const key of valences.keys()) {
    if (!key.includes(' ')) continue;
    const words = key.split(' ');
    const list = phrases.get(words[0]!) ?? [];
    list.push(words);
    phrases.set(words[0]!, list);
  }
  for (const list of phrases.values()) list.sort((a, b) => b.length - a.length);
  return { version, valences, phrases };
}

export interface PolarityScores {
  readonly neg: number;
  readonly neu: number;
  readonly pos: number;
  readonly compound: number;
}

/** Python's `str.isupper()`: at least one cased character and no lower-case one. */
export function isUpper(word: string): boolean {
  let cased = false;
  for (let i = 0; i < word.length; i++) {
    const c = word.charCodeAt(i);
    if (c >= 97 && c <= 122) return false;
    if (c >= 65 && c <= 90) cased = true;
    else if (c > 127) return word !== word.toLowerCase() && word === word.toUpperCase();
  }
  return cased;
}

function isAsciiPunct(c: number): boolean {
  return (c >= 33 && c <= 47) || (c >= 58 && c <= 64) || (c >= 91 && c <= 96) || (c >= 123 && c <= 126);
}

/** The token with leading and trailing ASCII punctuation removed. */
export function stripPunctuation(token: string): string {
  let a = 0;
  let b = token.length;
  while (a < b && isAsciiPunct(token.charCodeAt(a))) a++;
  while (b > a && isAsciiPunct(token.charCodeAt(b - 1))) b--;
  return a === 0 && b === token.length ? token : token.slice(a, b);
}

/** vaderSentiment.py's `_strip_punc_if_word`: stripped unless that leaves 2 characters or fewer. */
function stripIfWord(token: string): string {
  const stripped = stripPunctuation(token);
  return stripped.length <= 2 ? token : stripped;
}

const EMOJI = /(\p{Extended_Pictographic}(?:\u{FE0F}|\u{200D}\p{Extended_Pictographic}|\p{Emoji_Modifier})*)/gu;
const NON_ASCII = /[^\x00-\x7f]/;

/** White-space tokens of the text, with emoji split off as tokens of their own and curly apostrophes straightened. */
export function rawTokens(text: string): string[] {
  let t = text;
  if (NON_ASCII.test(t)) {
    t = t
      .replace(/[\u2018\u2019]/g, "'")
      .replace(EMOJI, ' $1 ')
      .replace(/\uFE0F/g, '');
  }
  const out: string[] = [];
  for (const tok of t.split(/\s+/)) if (tok) out.push(tok);
  return out;
}

/** A percentage token, with any punctuation around it ("12%", "(-5.5%)", "30%,"). */
const PERCENT = /^\(?[+-]?\d[\d.,]*%[)\]!?.,;:'"]*$/;

/** A token's form for phrase matching: stripped, lower case; a percentage is `<pct>` ("down 12%" → "down <pct>"). */
function phraseForm(token: string): string {
  if (token.includes('%') && PERCENT.test(token)) return '<pct>';
  return stripPunctuation(token).toLowerCase();
}

/**
 * Whether each raw token belongs to a sentence that only asks: one ending in exactly one "?" (no "!" with it, no
 * "??"). A token ends a sentence when its trailing punctuation holds ".", "!" or "?".
 */
function askingTokens(tokens: readonly string[]): boolean[] {
  const out = new Array<boolean>(tokens.length).fill(false);
  let start = 0;
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    let k = t.length;
    let questionMarks = 0;
    let stops = 0;
    let exclamations = 0;
    while (k > 0 && isAsciiPunct(t.charCodeAt(k - 1))) {
      const c = t.charCodeAt(k - 1);
      if (c === 63) questionMarks++;
      else if (c === 33) exclamations++;
      else if (c === 46) stops++;
      k--;
    }
    if (questionMarks + exclamations + stops === 0) continue;
    if (questionMarks === 1 && exclamations === 0) {
      for (let j = start; j <= i; j++) out[j] = true;
    }
    start = i + 1;
  }
  return out;
}

interface Tokens {
  readonly words: string[];
  /** Per word: it belongs to a sentence that only asks (`askingTokens`). */
  readonly asks: boolean[];
}

function tokenize(text: string, lexicon: SentimentLexicon): Tokens {
  const raw = rawTokens(text);
  const rawAsks = askingTokens(raw);
  const tokens = raw.map(stripIfWord);
  if (lexicon.phrases.size === 0) return { words: tokens, asks: rawAsks };
  const words: string[] = [];
  const asks: boolean[] = [];
  const bare = tokens.map(phraseForm);
  for (let i = 0; i < tokens.length; i++) {
    const candidates = lexicon.phrases.get(bare[i]!);
    let matched: readonly string[] | undefined;
    if (candidates) {
      for (const phrase of candidates) {
        if (i + phrase.length > tokens.length) continue;
        let ok = true;
        for (let k = 1; k < phrase.length; k++) {
          if (bare[i + k] !== phrase[k]) {
            ok = false;
            break;
          }
        }
        if (ok) {
          matched = phrase;
          break;
        }
      }
    }
    if (matched) {
      // The joined token is the entry itself, so that its capitals still count ("TO THE MOON").
      const parts = tokens.slice(i, i + matched.length).map(stripPunctuation);
      words.push(parts.every(isUpper) ? matched.join(' ').toUpperCase() : matched.join(' '));
      asks.push(rawAsks[i]!);
      i += matched.length - 1;
    } else {
      words.push(tokens[i]!);
      asks.push(rawAsks[i]!);
    }
  }
  return { words, asks };
}

/** VADER's words and emoticons, with the lexicon's multi-word entries joined into single tokens. */
export function wordsAndEmoticons(text: string, lexicon: SentimentLexicon): string[] {
  return tokenize(text, lexicon).words;
}

function allCapDifferential(words: readonly string[]): boolean {
  let caps = 0;
  for (const w of words) if (isUpper(w)) caps++;
  const diff = words.length - caps;
  return diff > 0 && diff < words.length;
}

function negated(word: string): boolean {
  return NEGATIONS.has(word) || word.includes("n't");
}

function scalarIncDec(word: string, lower: string, valence: number, capDiff: boolean): number {
  const b = BOOSTERS.get(lower);
  if (b === undefined) return 0;
  let scalar = valence < 0 ? -b : b;
  if (capDiff && isUpper(word)) scalar += valence > 0 ? C_INCR : -C_INCR;
  return scalar;
}

function negationCheck(valence: number, lower: readonly string[], startI: number, i: number): number {
  if (startI === 0) {
    if (negated(lower[i - 1]!)) return valence * N_SCALAR;
  } else if (startI === 1) {
    if (lower[i - 2] === 'never' && (lower[i - 1] === 'so' || lower[i - 1] === 'this')) return valence * 1.25;
    if (lower[i - 2] === 'without' && lower[i - 1] === 'doubt') return valence;
    if (negated(lower[i - 2]!)) return valence * N_SCALAR;
  } else {
    if (
      (lower[i - 3] === 'never' && (lower[i - 2] === 'so' || lower[i - 2] === 'this')) ||
      lower[i - 1] === 'so' ||
      lower[i - 1] === 'this'
    )
      return valence * 1.25;
    if (lower[i - 3] === 'without' && (lower[i - 2] === 'doubt' || lower[i - 1] === 'doubt')) return valence;
    if (negated(lower[i - 3]!)) return valence * N_SCALAR;
  }
  return valence;
}

function idiomsCheck(valence: number, lower: readonly string[], i: number): number {
  const w = (k: number) => lower[k] ?? 'undefined';
  const onezero = `${w(i - 1)} ${w(i)}`;
  const twoonezero = `${w(i - 2)} ${w(i - 1)} ${w(i)}`;
  const twoone = `${w(i - 2)} ${w(i - 1)}`;
  const threetwoone = `${w(i - 3)} ${w(i - 2)} ${w(i - 1)}`;
  const threetwo = `${w(i - 3)} ${w(i - 2)}`;
  let v = valence;
  for (const seq of [onezero, twoonezero, twoone, threetwoone, threetwo]) {
    const idiom = IDIOMS.get(seq);
    if (idiom !== undefined) {
      v = idiom;
      break;
    }
  }
  if (lower.length - 1 > i) {
    const idiom = IDIOMS.get(`${w(i)} ${w(i + 1)}`);
    if (idiom !== undefined) v = idiom;
  }
  if (lower.length - 1 > i + 1) {
    const idiom = IDIOMS.get(`${w(i)} ${w(i + 1)} ${w(i + 2)}`);
    if (idiom !== undefined) v = idiom;
  }
  for (const gram of [threetwoone, threetwo, twoone]) {
    const b = BOOSTERS.get(gram);
    if (b !== undefined) v += b;
  }
  return v;
}

function leastCheck(valence: number, lower: readonly string[], i: number, lexicon: SentimentLexicon): number {
  if (i > 0 && lower[i - 1] === 'least' && !lexicon.valences.has('least')) {
    if (i > 1 && (lower[i - 2] === 'at' || lower[i - 2] === 'very')) return valence;
    return valence * N_SCALAR;
  }
  return valence;
}

/** The valence of each token after VADER's rules (before the "but" weighting). */
function tokenValences({ words, asks }: Tokens, lexicon: SentimentLexicon): number[] {
  const lower = words.map((w) => w.toLowerCase());
  const capDiff = allCapDifferential(words);
  const lex = lexicon.valences;
  const out: number[] = new Array(words.length).fill(0);
  for (let i = 0; i < words.length; i++) {
    const item = lower[i]!;
    if (BOOSTERS.has(item)) continue;
    if (item === 'kind' && lower[i + 1] === 'of') continue;
    const base = lex.get(item);
    if (base === undefined) continue;
    let valence = base;
    // "no" before a lexicon word negates that word and has no valence of its own.
    if (item === 'no' && i !== words.length - 1 && lex.has(lower[i + 1]!)) valence = 0;
    if (
      (i > 0 && lower[i - 1] === 'no') ||
      (i > 1 && lower[i - 2] === 'no') ||
      (i > 2 && lower[i - 3] === 'no' && (lower[i - 1] === 'or' || lower[i - 1] === 'nor'))
    ) {
      valence = base * N_SCALAR;
    }
    if (capDiff && isUpper(words[i]!)) valence += valence > 0 ? C_INCR : -C_INCR;
    for (let startI = 0; startI < 3; startI++) {
      const k = i - (startI + 1);
      if (k < 0 || lex.has(lower[k]!)) continue;
      let s = scalarIncDec(words[k]!, lower[k]!, valence, capDiff);
      if (startI === 1 && s !== 0) s *= 0.95;
      if (startI === 2 && s !== 0) s *= 0.9;
      valence += s;
      valence = negationCheck(valence, lower, startI, i);
      if (startI === 2) valence = idiomsCheck(valence, lower, i);
    }
    out[i] = leastCheck(valence, lower, i, lexicon);
  }
  for (let i = 0; i < out.length; i++) if (asks[i]) out[i] = out[i]! * QUESTION_SCALAR;
  const but = lower.indexOf('but');
  if (but !== -1) {
    for (let i = 0; i < out.length; i++) {
      if (i < but) out[i] = out[i]! * 0.5;
      else if (i > but) out[i] = out[i]! * 1.5;
    }
  }
  return out;
}

function count(text: string, ch: number): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === ch) n++;
  return n;
}

/** Emphasis of "!" (0.292 each, up to 4) and "?" (2–3: 0.18 each; more: 0.96). */
export function punctuationEmphasis(text: string): number {
  const ep = Math.min(count(text, 33), 4) * 0.292;
  const qm = count(text, 63);
  return ep + (qm > 1 ? (qm <= 3 ? qm * 0.18 : 0.96) : 0);
}

/** compound = x / √(x² + α), within [−1, 1]. */
export function normalize(score: number, alpha = ALPHA): number {
  const n = score / Math.sqrt(score * score + alpha);
  return Math.max(-1, Math.min(1, n));
}

const round = (x: number, d: number) => {
  const f = 10 ** d;
  const r = Math.round(x * f) / f;
  return Object.is(r, -0) ? 0 : r;
};

/** VADER's polarity scores of a text: compound to 4 decimals, the shares to 3 (as vaderSentiment.py rounds them). */
export function polarityScores(text: string, lexicon: SentimentLexicon): PolarityScores {
  const sentiments = tokenValences(tokenize(text, lexicon), lexicon);
  if (sentiments.length === 0) return { neg: 0, neu: 0, pos: 0, compound: 0 };
  let sum = 0;
  let posSum = 0;
  let negSum = 0;
  let neutral = 0;
  for (const s of sentiments) {
    sum += s;
    if (s > 0) posSum += s + 1;
    else if (s < 0) negSum += s - 1;
    else neutral++;
  }
  const emphasis = punctuationEmphasis(text);
  if (sum > 0) sum += emphasis;
  else if (sum < 0) sum -= emphasis;
  const compound = normalize(sum);
  if (posSum > Math.abs(negSum)) posSum += emphasis;
  else if (posSum < Math.abs(negSum)) negSum -= emphasis;
  const total = posSum + Math.abs(negSum) + neutral;
  return {
    neg: round(Math.abs(negSum / total), 3),
    neu: round(Math.abs(neutral / total), 3),
    pos: round(Math.abs(posSum / total), 3),
    compound: round(compound, 4),
  };
}

export type SentimentLabel = 'positive' | 'negative' | 'neutral';

/** VADER's convention: compound ≥ 0.05 positive, ≤ −0.05 negative, neutral between. */
export const SENTIMENT_THRESHOLD = 0.05;

export function sentimentLabel(compound: number): SentimentLabel {
  return compound >= SENTIMENT_THRESHOLD ? 'positive' : compound <= -SENTIMENT_THRESHOLD ? 'negative' : 'neutral';
}
