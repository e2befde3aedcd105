// The release artifact the page loads (www/pkg/, built by `npm test` before these tests), called
// from JavaScript exactly as the page calls it, but in node: export names, argument and return
// types, and thrown errors. The numbers themselves are the core's business.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';

const pkg = new URL('../../www/pkg/', import.meta.url);
const api = await import(new URL('depthprod_wasm.js', pkg));
api.initSync({ module: readFileSync(new URL('depthprod_wasm_bg.wasm', pkg)) });

const scaled = { family: 'scaled', a: 1, b: 1, variance: { kind: 'power', c: 1, q: 1 } };

test('exports exactly the documented API', () => {
  // default/initSync are wasm-bindgen's loaders; start (the panic hook, run by init) is exported
  // by wasm-bindgen whatever its visibility, and is harmless to call again.
  const names = Object.keys(api).filter((k) => !['default', 'initSync', 'start'].includes(k)).sort();
  assert.deepEqual(names, ['Plan', 'closedForms', 'curve', 'depthGrid', 'evaluate', 'fitPowerLaw', 'parseList', 'rotation', 'version'].sort());
  assert.match(api.version(), /^\d+\.\d+\.\d+/);
});

test('a prepared Plan answers like the free functions and frees cleanly', () => {
  const product = new api.Plan(scaled);
  const ns = new Float64Array([1, 10, 1e6, 1e18]);
  assert.deepEqual([...product.curve('log-product', ns)], [...api.curve(scaled, 'log-product', ns)]);
  assert.equal(product.evaluate(1e6).log_product.value, api.evaluate({ ...scaled, n: 1e6 }).log_product.value);
  assert.equal(product.maxDepth(), 1e18);
  assert.throws(() => product.curve('slope', ns), /unknown curve kind "slope"/);
  product.free();
  assert.throws(() => new api.Plan({ ...scaled, a: -1 }), /A = -1 is outside/);
});

test('Plan.logProduct gives the one enclosure evaluate gives, without the rest of the view', () => {
  const cases = [
    [scaled, [1, 7, 1e6, 1e18, 'inf']],
    [{ family: 'unscaled', a: '1', b: '1', variance: { kind: 'power', c: '1', q: '1' } }, [1, 1e6, '1e18']],
    [{ family: 'unscaled', a: 1, b: 1, variance: { kind: 'exponential', c: 1, lambda: 1e-3 } }, [3, 1e6, 'inf']],
    [{ family: 'scaled', a: 1, b: 1, variance: { kind: 'measured', values: [1, 2, 4, 8] } }, [1, 4]],
  ];
  for (const [params, ns] of cases) {
    const plan = new api.Plan(params);
    for (const n of ns) {
      const v = plan.logProduct(n);
      assert.ok(v instanceof Float64Array && v.length === 3, `${JSON.stringify(params)} at ${n}`);
      const e = plan.evaluate(n).log_product;
      assert.deepEqual([...v], [e.value, e.lo, e.hi], `${JSON.stringify(params)} at ${n}`);
      assert.ok(v[1] <= v[0] && v[0] <= v[2] && v[2] - v[1] <= 1e-12 * Math.max(1, Math.abs(v[0])));
    }
    plan.free();
  }
  const divergent = new api.Plan({ family: 'unscaled', a: 1, b: 1, variance: { kind: 'power', c: 1, q: 1 } });
  assert.throws(() => divergent.logProduct('inf'), (e) => e instanceof Error && /diverges/.test(e.message));
  assert.throws(() => divergent.logProduct(0), /N = "0" is not a valid depth/);
  divergent.free();
});

