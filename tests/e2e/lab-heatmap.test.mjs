// The lab page's angular-distance heatmap (www/js/lab/heatmap.js) as a complete figure, in Chromium
// and Firefox: after a small run every map has its layer labels and axis titles (drawn on the
// canvas, and named in its accessible description), the caption and the words describe cell
// (i, j) = x_i against x_j with the run's numbers, the arrow keys move a highlighted cell whose
// readout renders subscripts and shows the data table's value, the SVG export is a standalone file
// with one <rect> per cell and the caption, the PNG export is a PNG of a figure's size, the CSV
// names its first column, and an empty map says what it waits for.
//
// Downloads are captured inside the page (the blob handed to URL.createObjectURL and the name of
// the <a download> clicked), because Playwright's download event is not in the harness's Firefox
// subset; the patched click also keeps the browsers from saving files.
import assert from 'node:assert/strict';
import { browsers } from './harness.mjs';

const NORMS = ['pre', 'lns'];
const LAYERS = 3;
const SIZE = LAYERS + 1; // x_1 … x_{L+1}
const HASH = `#norms=${NORMS.join(',')}&d=16&heads=2&dff=40&tokens=4&layers=${LAYERS}&std=0.02&seed=1`;

const { test, session } = browsers();

async function openLab(t, hash, options) {
  const page = await session.page(t, options);
  await page.goto(`${session.url}lab.html${hash}`);
  await page.waitForFunction(() => document.body?.dataset.labState !== undefined, null, { timeout: 30_000 });
  return page;
}

async function finishedRun(t, options) {
  const page = await openLab(t, `${HASH}&run=1`, options);
  await page.waitForFunction(() => ['done', 'error'].includes(document.body.dataset.labState) && !document.body.dataset.labDrawing, null, { timeout: 240_000 });
  assert.equal(await page.evaluate(() => document.body.dataset.labState), 'done', await page.textContent('[data-testid="lab-error"]'));
  return page;
}

/** The hidden data table of the heatmap: norm → rows of cell texts (x_i's row, x_j's column). */
const dataTables = (page) =>
  page.evaluate(() =>
    Object.fromEntries(
      [...document.querySelectorAll('[data-testid="lab-data-angular"] table')].map((t) => [t.dataset.norm, [...t.tBodies[0].rows].map((r) => [...r.cells].slice(1).map((c) => c.textContent))]),
    ),
  );

/** Clicks an export button; resolves to { name, type, size, head (first 24 bytes), text (SVG / CSV) }. */
async function exported(page, testid) {
  await page.evaluate(() => {
    if (window.__downloads) return;
    window.__downloads = [];
    const create = URL.createObjectURL.bind(URL);
    URL.createObjectURL = (blob) => {
      const url = create(blob);
      window.__downloads.push({ url, blob, name: null });
      return url;
    };
    HTMLAnchorElement.prototype.click = function click() {
      const d = window.__downloads.find((x) => x.url === this.href);
      if (d && this.download) d.name = this.download;
    };
  });
  const before = await page.evaluate(() => window.__downloads.length);
  await page.click(`[data-testid="${testid}"]`);
  await page.waitForFunction((n) => window.__downloads.length > n && window.__downloads[n].name, before, { timeout: 15_000 });
  return page.evaluate(async (n) => {
    const { blob, name } = window.__downloads[n];
    const bytes = new Uint8Array(await blob.arrayBuffer());
    const text = /svg|csv/.test(blob.type) ? new TextDecoder().decode(bytes) : null;
    return { name, type: blob.type, size: bytes.length, head: Array.from(bytes.slice(0, 24)), text };
  }, before);
}

test('an empty map says what it waits for: before a run, while it measures, after a cancel', { timeout: 120_000 }, async (t) => {
  const page = await openLab(t, HASH);
  const box = '[data-testid="lab-plot-angular"] .lab-heat-row';
  assert.equal((await page.textContent(box)).trim(), 'Run the lab to see this map.');
  // Run, read, Cancel, read, all in one evaluate: a few milliseconds, far less than a placement
  // needs for its report (the worker has yet to load its wasm), so no map can have arrived.
  const seen = await page.evaluate(async (sel) => {
    const read = async () => {
      await new Promise((r) => setTimeout(r, 0));
      return { state: document.body.dataset.labState, text: document.querySelector(sel).textContent.trim() };
    };
    document.querySelector('[data-testid="lab-run"]').click();
    const running = await read();
    document.querySelector('[data-testid="lab-cancel"]').click();
    return { running, cancelled: await read() };
  }, box);
  assert.deepEqual(seen.running, { state: 'running', text: 'Measuring… the map appears when this run’s angular distances are done.' });
  assert.deepEqual(seen.cancelled, { state: 'cancelled', text: 'The run was cancelled before its angular distances were measured.' });
});

