// Long measured lists on the explorer page (issue 8, item 3): a list whose text is over the link's
// limit (state.js LINK_LIST_MAX, 150,000 characters) is evaluated, but the link says in words that
// it does not carry it instead of writing a fragment of megabytes (a 10⁶-entry list is about
// 18 MB of text); opening such a link says the list must be pasted again. A short list still
// travels in the link.
import assert from 'node:assert/strict';
import { browsers, numberIn } from './harness.mjs';

const { test, session } = browsers();
const T = { timeout: 180_000 };
const sel = (id) => `[data-testid="${id}"]`;

/** n variances as the page's textarea gets them, one per line (shortest decimals, about 18 characters each). */
/**
 * Puts `text` into the list box and fires the input a paste fires. (Playwright's fill types into
 * the editor and takes minutes for 200,000 characters; the page's handler is the same.)
 */
const paste = (page, text) =>
  page.evaluate(([s, value]) => {
    const box = document.querySelector(s);
    box.value = value;
    box.dispatchEvent(new Event('input', { bubbles: true }));
  }, [sel('input-list'), text]);

const listText = (n) => Array.from({ length: n }, (_, i) => String((i + 1) ** 0.4 * (1 + 0.9 * Math.sin(i + 1)) + 1e-3)).join('\n');

test('a list too long for the link is evaluated, and the link says it does not carry it', T, async (t) => {
  const page = await session.open(t);
  await numberIn(page, sel('log-product-unscaled'));
  await page.selectOption(sel('variance-model'), 'list');
  const text = listText(12_000);
  assert.ok(text.length > 150_000, `${text.length} characters`);
  await paste(page, text);
  await page.waitForFunction(() => location.hash.includes('variance=list') && location.hash.includes('n=12000'));
  const hash = await page.evaluate(() => location.hash);
  assert.match(hash, /&list=too-long-for-a-link(&|$)/);
  assert.ok(hash.length < 300, `the link is ${hash.length} characters`);
  assert.match(await page.locator(sel('list-info')).textContent(), /Read 12,000 values.*too long for the page’s link \(over 150,000 characters\)/);
  // the page evaluated the whole list all the same
  const shown = await numberIn(page, sel('log-product-unscaled'));
  assert.ok(shown > 0 && Number.isFinite(shown), String(shown));

  // opening that link: the other settings apply, the list box says the list is missing, in words
  const opened = await session.open(t, hash);
  await opened.waitForFunction((s) => document.querySelector(s).textContent !== '', sel('error-fragment'));
  assert.match(await opened.locator(sel('error-fragment')).textContent(), /made from a measured list too long to carry in a link \(over 150,000 characters\): paste the list/);
  assert.equal(await opened.locator(sel('variance-model')).inputValue(), 'list');
  assert.equal(await opened.locator(sel('input-list')).inputValue(), '');
});

test('a short list still travels in the link', T, async (t) => {
  const page = await session.open(t);
  await numberIn(page, sel('log-product-unscaled'));
  await page.selectOption(sel('variance-model'), 'list');
  await paste(page, listText(100));
  await page.waitForFunction(() => location.hash.includes('n=100&'));
  const hash = await page.evaluate(() => location.hash);
  assert.ok(!hash.includes('too-long-for-a-link'), hash);
  const value = await numberIn(page, sel('log-product-unscaled'));
  const again = await session.open(t, hash);
  assert.equal(await numberIn(again, sel('log-product-unscaled')), value);
  assert.doesNotMatch(await again.locator(sel('list-info')).textContent(), /too long/);
});

test('the example list is replaced by a paste wherever the caret is, and the page says how many values it read', T, async (t) => {
  const page = await session.open(t, '', { context: { permissions: ['clipboard-read', 'clipboard-write'] } });
  await numberIn(page, sel('log-product-unscaled'));
  await page.selectOption(sel('variance-model'), 'list');
  await page.waitForFunction((s) => /^Read 24 values \(the example list/.test(document.querySelector(s).textContent), sel('list-info'));
  // Focus selects the example, so typing or pasting replaces it …
  await page.focus(sel('input-list'));
  const selected = await page.evaluate((s) => {
    const box = document.querySelector(s);
    return [box.selectionStart, box.selectionEnd, box.value.length];
  }, sel('input-list'));
  assert.deepEqual(selected, [0, selected[2], selected[2]], 'the example is selected on focus');
  // … and a paste with the caret after its "24" (the selection gone) still replaces it whole.
  await page.evaluate((s) => {
    const box = document.querySelector(s);
    box.setSelectionRange(box.value.length, box.value.length);
  }, sel('input-list'));
  await page.evaluate(() => navigator.clipboard.writeText('0.5, 0.7, 0.9'));
  await page.keyboard.press('Control+V');
  await page.waitForFunction((s) => document.querySelector(s).value === '0.5, 0.7, 0.9', sel('input-list'));
  await page.waitForFunction((s) => /^Read 3 values: N follows the list \(N = 3/.test(document.querySelector(s).textContent), sel('list-info'));
  assert.equal(await page.inputValue(sel('input-n')), '3');
  assert.equal(await page.textContent(sel('error-list')), '');
  // Once the box holds the reader's own list, a paste goes where the caret is, as anywhere else.
  await page.evaluate((s) => {
    const box = document.querySelector(s);
    box.setSelectionRange(box.value.length, box.value.length);
  }, sel('input-list'));
  await page.evaluate(() => navigator.clipboard.writeText(', 1.1'));
  await page.keyboard.press('Control+V');
  await page.waitForFunction((s) => document.querySelector(s).value === '0.5, 0.7, 0.9, 1.1', sel('input-list'));
  await page.waitForFunction((s) => /^Read 4 values: /.test(document.querySelector(s).textContent), sel('list-info'));
});
