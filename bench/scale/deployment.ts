/**
 * A scaled-out deployment on this machine, for test/multi-process.test.ts and bench/scale/run.ts: the sandbox
 * process, `worker`s and `serve`s as separate processes on one fresh PostgreSQL database (created here, dropped at
 * the end) and Redis, each process with its own DATA_DIR and port. The commands are compose.yaml's, so the test runs
 * what an operator runs. Every process started here is stopped by `close()` (SIGTERM, then SIGKILL).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream, mkdtempSync, readFileSync, rmSync, type WriteStream } from 'node:fs';
import net from 'node:net';
import { setPriority, tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { parse } from 'yaml';

export const ROOT = path.resolve(import.meta.dirname, '../..');

/** The protoscore services of compose.yaml (those built from this repository) with their command, by name. */
export function composeServices(): Record<string, { command: string[]; environment: Record<string, string> }> {
  const doc = parse(readFileSync(path.join(ROOT, 'compose.yaml'), 'utf8'), { merge: true }) as {
    services: Record<string, { build?: unknown; command?: string[]; environment?: Record<string, string> }>;
  };
  const out: Record<string, { command: string[]; environment: Record<string, string> }> = {};
  for (const [name, service] of Object.entries(doc.services)) {
    if (service.build === undefined) continue;
    out[name] = { command: service.command ?? [], environment: service.environment ?? {} };
  }
  return out;
}

/** compose.yaml's command of a service (`serve`, `worker`, `sandbox`, `migrate`). */
export function composeCommand(service: string): string[] {
  const found = composeServices()[service];
  if (!found?.command.length) throw new Error(`compose.yaml has no command for the service ${service}`);
  return found.command;
}

export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** One protoscore process: its output lines (stdout and stderr) and its end. */
export class Proc {
  readonly lines: string[] = [];
  readonly exited: Promise<number | null>;
  private exitCode: number | null | undefined;
  private readonly waiters = new Set<() => void>();

  constructor(
    readonly name: string,
    readonly child: ChildProcess,
    log: WriteStream,
  ) {
    const collect = (stream: NodeJS.ReadableStream | null) => {
      let rest = '';
      stream?.setEncoding('utf8');
      stream?.on('data', (chunk: string) => {
        log.write(chunk);
        const parts = (rest + chunk).split('\n');
        rest = parts.pop() ?? '';
        this.lines.push(...parts);
        for (const wake of this.waiters) wake();
      });
    };
    collect(child.stdout);
    collect(child.stderr);
    this.exited = new Promise((resolve) => {
      child.on('exit', (code, signal) => {
        this.exitCode = code ?? (signal ? null : 0);
        log.end();
        for (const wake of this.waiters) wake();
        resolve(code);
      });
    });
  }

  get pid(): number {
    return this.child.pid!;
  }

  get alive(): boolean {
    return this.exitCode === undefined;
  }

  /** The first output line matching `pattern` (waits for it; fails if the process ends first). */
  async waitFor(pattern: RegExp, timeoutMs: number): Promise<RegExpMatchArray> {
    const deadline = Date.now() + timeoutMs;
    for (let seen = 0; ; ) {
      for (; seen < this.lines.length; seen++) {
        const m = pattern.exec(this.lines[seen]!);
        if (m) return m;
      }
      if (!this.alive) throw new Error(`${this.name} exited (${this.exitCode}) before printing ${pattern}`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`${this.name} did not print ${pattern} within ${timeoutMs} ms`);
      await new Promise<void>((resolve) => {
        const wake = () => {
          this.waiters.delete(wake);
          clearTimeout(timer);
          resolve();
        };
        const timer = setTimeout(wake, Math.min(left, 1000));
        this.waiters.add(wake);
      });
    }
  }

  /** Log lines (JSON) whose `msg` matches. */
  logs(msg: RegExp): Record<string, unknown>[] {
    const out: Record<string, unknown>[] = [];
    for (const line of this.lines) {
      if (!line.startsWith('{')) continue;
      try {
        const parsed = JSON.parse(line) as Record<string, unknown>;
        if (typeof parsed.msg === 'string' && msg.test(parsed.msg)) out.push(parsed);
      } catch {
        // not a log line
      }
    }
    return out;
  }

  /** SIGTERM, then SIGKILL if it has not ended within `graceMs`. */
  async stop(graceMs = 20_000): Promise<void> {
    if (!this.alive) return;
    this.child.kill('SIGTERM');
    const ended = await Promise.race([this.exited.then(() => true), delay(graceMs).then(() => false)]);
    if (!ended) {
      this.child.kill('SIGKILL');
      await this.exited;
    }
  }

  async kill(): Promise<void> {
    if (!this.alive) return;
    this.child.kill('SIGKILL');
    await this.exited;
  }
}

/**
 * A TCP relay in front of Redis that can be taken down and brought back: "Redis down" for the processes behind it,
 * without stopping the machine's Redis (other tests use it).
 */
export class RelayedRedis {
  private server: net.Server | undefined;
  private readonly sockets = new Set<net.Socket>();

  private constructor(
    private readonly target: URL,
    readonly port: number,
  ) {}

  static async start(redisUrl: string): Promise<RelayedRedis> {
    const relay = new RelayedRedis(new URL(redisUrl), await freePort());
    await relay.up();
    return relay;
  }

  /** The Redis URL the processes are given. */
  get url(): string {
    const u = new URL(this.target.href);
    u.hostname = '127.0.0.1';
    u.port = String(this.port);
    return u.href;
  }

  async up(): Promise<void> {
    if (this.server) return;
    const server = net.createServer((client) => {
      const upstream = net.connect(Number(this.target.port || 6379), this.target.hostname);
      for (const s of [client, upstream]) {
        this.sockets.add(s);
        s.on('close', () => this.sockets.delete(s));
        s.on('error', () => undefined);
      }
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', resolve);
    });
    this.server = server;
  }

