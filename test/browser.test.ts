import { existsSync, mkdtempSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PATHS } from '../src/areas/index.js';
import { loadConfig } from '../src/config/index.js';
import { createLogger, type Service, startService } from '../src/runtime/index.js';
import { TokenRepository } from '../src/store/tokens.js';
import { LogCapture, TestClock, testStore } from './helpers.js';
import { SEEDED_JOBS, SEEDED_POOL, seedStatusHistory } from './support/status-history.js';

/**
 * `/docs` and `/status` in a real browser: the system Chromium (Debian's `chromium`, or CHROMIUM_PATH) driven by
 * playwright-core, which downloads no browser, against a service listening on a port with published data and six
 * hours of job and publication history.
 */

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const HAVE_BROWSER = existsSync(CHROMIUM);
if (!HAVE_BROWSER) {
  console.warn(
    `browser tests skipped: no Chromium at ${CHROMIUM} (install Debian's \`chromium\` package, or set CHROMIUM_PATH)`,
  );
}

/** The spec's templates as OpenAPI paths (the two blockchain chain paths share one URL shape, as in openapi.test). */
const openApiPath = (template: string) =>
  template.replace(/<(l[12]_chain)>$/, '{chain}').replace(/<([a-z0-9_]+)>/g, '{$1}');

const SYSTEM_PATHS = ['/authorization', '/health', '/ready', '/status', '/metrics'];

/** Records what a page asks for and complains about. */
function watch(page: Page, origin: string) {
  const seen = { requests: [] as string[], external: [] as string[], errors: [] as string[] };
  page.on('request', (r) => {
    const url = r.url();
    seen.requests.push(url);
    if (!url.startsWith(origin) && !url.startsWith('data:')) seen.external.push(url);
  });
  page.on('console', (m) => {
    if (m.type() === 'error') seen.errors.push(m.text());
  });
  page.on('pageerror', (e) => seen.errors.push(e.message));
  return seen;
}

const TITLE = HAVE_BROWSER
  ? `in a real browser (${CHROMIUM})`
  : `in a real browser: skipped, no Chromium at ${CHROMIUM} (install chromium or set CHROMIUM_PATH)`;

