// The cards' "Why" derivations (www/js/explorer/proofs.js): every live number in a proof is the core's value
// for that view (asked of the core here, independently of proofs.js), every displayed chain of
// inequalities holds for the certified enclosures, the MathML renders, the fragment key `why` opens
// and scrolls, printing expands, axe finds nothing with all proofs open, 360 px does not scroll
// sideways; and the share bar's "Cite this view" and LaTeX copies.
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

/** Views: each a fragment and the core parameters it means. */
// Parameters are the typed decimals, as the page passes them (an enclosure is for the exact decimal).
const VIEWS = [
  { name: 'the correction’s case', hash: '#families=unscaled,scaled&a=1&b=1&c=1&q=1&n=1e6', a: '1', b: '1', variance: { kind: 'power', c: '1', q: '1' }, n: 1e6 },
  { name: 'LNS, eps = 0.5, N = 10^12', hash: '#families=unscaled,scaled&a=2&b=0.5&c=1&eps=0.5&n=1e12', a: '2', b: '0.5', variance: { kind: 'power', c: '1', eps: '0.5' }, n: 1e12, q: 1.5 },
  { name: 'c = 4, q = 1.3, all families, N = 12345', hash: '#families=unscaled,scaled,harmonic,sqrt-scaled&a=2.5&b=0.75&c=4&q=1.3&n=12345', a: '2.5', b: '0.75', variance: { kind: 'power', c: '4', q: '1.3' }, n: 12345 },
  { name: 'c = 0.25, q = 1, N = inf', hash: '#families=unscaled,scaled&a=3&b=0.5&c=0.25&q=1&n=inf', a: '3', b: '0.5', variance: { kind: 'power', c: '0.25', q: '1' }, n: 'inf' },
  { name: 'q = 3 (everything converges)', hash: '#families=unscaled,scaled&a=1&b=2&c=1&q=3&n=1000', a: '1', b: '2', variance: { kind: 'power', c: '1', q: '3' }, n: 1000 },
  { name: 'exponential variance', hash: '#families=unscaled,scaled&a=1&b=1&c=1&lambda=0.2&n=1e6&variance=exp', a: '1', b: '1', variance: { kind: 'exponential', c: '1', lambda: '0.2' }, n: 1e6 },
  { name: 'measured list', hash: '#families=unscaled,scaled&a=1&b=1&n=8&variance=list&list=1,2,3,4,5,6,7,8', a: '1', b: '1', variance: { kind: 'measured', values: [1, 2, 3, 4, 5, 6, 7, 8] }, n: 8 },
];

/** Opens a view and every Why on it; resolves when the slots are filled. */
async function openAll(page) {
  await page.waitForSelector(sel('why-eq65'), { state: 'attached' });
  await page.evaluate(() => {
    for (const d of document.querySelectorAll('details.why')) d.open = true;
  });
  await page.waitForFunction(() => [...document.querySelectorAll('details.why mn[data-slot]')].every((m) => m.textContent !== '0' || m.hasAttribute('data-lo')));
}

/**
 * In the page: the expected text and interval of every slot, asked of the core directly (not through
 * proofs.js) and formatted with the page's formatting functions.
 */
