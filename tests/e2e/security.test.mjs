// Hostile input: nothing from the URL fragment, a pasted list or an attribute is ever written as HTML.
// Script tags, on*= attributes, javascript: URLs, 100k-character values and thousands of repeated keys
// must run nothing (no dialog, no global set by the payload), leave the page responsive (an input
// still updates the numbers within 2 s) and show their problems as text. The harness fails every
// test on a console error, which includes Content-Security-Policy violations.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { test as plainTest } from 'node:test';
import { browsers, numberIn } from './harness.mjs';

// Each test runs in Chromium and in Firefox ("[chromium] …", "[firefox] …").
const { test, session } = browsers();

const T = { timeout: 180_000 };
const sel = (id) => `[data-testid="${id}"]`;
const WWW = new URL('../../www/', import.meta.url).pathname;

const open = (t, hash = '', options = {}) => session.open(t, hash, options);

/** Everything that would show that a payload ran or became markup. */
async function assertInert(page, where) {
  const found = await page.evaluate(() => ({
    pwned: Object.keys(window).filter((k) => k.startsWith('__pwned')),
    imgs: document.querySelectorAll('img, iframe, object, embed').length,
    inlineScripts: [...document.scripts].filter((s) => !s.src).length,
    handlers: [...document.querySelectorAll('*')].flatMap((el) => [...el.attributes].filter((a) => /^on/i.test(a.name)).map((a) => `${el.tagName}[${a.name}]`)),
    jsUrls: [...document.querySelectorAll('[href], [src], [action], [formaction]')].filter((el) => /^\s*javascript:/i.test(el.getAttribute('href') || el.getAttribute('src') || el.getAttribute('action') || el.getAttribute('formaction') || '')).length,
    // Messages are plain text: no element children inside any error or status line.
    markupInMessages: [...document.querySelectorAll('.error, .status, .share-status, #announce')].filter((el) => el.children.length > 0).length,
  }));
  assert.deepEqual(found, { pwned: [], imgs: 0, inlineScripts: 0, handlers: [], jsUrls: 0, markupInMessages: 0 }, where);
  assert.deepEqual(page.dialogs, [], `${where}: a dialog fired`);
}

/** The page still follows input (not frozen: 10 s each, far beyond any machine's load): a preset, then a typed A, each updates the numbers. */
async function assertResponsive(page, where) {
  const scaled = sel('log-product-scaled');
  const t0 = Date.now();
  await page.click(sel('preset-correction'));
  await page.waitForFunction((s) => document.querySelector(s)?.textContent.startsWith('2.7784912'), scaled, { timeout: 10_000 });
  await page.fill(sel('input-a'), '3');
  await page.waitForFunction((s) => document.querySelector(s)?.textContent.startsWith('5.94035837'), scaled, { timeout: 10_000 });
  const dt = Date.now() - t0;
  assert.ok(dt < 20_000, `${where}: the page took ${dt} ms to follow a preset and an input`);
  assert.equal(await page.textContent(sel('error-a')), '', `${where}: A is accepted again`);
}

async function assertNoNaN(page, where) {
  const body = await page.evaluate(() => document.body.innerText);
  assert.ok(!/\bNaN\b|\bundefined\b/.test(body), `${where}: the page shows NaN or undefined`);
}

const enc = encodeURIComponent;
const HOSTILE = [
  { name: 'script tag in a number', hash: `#a=${enc('<script>window.__pwned1=1</script>')}&families=unscaled,scaled`, message: ['error-a', /A = "<script>window.__pwned1=1<\/script>" is not a number/] },
  { name: 'raw (unencoded) img onerror', hash: '#b=<img src=x onerror=window.__pwned2=1>', message: ['error-b', /B = "<img src=x onerror=window.__pwned2=1>" is not a number/] },
  { name: 'svg onload in a family', hash: `#families=${enc('<svg onload=window.__pwned3=1>')},scaled`, message: ['error-fragment', /unknown family “<svg onload=window.__pwned3=1>”/] },
  { name: 'markup as a key', hash: `#${enc('<img src=x onerror=alert(1)>')}=1`, message: ['error-fragment', /unknown setting “<img src=x onerror=alert\(1\)>”/] },
  { name: 'javascript: URL as N', hash: `#n=${enc('javascript:alert(document.cookie)')}`, message: ['error-n', /not a valid depth/] },
  { name: 'javascript: URL and markup as a measured list', hash: `#variance=list&list=${enc('javascript:window.__pwned4=1,<b onmouseover=alert(1)>')}`, message: ['error-list', /not a number/] },
  { name: 'a 100,000-character value', hash: `#q=${'9'.repeat(100_000)}`, message: ['error-q', /q = "9{39}…" has more than 2000 significant digits/] },
  { name: 'a 100,000-character markup value', hash: `#c=${enc('<i>'.repeat(33_334))}`, message: ['error-c', /c = "(<i>){13}…" is not a number/] },
  { name: '20,000 repeated keys', hash: `#${'a=1&'.repeat(20_000)}a=<x>`, message: ['error-a', /A = "<x>" is not a number/] },
  { name: '10,000 unknown keys', hash: `#${Array.from({ length: 10_000 }, (_, i) => `k${i}=<img src=x onerror=alert(${i})>`).join('&')}`, message: ['error-fragment', /unknown setting/] },
  { name: '30,000 bogus families', hash: `#families=${'<b>x</b>,'.repeat(30_000)}scaled`, message: ['error-fragment', /unknown family/] },
  { name: 'over-long fragment (250k)', hash: `#list=${'1,'.repeat(125_000)}&variance=list`, message: ['error-fragment', /at most 200000 are read/] },
];

