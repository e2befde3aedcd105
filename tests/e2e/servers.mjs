// Static servers for the e2e tests that need their own origins or spoilt headers: a second origin
// for cross-origin embedding, a CSP header, a 404, a wrong MIME type, CORS or not. Closed after the
// test file.
import { createServer } from 'node:http';
import { readFile } from 'node:fs/promises';
import { after } from 'node:test';
import { extname, join, normalize } from 'node:path';
import { DEFAULT_ROOT } from '../../scripts/serve.mjs';

const TYPES = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.css': 'text/css', '.wasm': 'application/wasm', '.svg': 'image/svg+xml', '.xml': 'application/xml', '.json': 'application/json' };

/**
 * A static server for www/ whose answers can be spoiled: `csp` adds a Content-Security-Policy
 * header to HTML, `missing` answers 404 for matching paths, `types` overrides content types by
 * extension, `cors` sends Access-Control-Allow-Origin: * for matching paths, `pages` serves extra
 * in-memory files (a host page and its script); `root` serves another folder than www/.
 */
export async function spoiltServer({ root = DEFAULT_ROOT, csp = null, missing = null, types = {}, cors = null, pages = {} } = {}) {
  const server = createServer(async (req, res) => {
    const path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    const headers = {};
    if (cors && cors.test(path)) headers['access-control-allow-origin'] = '*';
    if (missing && missing.test(path)) {
      res.writeHead(404, { 'content-type': 'text/plain', ...headers });
      return res.end('404 Not Found');
    }
    let body = pages[path];
    if (body === undefined) {
      const file = join(root, normalize(path.endsWith('/') ? `${path}index.html` : path));
      if (!file.startsWith(root)) return res.writeHead(403).end();
      body = await readFile(file).catch(() => null);
    }
    if (body === null) {
      res.writeHead(404, { 'content-type': 'text/plain', ...headers });
      return res.end('404 Not Found');
    }
    const ext = extname(path.endsWith('/') ? 'index.html' : path);
    headers['content-type'] = types[ext] ?? TYPES[ext] ?? 'application/octet-stream';
    headers['cache-control'] = 'no-store';
    if (csp && ext === '.html') headers['content-security-policy'] = csp;
    res.writeHead(200, headers);
    res.end(req.method === 'HEAD' ? undefined : body);
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${server.address().port}/`;
  const close = () => new Promise((r) => {
    server.closeAllConnections();
    server.close(r);
  });
  servers.push(close);
  return { url, origin: url.slice(0, -1), close };
}
const servers = [];
after(async () => {
  for (const close of servers) await close();
});

