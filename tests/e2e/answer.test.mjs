// The answer first: a one-sentence result above the plot, written from the core's growth classes,
// with certified numbers that are on screen without scrolling at 1280x800 and pinned with the
// mini-plot at 360x740; the Pre-LN vs LNS preset side by side with one comparing sentence; the
// corner A = B = 100, c = 1e-3, q = 0.05 saying why its C and 40 terms are not informative there,
// with no empty remainder frame. Every number is checked against the core itself.
import assert from 'node:assert/strict';
import { browsers, numberIn } from './harness.mjs';

const { test, session } = browsers();
const T = { timeout: 120_000 };
const sel = (id) => `[data-testid="${id}"]`;
const textOf = (page, id) => page.evaluate((s) => document.querySelector(s)?.textContent ?? null, sel(id));
const rectOf = (page, id) => page.evaluate((s) => {
  const el = document.querySelector(s);
  if (!el || el.closest('[hidden]')) return null;
  const r = el.getBoundingClientRect();
  return { top: r.top, bottom: r.bottom, left: r.left, right: r.right, width: r.width, height: r.height };
}, sel(id));

/** Through the page's own wasm module: a Plan's evaluation at n, its growth class, and curves. */
const coreOf = (page, params, n, curves = []) =>
  page.evaluate(async ([p, n, kinds]) => {
    const w = await import('./pkg/depthprod_wasm.js');
    const plan = new w.Plan(p);
    try {
      const out = { ev: plan.evaluate(n), growth: plan.growth() };
      for (const k of kinds) out[k] = Array.from(plan.curve(k, Float64Array.of(n)));
      return out;
    } finally {
      plan.free();
    }
  }, [params, n, curves]);

/**
 * A shown headline number is certified when both ends of the core's enclosure round to it at its own
 * number of significant digits (then every point of the enclosure, the exact value included, does).
 */
function assertCertified(shown, e, what) {
  const m = /^(-?)(\d+)(?:\.(\d+))?(?:e(-?\d+))?$/.exec(shown);
  assert.ok(m, `${what}: “${shown}” is a plain decimal`);
  const digits = `${m[2]}${m[3] ?? ''}`.replace(/^0+/, '').length;
  assert.ok(digits >= 4, `${what}: ${shown} shows at least 4 significant digits`);
  const round = (x) => Number(Number(x).toPrecision(digits));
  assert.equal(round(e.lo), Number(shown), `${what}: lo ${e.lo} rounds to ${shown}`);
  assert.equal(round(e.hi), Number(shown), `${what}: hi ${e.hi} rounds to ${shown}`);
}

const unscaled = { family: 'unscaled', a: '1', b: '1', variance: { kind: 'power', c: '1', q: '1' } };
const scaled = { family: 'scaled', a: '1', b: '1', variance: { kind: 'power', c: '1', q: '1' } };

test('1280x800: the headline comes first, names its parameters, and a certified number is on screen without scrolling', T, async (t) => {
  const page = await session.open(t, '', { viewport: { width: 1280, height: 800 } });
  await numberIn(page, sel('answer-num-unscaled'));
  const head = await textOf(page, 'headline');
  // The correction's case, in the words of the core's classes.
  for (const part of ['A = 1, B = 1', 'σl² = l', 'PN (unscaled) grows like exp(2A√N)', 'not Θ(N)', 'QN (scaled) converges: log Q∞ = ', '(certified)', 'at N = 10⁶']) {
    assert.ok(head.includes(part), `headline lacks “${part}”: ${head}`);
  }
  const u = await coreOf(page, unscaled, 1e6);
  const s = await coreOf(page, scaled, 1e6);
  assert.equal(u.growth.class, 'stretched-exponential');
  assert.equal(s.growth.class, 'convergent');
  const uNum = await textOf(page, 'answer-num-unscaled');
  const sNum = await textOf(page, 'answer-num-scaled');
  assertCertified(uNum, u.ev.log_product, 'log P_N');
  assertCertified(sNum, s.ev.log_product, 'log Q_N');
  assert.ok(head.includes(`log PN = ${uNum} at N = 10⁶`), head);
  const lim = /log Q∞ = (\S+) \(certified\)/.exec(head)[1];
  assertCertified(lim, s.ev.limit, 'log Q_∞');
  // Above the fold at the top of the page, and above the plot.
  assert.equal(await page.evaluate(() => scrollY), 0);
  for (const id of ['answer-num-unscaled', 'answer-num-scaled', 'headline']) {
    const r = await rectOf(page, id);
    assert.ok(r && r.top >= 0 && r.bottom <= 800 && r.width > 0, `${id} at ${JSON.stringify(r)}`);
  }
  const plot = await rectOf(page, 'plot-main');
  assert.ok((await rectOf(page, 'headline')).bottom <= plot.top, 'the headline is above the plot');
  // The caveats follow the headline.
  const order = await page.evaluate(() => {
    const h = document.querySelector('[data-testid="headline"]');
    const j = document.querySelector('[data-testid="what-is-judged"]');
    return !!(h.compareDocumentPosition(j) & Node.DOCUMENT_POSITION_FOLLOWING);
  });
  assert.ok(order, 'what is judged comes after the headline');
});

