// A real blog: Debian's hugo builds a site (offline, no theme download) whose post uses the
// depthprod shortcode (<depthprod-plot>) and the depthprod-frame shortcode (the iframe) from
// docs/blog/hugo/, with a copy of www/ in static/depthprod/. Built at the site root and under a
// sub-path (baseURL …/blog/), served, and read in both browsers: the numbers must be the
// correction's, in the element and in the frame. The post's CSP is the one docs/EMBED.md gives.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before } from 'node:test';
import { fileURLToPath } from 'node:url';
import { browsers } from './harness.mjs';
import { spoiltServer } from './servers.mjs';

const REPO = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const HUGO = process.env.HUGO_PATH || '/usr/bin/hugo';
const { test, session } = browsers();

const LAYOUT = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<meta http-equiv="Content-Security-Policy" content="default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'; frame-src 'self'">
<title>{{ .Title }}</title>
<link rel="stylesheet" href="{{ "site.css" | relURL }}">
</head>
<body><main><h1>{{ .Title }}</h1>{{ .Content }}</main></body>
</html>
`;

const CSS = `body { font: 17px/1.6 Georgia, serif; max-width: 44rem; margin: 2rem auto; padding: 0 1rem; color: #222; background: #fdfdf8; }
@media (prefers-color-scheme: dark) { body { color: #ddd; background: #111418; } a { color: #9cf; } }
depthprod-plot { height: 320px; margin: 1rem 0; }
.depthprod-embed { border: 0; max-width: 100%; }
`;

const POST = `---
title: "How deep can a product go?"
---

The correction computes the scaled product for A = B = 1, c = 1, q = 1 at a million layers:

{{< depthprod family="scaled" a="1" b="1" q="1" n="1e6" >}}The live plot of log Q_N loads here.{{< /depthprod >}}

And the whole explorer, embedded:

{{< depthprod-frame state="families=unscaled,scaled&a=1&b=1&c=1&q=1&n=1e6" >}}
`;

let work;
let served;
before(async () => {
  work = mkdtempSync(join(tmpdir(), 'depthprod-hugo-'));
  const site = join(work, 'site');
  mkdirSync(join(site, 'content', 'posts'), { recursive: true });
  mkdirSync(join(site, 'layouts', '_default'), { recursive: true });
  mkdirSync(join(site, 'static'), { recursive: true });
  cpSync(join(REPO, 'docs', 'blog', 'hugo', 'layouts'), join(site, 'layouts'), { recursive: true });
  cpSync(join(REPO, 'www'), join(site, 'static', 'depthprod'), { recursive: true });
  writeFileSync(join(site, 'layouts', '_default', 'single.html'), LAYOUT);
  writeFileSync(join(site, 'layouts', '_default', 'list.html'), LAYOUT);
  writeFileSync(join(site, 'layouts', 'index.html'), LAYOUT);
  writeFileSync(join(site, 'static', 'site.css'), CSS);
  writeFileSync(join(site, 'content', 'posts', 'depth.md'), POST);
  writeFileSync(join(site, 'config.toml'), 'title = "A blog"\ndisableKinds = ["taxonomy", "term", "RSS", "sitemap"]\n');
  // One build at the root, one under /blog/: the server's root holds both.
  const out = join(work, 'public');
  for (const [baseURL, dest] of [['http://example.org/', out], ['http://example.org/blog/', join(out, 'blog')]]) {
    const r = spawnSync(HUGO, ['--quiet', '--source', site, '--destination', dest, '--baseURL', baseURL], {
      encoding: 'utf8',
      env: { ...process.env, HUGO_CACHEDIR: join(work, 'cache') },
    });
    assert.equal(r.status, 0, `hugo (${HUGO}, run \`node scripts/setup.mjs --test\`) failed: ${r.error?.message ?? ''}${r.stderr}${r.stdout}`);
  }
  served = await spoiltServer({ root: out });
});
after(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

async function checkPost(t, prefix, colorScheme = 'light') {
  const page = await session.page(t, { allowOrigins: [served.origin], viewport: { width: 900, height: 1400 }, context: { colorScheme } });
  const res = await page.goto(`${served.url}${prefix}posts/depth/`);
  assert.equal(res.status(), 200);
  await page.waitForFunction(() => /^2\.7784912/.test(document.querySelector('depthprod-plot')?.shadowRoot?.querySelector('[data-testid="value"]')?.textContent ?? ''), null, { timeout: 30_000 });
  const src = await page.getAttribute('iframe', 'src');
  assert.ok(src.startsWith(`/${prefix}depthprod/#families=unscaled,scaled&a=1`), `iframe src ${src}`);
  assert.equal(await page.evaluate(() => document.querySelector('script[type=module]').getAttribute('src')), `/${prefix}depthprod/depthprod-plot.js`);
  await page.waitForFunction(() => /^2004\.44407/.test(document.querySelector('iframe').contentDocument?.querySelector('[data-testid="log-product-unscaled"]')?.textContent ?? ''), null, { timeout: 30_000 });
  await page.waitForFunction(() => /^2\.7784912/.test(document.querySelector('iframe').contentDocument?.querySelector('[data-testid="log-product-scaled"]')?.textContent ?? ''), null, { timeout: 30_000 });
  // The fallback text is not rendered once the element has upgraded.
  assert.equal(await page.evaluate(() => [...document.querySelector('depthprod-plot').childNodes].some((n) => n.nodeType === 1 && n.getClientRects().length)), false);
  return page;
}

test('Hugo at the site root: shortcode element and iframe show the correction’s numbers', { timeout: 120_000 }, async (t) => {
  await checkPost(t, '');
});

test('Hugo under a sub-path (/blog/): relURL keeps both working; light and dark', { timeout: 120_000 }, async (t) => {
  await checkPost(t, 'blog/');
  const dark = await checkPost(t, 'blog/', 'dark');
  assert.equal(await dark.evaluate(() => getComputedStyle(document.querySelector('depthprod-plot').shadowRoot.querySelector('.box')).backgroundColor), 'rgb(23, 26, 32)');
  await session.screenshot(dark, `${session.browserName} hugo post dark`);
});
