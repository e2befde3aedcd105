// The lab page says its answer (Chromium and Firefox): a headline per placement as soon as its
// whole network's norm is measured, beside its own certified bound with their ratio, and one
// sentence comparing the placements, each number the CLI's; Run, Cancel and the progress stay in
// view while the page scrolls (1280x800 and 360x740); an empty figure says what will appear and
// offers no export; after Cancel nothing on screen describes another run and the hand-off offers
// what finished; no displayed number carries floating-point noise.
import assert from 'node:assert/strict';
import { test as nodeTest } from 'node:test';
import { browsers } from './harness.mjs';
import { FIGURES, finished, labOpener, smallArgs, smallHash } from './lab-page.mjs';
import { cli } from './lab-cli.mjs';

const { test, session } = browsers();
const openLab = labOpener(session);

/** The significant digits of a decimal's text ("144.7068" → 7). */
const significant = (text) => text.replace(/e.*$/i, '').replace(/[^0-9]/g, '').replace(/^0+/, '').length;

/**
 * Numbers in `text` that carry floating-point noise: more than 15 significant digits, or a run of
 * six or more 0s or 9s followed by at most three last digits in a number of ten or more significant
 * digits (0.016384000000000003, 1.9500000000000002, 0.29999999999999998, 2.0000000001).
 */
function noisyNumbers(text) {
  const out = [];
  for (const m of text.matchAll(/\d+(?:\.\d+)?(?:e[+-]?\d+)?/gi)) {
    const mantissa = m[0].replace(/e.*$/i, '').replace('.', '').replace(/^0+/, '');
    if (mantissa.length > 15 || (mantissa.length >= 10 && /(0{6,}|9{6,})\d{1,3}$/.test(mantissa))) out.push(m[0]);
  }
  return out;
}

nodeTest('the noise scan finds floating-point noise and only that', () => {
  assert.deepEqual(noisyNumbers('B = 0.016384000000000003, eps = 1.9500000000000002, 0.29999999999999998, 2.0000000001'), ['0.016384000000000003', '1.9500000000000002', '0.29999999999999998', '2.0000000001']);
  assert.deepEqual(noisyNumbers('A = 6.09897910276113, N = 1000000, 352.408, e138.8, 1e-6, 144.7068, 0.000492674, 100000.5'), []);
});

/**
 * The page's visible and hidden text, one text node after another with a space between (a table's
 * cells must not run into one number), without the per-layer tables (they print each double's exact
 * shortest decimal, the CLI's contract) and the hex digests.
 */
function pageText(page) {
  return page.evaluate(() => {
    const body = document.body.cloneNode(true);
    // .lab-notes quotes the lab's own reasons a product was not evaluated (crates/depthlab), whose
    // doubles the page does not reword.
    body.querySelectorAll('#lab-tables, [data-testid^="lab-digest-"], .lab-notes, script, style').forEach((e) => e.remove());
    const walk = document.createTreeWalker(body, NodeFilter.SHOW_TEXT);
    const parts = [];
    while (walk.nextNode()) parts.push(walk.currentNode.nodeValue);
    return parts.join(' ');
  });
}

