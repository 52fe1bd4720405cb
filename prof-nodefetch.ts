import { Agent, request } from 'node:http';
const agent = new Agent({ keepAlive: true });
export const nodeFetch: typeof fetch = (input, init = {}) => new Promise((resolve, reject) => {
  const headers: Record<string, string> = {};
  new Headers(init.headers).forEach((v, k) => { headers[k] = v; });
  const body = typeof init.body === 'string' ? Buffer.from(init.body) : undefined;
  if (body) headers['content-length'] = String(body.byteLength);
  const req = request(String(input), { method: init.method ?? 'GET', headers, agent, signal: init.signal ?? undefined }, (res) => {
    const chunks: Buffer[] = [];
    res.on('data', (c) => chunks.push(c));
    res.on('end', () => { const h = new Headers(); for (const [k, v] of Object.entries(res.headers)) if (typeof v === 'string') h.set(k, v); resolve(new Response(Buffer.concat(chunks), { status: res.statusCode, headers: h })); });
    res.on('error', reject);
  });
  req.on('error', reject);
  req.end(body);
});
