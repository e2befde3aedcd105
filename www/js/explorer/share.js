// Share and export: the toolbar under the main plot. "Copy link" (the state's URL fragment), "Copy as
// Markdown" (a small table of the certified numbers, the same text as the readouts, with a link back),
// "Copy LaTeX" (the formulas with those numbers, in math delimiters, so the text compiles pasted as is
// into a document body), "Cite this view" (a BibTeX entry for depthprod with the view's permalink and
// the two sources), and downloads of the main plot as PNG / SVG and of its
// series as CSV (export.js). Every number is one the page already shows: the readouts' text
// (readouts.js readoutItems) or the series the core computed (series.js). Nothing is computed here.

import { serialize } from './state.js';
import { readoutItems } from './readouts.js';
import { depthLabel, depthToken, paramToken, plain } from '../common/format.js';
import { figurePng, figureSvg, seriesCsv, download, richRuns } from '../common/export.js';

const SUBSCRIPT = { 0: '₀', 1: '₁', 2: '₂', 3: '₃', 4: '₄', 5: '₅', 6: '₆', 7: '₇', 8: '₈', 9: '₉', l: 'ₗ', '+': '₊', '-': '₋', '−': '₋' };
const SUPERSCRIPT = { 0: '⁰', 1: '¹', 2: '²', 3: '³', 4: '⁴', 5: '⁵', 6: '⁶', 7: '⁷', 8: '⁸', 9: '⁹', '-': '⁻', '−': '⁻', '+': '⁺' };

/** rich.js notation as one line of plain Unicode text ("σ_l^2" → "σₗ²", "P_N" stays "P_N"). */
export function flatText(markup) {
  let out = '';
  for (const r of richRuns(markup)) {
    if (!r.k) out += r.t;
    else {
      const map = r.k === 'sub' ? SUBSCRIPT : SUPERSCRIPT;
      const chars = [...r.t];
      const direct = chars.every((c) => map[c]) ? chars.map((c) => map[c]).join('') : null;
      out += direct ?? `${r.k === 'sub' ? '_' : '^'}${chars.length > 1 ? (r.k === 'sub' ? `{${r.t}}` : `(${r.t})`) : r.t}`;
    }
  }
  return out;
}

/** The parameters in rich.js notation, e.g. "A = 1, B = 1, σ_l^2 = c·l^q with c = 1, q = 1; N = 10⁶". */
export function describeParams(state, good) {
  const ab = `A = ${paramToken(good.a)}, B = ${paramToken(good.b)}`;
  let model;
  if (state.variance === 'exp') model = `σ_l^2 = c·e^(λl) with c = ${paramToken(good.c)}, λ = ${paramToken(good.lambda)}`;
  else if (state.variance === 'list') model = `σ_l^2 measured (${good.list ? good.list.length : 0} layers)`;
  else if (state.lns) model = `σ_l^2 = c·l^(2−ε) with c = ${paramToken(good.c)}, ε = ${paramToken(good.eps)} (q = ${paramToken(good.q)})`;
  else model = `σ_l^2 = c·l^q with c = ${paramToken(good.c)}, q = ${paramToken(good.q)}`;
  return `${ab}, ${model}; N = ${depthLabel(good.n)}`;
}

// ───────────── texts ─────────────

/** The page's URL for a state (the fragment the page writes itself). */
export function linkFor(state, good) {
  return `${String(location.href).split('#')[0]}${serialize(good, state)}`;
}