test('each placement’s headline: its measured whole-network norm first, then its own bound and their ratio; one sentence compares them; every number the CLI’s', { timeout: 600_000 }, async (t) => {
  const page = await openLab(t, smallHash(['pre', 'lns']));
  // Every text each headline shows, from its first.
  await page.evaluate(() => {
    window.headlineTexts = {};
    new MutationObserver(() => {
      for (const el of document.querySelectorAll('[data-testid^="lab-headline-"]')) (window.headlineTexts[el.dataset.testid] ??= []).push(el.textContent);
    }).observe(document.querySelector('[data-testid="lab-headlines"]'), { childList: true, subtree: true, characterData: true });
  });
  await page.click('[data-testid="lab-run"]');
  assert.equal(await finished(page), 'done', await page.textContent('[data-testid="lab-error"]'));
  const seen = await page.evaluate(() => window.headlineTexts);
  for (const [norm, eq, column, loose] of [['pre', '9', 'bound_unscaled_log', 'looseness_unscaled_log'], ['lns', '15', 'bound_scaled_log', 'looseness_scaled_log']]) {
    const json = cli(smallArgs(norm));
    const l1 = json.layers[0];
    const text = await page.textContent(`[data-testid="lab-headline-${norm}"]`);
    // The first text of each headline is written from layer 1's streamed norm, before the report,
    // and is already the whole answer: the bound, its ratio and the upper bound with its
    // probability were streamed before or with that norm.
    assert.equal(seen[`lab-headline-${norm}`][0], text, `${norm}: the first headline is the final one`);
    const m = text.match(new RegExp(`is ([\\d.]+) \\(measured; its residual gives the interval \\[([\\d.]+), ([\\d.]+)\\], a measurement, not certified\\) and at most ([\\d.]+) with probability at least 0\\.999 \\(for this l; an upper bound from ${json.upper_bound.probes} Gaussian probes, not certified\\)\\. Its certified Eq\\. ${eq} bound \\(the (un)?scaled product over the 3 layers with the measured σl²\\) is e([\\d.]+): the Eq\\. ${eq} bound is e([\\d.]+) times this network’s measured Jacobian norm\\.$`));
    assert.ok(m, text);
    const [, measured, lo, hi, upper, , bound, ratio] = m;
    const [ilo, ihi] = l1.end_to_end.interval;
    // The measured digits are those both ends of the CLI's interval agree on; the interval is
    // rounded outward, the upper bound up.
    assert.equal(Number(ilo.toPrecision(significant(measured))), Number(measured), `${norm}: the measured norm`);
    assert.equal(Number(ihi.toPrecision(significant(measured))), Number(measured), `${norm}: the measured norm`);
    assert.ok(Number(lo) <= ilo && Number(hi) >= ihi && Number(lo) <= Number(hi), `${norm}: [${lo}, ${hi}] holds [${ilo}, ${ihi}]`);
    assert.ok(Number(upper) >= l1.end_to_end_upper && Number(upper) <= l1.end_to_end_upper * 1.001, `${norm}: ${upper} rounds ${l1.end_to_end_upper} up`);
    // The bound's digits are those on which both ends of the CLI's certified enclosure agree.
    const d = significant(bound);
    assert.ok(d >= 6, `${norm}: ${bound}`);
    assert.equal(Number(l1[column].lo.toPrecision(d)), Number(bound), `${norm}: lower end`);
    assert.equal(Number(l1[column].hi.toPrecision(d)), Number(bound), `${norm}: upper end`);
    assert.equal(Number(ratio), Number(l1[loose].toPrecision(4)), `${norm}: the lab's log of bound over measured`);
  }
  const [pre, lns] = ['pre', 'lns'].map((n) => cli(smallArgs(n)).layers[0]);
  const compare = await page.textContent('[data-testid="lab-headline-compare"]');
  const ratio = Number((pre.end_to_end_norm / lns.end_to_end_norm).toPrecision(2));
  assert.ok(pre.end_to_end_norm > lns.end_to_end_norm, 'this case has LNS below Pre-LN');
  const least = Math.min(pre.looseness_unscaled_log, lns.looseness_scaled_log);
  const m = compare.match(/^LNS’s whole-network Jacobian is ([\d.]+)× smaller than Pre-LN’s \(([\d.]+) against ([\d.]+), both measured\); both measured norms are e([\d.]+) or more below their own bounds \(Eq\. 9 for Pre-LN, Eq\. 15 for LNS\)\.$/);
  assert.ok(m, compare);
  assert.equal(Number(m[1]), ratio);
  assert.ok(Number(m[4]) <= least && Number(m[4]) >= least - 1e-3 * least, `e^${m[4]} or more, the least gap being ${least}`);
  // The headlines come before the controls in the reading order at every width (the answer first).
  assert.ok(await page.evaluate(() => document.querySelector('[data-testid="lab-headlines"]').compareDocumentPosition(document.querySelector('#lab-figures')) & Node.DOCUMENT_POSITION_FOLLOWING));
  assert.deepEqual(noisyNumbers(await pageText(page)), []);
});

