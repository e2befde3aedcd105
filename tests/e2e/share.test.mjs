// Share and export: the CSV holds the plotted series and agrees with the readouts; PNG and SVG are
// real images of the right size (the SVG made of paths and text); the copy buttons put the link,
// the Markdown table and the LaTeX on the clipboard, also through the fallback route.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { browsers, numberIn } from './harness.mjs';

const { test, session } = browsers();

const T = { timeout: 120_000 };
const sel = (id) => `[data-testid="${id}"]`;

const open = (t, hash = '', options = {}) => session.open(t, hash, options);

/** The readout's number as displayed (the first token of its text). */
const shownNumber = async (page, id) => {
  await numberIn(page, sel(id));
  return (await page.locator(sel(id)).textContent()).trim().split(/\s/)[0];
};

/** Clicks an export button and returns { name, bytes } of the download. */
async function downloadOf(page, id) {
  const [dl] = await Promise.all([page.waitForEvent('download', { timeout: 15_000 }), page.click(sel(id))]);
  const path = await dl.path();
  return { name: dl.suggestedFilename(), bytes: await readFile(path) };
}

/** RFC 4180 CSV (quoted fields with "" escapes) → rows of cells; '#' lines are returned apart. */
function parseCsv(text) {
  const comments = [];
  const rows = [];
  for (const line of text.split(/\r\n/)) {
    if (line === '') continue;
    if (line.startsWith('#')) {
      comments.push(line.slice(1).trim());
      continue;
    }
    const cells = [];
    let i = 0;
    while (i <= line.length) {
      if (line[i] === '"') {
        let j = i + 1;
        let cell = '';
        for (;;) {
          const q = line.indexOf('"', j);
          assert.ok(q >= 0, `unterminated quote in ${line.slice(0, 80)}`);
          cell += line.slice(j, q);
          if (line[q + 1] === '"') {
            cell += '"';
            j = q + 2;
          } else {
            j = q + 1;
            break;
          }
        }
        cells.push(cell);
        i = j + 1;
      } else {
        const c = line.indexOf(',', i);
        const end = c < 0 ? line.length : c;
        cells.push(line.slice(i, end));
        i = end + 1;
      }
    }
    rows.push(cells);
  }
  return { comments, header: rows[0], data: rows.slice(1) };
}

/** |x − shown| within half a unit of the last digit the readout shows (the readout is x rounded). */
function agreesWithShown(x, shown) {
  const decimals = (shown.split('e')[0].split('.')[1] || '').length;
  const exp = shown.includes('e') ? Number(shown.split('e')[1]) : 0;
  const halfUnit = 0.5 * 10 ** (exp - decimals);
  return Math.abs(x - Number(shown)) <= halfUnit * (1 + 1e-9) + Math.abs(x) * 1e-15;
}