  /** Refuses new connections and cuts the open ones, as a Redis that stopped. */
  async down(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    for (const s of this.sockets) s.destroy();
    if (server) await new Promise((resolve) => server.close(resolve));
  }
}

export interface DeploymentOptions {
  /** PostgreSQL server URL (any database on it): a fresh database is created on that server. */
  readonly pgUrl: string;
  /** Redis URL the processes are given. */
  readonly redisUrl: string;
  /** Keys every protoscore process gets (e.g. SYNC_INTERVAL_MS, DISABLED_AREAS). */
  readonly env?: Readonly<Record<string, string>>;
  /** CPU priority of the processes (default 10: below the machine's other work). */
  readonly nice?: number;
}

/** A fresh database on the server of `pgUrl`; `drop()` removes it (connections and all). */
export async function freshDatabase(pgUrl: string): Promise<{ url: string; name: string; drop(): Promise<void> }> {
  const name = `ps_mp_${randomBytes(5).toString('hex')}`;
  const admin = new pg.Client({ connectionString: pgUrl });
  await admin.connect();
  try {
    await admin.query(`create database ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(pgUrl);
  url.pathname = `/${name}`;
  return {
    url: url.href,
    name,
    async drop() {
      const client = new pg.Client({ connectionString: pgUrl });
      await client.connect();
      try {
        await client.query(`drop database if exists ${name} with (force)`);
      } finally {
        await client.end();
      }
    },
  };
}

export class Deployment {
  readonly procs: Proc[] = [];
  private readonly cleanups: (() => Promise<void>)[] = [];

  private constructor(
    readonly dir: string,
    readonly databaseUrl: string,
    private readonly options: DeploymentOptions,
  ) {}

  static async create(options: DeploymentOptions): Promise<Deployment> {
    const dir = mkdtempSync(path.join(tmpdir(), 'protoscore-mp-'));
    const db = await freshDatabase(options.pgUrl);
    const deployment = new Deployment(dir, db.url, options);
    deployment.cleanups.push(
      () => db.drop(),
      async () => rmSync(dir, { recursive: true, force: true }),
    );
    return deployment;
  }

  /** Another fresh database on the same server, dropped with the deployment. */
  async database(): Promise<string> {
    const db = await freshDatabase(this.options.pgUrl);
    this.cleanups.unshift(() => db.drop());
    return db.url;
  }

  /** The keys of a process of this deployment (its own DATA_DIR), then `env`. */
  env(name: string, env: Readonly<Record<string, string>> = {}): Record<string, string> {
    return {
      DATA_DIR: path.join(this.dir, name),
      DATABASE_URL: this.databaseUrl,
      REDIS_URL: this.options.redisUrl,
      LOG_FORMAT: 'json',
      ...this.options.env,
      ...env,
    };
  }

  /** Starts `protoscore <args>` (from source, as bin/protoscore.js runs the build) with exactly these keys. */
  launch(name: string, args: readonly string[], env: Readonly<Record<string, string>>): Proc {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/run.ts', ...args], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      setPriority(child.pid!, this.options.nice ?? 10);
    } catch {
      // exited already: the Proc reports it
    }
    const proc = new Proc(name, child, createWriteStream(path.join(this.dir, `${name}.log`), { flags: 'a' }));
    this.procs.push(proc);
    return proc;
  }

  /** Runs a short command (`migrate`, `keys …`) to its end. */
  async run(
    args: readonly string[],
    env: Readonly<Record<string, string>> = {},
  ): Promise<{ code: number | null; stdout: string }> {
    const proc = this.launch(`cli-${this.procs.length}`, args, this.env('cli', env));
    const code = await proc.exited;
    return { code, stdout: proc.lines.join('\n') };
  }

  /**
   * compose.yaml's `sandbox` (`sandbox run`) with its own DATA_DIR; resolves with the configuration file it wrote
   * once the world has caught up with the clock.
   */
  async sandbox(
    env: Readonly<Record<string, string>>,
    timeoutMs = 300_000,
  ): Promise<{ proc: Proc; configFile: string }> {
    const proc = this.launch('sandbox', composeCommand('sandbox'), {
      DATA_DIR: path.join(this.dir, 'sandbox'),
      LOG_FORMAT: 'json',
      ...env,
    });
    const [, configFile] = await proc.waitFor(/CONFIG_FILE=(\S+):$/, timeoutMs);
    await proc.waitFor(/caught up with the clock/, timeoutMs);
    return { proc, configFile: configFile! };
  }

  /** compose.yaml's `serve` on a free port; resolves once it listens. */
  async serve(name: string, env: Readonly<Record<string, string>> = {}): Promise<{ proc: Proc; url: string }> {
    const port = await freePort();
    const proc = this.launch(
      name,
      composeCommand('serve'),
      this.env(name, { HOST: '127.0.0.1', PORT: String(port), ...env }),
    );
    await proc.waitFor(/API on http/, 120_000);
    return { proc, url: `http://127.0.0.1:${port}` };
  }

  /** compose.yaml's `worker`. */
  worker(name: string, env: Readonly<Record<string, string>> = {}): Proc {
    return this.launch(name, composeCommand('worker'), this.env(name, env));
  }

  /** Stops every process (the sandbox last: the others read it), drops the databases, removes the directory. */
  async close(): Promise<void> {
    const sandbox = this.procs.filter((p) => p.name === 'sandbox');
    await Promise.all(this.procs.filter((p) => p.name !== 'sandbox').map((p) => p.stop()));
    await Promise.all(sandbox.map((p) => p.stop(30_000)));
    for (const cleanup of this.cleanups) await cleanup().catch(() => undefined);
  }
}
