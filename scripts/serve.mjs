#!/usr/bin/env node
// A tiny static file server for www/ (node:http only, no dependencies).
//
//   node scripts/serve.mjs            serves www/ at http://127.0.0.1:8080/
//   PORT=9000 node scripts/serve.mjs  another port (PORT=0 picks a free one)
//
// It sends `application/wasm` for .wasm (needed by WebAssembly.instantiateStreaming), refuses
// anything outside the served folder, and answers only GET and HEAD. The e2e harness imports
// `startServer` from here.

import { createServer } from 'node:http';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { extname, join, resolve, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const REPO = resolve(fileURLToPath(new URL('..', import.meta.url)));
export const DEFAULT_ROOT = join(REPO, 'www');

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.wasm': 'application/wasm',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.ico': 'image/x-icon',
  '.txt': 'text/plain; charset=utf-8',
  '.md': 'text/plain; charset=utf-8',
  '.csv': 'text/csv; charset=utf-8',
  '.woff2': 'font/woff2',
};

function send(res, status, text, extra = {}) {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', ...extra });
  res.end(`${status} ${text}\n`);
}

/** Maps a request path to a file under `root`, or null when it would leave `root`. */
export function resolveInside(root, urlPath) {
  let path;
  try {
    path = decodeURIComponent(urlPath);
  } catch {
    return null; // malformed %-escape
  }
  if (path.includes('\0') || path.includes('\\')) return null;
  if (path.split('/').some((segment) => segment === '..')) return null;
  const file = resolve(root, '.' + (path.startsWith('/') ? path : '/' + path));
  return file === root || file.startsWith(root + sep) ? file : null;
}

async function handle(root, cacheControl, req, res) {
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    return send(res, 405, 'Method Not Allowed', { allow: 'GET, HEAD' });
  }
  const urlPath = (req.url ?? '/').split(/[?#]/, 1)[0];
  let file = resolveInside(root, urlPath);
  if (file === null) return send(res, 403, 'Forbidden');
  let info = await stat(file).catch(() => null);
  if (info?.isDirectory()) {
    if (!urlPath.endsWith('/')) {
      res.writeHead(301, { location: urlPath + '/' });
      return res.end();
    }
    file = join(file, 'index.html');
    info = await stat(file).catch(() => null);
  }
  if (!info?.isFile()) return send(res, 404, 'Not Found');
  // no-cache (the default): the browser revalidates every file on every load (an edited file shows
  // at once), and an unchanged one costs a 304 without its body (a weak ETag of size and mtime), as
  // a static host answers, instead of the whole file again. The benchmark also serves with a
  // lifetime (`cacheControl: 'max-age=600'`, GitHub Pages' policy) to measure a host that lets
  // the browser skip the revalidations.
  const etag = `W/"${info.size.toString(16)}-${Math.floor(info.mtimeMs).toString(16)}"`;
  const headers = {
    'content-type': TYPES[extname(file).toLowerCase()] ?? 'application/octet-stream',
    'cache-control': cacheControl,
    etag,
    'x-content-type-options': 'nosniff',
  };
  if (req.headers['if-none-match'] === etag) {
    res.writeHead(304, headers);
    return res.end();
  }
  res.writeHead(200, { ...headers, 'content-length': info.size });
  if (req.method === 'HEAD') return res.end();
  createReadStream(file)
    .on('error', () => res.destroy())
    .pipe(res);
}

/**
 * Starts the server. Resolves to `{ server, url, close() }` once it listens.
 * `port: 0` picks a free port; `host` defaults to the loopback address; `cacheControl` is every
 * response's Cache-Control (default `no-cache`).
 */
export function startServer({ root = DEFAULT_ROOT, port = 8080, host = '127.0.0.1', cacheControl = 'no-cache' } = {}) {
  const absRoot = resolve(root);
  const server = createServer((req, res) => {
    handle(absRoot, cacheControl, req, res).catch((err) => {
      if (!res.headersSent) send(res, 500, 'Internal Server Error');
      else res.destroy();
      console.error(`serve: ${req.url}: ${err.message}`);
    });
  });
  return new Promise((resolvePromise, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      const { port: actual } = server.address();
      const url = `http://${host}:${actual}/`;
      const close = () => new Promise((done) => {
        server.closeAllConnections?.();
        server.close(() => done());
      });
      resolvePromise({ server, url, close });
    });
  });
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const port = process.env.PORT === undefined ? 8080 : Number(process.env.PORT);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    console.error(`serve: PORT=${process.env.PORT} is not a port number (0-65535)`);
    process.exit(2);
  }
  try {
    const { url } = await startServer({ port });
    console.log(`Serving ${DEFAULT_ROOT} at ${url}  (Ctrl+C to stop)`);
  } catch (err) {
    console.error(`serve: cannot listen on 127.0.0.1:${port}: ${err.message}` +
      (err.code === 'EADDRINUSE' ? ' (try PORT=8081 npm start)' : ''));
    process.exit(1);
  }
}
