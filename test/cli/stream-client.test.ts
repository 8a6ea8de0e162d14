import { describe, expect, it } from 'vitest';
import { prettyDetection } from '../../cli/stream-commands.js';
import { parseStreamUrl } from '../../cli/stream-client.js';

describe('stream client arguments', () => {
  it('reads TCP, TLS and unix-socket URLs and refuses others naming --url', () => {
    expect(parseStreamUrl('http://127.0.0.1:9090')).toEqual({ options: { host: '127.0.0.1', port: 9090 }, tls: false });
    expect(parseStreamUrl('https://[::1]')).toEqual({ options: { host: '::1', port: 443 }, tls: true });
    expect(parseStreamUrl('unix:///run/sigmad.sock')).toEqual({ options: { socketPath: '/run/sigmad.sock' }, tls: false });
    expect(() => parseStreamUrl('ftp://host')).toThrow(/--url ftp:\/\/host: unsupported scheme/);
    expect(() => parseStreamUrl('localhost:9090')).toThrow(/--url/);
    expect(() => parseStreamUrl('unix://')).toThrow(/no socket path/);
  });

  it('prints a detection as one line, coloured by level only when asked', () => {
    const line = JSON.stringify({ rule_title: 'Whoami', level: 'critical', matched_fields: [{ field: 'CommandLine', value: 'whoami' }, { field: 'EventID', value: 1 }] });
    expect(prettyDetection(line, false)).toMatch(/^\d\d:\d\d:\d\d critical {6}Whoami {2}CommandLine=whoami EventID=1$/);
    expect(prettyDetection(line, true)).toContain('\u001b[1;37;41mcritical');
    expect(prettyDetection('not json', true)).toBe('not json');
  });
});