for (const viewport of [{ width: 1280, height: 800 }, { width: 360, height: 740 }]) {
  test(`Run, Cancel and the progress stay in view while the page scrolls (${viewport.width}x${viewport.height}); the answer is above the fold`, { timeout: 600_000 }, async (t) => {
    const page = await openLab(t, '#norms=pre,lns', { viewport });
    const inView = () =>
      page.evaluate(() =>
        ['lab-run', 'lab-cancel', 'lab-progress'].map((id) => {
          const r = document.querySelector(`[data-testid="${id}"]`).getBoundingClientRect();
          return r.width > 0 && r.height > 0 && r.top >= 0 && r.bottom <= innerHeight && r.left >= 0 && r.right <= innerWidth ? '' : `${id} at ${Math.round(r.left)},${Math.round(r.top)}–${Math.round(r.right)},${Math.round(r.bottom)} of ${innerWidth}x${innerHeight}`;
        }).filter(Boolean),
      );
    const scrollTo = (f) => page.evaluate((x) => new Promise((resolve) => {
      window.scrollTo(0, x * (document.documentElement.scrollHeight - innerHeight));
      requestAnimationFrame(() => requestAnimationFrame(() => resolve(scrollY)));
    }), f);
    assert.deepEqual(await inView(), [], 'on load');
    // Before a run the answer panel says what will appear, within the first screen.
    const answerTop = await page.evaluate(() => document.querySelector('[data-testid="lab-headlines"]').getBoundingClientRect().top);
    assert.ok(answerTop < viewport.height, `the answer starts at y = ${answerTop}`);
    await page.click('[data-testid="lab-run"]');
    await page.waitForFunction(() => Number(document.querySelector('[data-testid="lab-progress"]').value) > 0, null, { timeout: 120_000 });
    for (const f of [0.3, 0.6, 1]) {
      const y = await scrollTo(f);
      assert.ok(y > 0, 'the page scrolled');
      assert.deepEqual(await inView(), [], `scrolled to ${y}`);
    }
    // Cancel where the reader is, at the bottom of the page.
    await page.evaluate(() => document.querySelector('[data-testid="lab-cancel"]').click());
    await page.waitForFunction(() => document.body.dataset.labState === 'cancelled');
    assert.deepEqual(await inView(), [], 'after Cancel');
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    assert.ok(overflow <= 0, `the page is ${overflow} px wider than the viewport`);
  });
}

test('an empty figure says what will appear and offers no export; with data it offers PNG, SVG and CSV', { timeout: 600_000 }, async (t) => {
  const page = await openLab(t, smallHash(['pre', 'lns']));
  const state = () =>
    page.evaluate((ids) => Object.fromEntries(ids.map((id) => {
      const fig = document.querySelector(`[data-testid="lab-plot-${id}"]`);
      const button = document.querySelector(`[data-testid="lab-export-png-${id}"]`);
      return [id, { message: fig.dataset.message ?? null, exports: !!button.offsetParent }];
    })), [...FIGURES, 'angular']);
  const idle = await state();
  for (const id of FIGURES) {
    assert.match(idle[id].message, /^After a run: .{40,}/, id);
    assert.equal(idle[id].exports, false, `${id}: no export before there is data`);
  }
  assert.equal(idle.angular.exports, false, 'angular: no export before there is data');
  assert.match(idle.endToEnd.message, /own certified bound \(Eq\. 9 for Pre-LN, Eq\. 15 for LNS\)/);
  await page.click('[data-testid="lab-run"]');
  assert.equal(await finished(page), 'done');
  const after = await state();
  for (const id of FIGURES) assert.deepEqual(after[id], { message: '', exports: true }, id);
  assert.equal(after.angular.exports, true);
});