test('after a small run: labels, caption, words with the run’s numbers, and the keyboard readout', { timeout: 600_000 }, async (t) => {
  const page = await finishedRun(t);
  const tables = await dataTables(page);
  assert.deepEqual(Object.keys(tables).sort(), [...NORMS].sort());
  for (const norm of NORMS) {
    assert.equal(tables[norm].length, SIZE, `${norm}: rows`);
    for (const row of tables[norm]) assert.equal(row.length, SIZE, `${norm}: columns`);
  }

  // Each map: focusable, an image whose description names the axes and every labelled layer, and
  // text actually drawn in the left (layer i) and bottom (layer j) margins of the canvas.
  for (const norm of NORMS) {
    const c = await page.evaluate((n) => {
      const canvas = document.querySelector(`[data-testid="lab-heat-${n}"]`);
      const W = canvas.width;
      // One readback (more would make Chromium warn on the console, which fails the test).
      const d = canvas.getContext('2d').getImageData(0, 0, W, W).data;
      // Pixels unlike the background (the corner's) in a strip (device px): where labels are drawn.
      const inked = (x, y, w, h) => {
        let count = 0;
        for (let py = y; py < y + h; py++) {
          for (let px = x; px < x + w; px++) {
            const k = 4 * (py * W + px);
            if (Math.abs(d[k] - d[0]) + Math.abs(d[k + 1] - d[1]) + Math.abs(d[k + 2] - d[2]) > 60) count++;
          }
        }
        return count;
      };
      const m = Math.round(W * 0.05);
      return {
        role: canvas.getAttribute('role'),
        tabIndex: canvas.tabIndex,
        label: canvas.getAttribute('aria-label'),
        square: canvas.width === canvas.height && W >= 200,
        hidpi: Math.abs(W - canvas.getBoundingClientRect().width * devicePixelRatio) <= 1,
        leftTitle: inked(0, Math.round(W * 0.3), m, Math.round(W * 0.4)),
        bottomTitle: inked(Math.round(W * 0.3), W - m, Math.round(W * 0.4), m),
      };
    }, norm);
    assert.equal(c.role, 'img', norm);
    assert.equal(c.tabIndex, 0, norm);
    assert.ok(c.square && c.hidpi, `${norm}: a square canvas at the device pixel ratio`);
    assert.match(c.label, /rows layer i and columns layer j, 1 to 4, labelled 1, 2, 3, 4\./, norm);
    assert.ok(c.leftTitle > 20, `${norm}: nothing drawn where "layer i" goes (${c.leftTitle} px)`);
    assert.ok(c.bottomTitle > 20, `${norm}: nothing drawn where "layer j" goes (${c.bottomTitle} px)`);
  }

  // The caption says what is drawn, with rendered subscripts; the old x_l / x_{l+n} wording is gone.
  const cap = await page.evaluate(() => {
    const c = document.querySelector('#lab-cap-angular');
    return { text: c.textContent, subs: [...c.querySelectorAll('sub')].map((s) => s.textContent) };
  });
  assert.match(cap.text, /^Angular distance between xi and xj: cell \(i, j\) is row i against column j, n = j − i layers apart/);
  assert.deepEqual(cap.subs, ['i', 'j']);

  // The words carry this run's numbers: per placement the largest distance and its pair, which
  // must be the largest cell of the data table (to the 4 digits the words print).
  const words = await page.evaluate(() => {
    const w = document.querySelector('[data-testid="lab-words-angular"]');
    return { text: w.textContent, subs: w.querySelectorAll('sub').length };
  });
  assert.ok(words.subs > 0 && !words.text.includes('_'), `subscripts rendered: ${words.text}`);
  assert.match(words.text, /cell \(i, j\) is the angular distance between xi and xj/);
  const names = { pre: 'Pre-LN', lns: 'LNS' };
  for (const norm of NORMS) {
    const m = new RegExp(`${names[norm]}: one layer apart from ([\\d.e-]+) \\(x(\\d+) to x(\\d+)\\) to ([\\d.e-]+) \\(x(\\d+) to x(\\d+)\\); the largest distance ([\\d.e-]+), between x(\\d+) and x(\\d+)`).exec(words.text);
    assert.ok(m, `${norm}: ${words.text}`);
    const cellOf = (i, j) => Number(tables[norm][Number(i) - 1][Number(j) - 1]);
    const four = (x) => Number(x.toPrecision(4));
    const all = tables[norm].flat().map(Number);
    assert.equal(Number(m[7]), four(cellOf(m[8], m[9])), `${norm}: the largest distance is the table's cell (${m[8]}, ${m[9]})`);
    assert.equal(cellOf(m[8], m[9]), Math.max(...all), `${norm}: and no cell is larger`);
    assert.equal(Number(m[1]), four(cellOf(m[2], m[3])), `${norm}: the smallest step is the table's cell`);
    assert.equal(Number(m[4]), four(cellOf(m[5], m[6])), `${norm}: the largest step is the table's cell`);
    assert.equal(Number(m[3]), Number(m[2]) + 1, `${norm}: a step is one layer apart`);
  }

  // Pointer: near the LNS map's top right corner (inside the grid, right of the row labels) is
  // cell (1, 4).
  await page.locator('[data-testid="lab-heat-lns"]').scrollIntoViewIfNeeded();
  const box = await page.locator('[data-testid="lab-heat-lns"]').boundingBox();
  await page.mouse.move(box.x + box.width * 0.85, box.y + box.height * 0.15);
  const hover = await page.evaluate(() => {
    const out = document.querySelector('[data-testid="lab-heat-lns"]').closest('.lab-heat-cell').querySelector('.lab-heat-readout');
    return { text: out.textContent, subs: [...out.querySelectorAll('sub')].map((s) => s.textContent) };
  });
  assert.deepEqual(hover.subs, ['1', '4'], hover.text);
  assert.equal(hover.text.split(': ').pop(), tables.lns[0][3]);

  // Keyboard: focus the Pre-LN map, move right twice and down once: cell (2, 3) of the table.
  await page.focus('[data-testid="lab-heat-pre"]');
  for (const key of ['ArrowRight', 'ArrowRight', 'ArrowDown']) await page.keyboard.press(key);
  const readout = () =>
    page.evaluate(() => {
      const canvas = document.querySelector('[data-testid="lab-heat-pre"]');
      const cell = canvas.closest('.lab-heat-cell');
      const out = cell.querySelector('.lab-heat-readout');
      const mark = cell.querySelector('.lab-heat-mark');
      const r = out.getBoundingClientRect();
      const mr = mark.getBoundingClientRect();
      const cr = canvas.getBoundingClientRect();
      return {
        focused: document.activeElement === canvas,
        visible: r.width > 0 && r.height > 0 && getComputedStyle(out).visibility === 'visible',
        text: out.textContent,
        subs: [...out.querySelectorAll('sub')].map((s) => s.textContent),
        mark: !mark.hidden && mr.width > 4 ? { x: (mr.left + mr.width / 2 - cr.left) / cr.width, y: (mr.top + mr.height / 2 - cr.top) / cr.height } : null,
      };
    });
  let r = await readout();
  assert.ok(r.focused && r.visible, JSON.stringify(r));
  assert.deepEqual(r.subs, ['2', '3']);
  assert.ok(!r.text.includes('_'), r.text);
  assert.equal(r.text.split(': ').pop(), tables.pre[1][2]);
  assert.ok(r.mark, 'the highlighted cell is shown');
  // Column 3 of 4 and row 2 of 4 of the grid, which sits right of and above the label margins.
  assert.ok(r.mark.x > 0.55 && r.mark.x < 0.85 && r.mark.y > 0.25 && r.mark.y < 0.55, JSON.stringify(r.mark));
  // The cursor stops at the edge.
  for (const key of ['ArrowUp', 'ArrowUp', 'ArrowRight', 'ArrowRight']) await page.keyboard.press(key);
  r = await readout();
  assert.deepEqual(r.subs, ['1', '4']);
  assert.equal(r.text.split(': ').pop(), tables.pre[0][3]);
});

