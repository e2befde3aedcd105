// The lab page's form (Chromium and Firefox): each field is checked as it is typed (a whole number,
// the lab's range, heads dividing d), with the message at the field, aria-invalid, and Run disabled
// with the reasons beside it, each going when its field is fixed; a dropped file that is not a
// checkpoint is refused at the drop with the reason and changes nothing; a file the lab itself
// refuses (a safetensors file without the model's tensors) gets the lab's message at Run. And,
// without a browser: the form's ranges are the lab's own, as its wasm states them.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test as nodeTest } from 'node:test';
import { browsers } from './harness.mjs';

const { test, session } = browsers();
const SMALL = '#norms=pre&d=16&heads=2&dff=40&tokens=4&layers=3&std=0.02&seed=7';

async function openLab(t, hash, options = {}) {
  const page = await session.page(t, options);
  await page.goto(`${session.url}lab.html${hash}`);
  await page.waitForFunction(() => document.body?.dataset.labState !== undefined, null, { timeout: 30_000 });
  return page;
}

/** Types `text` into field `key` (replacing it) and returns what the page then says about the field and Run. */
async function typeInto(page, key, text) {
  await page.fill(`[data-testid="lab-${key}"]`, text);
  return page.evaluate((k) => ({
    message: document.querySelector(`[data-testid="lab-error-${k}"]`).textContent,
    invalid: document.querySelector(`[data-testid="lab-${k}"]`).getAttribute('aria-invalid'),
    run: document.querySelector('[data-testid="lab-run"]').disabled,
    reason: document.querySelector('[data-testid="lab-run-reason"]').textContent,
  }), key);
}

const fine = { message: '', invalid: null, run: false, reason: '' };

test('each field is checked as it is typed: message at the field, aria-invalid, Run off with the reason; fixed, all of it goes', { timeout: 120_000 }, async (t) => {
  const page = await openLab(t, SMALL);
  const cases = [
    ['d', '16x', 'd: “16x” is not a whole number; expected a whole number in [2, 8192]', '16'],
    ['d', '8193', 'd = 8193 is out of range: expected a whole number in [2, 8192]', '16'],
    ['heads', '3', 'heads = 3 must divide d = 16', '2'],
    ['heads', '16', 'd / heads = 1 must be even (rotary embeddings rotate pairs)', '2'],
    ['heads', '32', 'heads = 32 is out of range: expected a whole number in [1, 16] (at most d = 16)', '2'],
    ['layers', '0', 'layers = 0 is out of range: expected a whole number in [1, 1024]', '3'],
    ['layers', '', 'layers: empty; expected a whole number in [1, 1024]', '3'],
    ['dff', '-4', 'd_ff: “-4” is not a whole number; expected a whole number in [1, 32768]', '40'],
    ['tokens', '1', 'tokens = 1 is out of range: expected a whole number in [2, 4096]', '4'],
    ['std', 'abc', 'init_std: “abc” is not a number; expected a number in [0, 10]', '0.02'],
    ['std', '10.5', 'init_std = 10.5 is out of range: expected a number in [0, 10]', '0.02'],
    ['seed', '9007199254740993', 'seed = 9007199254740993 is out of range: expected a whole number in [0, 2^53]', '7'],
  ];
  for (const [key, bad, message, good] of cases) {
    assert.deepEqual(await typeInto(page, key, bad), { message, invalid: 'true', run: true, reason: `Run is off until the form is fixed: ${message}.` }, `${key} = “${bad}”`);
    assert.deepEqual(await typeInto(page, key, good), fine, `${key} fixed`);
  }
  // A rule between two fields is at the field it names, and goes when either is fixed.
  const headsMessage = () => page.evaluate(() => document.querySelector('[data-testid="lab-error-heads"]').textContent);
  assert.equal((await typeInto(page, 'heads', '3')).message, 'heads = 3 must divide d = 16');
  assert.deepEqual(await typeInto(page, 'd', '18'), fine);
  assert.equal(await headsMessage(), '');
  assert.equal((await typeInto(page, 'd', '21')).run, true);
  assert.equal(await headsMessage(), 'd / heads = 7 must be even (rotary embeddings rotate pairs)');
  assert.deepEqual(await typeInto(page, 'd', '24'), fine);
  assert.equal(await headsMessage(), '');
  await typeInto(page, 'heads', '2');
  await typeInto(page, 'd', '16');
  // Two problems at once: both at their fields, both beside Run.
  await typeInto(page, 'tokens', 'x');
  const both = await typeInto(page, 'layers', '2000');
  assert.equal(both.reason, 'Run is off until the form is fixed: tokens: “x” is not a whole number; expected a whole number in [2, 4096]; layers = 2000 is out of range: expected a whole number in [1, 1024].');
  await typeInto(page, 'tokens', '4');
  assert.deepEqual(await typeInto(page, 'layers', '3'), fine);
  // No placement: the message is at the placements.
  await page.uncheck('[data-testid="lab-norm-pre"]');
  assert.equal(await page.textContent('[data-testid="lab-error-norms"]'), 'norms: choose at least one placement');
  assert.equal(await page.evaluate(() => document.querySelector('[data-testid="lab-run"]').disabled), true);
  await page.check('[data-testid="lab-norm-lns"]');
  assert.equal(await page.textContent('[data-testid="lab-error-norms"]'), '');
  // Fixed, it runs.
  await page.click('[data-testid="lab-run"]');
  await page.waitForFunction(() => document.body.dataset.labState === 'done', null, { timeout: 240_000 });
  // A link with a bad field and run=1 does not start: the field says why.
  const linked = await openLab(t, `${SMALL.replace('layers=3', 'layers=0')}&run=1`);
  assert.equal(await linked.evaluate(() => document.body.dataset.labState), 'error');
  assert.equal(await linked.textContent('[data-testid="lab-error-layers"]'), 'layers = 0 is out of range: expected a whole number in [1, 1024]');
  assert.match(await linked.textContent('[data-testid="lab-status"]'), /^Not started: the form has a problem/);
});