test('360x740: the pinned mini-plot carries the headline number of each product shown', T, async (t) => {
  const page = await session.open(t, '#families=unscaled,scaled,harmonic&a=1&b=1&c=1&q=1&n=1e6', { viewport: { width: 360, height: 740 }, context: { hasTouch: true, isMobile: true } });
  for (const f of ['unscaled', 'scaled', 'harmonic']) await numberIn(page, sel(`answer-num-${f}`));
  await page.focus(sel('slider-b'));
  await page.waitForFunction(() => document.body.classList.contains('mini-plot'));
  // the pinned block is laid out once its numbers have a box on screen
  await page.waitForFunction((s) => document.querySelector(s).getBoundingClientRect().height > 0, sel('pin-numbers'));
  const plot = await rectOf(page, 'plot-main');
  assert.ok(plot && plot.top >= 0 && plot.bottom <= 740 && plot.height >= 150, `plot at ${JSON.stringify(plot)}`);
  for (const f of ['unscaled', 'scaled', 'harmonic']) {
    const r = await rectOf(page, `pin-num-${f}`);
    assert.ok(r && r.top >= 0 && r.bottom <= plot.top + 1 && r.right <= 360 + 0.5 && r.width > 0, `pin-num-${f} at ${JSON.stringify(r)} (plot top ${plot.top})`);
    assert.equal(await textOf(page, `pin-num-${f}`), await textOf(page, `answer-num-${f}`), `${f}: the pinned number is the headline's`);
  }
  // The numbers follow the slider with the plot.
  const before = await textOf(page, 'pin-num-unscaled');
  for (let i = 0; i < 5; i++) await page.keyboard.press('ArrowRight');
  await page.waitForFunction(([s, b]) => document.querySelector(s).textContent !== b, [sel('pin-num-unscaled'), before]);
  await page.waitForFunction(([a, b]) => document.querySelector(a).textContent === document.querySelector(b).textContent, [sel('pin-num-unscaled'), sel('answer-num-unscaled')]);
  // Not pinned (and not shown) once focus leaves the controls.
  await page.focus(sel('plot-main'));
  await page.waitForFunction(() => !document.body.classList.contains('mini-plot'));
  assert.equal(await rectOf(page, 'pin-num-unscaled').then((r) => r?.height ?? 0), 0);
});

test('Pre-LN vs LNS: the two products side by side, each with its own σ² model and number, and one sentence comparing them', T, async (t) => {
  const page = await session.open(t, '', { viewport: { width: 1280, height: 800 } });
  await numberIn(page, sel('answer-num-unscaled'));
  assert.equal(await page.evaluate((s) => document.querySelector(s).hidden, sel('headline-compare')), true, 'one shared model: no comparing sentence');
  await page.click(sel('preset-comparison'));
  await page.waitForFunction((s) => !document.querySelector(s).hidden, sel('headline-compare'));
  const a = await rectOf(page, 'answer-unscaled');
  const b = await rectOf(page, 'answer-scaled');
  assert.ok(a && b && Math.abs(a.top - b.top) < 2 && b.left >= a.right, `side by side: ${JSON.stringify([a, b])}`);
  assert.ok(a.bottom <= 800 && b.bottom <= 800, 'both on screen without scrolling');
  const ua = await textOf(page, 'answer-unscaled');
  const sa = await textOf(page, 'answer-scaled');
  assert.match(ua, /σl² = l, N = 10⁶/);
  assert.match(sa, /σl² = l2 − ε, ε = 0\.5, N = 10⁶/);
  const lns = await coreOf(page, { family: 'scaled', a: '1', b: '1', variance: { kind: 'power', c: '1', eps: '0.5' } }, 1e6);
  const pre = await coreOf(page, unscaled, 1e6);
  assertCertified(await textOf(page, 'answer-num-scaled'), lns.ev.log_product, 'LNS log Q_N');
  assertCertified(await textOf(page, 'answer-num-unscaled'), pre.ev.log_product, 'Pre-LN log P_N');
  const cmp = await textOf(page, 'headline-compare');
  for (const part of ['Pre-LN’s σl² = l', 'LNS’s σl² = l2 − ε, ε = 0.5', 'grows without bound', 'converges to log Q∞ = ', 'A = 1, B = 1']) {
    assert.ok(cmp.includes(part), `comparison lacks “${part}”: ${cmp}`);
  }
  assertCertified(/converges to log Q∞ = (\S+?):/.exec(cmp)[1], lns.ev.limit, 'LNS log Q_∞ in the comparison');
  // One sentence.
  assert.equal(cmp.trim().split(/[.!?](\s|$)/).filter((x) => x && x.trim()).length, 1, cmp);
  // The headline names each product's own model (they differ).
  const head = await textOf(page, 'headline');
  assert.ok(head.includes('PN (unscaled, σl² = l)') && head.includes('QN (scaled, σl² = l2 − ε, ε = 0.5)'), head);
});

