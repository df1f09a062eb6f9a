import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, configWith, loadConfig } from './index.js';

describe('loadConfig', () => {
  it('has working defaults', () => {
    const c = loadConfig({});
    expect(c.port).toBe(8080);
    expect(c.host).toBe('127.0.0.1');
    expect(c.dataDir).toBe(path.resolve('./data'));
    expect(c.databaseUrl).toBeUndefined();
    expect(c.logLevel).toBe('info');
    expect(c.defaultRatePerMinute).toBe(600);
    expect(c.tokenLookupsPerSecond).toBe(20);
    expect(loadConfig({ TOKEN_LOOKUPS_PER_SECOND: '0' }).tokenLookupsPerSecond).toBe(0);
    expect(Object.isFrozen(c)).toBe(true);
    expect(c.logFormat).toBe('auto');
    expect(c.keepAliveTimeoutMs).toBe(72_000);
    expect(loadConfig({ KEEP_ALIVE_TIMEOUT_MS: ' 90000 ' }).keepAliveTimeoutMs).toBe(90_000);
    expect(loadConfig({ LOG_FORMAT: ' JSON ' }).logFormat).toBe('json');
  });

  it.each([
    [{ PORT: 'eighty' }, 'PORT'],
    [{ PORT: '70000' }, 'PORT'],
    [{ DATABASE_URL: 'mysql://x' }, 'DATABASE_URL'],
    [{ DATABASE_URL: 'not a url' }, 'DATABASE_URL'],
    [{ REDIS_URL: 'http://x' }, 'REDIS_URL'],
    [{ RPC_URL_ETHEREUM: 'ftp://node' }, 'RPC_URL_ETHEREUM'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL'],
    [{ LOG_FORMAT: 'colour' }, 'LOG_FORMAT'],
    [{ DISABLED_AREAS: 'dex,nft' }, 'DISABLED_AREAS'],
    [{ HOST: 'a b' }, 'HOST'],
    [{ SYNC_INTERVAL_MS: '1' }, 'SYNC_INTERVAL_MS'],
    [{ TOKEN_LOOKUPS_PER_SECOND: '-1' }, 'TOKEN_LOOKUPS_PER_SECOND'],
    [{ TOKEN_LOOKUPS_PER_SECOND: 'many' }, 'TOKEN_LOOKUPS_PER_SECOND'],
    [{ KEEP_ALIVE_TIMEOUT_MS: '0' }, 'KEEP_ALIVE_TIMEOUT_MS'],
    [{ KEEP_ALIVE_TIMEOUT_MS: '72s' }, 'KEEP_ALIVE_TIMEOUT_MS'],
    [{ KEEP_ALIVE_TIMEOUT_MS: '-5' }, 'KEEP_ALIVE_TIMEOUT_MS'],
    [{ KEEP_ALIVE_TIMEOUT_MS: '3600001' }, 'KEEP_ALIVE_TIMEOUT_MS'],
    [{ CONFIG_FILE: '/no/such/file.json' }, 'CONFIG_FILE'],
    [{ GITHUB_API_URL: 'ftp://github.example' }, 'GITHUB_API_URL'],
    [{ GITHUB_API_URL: 'not a url' }, 'GITHUB_API_URL'],
    [{ GITHUB_TOKEN: 'ghp_abc def' }, 'GITHUB_TOKEN'],
    [{ PUBLIC_URL: 'api.example.org' }, 'PUBLIC_URL'],
    [{ PUBLIC_URL: 'ftp://api.example.org' }, 'PUBLIC_URL'],
    [{ PUBLIC_URL: 'https://api.example.org/?x=1' }, 'PUBLIC_URL'],
    [{ PUBLIC_URL: 'https://user:pw@api.example.org' }, 'PUBLIC_URL'],
  ])('%j names the bad key %s', (env, key) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    try {
      loadConfig(env);
    } catch (err) {
      expect((err as ConfigError).key).toBe(key);
      expect((err as Error).message).toContain(key);
    }
  });

  it('says what a keep-alive timeout must be', () => {
    expect(() => loadConfig({ KEEP_ALIVE_TIMEOUT_MS: '72s' })).toThrow(
      /whole number of milliseconds, e\.g\. 72000, got "72s"/,
    );
    expect(() => loadConfig({ KEEP_ALIVE_TIMEOUT_MS: '0' })).toThrow(/1…3600000 ms .*got 0/);
  });

  it('reads a JSON config file; the environment wins', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'cfg-'));
    const file = path.join(dir, 'c.json');
    writeFileSync(file, JSON.stringify({ PORT: 9000, LOG_LEVEL: 'debug', DISABLED_AREAS: 'dex, oracles' }));
    const c = loadConfig({ CONFIG_FILE: file, LOG_LEVEL: 'warn' });
    expect(c.port).toBe(9000);
    expect(c.logLevel).toBe('warn');
    expect([...c.disabledAreas]).toEqual(['dex', 'oracles']);
    writeFileSync(file, JSON.stringify({ PROT: 1 }));
    expect(() => loadConfig({ CONFIG_FILE: file })).toThrow(/PROT/);
  });

  it('reads RPC_URL_<CHAIN> from the environment and the file', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'cfg-'));
    const file = path.join(dir, 'c.json');
    writeFileSync(file, JSON.stringify({ RPC_URL_ARBITRUM: 'http://arb.example:8545' }));
    const c = loadConfig({ CONFIG_FILE: file, RPC_URL_ETHEREUM: 'https://eth.example/v1' });
    expect([...c.rpcUrls]).toEqual([
      ['arbitrum', 'http://arb.example:8545'],
      ['ethereum', 'https://eth.example/v1'],
    ]);
  });

  it('sets keys on a parsed configuration with configWith, checked as at start', () => {
    const base = loadConfig({ PORT: '9000', GITHUB_TOKEN: 'ghp_a' });
    const c = configWith(base, { RPC_URL_ETHEREUM: 'http://127.0.0.1:8545', GITHUB_API_URL: 'http://127.0.0.1:9/' });
    expect(c.port).toBe(9000);
    expect([...c.rpcUrls]).toEqual([['ethereum', 'http://127.0.0.1:8545']]);
    expect(c.github).toEqual({ apiUrl: 'http://127.0.0.1:9', token: 'ghp_a' });
    expect(base.rpcUrls.size).toBe(0);
    expect(() => configWith(base, { PORT: 'nope' })).toThrow(/PORT/);
    expect(() => configWith(base, { NOT_A_KEY: '1' })).toThrow(/NOT_A_KEY/);
  });

  it('reads Bitcoin Core’s RPC with user and password or a cookie file, and refuses it without credentials', () => {
    expect(loadConfig({}).bitcoin).toEqual({
      rpcUrl: undefined,
      user: undefined,
      password: undefined,
      cookieFile: undefined,
    });
    const c = loadConfig({
      RPC_URL_BITCOIN: 'http://127.0.0.1:8332',
      BITCOIN_RPC_USER: 'u',
      BITCOIN_RPC_PASSWORD: 'p',
    });
    expect(c.bitcoin).toEqual({ rpcUrl: 'http://127.0.0.1:8332', user: 'u', password: 'p', cookieFile: undefined });
    const cookie = loadConfig({
      RPC_URL_BITCOIN: 'http://127.0.0.1:8332',
      BITCOIN_RPC_COOKIE_FILE: '/var/lib/bitcoin/.cookie',
    });
    expect(cookie.bitcoin.cookieFile).toBe('/var/lib/bitcoin/.cookie');
    expect(() => loadConfig({ RPC_URL_BITCOIN: 'http://127.0.0.1:8332' })).toThrow(/RPC_URL_BITCOIN.*BITCOIN_RPC_USER/);
    expect(() => loadConfig({ BITCOIN_RPC_USER: 'u' })).toThrow(/BITCOIN_RPC_PASSWORD/);
    expect(() => loadConfig({ BITCOIN_RPC_USER: 'a:b', BITCOIN_RPC_PASSWORD: 'secret-pw' })).toThrow(
      /BITCOIN_RPC_USER/,
    );
  });

  it('reads GITHUB_API_URL and GITHUB_TOKEN; a bad token is named without its value', () => {
    expect(loadConfig({}).github).toEqual({ apiUrl: undefined, token: undefined });
    const c = loadConfig({ GITHUB_API_URL: 'https://ghe.example/api/v3/', GITHUB_TOKEN: 'ghp_secret123' });
    expect(c.github).toEqual({ apiUrl: 'https://ghe.example/api/v3', token: 'ghp_secret123' });
    expect(Object.isFrozen(c.github)).toBe(true);
    try {
      loadConfig({ GITHUB_TOKEN: 'ghp_secret 123' });
      expect.unreachable();
    } catch (err) {
      expect((err as Error).message).toContain('GITHUB_TOKEN');
      expect((err as Error).message).not.toContain('secret');
    }
  });

  it('reads DISCORD_API_URL, DISCORD_BOT_TOKEN and DISCORD_GUILDS; a bad value is named without the secret', () => {
    const none = loadConfig({}).discord;
    expect(none.apiUrl).toBeUndefined();
    expect(none.token).toBeUndefined();
    expect(none.guilds.size).toBe(0);
    const c = loadConfig({
      DISCORD_API_URL: 'http://127.0.0.1:9999/api/v10/',
      DISCORD_BOT_TOKEN: 'MTA5.secret.x',
      DISCORD_GUILDS: '{"aave": "602826299974877205"}',
    });
    expect(c.discord.apiUrl).toBe('http://127.0.0.1:9999/api/v10');
    expect(c.discord.token).toBe('MTA5.secret.x');
    expect([...c.discord.guilds]).toEqual([['aave', '602826299974877205']]);
    expect(Object.isFrozen(c.discord)).toBe(true);
    expect(() => loadConfig({ DISCORD_GUILDS: '{"aave": 602826299974877205}' })).toThrow(/DISCORD_GUILDS.*aave/);
    expect(() => loadConfig({ DISCORD_GUILDS: '["602826299974877205"]' })).toThrow(/DISCORD_GUILDS/);
    expect(() => loadConfig({ DISCORD_API_URL: 'https://discord.com/api/v10' })).toThrow(/DISCORD_BOT_TOKEN/);
    try {
      loadConfig({ DISCORD_BOT_TOKEN: 'MTA5 secret' });
      expect.unreachable();
    } catch (err) {
      expect((err as Error).message).toContain('DISCORD_BOT_TOKEN');
      expect((err as Error).message).not.toContain('secret');
    }
  });

  it('reads PUBLIC_URL without its trailing slash; unset by default', () => {
    expect(loadConfig({}).publicUrl).toBeUndefined();
    expect(loadConfig({ PUBLIC_URL: 'https://api.example.org/protoscore/' }).publicUrl).toBe(
      'https://api.example.org/protoscore',
    );
    expect(loadConfig({ PUBLIC_URL: 'http://10.0.0.5:8080' }).publicUrl).toBe('http://10.0.0.5:8080');
  });

  it('reads the Reddit keys: credentials together, the subreddit mapping, values never in messages', () => {
    const none = loadConfig({}).reddit;
    expect(none).toMatchObject({ apiUrl: undefined, authUrl: undefined, clientId: undefined, clientSecret: undefined });
    expect(none.subreddits.size).toBe(0);
    const c = loadConfig({
      REDDIT_API_URL: 'http://127.0.0.1:9000/',
      REDDIT_AUTH_URL: 'http://127.0.0.1:9001',
      REDDIT_CLIENT_ID: 'app-id',
      REDDIT_CLIENT_SECRET: 'hunter2',
      REDDIT_USER_AGENT: 'server:protoscore:1.0 (by /u/someone)',
      REDDIT_SUBREDDITS: 'aave=r/Aave_Official, uniswap=Uniswap',
    }).reddit;
    expect(c).toMatchObject({
      apiUrl: 'http://127.0.0.1:9000',
      authUrl: 'http://127.0.0.1:9001',
      clientId: 'app-id',
      clientSecret: 'hunter2',
    });
    expect([...c.subreddits]).toEqual([
      ['aave', 'Aave_Official'],
      ['uniswap', 'Uniswap'],
    ]);
    expect(() => loadConfig({ REDDIT_CLIENT_ID: 'app-id' })).toThrow(/REDDIT_CLIENT_SECRET/);
    expect(() => loadConfig({ REDDIT_API_URL: 'https://oauth.reddit.com' })).toThrow(/REDDIT_API_URL/);
    expect(() => loadConfig({ REDDIT_SUBREDDITS: 'aave=no spaces here' })).toThrow(/REDDIT_SUBREDDITS/);
    try {
      loadConfig({ REDDIT_CLIENT_ID: 'app-id', REDDIT_CLIENT_SECRET: 'hunter 2' });
      expect.unreachable();
    } catch (err) {
      expect((err as Error).message).toContain('REDDIT_CLIENT_SECRET');
      expect((err as Error).message).not.toContain('hunter');
    }
  });
});
