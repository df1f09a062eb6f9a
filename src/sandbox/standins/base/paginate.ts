import type { StandinRequest } from './server.js';

/**
 * Page-number pagination with RFC 8288 (formerly 5988) `Link` headers, as GitHub, GitLab and many other REST APIs
 * do it: `?per_page=&page=`, and `<url>; rel="next"`, `rel="last"`, `rel="first"`, `rel="prev"` with absolute URLs
 * that keep every other query parameter of the request.
 */

export interface PageOptions {
  /** Page size when the request names none (GitHub: 30). */
  readonly defaultPerPage: number;
  /** Largest page size honoured; larger requests get this many (GitHub: 100). */
  readonly maxPerPage: number;
  /** Items reachable at all, whatever the page (GitHub's events: 300). */
  readonly maxItems?: number;
}

export interface Page<T> {
  readonly items: readonly T[];
  /** `{ link }` when there is more than one page, else empty. */
  readonly headers: Readonly<Record<string, string>>;
}

/** A positive integer query parameter, or `fallback` when absent or not one (GitHub ignores junk values). */
export function intParam(query: URLSearchParams, name: string, fallback: number): number {
  const raw = query.get(name);
  if (raw === null || !/^\d{1,9}$/.test(raw)) return fallback;
  const value = Number(raw);
  return value >= 1 ? value : fallback;
}

export function paginate<T>(req: StandinRequest, all: readonly T[], options: PageOptions): Page<T> {
  const perPage = Math.min(options.maxPerPage, intParam(req.query, 'per_page', options.defaultPerPage));
  const page = intParam(req.query, 'page', 1);
  const total = Math.min(all.length, options.maxItems ?? Number.POSITIVE_INFINITY);
  const lastPage = Math.max(1, Math.ceil(total / perPage));
  const start = (page - 1) * perPage;
  const items = start >= total ? [] : all.slice(start, Math.min(total, start + perPage));
  const link = linkHeader(req, page, lastPage);
  return { items, headers: link ? { link } : {} };
}

/** The `Link` header of page `page` out of `lastPage`, or undefined for a single page. */
export function linkHeader(req: StandinRequest, page: number, lastPage: number): string | undefined {
  if (lastPage <= 1 && page <= 1) return undefined;
  const urlOf = (n: number) => {
    const query = new URLSearchParams(req.query);
    query.set('page', String(n));
    return `<${req.baseUrl}${req.rawPath}?${query.toString()}>`;
  };
  const parts: string[] = [];
  if (page > 1) parts.push(`${urlOf(Math.min(page - 1, lastPage))}; rel="prev"`);
  if (page < lastPage) parts.push(`${urlOf(page + 1)}; rel="next"`, `${urlOf(lastPage)}; rel="last"`);
  if (page > 1) parts.push(`${urlOf(1)}; rel="first"`);
  return parts.join(', ');
}

/** Parses a `Link` header into relation → URL (clients and tests). */
export function parseLinkHeader(header: string | null | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (!header) return out;
  for (const match of header.matchAll(/<([^<>]+)>\s*;\s*rel="([^"]+)"/g)) out[match[2]!] = match[1]!;
  return out;
}