describe.skipIf(!HAVE_BROWSER)(TITLE, () => {
  let browser: Browser;
  let service: Service;
  let cleanup: () => Promise<void>;
  let origin: string;
  let token: string;
  const shots = mkdtempSync(path.join(tmpdir(), 'protoscore-screens-'));

  beforeAll(async () => {
    const t = testStore();
    cleanup = t.cleanup;
    const clock = new TestClock(Date.now());
    const config = loadConfig({ DATA_DIR: t.dir, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'warn' });
    await t.store.migrate();
    await seedStatusHistory(t.store, clock.nowMs());
    token = (
      await new TokenRepository(t.store.db).create(
        { name: 'browser', expiresAt: null, rateLimit: 600, rateWindowSeconds: 60 },
        Math.floor(clock.nowMs() / 1000),
      )
    ).token;
    service = await startService({
      role: 'serve',
      config,
      logger: createLogger(config, new LogCapture()),
      clock,
      store: t.store,
    });
    origin = `http://127.0.0.1:${(service.app!.server.address() as AddressInfo).port}`;
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
    console.info(`browser screenshots: ${shots}`);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await service?.close();
    await cleanup?.();
  });

  it('/docs lists every path of the spec and calls one with a token through the UI', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const seen = watch(page, origin);
    await page.goto(`${origin}/docs`);
    await page.locator('.opblock-summary-path').first().waitFor({ timeout: 60_000 });
    const rendered = await page.$$eval('.opblock-summary-path', (els) => els.map((e) => e.getAttribute('data-path')));
    const renderedSet = new Set(rendered);
    const specUrls = new Set(PATHS.map((p) => openApiPath(p.template)));
    expect(PATHS).toHaveLength(52);
    for (const def of PATHS) expect(renderedSet, def.template).toContain(openApiPath(def.template));
    const spec = [...renderedSet].filter((p) => p !== null && !SYSTEM_PATHS.includes(p));
    expect(new Set(spec)).toEqual(specUrls);
    console.info(
      `/docs: ${rendered.length} operations rendered; the 52 spec paths are ${specUrls.size} URL shapes, all listed`,
    );
    await page.screenshot({ path: path.join(shots, 'docs.png') });

    // Authorize with the bearer token through the UI's dialog.
    await page.locator('button.authorize').first().click();
    const dialog = page.locator('.modal-ux');
    await dialog.locator('input').first().fill(token);
    await dialog.locator('button.authorize').click();
    await dialog.locator('button.btn-done').click();

    // Try it out on the pool analytics path, with the published pool.
    const url = openApiPath(SEEDED_POOL.def.template);
    const op = page.locator('.opblock', { has: page.locator(`.opblock-summary-path[data-path="${url}"]`) }).first();
    await op.locator('.opblock-summary').first().click();
    await op.locator('button.try-out__btn').click();
    for (const [name, value] of Object.entries(SEEDED_POOL.values)) {
      const input = op.locator(`tr[data-param-name="${name}"] input`);
      if ((await input.count()) > 0) await input.fill(value);
    }
    const call = page.waitForRequest((r) => r.url().startsWith(`${origin}${SEEDED_POOL.path.split('?')[0]}`));
    await op.locator('button.execute').click();
    const request = await call;
    expect(request.headers().authorization).toBe(`Bearer ${token}`);
    const status = op.locator('.live-responses-table tbody .response-col_status').first();
    await expect.poll(async () => (await status.textContent())?.trim(), { timeout: 30_000 }).toBe('200');
    const body = await op.locator('.live-responses-table tbody .response-col_description pre').first().textContent();
    expect(body).toContain(SEEDED_POOL.values.pool_address!);
    expect(JSON.parse(body!)).toMatchObject({ status: true, data: { pool_address: SEEDED_POOL.values.pool_address } });
    await op.scrollIntoViewIfNeeded();
    await page.screenshot({ path: path.join(shots, 'docs-try-it-out.png') });
    expect(seen.external).toEqual([]);
    await page.close();
  }, 120_000);

  it('/status renders its tables and charts, loading nothing from anywhere, with no console error', async () => {
    const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    const seen = watch(page, origin);
    const response = await page.goto(`${origin}/status`);
    expect(response!.status()).toBe(200);
    expect(response!.headers()['content-type']).toMatch(/^text\/html/);
    expect(response!.headers()['content-security-policy']).toContain("default-src 'none'");
    const jobRows = await page.$$eval('table.jobs tbody tr[data-job]', (rows) =>
      rows.map((r) => r.getAttribute('data-job')),
    );
    for (const job of SEEDED_JOBS) expect(jobRows).toContain(job.name);
    expect(await page.locator('table.datasets tbody tr[data-computation]').count()).toBe(3);
    // Charts: one per job with runs and per published computation, each with bars or a line, and axes titles.
    const durationCharts = page.locator('figure[data-chart="duration"] svg');
    expect(await durationCharts.count()).toBe(SEEDED_JOBS.length);
    expect(await page.locator('figure[data-chart="duration"] svg rect').count()).toBeGreaterThan(100);
    expect(await page.locator('figure[data-chart="freshness"] svg polyline').count()).toBe(3);
    const box = await durationCharts.first().boundingBox();
    expect(box!.width).toBeGreaterThan(200);
    expect(box!.height).toBeGreaterThan(80);
    expect(await page.locator('svg text.axis-title', { hasText: 'time (UTC)' }).count()).toBeGreaterThanOrEqual(8);
    // The error text is shown as text (the seeded error carries markup and a script tag).
    await page.locator('tr.error-row summary').first().click();
    await expect.poll(() => page.locator('tr.error-row pre').first().textContent()).toContain('<b>timeout</b>');
    expect(await page.locator('tr.error-row pre b').count()).toBe(0);
    expect(await page.locator('#service-state').textContent()).toBe('Failing');
    await page.screenshot({ path: path.join(shots, 'status.png'), fullPage: true });
    expect(seen.external).toEqual([]);
    expect(seen.errors).toEqual([]);
    expect(seen.requests.filter((u) => u.startsWith(origin))).toEqual([`${origin}/status`]);
    await page.close();

    // Readable without JavaScript: the same tables and charts.
    const noJs = await browser.newPage({ javaScriptEnabled: false, viewport: { width: 1400, height: 1000 } });
    await noJs.goto(`${origin}/status`);
    expect(await noJs.locator('table.jobs tbody tr[data-job]').count()).toBe(jobRows.length);
    expect(await noJs.locator('figure[data-chart] svg').count()).toBe(SEEDED_JOBS.length + 3);
    await noJs.close();
  }, 120_000);
});