async function expectedSlots(page, view) {
  return page.evaluate(async (v) => {
    const core = await import('./js/common/core.js');
    const f = await import('./js/common/format.js');
    const val = (r) => (r.ok ? r.value : null);
    const p = (family, n) => val(core.evaluate({ family, a: v.a, b: v.b, variance: v.variance, n }));
    const enc = (e) => (e ? { text: f.certifiedText(e.value, e.lo, e.hi).text, lo: e.lo, hi: e.hi } : null);
    const num = (x) => (Number.isFinite(x) ? { text: f.plain(x, 12), lo: x, hi: x } : null);
    const up = (hi, lo = hi) => (Number.isFinite(hi) ? { text: f.trimZeros(f.directed(hi, 10, +1)), lo, hi } : null);
    // Closed forms: plain doubles today, enclosures {value, lo, hi} once the certified API is merged.
    const cv = (x) => (x && typeof x === 'object' ? enc(x) : num(x));
    const cu = (x) => (x && typeof x === 'object' ? up(x.hi, x.lo) : up(x));
    const power = v.variance.kind === 'power';
    const { c, q, eps } = v.variance;
    const law = eps === undefined ? { c, q } : { c, eps };
    const scaled = p('scaled', v.n);
    const unscaled = p('unscaled', v.n);
    const harmonic = p('harmonic', v.n);
    const closed = power ? val(core.closedForms({ a: v.a, b: v.b, ...law, n: v.n })) : null;
    const logTerm = (d) => d?.terms?.find((t) => t.log);
    const powTerm = (d) => d?.terms?.find((t) => !t.log && t.exponent > 0);
    const out = {
      qn: enc(scaled?.log_product),
      qinf: enc(scaled?.limit),
      q1: enc(p('scaled', 1)?.log_product),
      zb: enc(scaled?.zeta_bound),
      z1: power ? enc(val(core.closedForms({ a: v.a, b: 0, ...law })).zeta_bound) : null,
      z2: power ? enc(val(core.closedForms({ a: 0, b: v.b, ...law })).zeta_bound) : null,
      e65n: closed?.eq65 && closed.eq65.exponent_at_n != null ? cv(closed.eq65.exponent_at_n) : null,
      e65lim: closed?.eq65 ? cv(closed.eq65.limit) : null,
      eps: closed?.eq65 ? cv(closed.eq65.eps) : null,
      tail: scaled?.tail ? up(scaled.tail.hi, scaled.tail.lo) : null,
      ztail: closed && closed.zeta_tail_bound != null ? cu(closed.zeta_tail_bound) : null,
      pn: enc(unscaled?.log_product),
      cc: enc(unscaled?.divergent?.constant),
      u1: powTerm(unscaled?.divergent) ? num(powTerm(unscaled.divergent).coefficient) : null,
      u2: logTerm(unscaled?.divergent) ? num(logTerm(unscaled.divergent).coefficient) : null,
      harm: enc(harmonic?.log_product),
      hc: enc(harmonic?.divergent?.constant),
      hcoef: logTerm(harmonic?.divergent) ? num(logTerm(harmonic.divergent).coefficient) : null,
      hn: v.n === 'inf' ? null : num(val(core.rotation(1, 1, v.n)).angle),
      N: { text: f.depthLabel(v.n) },
      A: { text: f.paramToken(Number(v.a)) },
      B: { text: f.paramToken(Number(v.b)) },
    };
    if (power) Object.assign(out, { c: { text: f.paramToken(Number(c)) }, q: { text: f.paramToken(v.q ?? Number(q)) } });
    return out;
  }, view);
}

/** Every slot in a visible block: its text and data-lo / data-hi. */
async function shownSlots(page) {
  return page.evaluate(() =>
    [...document.querySelectorAll('details.why mn[data-slot]')]
      .filter((m) => m.closest('[hidden]') === null)
      .map((m) => ({ slot: m.dataset.slot, card: m.closest('details').dataset.card, text: m.textContent, lo: m.getAttribute('data-lo'), hi: m.getAttribute('data-hi'), missing: m.hasAttribute('data-missing') })),
  );
}

