// The cards' "Why" derivations (www/js/explorer/proofs.js): the comparison view's numbers in the
// derivation of the card each is about, the MathML renders, the fragment key `why` opens and
// scrolls, printing expands, axe finds nothing with all proofs open, 360 px does not scroll
// sideways; and the share bar's "Cite this view" and LaTeX copies. That every displayed equation
// adds up, in every preset and in random views, is tests/e2e/equations.test.mjs.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { browsers, numberIn } from './harness.mjs';

// Each test runs in Chromium and in Firefox ("[chromium] …", "[firefox] …"), except print emulation.
const { test, session } = browsers();

const T = { timeout: 180_000 };
const sel = (id) => `[data-testid="${id}"]`;
const CARDS = ['eq11', 'eq65', 'eq50', 's41'];
const REPO = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const AXE = readFileSync(new URL('../../node_modules/axe-core/axe.min.js', import.meta.url), 'utf8');

/** Opens every Why on the page; resolves when the slots are filled. */
async function openAll(page) {
  await page.waitForSelector(sel('why-eq65'), { state: 'attached' });
  await page.evaluate(() => {
    for (const d of document.querySelectorAll('details.why')) d.open = true;
  });
  await page.waitForFunction(() => [...document.querySelectorAll('details.why mn[data-slot]')].every((m) => m.textContent !== '0' || m.hasAttribute('data-lo')));
}

// The paper's comparison (Pre-LN's P_N at σ² = l beside LNS's Q_N at σ² = l^(2−ε), ε = 1/2): the
// numbers of the correction and of this page's issue, each in the derivation of the card it is about.
const COMPARISON = '#families=unscaled,scaled&a=1&b=1&c=1&q=1&scaled.c=1&scaled.eps=0.5&n=1e6';

test('the comparison view’s derivations show their own products’ numbers: C and log P_N at σ² = l, ζ(7/4) + ζ(7/2) and E_∞ = 26/15 at ε = 1/2', T, async (t) => {
  const page = await session.open(t, `${COMPARISON}&why=s41`);
  await openAll(page);
  const text = (slot, card) => page.textContent(`${sel(`why-${card}`)} mn[data-slot="${slot}"]`);
  // Eq. 11's card: P_N with σ_l² = l.
  assert.match(await text('cc', 'eq11'), /^-2\.4655160292/);
  assert.match(await text('pn', 'eq11'), /^2004\.4440725825/);
  assert.equal(await text('u1', 'eq11'), '2'); // 2A/√c
  assert.equal(await text('u2', 'eq11'), '0.5'); // (B − A²/2)/c
  assert.equal(await text('q', 'eq65'), '1.5');
  assert.equal(await text('eps', 'eq65'), '0.5');
  // Eqs. 16 / 65: Q_N with its own σ_l² = l^(2−1/2), not the shared σ_l² = l.
  assert.equal(await text('qn', 'eq65'), '2.10630888737905');
  assert.match(await text('qinf', 'eq65'), /^2\.1063510510654/);
  assert.match(await text('z1', 'eq65'), /^1\.96232009945/); // ζ(7/4)
  assert.match(await text('z2', 'eq65'), /^1\.12673386731/); // ζ(7/2)
  assert.match(await text('zb', 'eq65'), /^3\.08905396676/);
  assert.equal(await text('e65lim', 'eq65'), '1.73333333333333'); // 1/(3/4) + 1/(5/2) = 26/15
  // §4.1: the same Q_N; what comes after N = 10⁶ is at most N^(−3/4)/(3/4) + N^(−5/2)/(5/2), rounded up.
  assert.equal(await text('ztail', 's41'), '0.00004216370214');
  assert.match(await text('tail', 's41'), /^0\.00004216368632/);
});

test('Eq. 11’s verdict reads its own parameters: with A = 0, P_N = Θ(N^(B/c)), linear when B and c are the same decimal', T, async (t) => {
  for (const [hash, verdict] of [
    ['#families=unscaled,scaled&a=0&b=2&c=2.0&q=1&n=1e6', 'Θ(L) here'],
    ['#families=unscaled,scaled&a=0&b=2&c=1&q=1&n=1e6', 'Θ(N^2), not Θ(L)'],
    ['#families=unscaled,scaled&a=0&b=1&c=1&q=1&n=1e6', 'Θ(L) here'],
  ]) {
    const page = await session.open(t, hash);
    await page.waitForFunction((s) => document.querySelector(s)?.textContent !== 'n/a' && document.querySelector(s)?.dataset.tone !== undefined && /Θ/.test(document.querySelector(s).textContent), sel('verdict-eq11'));
    assert.equal(await page.textContent(sel('verdict-eq11')), verdict, hash);
  }
});