test('CSV: every column named, the parameters in a comment, values equal to the readouts', T, async (t) => {
  const page = await open(t);
  const unscaled = await shownNumber(page, 'log-product-unscaled');
  const scaled = await shownNumber(page, 'log-product-scaled');
  const limit = await shownNumber(page, 'limit-scaled');
  const { name, bytes } = await downloadOf(page, 'export-csv');
  assert.equal(name, 'depthprod-main-plot.csv');
  const csv = parseCsv(bytes.toString('utf8'));
  assert.ok(csv.comments.some((c) => c.includes('A = 1, B = 1') && c.includes('c = 1, q = 1') && c.includes('N = 10⁶')), csv.comments.join('\n'));
  assert.ok(csv.comments.some((c) => c.startsWith('http') && c.includes('#families=unscaled,scaled')), 'a link back to the state');
  // Header: N, then one named column per legend entry (plus the enclosure ends of banded lines).
  assert.equal(csv.header[0], 'N');
  assert.ok(csv.header.every((h) => h.trim() !== ''), 'every column is named');
  const legend = await page.locator('#legend-main li').count();
  assert.ok(csv.header.length >= legend + 1, `${csv.header.length} columns for ${legend} legend entries`);
  assert.ok(csv.data.length >= 100, `${csv.data.length} rows`);
  for (const row of csv.data) assert.equal(row.length, csv.header.length);
  const col = (label) => {
    const i = csv.header.indexOf(label);
    assert.ok(i >= 0, `no column “${label}” in ${csv.header.join(' | ')}`);
    return i;
  };
  // Depths increase from 1 to N = 10^6; every cell of the product columns is a number.
  const Ns = csv.data.map((r) => Number(r[0]));
  assert.equal(Ns[0], 1);
  assert.equal(Ns[Ns.length - 1], 1e6);
  assert.ok(Ns.every((n, i) => i === 0 || n > Ns[i - 1]), 'N increases');
  const iu = col('log P_N, unscaled');
  const is = col('log Q_N, scaled');
  assert.ok(csv.data.every((r) => Number.isFinite(Number(r[iu])) && r[iu] !== ''));
  // The last row is N itself: the curves end at the readouts' certified numbers.
  const last = csv.data[csv.data.length - 1];
  assert.ok(agreesWithShown(Number(last[iu]), unscaled), `CSV ${last[iu]} vs readout ${unscaled}`);
  assert.ok(agreesWithShown(Number(last[is]), scaled), `CSV ${last[is]} vs readout ${scaled}`);
  // The limit line is a constant column whose enclosure brackets the readout.
  const il = col('log Q_∞, the scaled limit (band: enclosure)');
  assert.ok(csv.data.every((r) => r[il] === last[il]), 'constant column');
  assert.ok(agreesWithShown(Number(last[il]), limit), `limit ${last[il]} vs ${limit}`);
  const lo = Number(last[col('log Q_∞, the scaled limit (band: enclosure): enclosure lower end')]);
  const hi = Number(last[col('log Q_∞, the scaled limit (band: enclosure): enclosure upper end')]);
  assert.ok(lo <= Number(last[il]) && Number(last[il]) <= hi && hi - lo < 1e-10, `[${lo}, ${hi}]`);

  // After a change the export follows the page.
  await page.fill(sel('input-a'), '2');
  await page.press(sel('input-a'), 'Enter');
  await page.waitForFunction(([s, u]) => document.querySelector(s).textContent.trim().split(/\s/)[0] !== u, [sel('log-product-unscaled'), unscaled]);
  const unscaled2 = await shownNumber(page, 'log-product-unscaled');
  const csv2 = parseCsv((await downloadOf(page, 'export-csv')).bytes.toString('utf8'));
  assert.ok(csv2.comments.some((c) => c.includes('A = 2, B = 1')));
  const last2 = csv2.data[csv2.data.length - 1];
  assert.ok(agreesWithShown(Number(last2[csv2.header.indexOf('log P_N, unscaled')]), unscaled2));
  assert.match(await page.textContent(sel('share-status')), /CSV saved/);
});