/** Drops files on the drop zone (a real drop event): [{ name, bytes | text | size }]. */
function dropFiles(page, files) {
  return page.evaluate((list) => {
    const dt = new DataTransfer();
    for (const f of list) dt.items.add(new File([f.text ?? new Uint8Array(f.size ?? f.bytes)], f.name));
    const zone = document.querySelector('[data-testid="lab-drop"]');
    zone.dispatchEvent(new DragEvent('dragover', { dataTransfer: dt, bubbles: true, cancelable: true }));
    zone.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
  }, files);
}

const dropState = (page) =>
  page.evaluate(() => ({
    error: document.querySelector('[data-testid="lab-file-error"]').textContent,
    info: document.querySelector('[data-testid="lab-file-info"]').textContent,
    locked: ['d', 'dff', 'heads'].filter((k) => document.querySelector(`[data-testid="lab-${k}"]`).disabled),
    run: document.querySelector('[data-testid="lab-run"]').disabled,
    zone: document.querySelector('[data-testid="lab-drop"]').className,
  }));

test('a dropped file that is not a checkpoint is refused at the drop with the reason, and locks nothing', { timeout: 240_000 }, async (t) => {
  const page = await openLab(t, SMALL);
  await dropFiles(page, [{ name: 'notes.txt', text: 'Some notes about the run.\n' }]);
  await page.waitForFunction(() => document.querySelector('[data-testid="lab-file-error"]').textContent !== '');
  assert.deepEqual(await dropState(page), {
    error: 'notes.txt is not a safetensors file: it does not start with a header length and a JSON header (the lab reads .safetensors checkpoints, with an optional config.json).',
    info: 'No file: the weights are drawn from the seed.',
    locked: [],
    run: false,
    zone: 'lab-drop has-bad-file',
  });
  // Too short, a broken header, too large: each refused with its reason.
  for (const [file, reason] of [
    [{ name: 'broken.safetensors', bytes: [1, 2, 3, 4, 5] }, 'broken.safetensors is 5 bytes long, too short for a safetensors file (an 8-byte header length, then a JSON header).'],
    [{ name: 'model.safetensors', bytes: [255, 255, 0, 0, 0, 0, 0, 0, 123, 125, 0, 0] }, 'model.safetensors is not a safetensors file: it does not start with a header length and a JSON header.'],
  ]) {
    await dropFiles(page, [file]);
    await page.waitForFunction((r) => document.querySelector('[data-testid="lab-file-error"]').textContent === r, reason);
    assert.deepEqual((await dropState(page)).locked, []);
  }
  const limit = await page.evaluate(async () => (await import('./js/lab/main.js')).MAX_CHECKPOINT_BYTES);
  await dropFiles(page, [{ name: 'huge.safetensors', size: limit + 1 }]);
  await page.waitForFunction(() => /huge\.safetensors/.test(document.querySelector('[data-testid="lab-file-error"]').textContent));
  assert.match(await page.textContent('[data-testid="lab-file-error"]'), /^huge\.safetensors is 128\.0 MiB; this tab takes files up to 128\.0 MiB\. For larger checkpoints use the command line: depthprod lab --weights huge\.safetensors\.$/);
  // A checkpoint that is one (its header parses) is taken at the drop, and then a notes.txt leaves it chosen.
  const header = Buffer.from(JSON.stringify({ 'model.embed_tokens.weight': { dtype: 'F32', shape: [8, 4], data_offsets: [0, 128] } }));
  const partial = Buffer.concat([Buffer.from(new BigUint64Array([BigInt(header.length)]).buffer), header, Buffer.alloc(128)]);
  await dropFiles(page, [{ name: 'partial.safetensors', bytes: Array.from(partial) }]);
  await page.waitForFunction(() => /^partial\.safetensors/.test(document.querySelector('[data-testid="lab-file-info"]').textContent));
  assert.deepEqual((await dropState(page)).locked, ['d', 'dff']);
  assert.equal((await dropState(page)).error, '');
  await dropFiles(page, [{ name: 'notes.txt', text: 'x'.repeat(40) }]);
  await page.waitForFunction(() => /notes\.txt/.test(document.querySelector('[data-testid="lab-file-error"]').textContent));
  assert.match((await dropState(page)).error, /partial\.safetensors stays chosen\.$/);
  assert.match((await dropState(page)).info, /^partial\.safetensors/);
  // The lab reads it at Run and names the first tensor it lacks.
  await page.click('[data-testid="lab-run"]');
  await page.waitForFunction(() => document.body.dataset.labState === 'error', null, { timeout: 120_000 });
  assert.match(await page.textContent('[data-testid="lab-error"]'), /^Pre-LN: weights: .*missing tensor model\.layers\.0\.self_attn\.q_proj\.weight/);
  // Back to seeded weights: nothing locked, no message.
  await page.click('[data-testid="lab-file-clear"]');
  assert.deepEqual(await dropState(page), { error: '', info: 'No file: the weights are drawn from the seed.', locked: [], run: false, zone: 'lab-drop' });
});

