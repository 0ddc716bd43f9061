import { request } from 'node:http';

/** What {@link postFrom} resolves: the answer's status, the headers that matter here, the body. */
export interface PostedFrom {
  readonly status: number;
  readonly retryAfter: string | undefined;
  readonly cookie: string | undefined;
  readonly body: string;
}

/**
 * POSTs `body` (JSON) to `url` from `from`, a loopback address (127.0.0.2, …) on a connection of
 * its own, so that a test can play several sources of the gateway's per-source bounds.
 */
export function postFrom(
  url: URL,
  from: string,
  body: string,
  headers: Record<string, string> = {},
): Promise<PostedFrom> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'POST',
        localAddress: from,
        agent: false,
        headers: { 'content-type': 'application/json', ...headers },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => {
          resolve({
            status: res.statusCode ?? 0,
            retryAfter: res.headers['retry-after'],
            cookie: res.headers['set-cookie']?.[0],
            body: text,
          });
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}