test('PNG (2x, with legend and caption) and SVG (paths and text) of the main plot', T, async (t) => {
  const page = await open(t, '', { viewport: { width: 1280, height: 900 } });
  await numberIn(page, sel('log-product-unscaled'));
  const cssW = await page.evaluate(() => Math.round(document.querySelector('[data-testid="plot-main"]').getBoundingClientRect().width));
  const expectedW = Math.max(640, cssW);

  const svgFile = await downloadOf(page, 'export-svg');
  assert.equal(svgFile.name, 'depthprod-main-plot.svg');
  const svgText = svgFile.bytes.toString('utf8');
  assert.ok(svgText.startsWith('<?xml'), 'a standalone SVG file');
  const svg = await page.evaluate((text) => {
    const doc = new DOMParser().parseFromString(text, 'image/svg+xml');
    const root = doc.documentElement;
    const paths = [...doc.querySelectorAll('path')];
    return {
      error: doc.querySelector('parsererror')?.textContent ?? null,
      name: root.localName,
      ns: root.namespaceURI,
      width: Number(root.getAttribute('width')),
      height: Number(root.getAttribute('height')),
      viewBox: root.getAttribute('viewBox'),
      paths: paths.length,
      longest: Math.max(...paths.map((p) => (p.getAttribute('d').match(/L/g) || []).length)),
      texts: [...doc.querySelectorAll('text')].map((x) => x.textContent),
      title: doc.querySelector('title')?.textContent,
      bitmaps: doc.querySelectorAll('image, foreignObject, script').length,
      handlers: [...doc.querySelectorAll('*')].filter((el) => [...el.attributes].some((a) => /^on/i.test(a.name))).length,
    };
  }, svgText);
  assert.equal(svg.error, null);
  assert.equal(svg.name, 'svg');
  assert.equal(svg.ns, 'http://www.w3.org/2000/svg');
  assert.equal(svg.width, expectedW);
  assert.equal(svg.viewBox, `0 0 ${svg.width} ${svg.height}`);
  assert.equal(svg.bitmaps, 0, 'no bitmap, foreign object or script inside');
  assert.equal(svg.handlers, 0);
  assert.ok(svg.paths > 20, `${svg.paths} paths`);
  assert.ok(svg.longest >= 500, `the longest path has ${svg.longest} segments: the curves are vectors`);
  const words = svg.texts.join(' ');
  for (const w of ['depth N', 'log of the product', 'unscaled', 'scaled', 'A = 1, B = 1']) assert.ok(words.includes(w), `SVG text lacks “${w}”`);
  assert.ok(svg.texts.includes('10') && svg.texts.includes('6'), 'tick label 10 with exponent 6');
  assert.match(svg.title, /depthprod/);

  const png = await downloadOf(page, 'export-png');
  assert.equal(png.name, 'depthprod-main-plot.png');
  const b = png.bytes;
  assert.deepEqual([...b.subarray(0, 8)], [137, 80, 78, 71, 13, 10, 26, 10], 'PNG signature');
  assert.equal(b.subarray(12, 16).toString('latin1'), 'IHDR');
  const width = b.readUInt32BE(16);
  const height = b.readUInt32BE(20);
  assert.equal(width, 2 * expectedW, 'twice the CSS width (HiDPI)');
  assert.equal(height, 2 * svg.height, 'same figure as the SVG, at 2x');
  assert.ok(height > 2 * 360, 'plot plus legend and caption');
  assert.match(await page.textContent(sel('share-status')), new RegExp(`PNG saved \\(${width} × ${height} px\\)`));
  // Decode it in the page: it is an image, and not a blank one.
  const decoded = await page.evaluate(async (b64) => {
    const img = new Image();
    img.src = `data:image/png;base64,${b64}`;
    await img.decode();
    const c = document.createElement('canvas');
    c.width = img.naturalWidth;
    c.height = img.naturalHeight;
    const ctx = c.getContext('2d', { willReadFrequently: true });
    ctx.drawImage(img, 0, 0);
    const data = ctx.getImageData(0, 0, c.width, c.height).data;
    const colours = new Set();
    for (let i = 0; i < data.length; i += 4 * 97) colours.add((data[i] << 16) | (data[i + 1] << 8) | data[i + 2]);
    return { w: img.naturalWidth, h: img.naturalHeight, colours: colours.size };
  }, b.toString('base64'));
  assert.deepEqual({ w: decoded.w, h: decoded.h }, { w: width, h: height });
  assert.ok(decoded.colours > 20, `${decoded.colours} colours: a drawn plot`);
});

