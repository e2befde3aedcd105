// The static server of `npm start` (scripts/serve.mjs), without a browser: files with their type,
// revalidation answered with 304 and no body, nothing outside its folder, and clear statuses.
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { test } from 'node:test';
import { startServer } from '../../scripts/serve.mjs';

/** GET `path` as written (a URL object would normalise `..` away before the request leaves). */
function get(base, path, headers = {}) {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const req = request({ hostname, port, path, headers }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end();
  });
}

test('serve.mjs: a file, then a 304 for the unchanged file, 403 outside the folder, 404 for none', async () => {
  const server = await startServer({ port: 0 });
  try {
    const first = await get(server.url, '/js/common/format.js');
    assert.equal(first.status, 200);
    assert.match(first.headers['content-type'], /javascript/);
    assert.equal(first.headers['cache-control'], 'no-cache');
    assert.ok(first.headers.etag, 'an ETag to revalidate against');
    assert.equal(Number(first.headers['content-length']), Buffer.byteLength(first.body));
    assert.match(first.body, /export function plain/);
    const again = await get(server.url, '/js/common/format.js', { 'if-none-match': first.headers.etag });
    assert.equal(again.status, 304);
    assert.equal(again.body, '');
    const other = await get(server.url, '/js/common/rich.js', { 'if-none-match': first.headers.etag });
    assert.equal(other.status, 200, 'another file does not match the first one’s ETag');
    assert.equal((await get(server.url, '/js/../../package.json')).status, 403);
    assert.equal((await get(server.url, '/js/%2e%2e/%2e%2e/package.json')).status, 403);
    assert.equal((await get(server.url, '/no-such-file.js')).status, 404);
  } finally {
    await server.close();
  }
});

test('serve.mjs: cacheControl sets every response’s Cache-Control (the benchmark’s static-host case)', async () => {
  const server = await startServer({ port: 0, cacheControl: 'max-age=600' });
  try {
    const first = await get(server.url, '/js/common/format.js');
    assert.equal(first.status, 200);
    assert.equal(first.headers['cache-control'], 'max-age=600');
    const again = await get(server.url, '/js/common/format.js', { 'if-none-match': first.headers.etag });
    assert.equal(again.status, 304);
    assert.equal(again.headers['cache-control'], 'max-age=600');
  } finally {
    await server.close();
  }
});
