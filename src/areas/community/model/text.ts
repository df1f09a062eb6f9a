/**
 * Content normalisation and hashing for duplicate detection. Pure (no `node:crypto`: compute code reaches this).
 */

/** Normalised content shorter than this is never judged a duplicate: "gm", "lfg", "same" repeat innocently. */
export const DUPLICATE_MIN_CHARS = 20;

/**
 * The content compared for duplicates: lower case, Discord mentions and URLs' query strings removed, runs of white
 * space as one space, trimmed. Raids vary the mention and the tracking parameter, not the text.
 */
export function normaliseContent(text: string): string {
  let t = text.toLowerCase();
  if (t.includes('<@')) t = t.replace(/<@[!&]?\d+>/g, ' ');
  if (t.includes('http')) t = t.replace(/(https?:\/\/[^\s?#]+)[?#]\S*/g, '$1');
  return t.replace(/\s+/g, ' ').trim();
}

/**
 * A 64-bit hash (two 32-bit FNV-1a lanes with different offsets, hex) of the normalised content, or null when it is
 * shorter than `DUPLICATE_MIN_CHARS`. Collisions between different messages of one day are improbable at 64 bits
 * (about 1 in 10⁹ for 200,000 messages), and a collision only merges two groups' author counts.
 */
export function contentHash(text: string): string | null {
  // Too short even before normalisation (which only shortens): no need to normalise.
  if (text.length < DUPLICATE_MIN_CHARS) return null;
  const s = normaliseContent(text);
  if (s.length < DUPLICATE_MIN_CHARS) return null;
  let h1 = 0x811c9dc5;
  let h2 = 0x01000193 ^ 0x5bd1e995;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 0x01000193);
    h2 = Math.imul(h2 ^ c, 0x01000193) ^ (h2 >>> 15);
  }
  return (h1 >>> 0).toString(16).padStart(8, '0') + (h2 >>> 0).toString(16).padStart(8, '0');
}