test('after Cancel nothing on screen describes another run, and the hand-off offers what finished', { timeout: 900_000 }, async (t) => {
  const page = await openLab(t, smallHash(['pre', 'lns'], '&run=1'));
  assert.equal(await finished(page), 'done');
  const before = await page.textContent('[data-testid="lab-handoff-note"]');
  assert.match(before, /^Carries Pre-LN’s 3 measured/);
  // A large run (the default preset), cancelled once its variances are in and before any placement finishes.
  await page.click('[data-testid="preset-small130m"]');
  await page.click('[data-testid="lab-run"]');
  await page.waitForFunction(() => document.querySelector('[data-testid="lab-table-pre"]')?.tBodies[0].rows.length === 32, null, { timeout: 300_000 });
  const midRun = await page.evaluate(() => ({
    note: document.querySelector('[data-testid="lab-handoff-note"]').textContent,
    link: document.querySelector('[data-testid="lab-to-explorer"]').getAttribute('aria-disabled'),
    summary: document.querySelector('[data-testid="lab-summary"]').textContent,
    headlines: document.querySelector('[data-testid="lab-headlines"]').textContent,
  }));
  // Mid-run, the answer panel describes this run only (its headlines, if any, are for L = 32).
  assert.deepEqual({ ...midRun, headlines: undefined }, { note: 'After a run: the measured σl² of each placement, with A and B.', link: 'true', summary: '', headlines: undefined });
  assert.ok(/^Measuring… each placement’s whole-network norm ‖∂xL\+1\/∂x1‖₂ appears here/.test(midRun.headlines) || /^Pre-LN \(L = 32\)|^LNS \(L = 32\)/.test(midRun.headlines), midRun.headlines);
  await page.evaluate(() => document.querySelector('[data-testid="lab-cancel"]').click());
  await page.waitForFunction(() => document.body.dataset.labState === 'cancelled' && !document.body.dataset.labDrawing);
  const text = await pageText(page);
  // Nothing of the three-layer run: its L, its list, its A.
  assert.doesNotMatch(text, /L = 3\b|3 measured|x4/);
  // A headline left by the cancelled run does not promise a bound that will not come.
  assert.doesNotMatch(await page.textContent('[data-testid="lab-headlines"]'), /when its run finishes|follows with/);
  assert.equal(await page.getAttribute('[data-testid="lab-to-explorer"]', 'aria-disabled'), 'true');
  assert.match(await page.textContent('[data-testid="lab-handoff-note"]'), /^No placement finished: A and B \(Eqs\. 47–48\) and the certified bounds come with a placement’s report, so there is nothing to hand over; the variances measured so far are in the tables below\.$/);
  assert.equal(await page.textContent('[data-testid="lab-summary"]'), '');
  assert.deepEqual(noisyNumbers(text), []);

  // One worker: the placements run one after the other. Cancel as soon as Pre-LN's report is in:
  // the hand-off then carries Pre-LN's list and says LNS's is not carried, and why.
  await page.evaluate(() => {
    Object.defineProperty(Navigator.prototype, 'hardwareConcurrency', { get: () => 1, configurable: true });
    for (const [k, v] of Object.entries({ d: 64, heads: 2, dff: 172, tokens: 16, layers: 12 })) {
      const input = document.querySelector(`[data-testid="lab-${k}"]`);
      input.value = String(v);
      input.dispatchEvent(new Event('input', { bubbles: true }));
    }
    // Clicked from the page as the report's table completes: no round trip to the test.
    new MutationObserver((_, obs) => {
      if (document.querySelector('[data-testid="lab-table-pre"]')?.dataset.complete === 'true') {
        obs.disconnect();
        document.querySelector('[data-testid="lab-cancel"]').click();
      }
    }).observe(document.querySelector('#lab-tables'), { subtree: true, attributes: true, childList: true });
  });
  await page.click('[data-testid="lab-run"]');
  await page.waitForFunction(() => document.body.dataset.labState === 'cancelled' && !document.body.dataset.labDrawing, null, { timeout: 300_000 });
  assert.notEqual(await page.evaluate(() => document.querySelector('[data-testid="lab-table-lns"]')?.dataset.complete ?? 'absent'), 'true', 'LNS had not finished');
  const href = await page.getAttribute('[data-testid="lab-to-explorer"]', 'href');
  assert.match(href, /^index\.html#families=unscaled,scaled&a=[^&]+&b=[^&]+&variance=list&list=[^&]+&n=12&lab=/);
  const list = decodeURIComponent(href.match(/&list=([^&]+)/)[1]).split(',').map(Number);
  const table = await page.evaluate(() => Array.from(document.querySelector('[data-testid="lab-table-pre"]').tBodies[0].rows, (r) => Number(r.cells[1].textContent)));
  assert.deepEqual(list, table);
  assert.match(await page.textContent('[data-testid="lab-handoff-note"]'), /^Carries Pre-LN’s 12 measured σl² as the list both products use, .* Not carried: LNS \(a placement without a finished report has no A, B or bound to hand over; the link carries one list\)\.$/);
  assert.match(await page.textContent('[data-testid="lab-headline-pre"]'), /^Pre-LN \(L = 12\): .* Its certified Eq\. 9 bound .* is e[\d.]+: the Eq\. 9 bound is e[\d.]+ times/);
  assert.deepEqual(noisyNumbers(await pageText(page)), []);
});