test('copy buttons: the link, a Markdown table and LaTeX on the clipboard, with a visible confirmation', T, async (t) => {
  const page = await open(t, '', { context: { permissions: ['clipboard-read', 'clipboard-write'] } });
  const unscaled = await shownNumber(page, 'log-product-unscaled');
  const scaled = await shownNumber(page, 'log-product-scaled');
  const c = await shownNumber(page, 'constant-c');
  const clip = () => page.evaluate(() => navigator.clipboard.readText());
  const status = page.locator(sel('share-status'));
  assert.equal(await status.getAttribute('role'), 'status');

  await page.click(sel('share-link'));
  await page.waitForFunction((s) => /copied/i.test(document.querySelector(s).textContent), sel('share-status'));
  const link = await clip();
  assert.equal(link, `${session.url}#families=unscaled,scaled&a=1&b=1&c=1&q=1&n=1e6`);
  assert.ok(await status.isVisible());

  await page.click(sel('share-markdown'));
  await page.waitForFunction((s) => /Markdown table copied/.test(document.querySelector(s).textContent), sel('share-status'));
  const md = await clip();
  const lines = md.split('\n');
  assert.ok(lines.includes('| quantity | value | enclosure or bound |'), md);
  assert.ok(lines.includes('|---|---|---|'));
  const row = lines.find((l) => l.startsWith('| log P\\_N, unscaled'));
  assert.ok(row, md);
  const encText = (await page.locator(`${sel('log-product-unscaled')} .enc`).textContent()).trim();
  assert.equal(row, `| log P\\_N, unscaled, at N = 10⁶ | ${unscaled} | ${encText.replace(/[[\]]/g, '\\$&')} |`);
  assert.ok(lines.some((l) => l.startsWith('| log Q\\_N, scaled') && l.includes(`| ${scaled} |`)));
  assert.ok(lines.some((l) => l.startsWith('| C, the unscaled constant') && l.includes(`| ${c} |`)));
  assert.ok(md.includes(`](${link})`), 'a link back');
  // Every readout has its row.
  const readouts = await page.locator('#readouts .readout').count();
  assert.equal(lines.filter((l) => l.startsWith('| ') && !l.startsWith('| quantity')).length, readouts);

  await page.click(sel('share-latex'));
  await page.waitForFunction((s) => /LaTeX copied/.test(document.querySelector(s).textContent), sel('share-status'));
  const tex = await clip();
  assert.ok(tex.includes(`\\log P_{N} = \\sum_{l=1}^{N} \\log(1 + A/\\sigma_l + B/\\sigma_l^2) = ${unscaled} \\in [`), tex);
  assert.ok(tex.includes(`\\log Q_{N} = \\sum_{l=1}^{N} \\log(1 + A/(l\\sigma_l) + B/(l^2\\sigma_l^2)) = ${scaled}`), tex);
  assert.ok(tex.includes(`\\log P_N = 2\\,N^{0.5} + 0.5\\,\\log N + C + o(1), \\quad C = ${c}`), tex);
  assert.ok(tex.includes('A = 1,\\ B = 1,\\ \\sigma_l^2 = c\\,l^{q},\\ c = 1,\\ q = 1,\\ N = 10^{6}'), tex);
  assert.ok(tex.includes('\\frac{A}{1 - \\varepsilon/2} + \\frac{B}{3 - \\varepsilon} = 2.5'), tex);
  assert.ok(!/NaN|undefined/.test(tex + md));

  // The link opens the same numbers.
  const other = await open(t, link.slice(session.url.length));
  assert.equal(await shownNumber(other, 'log-product-unscaled'), unscaled);
});

test('copying falls back to a selected textarea when the clipboard API refuses', T, async (t) => {
  const page = await open(t, '#a=2&n=1e3', { context: { permissions: ['clipboard-read', 'clipboard-write'] } });
  await numberIn(page, sel('log-product-unscaled'));
  await page.evaluate(() => {
    window.__writes = 0;
    navigator.clipboard.writeText = () => {
      window.__writes++;
      return Promise.reject(new DOMException('refused', 'NotAllowedError'));
    };
  });
  await page.click(sel('share-link'));
  await page.waitForFunction((s) => document.querySelector(s).textContent !== '', sel('share-status'));
  assert.equal(await page.evaluate(() => window.__writes), 1, 'the async API was tried first');
  assert.match(await page.textContent(sel('share-status')), /Link copied/);
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), `${session.url}#families=unscaled,scaled&a=2&b=1&c=1&q=1&n=1000`);
  // The helper textarea is gone and focus went back to the button.
  assert.equal(await page.locator('textarea.copy-helper').count(), 0);
  assert.equal(await page.evaluate(() => document.activeElement.dataset.testid), 'share-link');
});
