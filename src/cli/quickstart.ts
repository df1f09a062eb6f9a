/**
 * The quickstart token of `protoscore start`: one token named `quickstart`, kept in `DATA_DIR/quickstart-token`
 * (mode 0600: readable only by the service's user, as notebook servers keep their login token) and printed again at
 * each start, so that the curl lines, scripts and an open `/docs` page keep working across restarts.
 *
 * At a start the file's token is reused while it is active (known to this database, not revoked, and not expiring
 * within a day); otherwise a new one is made for 30 days, the previous quickstart tokens are revoked (one quickstart
 * token per installation) and the file is rewritten. `keys revoke` and `keys rotate` act on it as on any token; they
 * keep the file in step (`forgetQuickstart`, `replaceQuickstart`).
 */
import { chmodSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isoSeconds } from '../core/time.js';
import type { Store } from '../store/db.js';
import { hashSecret, sameDigest, TOKEN_PATTERN, TokenRepository } from '../store/tokens.js';

export const QUICKSTART_TOKEN = 'quickstart';
/** Lifetime of a new quickstart token. */
export const QUICKSTART_LIFETIME_S = 30 * 86_400;
/** A token with less than this left is replaced at start, so that a start never hands out one about to expire. */
export const QUICKSTART_RENEW_BEFORE_S = 86_400;

export function quickstartTokenFile(dataDir: string): string {
  return join(dataDir, 'quickstart-token');
}

export interface Quickstart {
  readonly token: string;
  readonly id: string;
  readonly expiresAt: number;
  /** True when the token was kept from an earlier start. */
  readonly reused: boolean;
  /** Where it is kept, or undefined when the file could not be written (then it is replaced at the next start). */
  readonly file: string | undefined;
  /** Why the file could not be written. */
  readonly fileError?: string;
}

/** The token the file holds, or undefined (no file, unreadable, or not a token). */
export function readQuickstartFile(dataDir: string): string | undefined {
  let text: string;
  try {
    text = readFileSync(quickstartTokenFile(dataDir), 'utf8').trim();
  } catch {
    return undefined;
  }
  return TOKEN_PATTERN.test(text) ? text : undefined;
}

/** Writes the token with mode 0600, atomically (a reader sees the old token or the new one). */
function writeQuickstartFile(dataDir: string, token: string): void {
  mkdirSync(dataDir, { recursive: true });
  const file = quickstartTokenFile(dataDir);
  const partial = `${file}.${process.pid}.tmp`;
  writeFileSync(partial, `${token}\n`, { mode: 0o600 });
  // The mode of writeFileSync is filtered by the umask: set it exactly.
  chmodSync(partial, 0o600);
  renameSync(partial, file);
}

/** The quickstart token for this start: the kept one while it is active, else a new one (see the file's comment). */
export async function quickstartToken(
  store: Store,
  dataDir: string,
  ratePerMinute: number,
  now: number,
): Promise<Quickstart> {
  const tokens = new TokenRepository(store.db);
  const kept = readQuickstartFile(dataDir);
  if (kept) {
    const [, id, secret] = TOKEN_PATTERN.exec(kept)!;
    const record = await tokens.find(id!);
    if (
      record &&
      record.revoked_at === null &&
      sameDigest(record.secret_hash, hashSecret(secret!)) &&
      (record.expires_at === null || record.expires_at > now + QUICKSTART_RENEW_BEFORE_S)
    ) {
      return {
        token: kept,
        id: id!,
        expiresAt: record.expires_at ?? Number.POSITIVE_INFINITY,
        reused: true,
        file: quickstartTokenFile(dataDir),
      };
    }
  }
  for (const t of await tokens.list()) {
    if (t.name === QUICKSTART_TOKEN && t.revoked_at === null) await tokens.revoke(t.id, now);
  }
  const expiresAt = now + QUICKSTART_LIFETIME_S;
  const { id, token } = await tokens.create(
    { name: QUICKSTART_TOKEN, expiresAt, rateLimit: ratePerMinute, rateWindowSeconds: 60 },
    now,
  );
  try {
    writeQuickstartFile(dataDir, token);
    return { token, id, expiresAt, reused: false, file: quickstartTokenFile(dataDir) };
  } catch (err) {
    return { token, id, expiresAt, reused: false, file: undefined, fileError: (err as Error).message };
  }
}

/** What `start` prints about the token, then the curl lines that use it. */
export function quickstartLines(q: Quickstart, base: string): string[] {
  const expires = Number.isFinite(q.expiresAt) ? `valid until ${isoSeconds(q.expiresAt)}` : 'no expiry';
  const kept = q.file
    ? `kept in ${q.file}, printed again at each start; \`protoscore keys rotate ${q.id}\` replaces it`
    : `could not be kept (${q.fileError}), so a new one is made at the next start`;
  return [
    `${q.reused ? 'Your token' : 'A new token'} (named "${QUICKSTART_TOKEN}", ${expires}; ${kept}) — try:`,
    `  curl -H 'Authorization: Bearer ${q.token}' ${base}/authorization`,
    `  curl -H 'Authorization: Bearer ${q.token}' ${base}/data/liquidity/dex/available-dexes`,
    `  curl -H 'Authorization: Bearer ${q.token}' ${base}/scores/development`,
    `API reference: ${base}/docs   status: ${base}/status`,
  ];
}

/** After `keys revoke ID`: a kept quickstart token with that id is removed (the next start makes a new one). */
export function forgetQuickstart(dataDir: string, id: string): boolean {
  const kept = readQuickstartFile(dataDir);
  if (!kept || TOKEN_PATTERN.exec(kept)?.[1] !== id) return false;
  rmSync(quickstartTokenFile(dataDir), { force: true });
  return true;
}

/** After `keys rotate ID`: when the file held the rotated token, it holds its replacement. */
export function replaceQuickstart(dataDir: string, oldId: string, token: string): boolean {
  const kept = readQuickstartFile(dataDir);
  if (!kept || TOKEN_PATTERN.exec(kept)?.[1] !== oldId) return false;
  writeQuickstartFile(dataDir, token);
  return true;
}