test('exports: a standalone SVG with one <rect> per cell, a PNG with title, key and labels, a CSV', { timeout: 600_000 }, async (t) => {
  const page = await finishedRun(t);
  const tables = await dataTables(page);
  const caption = (await page.textContent('#lab-cap-angular')).replace(/\s+/g, '');
  const top = Math.max(...Object.values(tables).flat(2).map(Number));

  const svg = await exported(page, 'lab-export-svg-angular');
  assert.equal(svg.name, 'depthprod-lab-angular.svg');
  assert.equal(svg.type, 'image/svg+xml');
  assert.match(svg.text, /^(<\?xml|<svg)/);
  // Parsed as a file of its own (XML, not the page's HTML): the elements a reader's viewer sees.
  const doc = await page.evaluate((text) => {
    const d = new DOMParser().parseFromString(text, 'image/svg+xml');
    const rects = [...d.querySelectorAll('rect')];
    return {
      error: d.querySelector('parsererror')?.textContent ?? null,
      root: d.documentElement.localName,
      ns: d.documentElement.namespaceURI,
      title: d.querySelector('title')?.textContent ?? '',
      rects: rects.length,
      fills: rects.map((e) => e.getAttribute('fill')),
      texts: [...d.querySelectorAll('text')].map((e) => e.textContent),
    };
  }, svg.text);
  assert.equal(doc.error, null);
  assert.equal(doc.root, 'svg');
  assert.equal(doc.ns, 'http://www.w3.org/2000/svg');
  assert.match(doc.title, /Angular distance/);
  assert.equal(doc.rects, NORMS.length * SIZE * SIZE, 'one <rect> per cell per placement');
  // The same colours as on screen: the ramp's dark end on every diagonal (distance 0), its bright
  // end at the run's largest distance.
  assert.ok(doc.fills.filter((f) => f === 'rgb(68, 1, 84)').length >= NORMS.length * SIZE, 'the diagonals are the ramp’s 0');
  assert.ok(doc.fills.includes('rgb(253, 231, 37)'), 'the largest distance is the ramp’s top');
  const texts = doc.texts.map((s) => s.replace(/\u00a0/g, ' ').trim());
  assert.equal(texts.filter((s) => s === 'layer i').length, NORMS.length);
  assert.equal(texts.filter((s) => s === 'layer j').length, NORMS.length);
  for (const v of ['1', '2', '3', '4']) assert.equal(texts.filter((s) => s === v).length, 2 * NORMS.length, `tick ${v}`);
  assert.ok(texts.includes('Pre-LN') && texts.includes('LNS'), 'map names');
  // The key: 0 … the largest distance (to 4 digits).
  assert.ok(texts.includes('0'));
  assert.ok(texts.some((s) => /^[\d.]+$/.test(s) && s.includes('.') && Math.abs(Number(s) - top) <= 1e-3 * top), `the key's top ${top}: ${texts.join(' | ')}`);
  // The caption is drawn as text (runs of plain text and subscripts, wrapped into lines).
  assert.ok(texts.join('').replace(/\s+/g, '').includes(caption), `caption ${caption} in ${texts.join('')}`);

  const png = await exported(page, 'lab-export-png-angular');
  assert.equal(png.name, 'depthprod-lab-angular.png');
  assert.deepEqual(png.head.slice(0, 8), [137, 80, 78, 71, 13, 10, 26, 10], 'PNG signature');
  const be32 = (k) => ((png.head[k] << 24) | (png.head[k + 1] << 16) | (png.head[k + 2] << 8) | png.head[k + 3]) >>> 0;
  const [w, h] = [be32(16), be32(20)];
  // Two maps of 300 CSS px side by side with the key and caption, at 2x.
  assert.ok(w >= 1280 && w <= 1600 && h >= 800 && h <= 1200, `PNG ${w} × ${h}`);
  assert.ok(png.size > 10_000 && png.size < 2_000_000, `PNG of ${png.size} bytes`);

  const csv = await exported(page, 'lab-export-csv-angular');
  const lines = csv.text.split('\r\n').filter((l) => l && !l.startsWith('#'));
  assert.equal(lines[0].split(',')[0], 'layer i');
  assert.equal(lines.length, 1 + SIZE);
  assert.deepEqual(lines.slice(1).map((l) => Number(l.split(',')[0])), [1, 2, 3, 4]);
});
