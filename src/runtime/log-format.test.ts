import { describe, expect, it } from 'vitest';
import { chooseLogFormat, formatLogLine } from './log-format.js';

const plain = { colour: false, clock: (d: Date) => d.toISOString().slice(11, 19) };
const line = (record: Record<string, unknown>) =>
  JSON.stringify({ level: 30, time: '2026-11-23T12:03:04.512Z', pid: 7, service: 'protoscore', ...record });

describe('chooseLogFormat', () => {
  it.each([
    ['auto', true, 'pretty'],
    ['auto', false, 'json'],
    ['json', true, 'json'],
    ['json', false, 'json'],
    ['pretty', false, 'pretty'],
    ['pretty', true, 'pretty'],
  ] as const)('%s with a terminal %s → %s', (setting, tty, format) => {
    expect(chooseLogFormat(setting, tty)).toBe(format);
  });
});

describe('formatLogLine', () => {
  it('says a finished job as a person would', () => {
    const text = formatLogLine(
      line({
        msg: 'job finished',
        job: 'dex.ingest',
        run_id: 'r1',
        status: 'ok',
        attempts: 1,
        seconds: 3.214,
        summary: '120 swaps',
      }),
      plain,
    );
    expect(text).toBe('12:03:04 INFO  dex.ingest ok in 3.2 s — 120 swaps');
    const failed = formatLogLine(
      line({
        level: 50,
        msg: 'job finished',
        job: 'lending.compute',
        status: 'failed',
        attempts: 3,
        seconds: 12.6,
        err: 'boom',
      }),
      plain,
    );
    expect(failed).toBe('12:03:04 ERROR lending.compute failed in 13 s attempts=3 err=boom');
  });

  it('shows the message, then the other fields as key=value, quoting what needs it', () => {
    const text = formatLogLine(
      line({ level: 40, msg: 'sandbox world open', rpc_url: 'http://127.0.0.1:8545', note: 'two words', n: 3 }),
      plain,
    );
    expect(text).toBe('12:03:04 WARN  sandbox world open rpc_url=http://127.0.0.1:8545 note="two words" n=3');
    expect(formatLogLine(line({ msg: 'job runner error', job: 'x', err: { message: 'bad' } }), plain)).toBe(
      '12:03:04 INFO  x: job runner error err="bad"',
    );
  });

  it('an access line reads as method, path, status and time', () => {
    const text = formatLogLine(
      line({
        msg: 'request',
        request_id: 'a',
        method: 'GET',
        route: '/status',
        path: '/status',
        status: 200,
        ms: 3.14,
      }),
      plain,
    );
    expect(text).toBe('12:03:04 INFO  request GET /status 200 3.1 ms');
  });

  it('colours warnings and errors only when asked, and passes non-JSON lines through', () => {
    expect(formatLogLine(line({ level: 50, msg: 'x' }), { ...plain, colour: true })).toBe(
      '12:03:04 \x1b[31mERROR\x1b[0m x',
    );
    expect(formatLogLine(line({ msg: 'x' }), { ...plain, colour: true })).toBe('12:03:04 INFO  x');
    expect(formatLogLine('not json\n', plain)).toBe('not json');
    expect(formatLogLine('[1,2]', plain)).toBe('[1,2]');
  });
});
