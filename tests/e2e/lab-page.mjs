// What the lab page's tests share: the small network (a second or two per placement in a debug CLI
// and in wasm) as a fragment and as CLI flags, the figures' names, opening the page and waiting for
// a run's outcome (an attribute the page sets, never a fixed time).

export const SMALL = { d: 16, heads: 2, dff: 40, tokens: 4, layers: 3, std: 0.02, seed: 7 };

/** The lab's fragment for the small network with these placements (`extra` appended). */
export const smallHash = (norms, extra = '') =>
  `#norms=${norms.join(',')}&d=${SMALL.d}&heads=${SMALL.heads}&dff=${SMALL.dff}&tokens=${SMALL.tokens}&layers=${SMALL.layers}&std=${SMALL.std}&seed=${SMALL.seed}${extra}`;

/** `depthprod lab` flags for the small network and one placement. */
export const smallArgs = (norm) => ['--norm', norm, '--d', `${SMALL.d}`, '--heads', `${SMALL.heads}`, '--d-ff', `${SMALL.dff}`, '--tokens', `${SMALL.tokens}`, '--layers', `${SMALL.layers}`, '--init-std', `${SMALL.std}`, '--seed', `${SMALL.seed}`];

/** The lab's figures, by their data-figure names. */
export const FIGURES = ['endToEnd', 'endToEndNorm', 'variance', 'jacobians', 'gradients'];

/** `openLab(t, hash, options)` for a browser session: the lab page, once its state is set. */
export const labOpener = (session) => async (t, hash, options = {}) => {
  const page = await session.page(t, options);
  await page.goto(`${session.url}lab.html${hash}`);
  await page.waitForFunction(() => document.body?.dataset.labState !== undefined, null, { timeout: 30_000 });
  return page;
};

/** Waits until the run is done or failed and its last redraw (spread over a few frames) is complete. */
export async function finished(page, timeout = 240_000) {
  await page.waitForFunction(() => ['done', 'error'].includes(document.body.dataset.labState) && !document.body.dataset.labDrawing, null, { timeout });
  return page.evaluate(() => document.body.dataset.labState);
}