test('the corner A = B = 100, c = 1e-3, q = 0.05: why C and the 40 terms are not informative there, in the core’s numbers, and no empty remainder frame', T, async (t) => {
  const page = await session.open(t, '#families=unscaled,scaled&a=100&b=100&c=0.001&q=0.05&n=1e6');
  await numberIn(page, sel('answer-num-unscaled'));
  const p = { family: 'unscaled', a: '100', b: '100', variance: { kind: 'power', c: '0.001', q: '0.05' } };
  const core = await coreOf(page, p, 1e6, ['leading']);
  const terms = core.ev.divergent.terms;
  assert.equal(terms.length, 40);
  // No empty frame: the remainder canvas is not shown; words are, with the core's numbers.
  assert.equal(await rectOf(page, 'plot-remainder'), null, 'no remainder frame');
  // (rich text: P_N is P with a subscript N, so the text reads "PN")
  const why = await textOf(page, 'remainder-empty');
  const two = (x) => (Math.abs(x) >= 1e4 ? x.toExponential(1).replace('e+', 'e') : String(Number(x.toPrecision(2)))).replace(/^-/, '−');
  const biggest = terms.reduce((m, t) => (Math.abs(t.coefficient) > Math.abs(m.coefficient) ? t : m));
  for (const part of [
    `C = ${two(core.ev.divergent.constant.value)}`,
    '40 terms',
    `coefficients up to ${two(Math.abs(biggest.coefficient))} in size`,
    'alternating in sign',
    `add up to ${two(core.leading[0])} at N = 10⁶`,
    `log PN = ${Number(core.ev.log_product.value.toPrecision(4)).toExponential(3).replace('e+', 'e')}`,
    'neither C nor the terms say how PN behaves here',
  ]) assert.ok(why.includes(part), `the note lacks “${part}”: ${why}`);
  assert.equal(two(core.ev.divergent.constant.value), '5.3e140');
  // The constant's readout says so too, and the headline warns before any number is read.
  const cText = await page.evaluate((s) => document.querySelector(s).closest('dd').textContent, sel('constant-c'));
  assert.match(cText, /Not informative here: C = 5\.3e140/);
  const head = await textOf(page, 'headline');
  assert.match(head, /PN \(unscaled\) grows like exp\(3243\.36·N0\.975\) to leading order/);
  assert.match(head, /its asymptotic expansion does not describe log PN at any depth shown/);
  // The default view keeps its remainder plot (it settles there).
  const def = await session.open(t);
  await numberIn(def, sel('answer-num-unscaled'));
  assert.ok(await rectOf(def, 'plot-remainder'), 'the correction’s case draws its remainder');
  assert.equal(await def.evaluate((s) => document.querySelector(s).hidden, sel('remainder-empty')), true);
});

test('every preset: the headline’s verb follows the core’s growth class of each product shown', T, async (t) => {
  const page = await session.open(t);
  await numberIn(page, sel('answer-num-unscaled'));
  for (const preset of ['correction', 'preln', 'lns', 'comparison', 'exp', 'harmonic']) {
    const before = await page.evaluate(() => window.depthprodStats.updates);
    await page.click(sel(`preset-${preset}`));
    await page.waitForFunction((b) => window.depthprodStats.updates > b && /shown/.test(document.querySelector('[data-testid="status"]').textContent), before);
    const shown = await page.evaluate(() => [...document.querySelectorAll('.families input')].filter((x) => x.checked).map((x) => x.value));
    const head = await textOf(page, 'headline');
    for (const f of shown) {
      const params = await page.evaluate(([f]) => window.depthprodStats.paramsOf?.(f) ?? null, [f]);
      assert.ok(params, `the page exposes the parameters of ${f}`);
      const { growth } = await coreOf(page, params, 1e6);
      const sym = { unscaled: 'P', scaled: 'Q', harmonic: 'H', 'sqrt-scaled': 'S' }[f];
      const clause = head.split(/; (?=[PQHS]N \()/).find((c) => c.includes(`${sym}N (${f}`));
      assert.ok(clause, `${preset}: no clause for ${f} in ${head}`);
      const verb = { convergent: 'converges', power: 'grows like a power of N', 'stretched-exponential': 'faster than any power of N', exponential: 'grows exponentially' }[growth.class];
      assert.ok(clause.includes(verb), `${preset}, ${f} (${growth.class}): ${clause}`);
    }
  }
});