test('every card has a Why; the formulas render as MathML with no raw TeX visible', T, async (t) => {
  const page = await session.open(t);
  await openAll(page);
  const cards = await page.evaluate(() => [...document.querySelectorAll('article[data-testid^="card-"]')].map((a) => [a.dataset.testid.slice(5), !!a.querySelector(':scope > details.why')]));
  for (const id of CARDS) assert.ok(cards.some(([c]) => c === id), `card ${id} missing`);
  for (const [id, has] of cards) assert.ok(has, `card ${id} has no Why`);
  const r = await page.evaluate(() => {
    const maths = [...document.querySelectorAll('details.why math')].filter((m) => m.closest('[hidden]') === null);
    const boxes = maths.map((m) => m.getBoundingClientRect()).map((b) => [b.width, b.height]);
    const visible = [...document.querySelectorAll('details.why')].map((d) => d.innerText).join('\n');
    const frac = document.querySelector('details.why mfrac');
    const sqrt = document.querySelector('details.why msqrt');
    return {
      count: maths.length,
      empty: boxes.filter(([w, h]) => !(w > 0 && h > 0)).length,
      raw: (visible.match(/\\[a-zA-Z]+|\$|\^\{|_\{/g) || []).slice(0, 5),
      frac: frac ? frac.getBoundingClientRect().height : 0,
      line: parseFloat(getComputedStyle(document.querySelector('details.why p')).fontSize),
      sqrt: sqrt ? sqrt.getBoundingClientRect().width : 0,
      isMathML: maths.every((m) => m.namespaceURI === 'http://www.w3.org/1998/Math/MathML'),
    };
  });
  assert.ok(r.count >= 25, `${r.count} formulas`);
  assert.equal(r.empty, 0, `${r.empty} formulas with an empty box`);
  assert.deepEqual(r.raw, [], 'raw TeX visible');
  assert.ok(r.isMathML);
  // Native MathML layout: a fraction is taller than a line of text, a square root has width.
  assert.ok(r.frac > 1.4 * r.line, `fraction height ${r.frac} vs font size ${r.line}`);
  assert.ok(r.sqrt > 0);
});

test('the fragment key why opens that card’s Why and scrolls to it; its link writes it; no fragment error', T, async (t) => {
  const page = await session.open(t, '#a=2&why=eq50');
  await page.waitForFunction((s) => document.querySelector(s)?.open === true, sel('why-eq50'));
  const box = await page.evaluate((s) => {
    const b = document.querySelector(s).getBoundingClientRect();
    return { top: b.top, inner: innerHeight };
  }, sel('why-eq50'));
  assert.ok(box.top >= -2 && box.top < box.inner, `why-eq50 at ${box.top} (viewport ${box.inner})`);
  assert.equal(await page.textContent(sel('error-fragment')), '', 'why is a known fragment key');
  assert.equal(await page.evaluate((s) => document.querySelector(s).open, sel('why-eq11')), false, 'only the asked one opens');
  assert.equal(await page.inputValue(sel('input-a')), '2', 'the state keys still apply');
  // The panel's own link: the view's fragment plus why=<card>.
  await page.evaluate(() => document.querySelector('[data-testid="why-eq65"]').open = true);
  await page.click(sel('why-link-eq65'));
  await page.waitForFunction(() => location.hash.includes('why=eq65'));
  assert.match(await page.evaluate(() => location.hash), /a=2.*why=eq65$/);
  assert.ok(await page.evaluate((s) => document.querySelector(s).open, sel('why-eq65')));
});

// Chromium only: print emulation (emulateMedia) is not available over WebDriver BiDi in Firefox ESR.
test('print expands every Why, and the screen state comes back after', { ...T, browsers: ['chromium'] }, async (t) => {
  const page = await session.open(t);
  await page.waitForSelector(sel('why-eq65'), { state: 'attached' });
  await page.emulateMedia({ media: 'print' });
  await page.waitForFunction(() => [...document.querySelectorAll('details.why')].every((d) => d.open));
  const filled = await page.$eval(`${sel('why-eq65')} mn[data-slot="qinf"]`, (m) => m.textContent);
  assert.match(filled, /^2\.1063510510654/); // the card's Q_N: the LNS regime's ε = 1/2 (the view's ε = 1 lies outside it)
  const overflow = await page.$eval(`${sel('why-eq65')} .why-formula`, (f) => getComputedStyle(f).overflowX);
  assert.equal(overflow, 'visible', 'printed formulas do not scroll');
  await session.screenshot(page, 'proofs print');
  await page.emulateMedia({ media: 'screen' });
  await page.waitForFunction(() => [...document.querySelectorAll('details.why')].every((d) => !d.open));
});

async function axeViolations(page) {
  const loaded = await page.evaluate(() => typeof window.axe === 'object');
  if (!loaded) await page.evaluate(`${AXE}\n;void 0`);
  return page.evaluate(async () => {
    const r = await window.axe.run(document, { resultTypes: ['violations'] });
    return r.violations.map((v) => `${v.id} (${v.help}): ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join('; ')}`);
  });
}

for (const scheme of ['light', 'dark']) {
  test(`axe: no violations with every proof expanded, ${scheme} theme`, T, async (t) => {
    const page = await session.open(t, '#families=unscaled,scaled,harmonic&eps=0.5', { context: { colorScheme: scheme } });
    await openAll(page);
    await page.waitForTimeout(500);
    assert.deepEqual(await axeViolations(page), []);
    await session.screenshot(page, `proofs open ${scheme}`);
  });
}

test('360 px: proofs open, no horizontal page scroll; long formulas scroll in their own box', T, async (t) => {
  const page = await session.open(t, '', { viewport: { width: 360, height: 740 }, context: { hasTouch: true, isMobile: true } });
  await openAll(page);
  const r = await page.evaluate(() => ({
    page: document.documentElement.scrollWidth,
    view: document.documentElement.clientWidth,
    wide: [...document.querySelectorAll('details.why .why-formula')].filter((f) => f.scrollWidth > f.clientWidth + 1).length,
    boxes: [...document.querySelectorAll('details.why .why-formula')].map((f) => f.getBoundingClientRect().right),
  }));
  assert.ok(r.page <= r.view, `page is ${r.page} px wide in a ${r.view} px viewport`);
  assert.ok(r.wide >= 1, 'some formula is wider than 360 px and scrolls inside its box');
  for (const right of r.boxes) assert.ok(right <= r.view + 0.5, `a formula box ends at ${right}`);
  await page.evaluate((s) => document.querySelector(s).scrollIntoView(), sel('why-eq65'));
  await session.screenshot(page, 'proofs open 360px');
});

test('Cite this view copies a BibTeX entry with the permalink; LaTeX is in math delimiters', T, async (t) => {
  const page = await session.open(t, '#families=unscaled,scaled&a=1&b=1&c=1&eps=0.5&n=1e6', { context: { permissions: ['clipboard-read', 'clipboard-write'] } });
  await numberIn(page, sel('log-product-scaled'));
  const clip = () => page.evaluate(() => navigator.clipboard.readText());
  await page.click(sel('share-cite'));
  await page.waitForFunction((s) => /BibTeX entry copied/.test(document.querySelector(s).textContent), sel('share-status'));
  const bib = await clip();
  assert.match(bib, /^@misc\{depthprod-\d{8},\n/);
  const url = /\n {2}url +?= \{([^}]*)\}/.exec(bib)?.[1];
  assert.equal(url, `${session.url}#families=unscaled,scaled&a=1&b=1&c=1&eps=0.5&n=1e6`);
  assert.ok(bib.includes(`\\url{${url.replace(/#/g, '\\#')}}`), bib);
  assert.match(bib, /The Curse of Depth in Large Language Models, arXiv 2502\.05795/);
  assert.match(bib, /A finite-product correction to LayerNorm Scaling's depth argument \(2026\)/);
  assert.match(bib, /\\varepsilon = 0\.5/);
  let depth = 0;
  for (const ch of bib) {
    depth += ch === '{' ? 1 : ch === '}' ? -1 : 0;
    assert.ok(depth >= 0, 'a closing brace without its opening one');
  }
  assert.equal(depth, 0, 'braces balance');
  assert.ok(bib.trimEnd().endsWith('}'));

  await page.click(sel('share-latex'));
  await page.waitForFunction((s) => /LaTeX copied/.test(document.querySelector(s).textContent), sel('share-status'));
  const tex = await clip();
  const lines = tex.trimEnd().split('\n');
  assert.ok(lines[0].startsWith('% depthprod: '));
  assert.match(lines[1], /^Parameters: \\\(.*\\\)\.$/);
  assert.ok(lines.length >= 5);
  for (const line of lines.slice(2)) assert.match(line, /^\\\[ .* \\\]$/, `not a display equation: ${line}`);
  // Only commands of plain LaTeX (no amsmath needed), and balanced braces per line.
  for (const cmd of tex.match(/\\[a-zA-Z]+/g)) {
    assert.ok(!['text', 'tfrac', 'dfrac', 'operatorname', 'mathbb', 'eqref', 'align'].includes(cmd.slice(1)), `${cmd} needs a package`);
  }
  for (const line of lines.slice(1)) assert.equal((line.match(/\{/g) || []).length, (line.match(/\}/g) || []).length, line);
});

test('the offline single file carries the proofs with live numbers', T, async (t) => {
  const single = join(REPO, 'dist', 'depthprod.html');
  assert.ok(existsSync(single), `${single} is missing: run \`npm run bundle\` (npm test does)`);
  const file = pathToFileURL(single).href;
  const page = await session.page(t, { file, offline: true });
  await page.goto(`${file}#why=eq65`);
  await page.waitForFunction(() => document.querySelector('[data-testid="why-eq65"]')?.open === true);
  await page.waitForFunction(() => /^2\.1063510510654/.test(document.querySelector('[data-testid="why-eq65"] mn[data-slot="qinf"]')?.textContent ?? ''));
  const maths = await page.evaluate(() => [...document.querySelectorAll('[data-testid="why-eq65"] math')].filter((m) => m.getBoundingClientRect().height > 0).length);
  assert.ok(maths >= 5, `${maths} rendered formulas in the single file`);
});