const mdEscape = (s) => String(s).replace(/([\\`*_[\]|#])/g, '\\$1').replace(/</g, '&lt;').replace(/\r?\n/g, ' ');

/** A Markdown table of the readouts (the same text they show) with the parameters and a link back. */
export function markdownFor(state, good, res) {
  const items = readoutItems(state, good, res);
  const lines = [`**depthprod**: ${mdEscape(flatText(describeParams(state, good)))}`, '', '| quantity | value | enclosure or bound |', '|---|---|---|'];
  for (const it of items) {
    const value = `${it.num}${it.approx ? ` ${it.approx}` : ''}`;
    lines.push(`| ${mdEscape(flatText(it.label))} | ${mdEscape(value)} | ${mdEscape(it.enc || '')} |`);
  }
  lines.push('', `Certified enclosures from the Rust core; [open these numbers in depthprod](${linkFor(state, good).replace(/[()]/g, (c) => encodeURIComponent(c))})`);
  return `${lines.join('\n')}\n`;
}

const SYM = { unscaled: 'P', scaled: 'Q', harmonic: 'H', 'sqrt-scaled': 'S' };
const SUM = {
  unscaled: '\\log(1 + A/\\sigma_l + B/\\sigma_l^2)',
  scaled: '\\log(1 + A/(l\\sigma_l) + B/(l^2\\sigma_l^2))',
  harmonic: '\\log(1 + A/l + B/l^2)',
  'sqrt-scaled': '\\log(1 + A/(\\sqrt{l}\\,\\sigma_l) + B/(l\\,\\sigma_l^2))',
};

/** A number as the readouts print it ("1.2e-5", "2004.44") in LaTeX. */
export function texNum(s) {
  const t = String(s).trim().replace(/−/g, '-');
  if (t === 'Infinity') return '\\infty';
  const m = /^(-?[\d.]+)e([+-]?\d+)$/i.exec(t);
  if (!m) return t;
  const exp = String(Number(m[2]));
  return m[1] === '1' ? `10^{${exp}}` : `${m[1]} \\times 10^{${exp}}`;
}

function texEnclosure(enc) {
  const m = /\[([^,\]]+),\s*([^\]]+)\]/.exec(enc || '');
  return m ? ` \\in [${texNum(m[1])}, ${texNum(m[2])}]` : '';
}

function texDepth(n) {
  return n === 'inf' ? '\\infty' : texNum(depthToken(n));
}

function texTerms(terms) {
  if (!Array.isArray(terms)) return '';
  const parts = [];
  for (const t of terms) {
    if (!t || !Number.isFinite(t.coefficient)) continue;
    const coef = plain(Math.abs(t.coefficient), 6);
    const body = t.log ? '\\log N' : t.exponent === 1 ? 'N' : `N^{${plain(t.exponent, 6)}}`;
    const text = coef === '1' ? body : `${texNum(coef)}\\,${body}`;
    parts.push(parts.length ? ` ${t.coefficient < 0 ? '-' : '+'} ${text}` : `${t.coefficient < 0 ? '-' : ''}${text}`);
  }
  return parts.join('');
}

function texParams(state, good) {
  const p = [`A = ${paramToken(good.a)}`, `B = ${paramToken(good.b)}`];
  if (state.variance === 'exp') p.push('\\sigma_l^2 = c\\,e^{\\lambda l}', `c = ${paramToken(good.c)}`, `\\lambda = ${paramToken(good.lambda)}`);
  else if (state.variance === 'list') p.push(`\\sigma_1^2, \\dots, \\sigma_{${good.list ? good.list.length : 0}}^2 \\text{ measured}`);
  else if (state.lns) p.push('\\sigma_l^2 = c\\,l^{2-\\varepsilon}', `c = ${paramToken(good.c)}`, `\\varepsilon = ${paramToken(good.eps)}`);
  else p.push('\\sigma_l^2 = c\\,l^{q}', `c = ${paramToken(good.c)}`, `q = ${paramToken(good.q)}`);
  p.push(`N = ${texDepth(good.n)}`);
  return p.join(',\\ ');
}

/** The formulas behind the readouts, with their numbers, one equation per line. */
export function latexFor(state, good, res) {
  const items = readoutItems(state, good, res);
  // A comment line, the parameters in \( \), then one display \[ \] per equation: plain LaTeX
  // (no package needed), so the text compiles pasted as is into a document body.
  const out = [`% depthprod: ${linkFor(state, good)}`, `Parameters: \\(${texParams(state, good)}\\).`];
  const nTex = texDepth(good.n);
  for (const it of items) {
    let m;
    const val = `${it.approx ? '\\approx' : '='} ${texNum(it.num)}${texEnclosure(it.enc)}`;
    if ((m = /^log-product-(.+)$/.exec(it.id)) && SUM[m[1]]) {
      const sym = SYM[m[1]];
      if (it.num === '—') continue;
      out.push(`\\log ${sym}_{${good.n === 'inf' ? '\\infty' : 'N'}} = \\sum_{l=1}^{${good.n === 'inf' ? '\\infty' : 'N'}} ${SUM[m[1]]} ${val}`);
    } else if ((m = /^limit-(.+)$/.exec(it.id)) && SYM[m[1]]) {
      out.push(`\\log ${SYM[m[1]]}_\\infty = \\lim_{N\\to\\infty} \\log ${SYM[m[1]]}_N ${val}`);
    } else if ((m = /^tail-(.+)$/.exec(it.id)) && SYM[m[1]]) {
      const sym = SYM[m[1]];
      out.push(`\\log ${sym}_\\infty - \\log ${sym}_N = \\sum_{l>N} ${SUM[m[1]]} \\le ${texNum(it.num)} \\quad (N = ${nTex})`);
    } else if (it.id === 'constant-c') {
      const terms = texTerms(res.evals.unscaled?.divergent?.terms);
      out.push(`\\log P_N = ${terms} + C + o(1), \\quad C ${val}`);
    } else if (it.id === 'zeta-bound') {
      out.push(`\\log Q_\\infty \\le \\frac{A}{\\sqrt{c}}\\,\\zeta(1 + q/2) + \\frac{B}{c}\\,\\zeta(2 + q) ${val}`);
    } else if (it.id === 'eq65-limit') {
      out.push(`\\lim_{N\\to\\infty} \\Big[A\\,\\frac{N^{\\varepsilon/2-1} - 1}{\\varepsilon/2 - 1} + B\\,\\frac{N^{\\varepsilon-3} - 1}{\\varepsilon - 3}\\Big] = \\frac{A}{1 - \\varepsilon/2} + \\frac{B}{3 - \\varepsilon} = ${texNum(it.num)}`);
    }
  }
  return `${out.map((line, i) => (i < 2 ? line : `\\[ ${line} \\]`)).join('\n')}\n`;
}

const PAPER = 'Sun et al., The Curse of Depth in Large Language Models, arXiv 2502.05795';
const CORRECTION = "A finite-product correction to LayerNorm Scaling's depth argument (2026)";

/** Braces balanced and BibTeX's special characters escaped in a field's text. */
const bibText = (s) => String(s).replace(/[{}]/g, '').replace(/([%&#_$])/g, '\\$1');

/**
 * A BibTeX entry (@misc, which plain BibTeX and biblatex both read) citing depthprod for this view:
 * the permalink as `url` (verbatim for biblatex) and in `howpublished` (\url, with \# and \%
 * escaped for BibTeX), the parameters in `note`, with the paper and the correction named.
 */
export function bibtexFor(state, good, today = new Date()) {
  const link = linkFor(state, good);
  const date = today.toISOString().slice(0, 10);
  const escapedUrl = link.replace(/[{}]/g, encodeURIComponent).replace(/([#%])/g, '\\$1');
  const fields = [
    ['title', "{depthprod}: certified depth products of ``The Curse of Depth'' and its correction"],
    ['author', '{depthprod contributors}'],
    ['year', String(today.getUTCFullYear())],
    ['howpublished', `\\url{${escapedUrl}}`],
    ['url', link.replace(/[{}]/g, encodeURIComponent)],
    ['urldate', date],
    ['note', `Interactive view: \\(${texParams(state, good)}\\). Evaluates the displayed Jacobian upper products of ${bibText(PAPER)}, and ${bibText(CORRECTION)}`],
  ];
  const width = Math.max(...fields.map(([k]) => k.length));
  const body = fields.map(([k, v]) => `  ${k.padEnd(width)} = {${v}}`).join(',\n');
  return `@misc{depthprod-${date.replace(/-/g, '')},\n${body}\n}\n`;
}

// ───────────── clipboard ─────────────

/** Writes text to the clipboard: the async API, else a selected off-screen textarea + execCommand. */
export async function copyText(text) {
  try {
    if (navigator.clipboard && window.isSecureContext) {
      // A write that neither succeeds nor fails (a permission prompt left open, a busy browser)
      // must not leave the reader without an answer: after 3 s the older route is tried.
      const wrote = await Promise.race([
        navigator.clipboard.writeText(text).then(() => true),
        new Promise((resolve) => { setTimeout(() => resolve(false), 3000); }),
      ]);
      if (wrote) return true;
    }
  } catch {
    // Permission refused or no focus: try the older route.
  }
  const ta = document.createElement('textarea');
  ta.value = text;
  ta.readOnly = true;
  ta.className = 'copy-helper';
  ta.setAttribute('aria-hidden', 'true');
  ta.tabIndex = -1;
  const focused = document.activeElement;
  document.body.append(ta);
  ta.select();
  let ok = false;
  try {
    ok = document.execCommand('copy');
  } catch {
    ok = false;
  }
  ta.remove();
  if (focused && typeof focused.focus === 'function') focused.focus({ preventScroll: true });
  return ok;
}

// ───────────── the toolbar ─────────────

const FILE_STEM = 'depthprod-main-plot';

export class Share {
  /**
   * @param {HTMLElement} bar   the toolbar (buttons with data-share / data-export, a .share-status)
   * @param {Plot} plot         the main plot
   */
  constructor(bar, plot) {
    this.bar = bar;
    this.plot = plot;
    this.statusEl = bar.querySelector('.share-status');
    this.current = null;
    this.statusTimer = 0;
    for (const b of bar.querySelectorAll('button[data-share], button[data-export]')) {
      b.addEventListener('click', () => this.run(b.dataset.share || b.dataset.export, b));
    }
  }

  /** The state, last good values and computed result the page shows now. */
  set(state, good, res) {
    this.current = { state, good, res };
  }

  caption() {
    const { state, good } = this.current;
    return `log of each product against depth N. ${describeParams(state, good)}. Made with depthprod: certified values from the Rust core.`;
  }

  async run(what, button) {
    if (!this.current) {
      this.say('Nothing to share yet: the core is still loading.', true);
      return;
    }
    const { state, good, res } = this.current;
    try {
      switch (what) {
        case 'link':
          return this.finish(await copyText(linkFor(state, good)), 'Link copied');
        case 'markdown':
          return this.finish(await copyText(markdownFor(state, good, res)), 'Markdown table copied');
        case 'latex':
          return this.finish(await copyText(latexFor(state, good, res)), 'LaTeX copied');
        case 'cite':
          return this.finish(await copyText(bibtexFor(state, good)), 'BibTeX entry copied');
        case 'png': {
          const { blob, width, height } = await figurePng(this.plot, this.caption(), { scale: 2 });
          download(blob, `${FILE_STEM}.png`);
          return this.say(`PNG saved (${width} × ${height} px)`);
        }
        case 'svg': {
          const { text } = figureSvg(this.plot, this.caption(), { title: 'depthprod: log of each product against depth N' });
          download(new Blob([text], { type: 'image/svg+xml' }), `${FILE_STEM}.svg`);
          return this.say('SVG saved');
        }
        case 'csv': {
          const text = seriesCsv(this.plot.series, [
            `depthprod: the main plot's series (log of each product against depth N; reference lines as constant columns)`,
            flatText(describeParams(state, good)),
            linkFor(state, good),
          ]);
          download(new Blob([text], { type: 'text/csv' }), `${FILE_STEM}.csv`);
          return this.say('CSV saved');
        }
        default:
          return undefined;
      }
    } catch (e) {
      this.say(`Could not ${button ? button.textContent.trim().toLowerCase() : what}: ${e && e.message ? e.message : String(e)}`, true);
    }
    return undefined;
  }

  finish(ok, message) {
    if (ok) this.say(message);
    else this.say('Copying is blocked here; select and copy by hand.', true);
  }

  /** Visible, polite confirmation that clears itself. */
  say(text, isError = false) {
    const el = this.statusEl;
    if (!el) return;
    el.textContent = text;
    el.classList.toggle('is-error', isError);
    clearTimeout(this.statusTimer);
    this.statusTimer = setTimeout(() => {
      el.textContent = '';
    }, 6000);
  }
}