test('hostile fragments run nothing, show text and leave the page responsive', T, async (t) => {
  const page = await open(t);
  await numberIn(page, sel('log-product-scaled'));
  for (const h of HOSTILE) {
    await page.goto(`${session.url}${h.hash}`);
    await page.waitForFunction(() => window.depthprodStats && window.depthprodStats.updates > 0, null, { timeout: 30_000 });
    const [id, re] = h.message;
    await page.waitForFunction((s) => document.querySelector(s)?.textContent !== '', sel(id), { timeout: 10_000 });
    const msg = await page.textContent(sel(id));
    assert.match(msg, re, `${h.name}: ${id} reads “${msg.slice(0, 200)}”`);
    assert.ok(msg.length < 5000, `${h.name}: a ${msg.length}-character message`);
    await page.waitForTimeout(150);
    await assertInert(page, h.name);
    await assertNoNaN(page, h.name);
    await assertResponsive(page, h.name);
    await assertInert(page, `${h.name}, after an input`);
  }
});

test('a hostile fragment arriving by hashchange (link clicked in the page, hand-edited URL)', T, async (t) => {
  const page = await open(t);
  await numberIn(page, sel('log-product-scaled'));
  for (const h of HOSTILE.slice(0, 6)) {
    await page.evaluate((hash) => {
      location.hash = hash;
    }, h.hash);
    const [id, re] = h.message;
    await page.waitForFunction(([s, r]) => new RegExp(r).test(document.querySelector(s)?.textContent || ''), [sel(id), re.source], { timeout: 10_000 });
    await assertInert(page, `hashchange: ${h.name}`);
    await assertResponsive(page, `hashchange: ${h.name}`);
  }
});

test('pasted lists and typed values are text, never markup', T, async (t) => {
  const page = await open(t);
  await numberIn(page, sel('log-product-scaled'));
  await page.selectOption(sel('variance-model'), 'list');
  const payloads = [
    '<img src=x onerror="window.__pwned5=1">',
    '1, 2, <script>window.__pwned6=1</script>',
    `1, ${'2, '.repeat(50_000)}javascript:alert(1)`,
    '"><svg/onload=alert(1)>',
  ];
  for (const p of payloads) {
    await page.fill(sel('input-list'), p);
    await page.waitForFunction((s) => document.querySelector(s).textContent !== '', sel('error-list'), { timeout: 10_000 });
    assert.match(await page.textContent(sel('error-list')), /not a number|list/i);
    await assertInert(page, `list ${p.slice(0, 30)}`);
  }
  await page.fill(sel('input-list'), '1, 2, 3, 4');
  await page.waitForFunction((s) => document.querySelector(s).textContent === '', sel('error-list'));
  await page.selectOption(sel('variance-model'), 'power');
  for (const p of ['<img src=x onerror=alert(1)>', 'javascript:alert(1)', '1e999999', '-'.repeat(100_000)]) {
    await page.fill(sel('input-c'), p);
    await page.waitForFunction((s) => document.querySelector(s).textContent !== '', sel('error-c'));
    await page.fill(sel('input-theta'), p);
    await assertInert(page, `typed ${p.slice(0, 30)}`);
  }
  await page.fill(sel('input-c'), '1');
  await assertResponsive(page, 'after typed payloads');
  // The exports carry the state as text too: the Markdown and LaTeX builders never see markup.
  await page.goto(`${session.url}#a=${enc('<img src=x onerror=alert(1)>')}`);
  await numberIn(page, sel('log-product-scaled'));
  await page.click(sel('export-svg'));
  await page.waitForFunction((s) => /SVG saved/.test(document.querySelector(s).textContent), sel('share-status'));
  await assertInert(page, 'after an export');
});

// A static check of the sources: no browser, so it runs once.
plainTest('the site needs no inline script, style or handler (the CSP forbids them) and writes no HTML', () => {
  const html = readFileSync(join(WWW, 'index.html'), 'utf8');
  const csp = /<meta http-equiv="Content-Security-Policy" content="([^"]+)">/.exec(html);
  assert.ok(csp, 'index.html has a CSP meta tag');
  assert.match(csp[1], /script-src 'self'/);
  assert.match(csp[1], /style-src 'self'(;|$)/);
  assert.ok(!/unsafe-inline|unsafe-eval'/.test(csp[1].replace("'wasm-unsafe-eval'", '')), csp[1]);
  assert.match(csp[1], /object-src 'none'/);
  for (const m of html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/gi)) {
    assert.match(m[1], /\bsrc=/, 'a <script> without src');
    assert.equal(m[2].trim(), '', 'inline script content');
  }
  assert.ok(!/<style\b/i.test(html), 'an inline <style> element');
  assert.ok(!/\sstyle\s*=/i.test(html), 'an inline style attribute');
  assert.ok(!/\son[a-z]+\s*=/i.test(html), 'an inline event handler');
  assert.ok(!/javascript:/i.test(html), 'a javascript: URL');
  // No page script parses strings as HTML or code.
  const files = [];
  const walk = (dir) => {
    for (const name of readdirSync(dir)) {
      const p = join(dir, name);
      if (name === 'pkg' || name === 'examples') continue;
      if (statSync(p).isDirectory()) walk(p);
      else if (p.endsWith('.js')) files.push(p);
    }
  };
  walk(WWW);
  assert.ok(files.length >= 10);
  for (const f of files) {
    const src = readFileSync(f, 'utf8');
    for (const re of [/\.innerHTML\s*=/, /\.outerHTML\s*=/, /insertAdjacentHTML/, /document\.write/, /\beval\s*\(/, /new Function\s*\(/, /createContextualFragment/, /setAttribute\(\s*['"]style['"]/, /setAttribute\(\s*['"]on/i]) {
      assert.ok(!re.test(src), `${f.slice(WWW.length)} uses ${re}`);
    }
  }
});