test('parameters as decimal strings, q by eps, growth classes and reasons', () => {
  // a typed q = 0.4 is 2/5 exactly: k p = 1 at k = 5, a log N term, and C is certified
  const typed = new api.Plan({ family: 'unscaled', a: '1', b: '1', variance: { kind: 'power', c: '1', q: '0.4' } });
  const g = typed.growth();
  assert.equal(g.class, 'stretched-exponential');
  assert.ok(g.exponent.lo <= 0.8 && 0.8 <= g.exponent.hi && g.exponent.hi - g.exponent.lo < 1e-15, JSON.stringify(g));
  assert.ok(g.coefficient.lo <= 1.25 && 1.25 <= g.coefficient.hi, JSON.stringify(g));
  assert.ok(g.log_coefficient !== null && g.constant !== null && g.reason === null, JSON.stringify(g));
  assert.ok(g.constant.hi - g.constant.lo < 1e-10, JSON.stringify(g));
  typed.free();
  // eps: q = 2 - eps exactly; the scaled family converges
  const byEps = new api.Plan({ family: 'scaled', a: 1, b: 1, variance: { kind: 'power', c: 1, eps: '1' } });
  assert.equal(byEps.growth().class, 'convergent');
  assert.equal(byEps.evaluate(1e6).log_product.value, api.evaluate({ ...scaled, n: 1e6 }).log_product.value);
  byEps.free();
  const harmonic = new api.Plan({ family: 'harmonic', a: 2, b: 1, variance: { kind: 'power', c: 1, q: 1 } });
  const h = harmonic.growth();
  assert.equal(h.class, 'power');
  assert.ok(h.exponent.lo <= 2 && 2 <= h.exponent.hi, JSON.stringify(h));
  harmonic.free();
  const list = new api.Plan({ family: 'unscaled', a: 1, b: 1, variance: { kind: 'measured', values: [1, 2, 3] } });
  assert.equal(list.growth().class, 'finite-list');
  list.free();
  // what cannot be resolved says why, next to the missing number
  const hard = api.evaluate({ family: 'sqrt-scaled', a: 1, b: 1, variance: { kind: 'power', c: 1, q: '1.0000000000000002' }, n: Infinity });
  assert.ok(hard.divergent === null, JSON.stringify(hard));
  assert.ok(hard.log_product !== null || hard.unresolved.some((u) => u.quantity === 'limit' && u.reason.length > 20), JSON.stringify(hard));
  assert.throws(() => new api.Plan({ ...scaled, a: 'one' }), /A = "one" is not a number/);
  assert.throws(() => new api.Plan({ ...scaled, a: '5e-324' }), /A = 5e-324 is nonzero but below 1e-100/);
});

test('errors are thrown as Error objects carrying the core message', () => {
  assert.throws(() => api.evaluate({ ...scaled, a: -1, n: 10 }), (e) => e instanceof Error &&
    e.message === 'A = -1 is outside the supported range [0, 100]');
  assert.throws(() => api.evaluate({ ...scaled, n: 0 }), (e) => e instanceof Error && /N = "0" is not a valid depth/.test(e.message));
  assert.throws(() => api.parseList('1, x'), (e) => e instanceof Error && /entry 2 \("x"\) is not a number/.test(e.message));
  assert.throws(() => api.curve(scaled, 'slope', new Float64Array([1])), /unknown curve kind "slope"/);
  assert.throws(() => api.evaluate({ ...scaled, family: 'pre-ln', n: 1 }), /pre-ln/);
});

test('list and grid helpers return Float64Arrays', () => {
  const list = api.parseList('1, 2.5\n4');
  assert.ok(list instanceof Float64Array);
  assert.deepEqual([...list], [1, 2.5, 4]);
  const grid = api.depthGrid(1e6, 7);
  assert.ok(grid instanceof Float64Array);
  assert.deepEqual([grid[0], grid.at(-1)], [1, 1e6]);
  assert.ok(grid.every((x, i) => i === 0 || x > grid[i - 1]));
});

test('evaluate returns a plain object, n as number or inf', () => {
  const finite = api.evaluate({ ...scaled, n: 1e6 });
  assert.equal(Object.getPrototypeOf(finite), Object.prototype);
  assert.equal(finite.family, 'scaled');
  assert.equal(finite.n, 1e6);
  assert.ok(Math.abs(finite.log_product.value - 2.7784912) < 1e-6, JSON.stringify(finite));
  assert.equal(finite.divergent, null);
  const limit = api.evaluate({ ...scaled, n: 'inf' });
  assert.equal(limit.n, null);
  assert.ok(limit.limit.lo <= limit.log_product.value && limit.log_product.value <= limit.limit.hi);
  assert.ok(Math.abs(limit.log_product.value - 2.7804912) < 1e-6, JSON.stringify(limit));
  // A measured list straight from parseList.
  const measured = api.evaluate({ family: 'unscaled', a: 0, b: 1, variance: { kind: 'measured', values: api.parseList('1 2 3') }, n: 3 });
  assert.ok(Math.abs(measured.log_product.value - Math.log(4)) < 1e-12, JSON.stringify(measured));
});

test('curve returns one value per depth', () => {
  const ns = api.depthGrid(1e9, 40);
  const out = api.curve(scaled, 'log-product', ns);
  assert.ok(out instanceof Float64Array);
  assert.equal(out.length, ns.length);
  assert.ok(out.every(Number.isFinite));
  assert.equal(api.curve(scaled, 'tail', new Float64Array(0)).length, 0);
});