nodeTest('the form’s ranges are the lab’s: its wasm refuses just outside each and states the same range', async () => {
  const pkg = new URL('../../www/pkg/', import.meta.url);
  const lab = await import(new URL('depthlab_wasm.js', pkg));
  lab.initSync({ module: readFileSync(new URL('depthlab_wasm_bg.wasm', pkg)) });
  const { RANGES, MAX_STREAM, MAX_STREAM_FF } = await import('../../www/js/lab/state.js');
  const base = { norm: 'pre', d: 16, heads: 2, dff: 40, tokens: 4, layers: 3, std: 0.02, seed: 7 };
  const refusal = (over) => {
    try {
      lab.runLab({ ...base, ...over });
    } catch (e) {
      return e.message;
    }
    return null;
  };
  const expect = (key, r) => (key === 'seed' ? '[0, 2^53]' : `[${r.lo}, ${r.hi}]`);
  for (const [key, r] of Object.entries(RANGES)) {
    if (key === 'heads') continue; // its range is [1, d]: below
    const above = refusal({ [key]: key === 'seed' ? 1e16 : r.hi + (key === 'std' ? 0.5 : 1) });
    assert.ok(above && above.includes(r.name) && above.includes(expect(key, r)), `${key} above: ${above}`);
    if (r.lo > 0) {
      const below = refusal({ [key]: r.lo - 1 });
      assert.ok(below && below.includes(r.name) && below.includes(expect(key, r)), `${key} below: ${below}`);
    }
  }
  assert.match(refusal({ heads: 32 }), /heads = 32 is out of range: expected an integer in \[1, 16\]/);
  assert.match(refusal({ heads: 3 }), /heads = 3 must divide d = 16/);
  assert.match(refusal({ heads: 2, d: 6 }), /d \/ heads = 3 must be even/);
  assert.match(refusal({ tokens: 4096, d: 512, dff: 40 }), new RegExp(`tokens x d = 2097152 is out of range: expected at most ${MAX_STREAM}`));
  assert.match(refusal({ tokens: 4096, d: 16, dff: 2048 }), new RegExp(`tokens x d_ff = 8388608 is out of range: expected at most ${MAX_STREAM_FF}`));
});
