/**
 * Reads VADER's lexicon from the installed `vader-sentiment` package (its `vader_lexicon.txt`, the lexicon of
 * vaderSentiment.py; only the data file is used, never the package's code) and builds the model's lexicon. Not
 * pure: it reads a file. Jobs call it once and hand the lexicon to the pure code.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { modelLexicon } from './crypto-lexicon.js';
import type { SentimentLexicon } from './vader.js';

const require = createRequire(import.meta.url);

/** The absolute path of `vader_lexicon.txt` in node_modules. */
export function vaderLexiconPath(): string {
  return path.join(path.dirname(require.resolve('vader-sentiment/package.json')), 'vader_lexicon.txt');
}

export function readVaderLexiconText(): string {
  return readFileSync(vaderLexiconPath(), 'utf8');
}

let cached: SentimentLexicon | undefined;

/** VADER's lexicon with ours over it, read once per process. */
export function loadModelLexicon(): SentimentLexicon {
  cached ??= modelLexicon(readVaderLexiconText());
  return cached;
}
