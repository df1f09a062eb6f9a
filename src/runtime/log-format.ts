/**
 * Log lines for a person: `12:03:04 INFO  dex.ingest ok in 3.2 s — 120 swaps`, rather than pino's JSON. Used when
 * stdout is a terminal (LOG_FORMAT=auto) or with LOG_FORMAT=pretty; the JSON lines stay exactly as they are
 * otherwise. pino hands its destination one JSON line per record; `formatLogLine` turns it into one readable line.
 */
import type { LogFormat } from '../config/index.js';

/** `auto` is pretty at a terminal, JSON elsewhere (files, pipes, log collectors). */
export function chooseLogFormat(setting: LogFormat, stdoutIsTerminal: boolean): 'json' | 'pretty' {
  if (setting === 'auto') return stdoutIsTerminal ? 'pretty' : 'json';
  return setting;
}

const LEVELS: Record<number, string> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' };
const COLOURS: Record<string, string> = { WARN: '\x1b[33m', ERROR: '\x1b[31m', FATAL: '\x1b[35m', DEBUG: '\x1b[2m' };
const RESET = '\x1b[0m';

/** Fields every line has, or that the readable form shows in its own place. */
const HIDDEN = new Set(['level', 'time', 'msg', 'pid', 'hostname', 'service', 'run_id', 'job', 'req_id', 'reqId']);

export interface PrettyOptions {
  /** ANSI colours for warnings and errors. */
  readonly colour: boolean;
  /** Formats a time as HH:MM:SS (default: local time). */
  readonly clock?: (date: Date) => string;
}

function localTime(date: Date): string {
  return [date.getHours(), date.getMinutes(), date.getSeconds()].map((n) => String(n).padStart(2, '0')).join(':');
}

function seconds(value: unknown): string {
  const n = Number(value);
  return n >= 10 ? `${Math.round(n)} s` : `${n.toFixed(1)} s`;
}

function text(value: unknown): string {
  if (typeof value === 'string') return /[\s"=]/.test(value) || value === '' ? JSON.stringify(value) : value;
  if (value !== null && typeof value === 'object') {
    const message = (value as { message?: unknown }).message;
    if (typeof message === 'string') return JSON.stringify(message);
    return JSON.stringify(value);
  }
  return String(value);
}

/** One readable line (no newline) from one pino JSON record; a line that is not JSON is returned as it is. */
export function formatLogLine(line: string, options: PrettyOptions): string {
  let record: Record<string, unknown>;
  try {
    const parsed: unknown = JSON.parse(line);
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return line.trimEnd();
    record = parsed as Record<string, unknown>;
  } catch {
    return line.trimEnd();
  }
  const time = typeof record.time === 'string' || typeof record.time === 'number' ? new Date(record.time) : new Date();
  const level = LEVELS[Number(record.level)] ?? 'INFO';
  const shown = { ...record };
  let message = typeof record.msg === 'string' ? record.msg : '';
  // The job runner's line, said as a person would: `dex.ingest ok in 3.2 s — summary`.
  if (message === 'job finished' && typeof record.job === 'string') {
    message = `${record.job} ${String(record.status)} in ${seconds(record.seconds)}`;
    if (typeof record.summary === 'string' && record.summary) message += ` — ${record.summary}`;
    for (const key of ['status', 'seconds', 'summary']) delete shown[key];
    if (Number(record.attempts) === 1) delete shown.attempts;
  } else if (typeof record.job === 'string') {
    message = `${record.job}: ${message}`;
  }
  // The access log line: `request GET /status 200 3.1 ms`.
  if (message === 'request' && typeof record.method === 'string' && typeof record.path === 'string') {
    message = `request ${record.method} ${record.path} ${String(record.status)} ${Number(record.ms).toFixed(1)} ms`;
    for (const key of ['method', 'path', 'status', 'ms', 'route', 'request_id']) delete shown[key];
  }
  const fields = Object.entries(shown)
    .filter(([key, value]) => !HIDDEN.has(key) && value !== undefined && value !== null)
    .map(([key, value]) => `${key}=${text(value)}`);
  const stamp = (options.clock ?? localTime)(Number.isNaN(time.getTime()) ? new Date() : time);
  const levelText = options.colour && COLOURS[level] ? `${COLOURS[level]}${level.padEnd(5)}${RESET}` : level.padEnd(5);
  return [stamp, levelText, message, ...fields].filter((part) => part !== '').join(' ');
}