test('closed forms and the rotation example', () => {
  const cf = api.closedForms({ a: 1, b: 1, c: 1, q: 1, n: 1e6 });
  // (A/sqrt c) zeta(3/2) + (B/c) zeta(3) = 2.6123753486854883 + 1.2020569031595943
  assert.ok(cf.zeta_bound.lo <= 3.8144322518450822 && 3.8144322518450822 <= cf.zeta_bound.hi, JSON.stringify(cf));
  assert.deepEqual(cf.eq65.eps, { value: 1, lo: 1, hi: 1 });
  // Eq. 65's limit A/(1 - eps/2) + B/(3 - eps) = 2 + 1/2, an enclosure of width <= 1e-14.
  assert.ok(cf.eq65.limit.lo <= 2.5 && 2.5 <= cf.eq65.limit.hi, JSON.stringify(cf));
  assert.ok(cf.eq65.limit.hi - cf.eq65.limit.lo < 1e-14, JSON.stringify(cf));
  assert.equal(cf.exponential_bound, null);
  assert.deepEqual(cf.unresolved, []);
  // decimal strings and eps: q = 2 - eps exactly
  const typed = api.closedForms({ a: '1', b: '1', c: '1', eps: '0.5', lambda: '0.1' });
  assert.ok(typed.eq65.limit.lo <= 1 / 0.75 + 1 / 2.5 && 1 / 0.75 + 1 / 2.5 <= typed.eq65.limit.hi, JSON.stringify(typed));
  assert.ok(typed.exponential_bound.lo > 0 && typed.exponential_bound.lo < typed.exponential_bound.hi, JSON.stringify(typed));
  const none = api.closedForms({ a: 1, b: 1, c: 1, q: 3 });
  assert.equal(none.eq65, null);
  const rot = api.rotation(1, 1, 1000);
  assert.equal(rot.matrix.length, 4);
  assert.ok(Math.abs(rot.norm - 1) < 1e-12, JSON.stringify(rot));
});

test('fitPowerLaw: the least-squares power law of a list, with its fitted values; bad lists refused by name', () => {
  const values = Float64Array.from({ length: 24 }, (_, i) => 2 * (i + 1) ** 1.5);
  const fit = api.fitPowerLaw(values);
  assert.ok(Math.abs(fit.q - 1.5) < 1e-12 && Math.abs(fit.c - 2) < 1e-12, JSON.stringify(fit));
  assert.equal(fit.count, 24);
  assert.ok(fit.rms_log_residual < 1e-12);
  assert.equal(fit.fitted.length, 24);
  fit.fitted.forEach((y, i) => assert.ok(Math.abs(y - values[i]) <= 1e-12 * values[i], `fitted ${y} vs ${values[i]}`));
  assert.throws(() => api.fitPowerLaw(new Float64Array([3])), /at least 2 values/);
  assert.throws(() => api.fitPowerLaw(new Float64Array([1, -1])), /value 2/);
});

/** The message of the error `f` throws (failing when it throws none). */
function message(f) {
  try {
    f();
  } catch (e) {
    return e.message;
  }
  assert.fail('no error was thrown');
}

test('messages name numbers in their shortest form, and the module links no float formatter', () => {
  // The core writes doubles in messages itself (depthprod::decimal), so the module carries no
  // copy of the standard library's Grisu/Dragon4 formatter (about 8 KiB gzipped).
  assert.equal(message(() => api.evaluate({ ...scaled, a: 100.5, n: 1 })), 'A = 100.5 is outside the supported range [0, 100]');
  // the double 1e-7 lies below 10^-7, so A^2/c is above 10^7: A/√c a hair above √10^7
  assert.equal(message(() => api.evaluate({ ...scaled, variance: { kind: 'power', c: 1e-7, q: 1 }, n: 1 })).split(':')[0],
    'A/√c ≈ 3162.28 (A = 1, c = 1e-7) is outside the supported range [0, 3162.27…] (A²/c at most 10^7)');
  assert.equal(message(() => api.evaluate({ ...scaled, a: 0, variance: { kind: 'power', c: 1e-6, q: 1 }, n: 1 })).split(':')[0],
    'B/c ≈ 1000000 (B = 1, c = 1e-6) is outside the supported range [0, 100000]');
  assert.equal(message(() => api.evaluate({ ...scaled, b: 5e-324, n: 1 })).split(':')[0], 'B = 5e-324 is nonzero but below 1e-100');
  assert.equal(message(() => api.evaluate({ ...scaled, n: 2.5 })), 'N = "2.5" is not a valid depth: use an integer from 1 to 1e18 (e.g. 1000000 or 1e6), or inf');
  const bytes = readFileSync(new URL('depthprod_wasm_bg.wasm', pkg)).toString('latin1');
  for (const mark of ['MAX_SIG_DIGITS', 'd.mant.checked_sub']) assert.equal(bytes.includes(mark), false, `${mark} is in the module`);
});