for (const view of VIEWS) {
  test(`every live number in the proofs is the core's, and every chain holds: ${view.name}`, T, async (t) => {
    const page = await session.open(t, view.hash);
    await openAll(page);
    const expected = await expectedSlots(page, view);
    const shown = await shownSlots(page);
    assert.ok(shown.length >= (view.variance.kind === 'power' ? 12 : 8), `${shown.length} visible live numbers`);
    let compared = 0;
    for (const s of shown) {
      const want = expected[s.slot];
      assert.ok(s.slot in expected || s.slot === 'pinf', `slot ${s.slot} is not known to the test`);
      if (s.slot === 'pinf') continue; // checked by the terms test below
      if (!want) {
        assert.ok(s.missing && s.text === '—', `${s.card}/${s.slot}: the core has no value here, the page shows “${s.text}”`);
        continue;
      }
      assert.equal(s.text, want.text, `${s.card}/${s.slot}`);
      if ('lo' in want) {
        assert.equal(Number(s.lo), want.lo, `${s.card}/${s.slot} lower end`);
        assert.equal(Number(s.hi), want.hi, `${s.card}/${s.slot} upper end`);
      }
      compared++;
    }
    assert.ok(compared >= (view.variance.kind === 'power' ? 10 : 6), `only ${compared} numbers compared`);

    // Chains: lower end of each term <= upper end of the next (a term of several slots is their sum).
    const chains = await page.evaluate(() =>
      [...document.querySelectorAll('details.why .why-formula[data-chain]')]
        .filter((f) => f.closest('[hidden]') === null && !f.hidden)
        .map((f) => {
          const slot = (id) => f.querySelector(`mn[data-slot="${id}"]`);
          return JSON.parse(f.dataset.chain).map((term) =>
            [term].flat().map((id) => ({ id, lo: Number(slot(id)?.getAttribute('data-lo')), hi: Number(slot(id)?.getAttribute('data-hi')) })),
          );
        }),
    );
    if (view.variance.kind === 'power') assert.ok(chains.length >= 2, `${chains.length} chains shown`);
    for (const chain of chains) {
      const ends = chain.map((term) => ({
        name: term.map((x) => x.id).join('+'),
        lo: term.reduce((s, x) => s + x.lo, 0),
        hi: term.reduce((s, x) => s + x.hi, 0),
      }));
      for (const e of ends) assert.ok(Number.isFinite(e.lo) && Number.isFinite(e.hi) && e.lo <= e.hi, `${e.name}: [${e.lo}, ${e.hi}]`);
      for (let i = 0; i + 1 < ends.length; i++) {
        assert.ok(ends[i].lo <= ends[i + 1].hi, `${ends[i].name} (lo ${ends[i].lo}) <= ${ends[i + 1].name} (hi ${ends[i + 1].hi})`);
      }
    }
    // 0 <= log Q_N where the scaled chain is shown.
    const qn = shown.find((s) => s.slot === 'qn' && !s.missing);
    if (qn) assert.ok(Number(qn.hi) >= 0);
  });
}

test('the correction’s case shows its numbers: C, 2/√N + 1/(2N²), Eq. 65’s 2.5 below log Q_∞', T, async (t) => {
  const page = await session.open(t, '#why=s41');
  await openAll(page);
  const text = (slot, card) => page.textContent(`${sel(`why-${card}`)} mn[data-slot="${slot}"]`);
  assert.match(await text('cc', 'eq11'), /^-2\.4655160292/);
  assert.match(await text('pn', 'eq11'), /^2004\.4440725825/);
  assert.equal(await text('u1', 'eq11'), '2');
  assert.equal(await text('u2', 'eq11'), '0.5');
  assert.equal(await text('ztail', 's41'), '0.002000000001'); // 2/sqrt(1e6) + 1/(2e12), rounded up to 10 digits: the correction's number
  assert.match(await text('tail', 's41'), /^0\.0019999995/);
  assert.ok(Math.abs(Number.parseFloat(await text('e65lim', 'eq65')) - 2.5) < 1e-12, 'Eq. 65’s limit 2A + B/2 = 2.5 at eps = 1');
  assert.match(await text('qinf', 'eq65'), /^2\.78049120367/);
  assert.match(await text('zb', 'eq65'), /^3\.81443225184/);
  // The unscaled terms paragraph names the core's leading terms and C.
  assert.match(await page.textContent(`${sel('why-eq11')} .why-terms`), /2·N\^0\.5 \+ 0\.5·log N \+ C \+ o\(1\), with C = -2\.4655/);
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
  assert.match(filled, /^2\.78049120367/);
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
  await page.waitForFunction(() => /^2\.78049120367/.test(document.querySelector('[data-testid="why-eq65"] mn[data-slot="qinf"]')?.textContent ?? ''));
  const maths = await page.evaluate(() => [...document.querySelectorAll('[data-testid="why-eq65"] math')].filter((m) => m.getBoundingClientRect().height > 0).length);
  assert.ok(maths >= 5, `${maths} rendered formulas in the single file`);
});
