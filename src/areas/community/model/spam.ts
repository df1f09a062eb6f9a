/**
 * Spam rules (issue 16's counting rules): a message is spam when it carries an invite link, offers something in
 * direct messages, mentions many people at once, or repeats, word for word, what at least 3 different authors
 * posted within an hour. Spam is counted and flagged in a day's inputs and left out of sentiment and topics. Pure.
 */
import { DUPLICATE_MIN_CHARS, normaliseContent } from './text.js';

export interface SpamSignals {
  /** A Discord invite (discord.gg, discord.com/invite) or a Telegram group link. */
  readonly inviteLink: boolean;
  /** "DM me", "dm for …", "PM me", "inbox me", "check your DMs", "send me a message". */
  readonly dmOffer: boolean;
  /** @everyone / @here, or at least `MASS_MENTION_MIN` distinct user or role mentions. */
  readonly massMention: boolean;
}

const INVITE = /\b(?:discord(?:app)?\.(?:gg|com\/invite|io|me)\/[\w-]+|t\.me\/(?:joinchat\/|\+)?[\w-]+)/i;
const DM_OFFER =
  /\b(?:(?:dm|pm|inbox|message|msg|text)\s+(?:me|us)\b|dm\s+for\b|(?:check|see)\s+(?:your\s+)?(?:dms?|inbox)\b|send\s+(?:me|us)\s+an?\s+(?:dm|pm|message)\b|(?:dm|pm)\s+now\b)/i;
/** Words one of which every DM offer holds. */
const DM_HINT = /dm|pm|inbox|message|msg|text|send/;
const EVERYONE = /@(?:everyone|here)\b/i;
/** Discord user (<@id>, <@!id>) and role (<@&id>) mentions; Reddit's u/name. */
const MENTION = /<@[!&]?\d+>|(?:^|\s)\/?u\/[\w-]{3,}/g;

/**
 * Distinct mentions from which a message is mass-mentioning: 5. Replies and thanks mention one or two people;
 * raids ping many at once to draw them to a link.
 */
export const MASS_MENTION_MIN = 5;

export function spamSignals(text: string): SpamSignals {
  // Cheap checks first: most messages have no "@", no link and no DM word, and skip the patterns.
  const lower = text.toLowerCase();
  const hasAt = lower.includes('@');
  let massMention = hasAt && EVERYONE.test(text);
  if (!massMention && (hasAt || lower.includes('u/')) && text.length >= 20) {
    const mentions = text.match(MENTION);
    if (mentions && mentions.length >= MASS_MENTION_MIN) {
      massMention = new Set(mentions.map((m) => m.trim().toLowerCase())).size >= MASS_MENTION_MIN;
    }
  }
  const inviteLink = (lower.includes('discord') || lower.includes('t.me')) && INVITE.test(text);
  const dmOffer = DM_HINT.test(lower) && DM_OFFER.test(text);
  return { inviteLink, dmOffer, massMention };
}

export function isSpamBySignals(s: SpamSignals): boolean {
  return s.inviteLink || s.dmOffer || s.massMention;
}

/** Distinct authors that must post the same content for it to be duplicate spam: 3 (two people may agree). */
export const DUPLICATE_MIN_AUTHORS = 3;
/** Window within which those authors post it: an hour (a raid posts in minutes; a meme repeated days apart is not one). */
export const DUPLICATE_WINDOW_SECONDS = 3600;

export interface DuplicateCandidate {
  /** Hash of the normalised content (`contentHash`); null when the message is too short to judge. */
  readonly contentHash: string | null;
  readonly author: string;
  /** Unix seconds. */
  readonly at: number;
}

/**
 * The indices of a day's messages that are duplicate spam: messages whose content hash is shared, within some
 * window of `DUPLICATE_WINDOW_SECONDS` that contains them, by at least `DUPLICATE_MIN_AUTHORS` distinct authors.
 * Messages too short to judge (`contentHash` null, under `DUPLICATE_MIN_CHARS` normalised characters: "gm", "lfg")
 * never are.
 */
export function duplicateSpam(messages: readonly DuplicateCandidate[]): Set<number> {
  const groups = new Map<string, number[]>();
  messages.forEach((m, i) => {
    if (m.contentHash === null) return;
    const g = groups.get(m.contentHash);
    if (g) g.push(i);
    else groups.set(m.contentHash, [i]);
  });
  const flagged = new Set<number>();
  for (const idx of groups.values()) {
    if (idx.length < DUPLICATE_MIN_AUTHORS) continue;
    idx.sort((a, b) => messages[a]!.at - messages[b]!.at || a - b);
    const authors = new Map<string, number>();
    let left = 0;
    let markedTo = -1;
    for (let right = 0; right < idx.length; right++) {
      const r = messages[idx[right]!]!;
      authors.set(r.author, (authors.get(r.author) ?? 0) + 1);
      while (r.at - messages[idx[left]!]!.at > DUPLICATE_WINDOW_SECONDS) {
        const a = messages[idx[left]!]!.author;
        const n = authors.get(a)! - 1;
        if (n === 0) authors.delete(a);
        else authors.set(a, n);
        left++;
      }
      if (authors.size >= DUPLICATE_MIN_AUTHORS) {
        for (let k = Math.max(left, markedTo + 1); k <= right; k++) flagged.add(idx[k]!);
        markedTo = right;
      }
    }
  }
  return flagged;
}

export { DUPLICATE_MIN_CHARS, normaliseContent };
