// The lab's hand-off accepted: per-product measured lists (`unscaled.list=<Pre-LN σ²>&scaled.list=
// <LNS σ²>`) parsed by the core, validated at their own field, evaluated, plotted, carried back into
// the link, with N = L (one factor per layer) and the run they came from named with a link back;
// the one-placement form (`variance=list&list=…&lab=…`) too. The page judges no range of c itself:
// whatever c the core accepts, the page takes.
import assert from 'node:assert/strict';
import { browsers, numberIn } from './harness.mjs';

const { test, session } = browsers();
const T = { timeout: 120_000 };
const sel = (id) => `[data-testid="${id}"]`;
const textOf = (page, id) => page.evaluate((s) => document.querySelector(s)?.textContent.replace(/\s+/g, ' ').trim() ?? null, sel(id));

const PRE = [0.02, 0.041, 0.063, 0.0835];
const LNS = [0.02, 0.03, 0.0362, 0.04];
const LAB = 'norms=pre,lns&d=128&heads=4&layers=4&std=0.02&seed=1';
const HANDOFF = `#families=unscaled,scaled&a=0.5&b=0.25&unscaled.list=${PRE.join(',')}&scaled.list=${LNS.join(',')}&n=4&lab=${encodeURIComponent(LAB)}`;

const coreLog = (page, req) =>
  page.evaluate(async (r) => {
    const w = await import('./pkg/depthprod_wasm.js');
    return w.evaluate(r).log_product;
  }, req);

test('the two-placement hand-off: each product its own list, evaluated, plotted, named, and kept in the link', T, async (t) => {
  const page = await session.open(t, HANDOFF);
  const p = await numberIn(page, sel('log-product-unscaled'));
  const q = await numberIn(page, sel('log-product-scaled'));
  const cp = await coreLog(page, { family: 'unscaled', a: '0.5', b: '0.25', variance: { kind: 'measured', values: PRE }, n: 4 });
  const cq = await coreLog(page, { family: 'scaled', a: '0.5', b: '0.25', variance: { kind: 'measured', values: LNS }, n: 4 });
  assert.ok(Math.abs(p - cp.value) <= 1e-12 * Math.abs(cp.value), `P: ${p} vs ${cp.value}`);
  assert.ok(Math.abs(q - cq.value) <= 1e-12 * Math.abs(cq.value), `Q: ${q} vs ${cq.value}`);
  // the accessor every module uses gives each product its own list
  const params = await page.evaluate(() => ['unscaled', 'scaled'].map((f) => window.depthprodStats.paramsOf(f).variance).map((v) => ({ kind: v.kind, values: Array.from(v.values) })));
  assert.deepEqual(params, [{ kind: 'measured', values: PRE }, { kind: 'measured', values: LNS }]);
  // N = L: the lists' length, one factor per layer
  assert.equal(await page.inputValue(sel('input-n')), '4');
  // each list in its own box, and both plotted
  assert.equal(await page.inputValue(sel('own-unscaled-list')), PRE.join(','));
  assert.equal(await page.inputValue(sel('own-scaled-list')), LNS.join(','));
  assert.equal(await page.isVisible(sel('plot-list')), true);
  const legend = await page.evaluate(() => [...document.querySelectorAll('#legend-list li')].map((li) => li.textContent.replace(/\s+/g, ' ').trim()));
  assert.ok(legend.some((l) => /unscaled: its own σl²/.test(l)) && legend.some((l) => /scaled: its own σl²/.test(l)), `legend: ${legend}`);
  // where the lists came from, and the way back
  const source = await textOf(page, 'list-source');
  assert.equal(source, 'σl² measured by the lab: unscaled product: Pre-LN, d = 128, L = 4, seed 1; scaled product: LNS, d = 128, L = 4, seed 1: open that lab run.');
  assert.equal(await page.getAttribute(sel('list-source-link'), 'href'), `lab.html#${LAB}`);
  // the headline names each product's own model
  const head = await textOf(page, 'headline');
  assert.ok(head.includes('PN (unscaled, σl² measured (4 values))') && head.includes('QN (scaled, σl² measured (4 values))'), head);
  // a change writes the link, which keeps both lists and the lab run
  await page.fill(sel('input-a'), '0.6');
  await page.waitForFunction(() => location.hash.includes('a=0.6'));
  const hash = decodeURIComponent(await page.evaluate(() => location.hash));
  assert.ok(hash.includes(`unscaled.list=${PRE.join(',')}`) && hash.includes(`scaled.list=${LNS.join(',')}`) && hash.includes(`lab=${LAB}`), hash);
  // and the link reopens the same view
  const again = await session.open(t, await page.evaluate(() => location.hash));
  assert.equal(await numberIn(again, sel('log-product-scaled')), await numberIn(page, sel('log-product-scaled')));
  assert.equal(await again.inputValue(sel('own-scaled-list')), LNS.join(','));
});