test('every entry point decides every range on the exact decimal typed, and shows it as typed', () => {
  const power = (over) => ({ family: 'scaled', a: '1', b: '1', ...over, variance: { kind: 'power', c: '1', q: '1', ...(over.variance || {}) } });
  // the audit's examples: each a hair outside its range, its double inside
  const cases = [
    [power({ variance: { q: '8.0000000000000000001' } }), { a: '1', b: '1', c: '1', q: '8.0000000000000000001' }, 'q = 8.0000000000000000001 is outside the supported range [0.05, 8]'],
    [power({ a: '100.00000000000000001' }), { a: '100.00000000000000001', b: '1', c: '1', q: '1' }, 'A = 100.00000000000000001 is outside the supported range [0, 100]'],
    [power({ a: '100', b: '100', variance: { c: '0.00099999999999999999999' } }), { a: '100', b: '100', c: '0.00099999999999999999999', q: '1' },
      'A/√c ≈ 3162.28 (A = 100, c = 0.00099999999999999999999) is outside the supported range [0, 3162.27…]'],
    [power({ a: '9.9999999999999999999e-101' }), { a: '9.9999999999999999999e-101', b: '1', c: '1', q: '1' }, 'A = 9.9999999999999999999e-101 is nonzero but below 1e-100'],
    [{ family: 'unscaled', a: '1', b: '1', variance: { kind: 'exponential', c: '1', lambda: '10.0000000000000000001' } },
      { a: '1', b: '1', c: '1', lambda: '10.0000000000000000001' }, 'lambda = 10.0000000000000000001 is outside the supported range [0.001, 10]'],
  ];
  for (const [params, closed, want] of cases) {
    for (const [what, f] of [
      ['evaluate', () => api.evaluate({ ...params, n: 10 })],
      ['Plan', () => new api.Plan(params)],
      ['curve', () => api.curve(params, 'log-product', new Float64Array([1]))],
      ['closedForms', () => api.closedForms({ ...closed, n: 10 })],
    ]) {
      assert.ok(message(f).startsWith(want), `${what}: ${message(f)}`);
    }
  }
  assert.equal(message(() => api.rotation('100.00000000000000001', 1, 10)), 'theta = 100.00000000000000001 is outside the supported range [-100, 100]');
  // a long value is cut at 40 characters
  assert.ok(message(() => api.evaluate({ ...power({ a: `100.${'0'.repeat(60)}1` }), n: 1 })).startsWith(`A = 100.${'0'.repeat(35)}… is outside`));
  // c outside [0.001, 1000] with A/√c and B/c inside: accepted (the lab's fitted power law)
  const fitted = api.evaluate({ family: 'unscaled', a: '0.5', b: '0.01', variance: { kind: 'power', c: '0.000327206', q: '1.3' }, n: 1e6 });
  assert.ok(fitted.log_product.hi - fitted.log_product.lo <= 1e-12 * fitted.log_product.value, JSON.stringify(fitted.log_product));
});

test('the rotation is for the exact theta typed, every entry an enclosure', () => {
  // theta = 0.1 typed turns by exactly 10^17 at N = 10^18; the double 0.1 turns by 10^17 + 5.55
  const typed = api.rotation('0.1', 0, 1e18);
  assert.equal(typed.angle, 1e17);
  assert.deepEqual(typed.enclosures.angle, { value: 1e17, lo: 1e17, hi: 1e17 });
  const [m00, m01] = typed.enclosures.matrix;
  // cos(10^17) = -0.885557328297630685..., -sin(10^17) = 0.464530104835372696... (mpmath)
  assert.ok(m00.lo <= -0.8855573282976307 && -0.8855573282976306 <= m00.hi && m00.hi - m00.lo < 1e-15, JSON.stringify(m00));
  assert.ok(m01.lo <= 0.4645301048353726 && 0.4645301048353727 <= m01.hi && m01.hi - m01.lo < 1e-15, JSON.stringify(m01));
  assert.deepEqual(typed.matrix, typed.enclosures.matrix.map((e) => e.value));
  const double = api.rotation(0.1, 0, 1e18);
  assert.ok(double.enclosures.matrix[0].hi < -0.96, 'the double 0.1 is another angle');
  assert.equal(typed.norm, 1);
});
