import { request as httpRequest } from 'node:http';
import type { ListenAddress } from '../../http/listen-address.js';
import type { InjectRequest } from '../../http/inject.js';
import type { SuiteResponse } from './route-suite.js';

/** A plain node:http client for either a TCP or a unix listen address. */
export function send(address: ListenAddress, r: InjectRequest, onChunk?: (chunk: string, abort: () => void) => void): Promise<SuiteResponse> {
  return new Promise((resolve, reject) => {
    const target = address.kind === 'unix' ? { socketPath: address.path } : { host: address.host, port: address.port };
    const req = httpRequest({ ...target, method: r.method, path: r.url, headers: r.headers, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        text += chunk;
        onChunk?.(chunk, () => {
          req.destroy();
          resolve(done());
        });
      });
      const done = (): SuiteResponse => {
        const headers: Record<string, string> = {};
        for (const [k, v] of Object.entries(res.headers)) if (typeof v === 'string') headers[k] = v;
        return { status: res.statusCode ?? 0, headers, text };
      };
      res.on('end', () => resolve(done()));
      res.on('error', reject);
    });
    req.on('error', reject);
    if (r.body !== undefined) req.end(r.body);
    else req.end();
  });
}