test('a product’s own list: a message at its field for a bad list, N follows it, edits are evaluated', T, async (t) => {
  const page = await session.open(t, '#families=unscaled,scaled&a=1&b=1&c=1&q=1&unscaled.list=1,2,oops,4');
  await numberIn(page, sel('log-product-scaled'));
  await page.waitForFunction((s) => document.querySelector(s).textContent.startsWith('unscaled: '), sel('error-own-unscaled'));
  const msg = await textOf(page, 'error-own-unscaled');
  const core = await page.evaluate(async () => {
    const w = await import('./pkg/depthprod_wasm.js');
    try {
      w.parseList('1,2,oops,4');
      return null;
    } catch (e) {
      return e.message;
    }
  });
  assert.ok(core && msg === `unscaled: ${core}`, `${msg} (core: ${core})`);
  assert.equal(await page.getAttribute(sel('own-unscaled-list'), 'aria-invalid'), 'true');
  assert.doesNotMatch(await page.evaluate(() => document.body.textContent), /NaN/);
  // a good list: evaluated, N = its length, no message
  await page.fill(sel('own-unscaled-list'), '1, 2, 3, 4, 5');
  await page.waitForFunction((s) => document.querySelector(s).value === '5', sel('input-n'));
  await page.waitForFunction((s) => document.querySelector(s).textContent === '', sel('error-own-unscaled'));
  const shown = await numberIn(page, sel('log-product-unscaled'));
  const want = await coreLog(page, { family: 'unscaled', a: '1', b: '1', variance: { kind: 'measured', values: [1, 2, 3, 4, 5] }, n: 5 });
  assert.ok(Math.abs(shown - want.value) <= 1e-12 * Math.abs(want.value), `${shown} vs ${want.value}`);
  // N beyond the list is refused at N's field, in the core's words
  await page.fill(sel('input-n'), '6');
  await page.waitForFunction((s) => document.querySelector(s).textContent !== '', sel('error-n'));
  // switching the product back to a power law drops its list
  await page.uncheck(sel('own-unscaled-islist'));
  await page.waitForFunction(() => !location.hash.includes('unscaled.list'));
});

test('the one-placement hand-off: the shared list, N = L, and the run it came from', T, async (t) => {
  const page = await session.open(t, `#families=unscaled,scaled&a=0.5&b=0.25&variance=list&list=${PRE.join(',')}&lab=${encodeURIComponent('norms=pre&d=64&layers=4&seed=7')}`);
  await numberIn(page, sel('log-product-unscaled'));
  assert.equal(await page.inputValue(sel('input-n')), '4', 'no n in the link: N = L, the list’s length');
  assert.match(await textOf(page, 'list-info'), /^Read 4 values: N follows the list/);
  assert.equal(await textOf(page, 'list-source'), 'σl² measured by the lab: Pre-LN, d = 64, L = 4, seed 7: open that lab run.');
  assert.equal(await page.getAttribute(sel('to-lab'), 'href'), 'lab.html#norms=pre&d=64&layers=4&seed=7');
  // without lab= the page claims no source
  const plain = await session.open(t, `#families=unscaled&a=1&b=1&variance=list&list=${PRE.join(',')}`);
  await numberIn(plain, sel('log-product-unscaled'));
  assert.equal(await plain.evaluate((s) => document.querySelector(s).hidden, sel('list-source')), true);
});

test('the page has no range of c of its own: the core decides, and its message is the one shown', T, async (t) => {
  const page = await session.open(t);
  await numberIn(page, sel('log-product-unscaled'));
  for (const c of ['0.000327206', '1e-7', '2000', '0']) {
    await page.fill(sel('input-c'), c);
    const core = await page.evaluate(async (c) => {
      const w = await import('./pkg/depthprod_wasm.js');
      try {
        w.evaluate({ family: 'scaled', a: 1, b: 1, variance: { kind: 'power', c, q: 1 }, n: 1 });
        return '';
      } catch (e) {
        return e.message;
      }
    }, c);
    await page.waitForFunction(([s, want]) => document.querySelector(s).textContent === want, [sel('error-c'), core]);
    // an own power law of a product likewise
  }
  const own = await session.open(t, '#families=unscaled,scaled&a=1&b=1&c=1&q=1&scaled.c=0.000327206&scaled.q=1.2');
  await numberIn(own, sel('log-product-scaled'));
  const ownCore = await own.evaluate(async () => {
    const w = await import('./pkg/depthprod_wasm.js');
    try {
      w.evaluate({ family: 'scaled', a: 1, b: 1, variance: { kind: 'power', c: '0.000327206', q: 1 }, n: 1 });
      return '';
    } catch (e) {
      return `scaled: ${e.message}`;
    }
  });
  await own.waitForFunction(([s, want]) => document.querySelector(s).textContent === want, [sel('error-own-scaled'), ownCore]);
});
