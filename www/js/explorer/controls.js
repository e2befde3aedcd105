// Controls: sliders paired with text inputs, family toggles, variance model, presets. Slider
// positions map to parameter values (pixel mapping, not mathematics); the text boxes are the truth.

import { FAMILIES, EXAMPLE_LIST, strictNum, depthValue, lnsExponent, lnsEpsilon, ownModel } from './state.js';
import { paramToken, depthToken } from '../common/format.js';

const FRAGMENT_MESSAGES_MAX = 6;

/** Rounds a slider-derived value to 3 significant digits so URLs and boxes stay readable. */
const snap = (x) => (x === 0 ? 0 : Number(x.toPrecision(3)));

/** Slider position ⇄ value, per field. */
const MAPS = {
  a: { toValue: (s) => snap(100 * s * s), toSlider: (v) => Math.sqrt(Math.min(100, Math.max(0, v)) / 100) },
  b: { toValue: (s) => snap(100 * s * s), toSlider: (v) => Math.sqrt(Math.min(100, Math.max(0, v)) / 100) },
  c: { toValue: (s) => snap(10 ** s), toSlider: (v) => Math.log10(v) },
  lambda: { toValue: (s) => snap(10 ** s), toSlider: (v) => Math.log10(v) },
  q: { toValue: (s) => snap(s), toSlider: (v) => v },
  eps: { toValue: (s) => snap(s), toSlider: (v) => v },
  n: { toValue: (s) => Math.max(1, Math.round(s < 2 ? 10 ** s : snap(10 ** s))), toSlider: (v) => (v === 'inf' ? 18 : Math.log10(v)) },
};

/**
 * PageUp / PageDown move a range input by 10 of its steps (Chromium's own jump is a tenth of the
 * range, which is 180 steps on the N slider). Arrow keys, Home and End keep their native behaviour.
 * The new value goes through the usual input and change events, like a drag that ends.
 */
export function bigSteps(slider, steps = 10) {
  slider.addEventListener('keydown', (ev) => {
    if ((ev.key !== 'PageUp' && ev.key !== 'PageDown') || ev.altKey || ev.ctrlKey || ev.metaKey) return;
    ev.preventDefault();
    const step = Number(slider.step) || 1;
    const min = Number(slider.min || 0);
    const max = Number(slider.max || 100);
    const from = Number(slider.value);
    // Round to the step grid so repeated jumps do not accumulate binary fractions.
    const decimals = (String(slider.step).split('.')[1] || '').length;
    const to = Math.min(max, Math.max(min, from + (ev.key === 'PageUp' ? steps : -steps) * step));
    const value = to.toFixed(decimals);
    if (Number(value) === from) return;
    slider.value = value;
    slider.dispatchEvent(new Event('input', { bubbles: true }));
    slider.dispatchEvent(new Event('change', { bubbles: true }));
  });
}

/**
 * On narrow screens the plot sits above the controls, out of view while a slider moves. While focus is
 * inside the controls, body.mini-plot pins a compact plot at the top (style.css), and the focused
 * control is scrolled to just below it.
 */
function miniPlotWhileFocused(controls) {
  if (!controls || typeof matchMedia !== 'function') return;
  const narrow = matchMedia('(max-width: 899px)');
  controls.addEventListener('focusin', (ev) => {
    if (!narrow.matches || document.documentElement.classList.contains('embed')) return;
    const was = document.body.classList.contains('mini-plot');
    document.body.classList.add('mini-plot');
    if (!was) requestAnimationFrame(() => (ev.target.closest('.field') ?? ev.target).scrollIntoView?.({ block: 'nearest' }));
  });
  controls.addEventListener('focusout', (ev) => {
    if (!controls.contains(ev.relatedTarget)) document.body.classList.remove('mini-plot');
  });
}

function sub(t) {
  const e = document.createElement('sub');
  e.textContent = t;
  return e;
}
function sup(t) {
  const e = document.createElement('sup');
  e.textContent = t;
  return e;
}

export class Controls {
  /**
   * @param {(change: {kind: 'input'|'commit', field?: string}) => void} onChange
   * @param {(name: string) => void} onPreset
   */
  constructor(state, onChange, onPreset) {
    this.state = state;
    this.onChange = onChange;
    this.text = {};
    this.slider = {};
    this.err = {};
    for (const f of ['a', 'b', 'c', 'q', 'eps', 'lambda', 'n', 'list']) {
      this.text[f] = document.getElementById(`input-${f}`);
      this.slider[f] = document.getElementById(`slider-${f}`);
      this.err[f] = document.getElementById(`error-${f}`);
    }
    this.err.fragment = document.getElementById('error-fragment');
    this.families = FAMILIES.map((f) => document.querySelector(`[data-testid="family-${f}"]`));
    this.model = document.getElementById('variance-model');
    this.lns = document.getElementById('toggle-lns');
    this.logy = document.getElementById('toggle-logy');
    this.linx = document.getElementById('toggle-linx');
    this.inf = document.getElementById('button-inf');
    this.qFromEps = document.getElementById('q-from-eps');
    this.listInfo = document.getElementById('list-info');
    this.buildOwnRows(document.getElementById('own-models'));

    for (const f of Object.keys(MAPS)) {
      const sl = this.slider[f];
      const tx = this.text[f];
      sl.addEventListener('input', () => {
        const v = MAPS[f].toValue(Number(sl.value));
        this.state.text[f] = f === 'n' ? depthToken(v) : paramToken(v);
        if (f === 'eps') this.syncQFromEps();
        tx.value = this.state.text[f];
        this.onChange({ kind: 'input', field: f });
      });
      sl.addEventListener('change', () => this.onChange({ kind: 'commit', field: f }));
      tx.addEventListener('input', () => {
        this.state.text[f] = tx.value;
        if (f === 'eps') this.syncQFromEps();
        this.placeSlider(f);
        this.onChange({ kind: 'input', field: f });
      });
      tx.addEventListener('change', () => this.onChange({ kind: 'commit', field: f }));
    }
    this.text.list.addEventListener('input', () => {
      this.state.text.list = this.text.list.value;
      this.onChange({ kind: 'input', field: 'list' });
    });
    this.text.list.addEventListener('change', () => this.onChange({ kind: 'commit', field: 'list' }));
    // The example list is there to be replaced: focus selects it, and a paste into the untouched
    // example replaces it whole wherever the caret is (pasting "0.5, …" after its "24" made "240.5").
    const untouched = () => this.text.list.value === EXAMPLE_LIST;
    let selectedOnFocus = false;
    this.text.list.addEventListener('focus', () => {
      selectedOnFocus = untouched();
      if (selectedOnFocus) this.text.list.select();
    });
    // A click that focused the box would put the caret down and undo that selection.
    this.text.list.addEventListener('mouseup', (ev) => {
      if (selectedOnFocus) ev.preventDefault();
      selectedOnFocus = false;
    });
    this.text.list.addEventListener('paste', (ev) => {
      const pasted = ev.clipboardData?.getData('text/plain');
      if (!untouched() || typeof pasted !== 'string') return;
      ev.preventDefault();
      this.text.list.value = pasted;
      this.text.list.dispatchEvent(new Event('input', { bubbles: true }));
      this.text.list.dispatchEvent(new Event('change', { bubbles: true }));
    });

    this.families.forEach((box) =>
      box.addEventListener('change', () => {
        this.state.families = FAMILIES.filter((f, i) => this.families[i].checked);
        this.renderOwn(this.state);
        this.onChange({ kind: 'commit', field: 'families' });
      }),
    );
    this.model.addEventListener('change', () => {
      this.state.variance = this.model.value;
      if (this.state.variance === 'list' && !this.state.text.list.trim()) {
        this.state.text.list = EXAMPLE_LIST;
      }
      this.render();
      this.onChange({ kind: 'commit', field: 'variance' });
    });
    this.lns.addEventListener('change', () => {
      this.state.lns = this.lns.checked;
      if (this.state.lns) {
        const q = strictNum(this.state.text.q);
        const eps = Number.isNaN(q) ? NaN : lnsEpsilon(this.state.text.q.trim());
        if (!Number.isNaN(eps)) this.state.text.eps = paramToken(eps);
      }
      this.render();
      this.onChange({ kind: 'commit', field: 'q' });
    });
    this.logy.addEventListener('change', () => {
      this.state.logy = this.logy.checked;
      this.onChange({ kind: 'commit', field: 'logy' });
    });
    this.linx?.addEventListener('change', () => {
      this.state.linx = this.linx.checked;
      this.onChange({ kind: 'commit', field: 'linx' });
    });
    this.inf.addEventListener('click', () => {
      this.state.text.n = depthValue(this.state.text.n) === 'inf' ? '1e6' : 'inf';
      this.render();
      this.onChange({ kind: 'commit', field: 'n' });
    });
    for (const b of document.querySelectorAll('[data-preset]')) {
      b.addEventListener('click', () => onPreset(b.dataset.preset));
    }
    for (const sl of document.querySelectorAll('input[type="range"]')) bigSteps(sl);
    miniPlotWhileFocused(document.getElementById('controls'));
    // The skip link moves focus to the controls without touching the URL fragment (which holds the state).
    const skip = document.querySelector('a.skip[href^="#"]');
    skip?.addEventListener('click', (ev) => {
      const target = document.getElementById(skip.getAttribute('href').slice(1));
      if (!target) return;
      ev.preventDefault();
      if (!target.hasAttribute('tabindex')) target.tabIndex = -1;
      target.focus();
    });
  }

  /** q follows ε in the LNS regime, and the "here q = …" hint follows every keystroke. */
  syncQFromEps() {
    const q = lnsExponent(this.state.text.eps.trim());
    if (!Number.isNaN(q)) this.state.text.q = paramToken(q);
    this.qFromEps.textContent = Number.isNaN(q) ? '— (no valid ε yet)' : paramToken(q);
  }

  /** One row per family: "own σ_l²" checkbox, then c and q (or ε) of that family's own power law. */
  buildOwnRows(container) {
    this.own = {};
    if (!container) return;
    for (const f of FAMILIES) {
      const row = document.createElement('div');
      row.className = 'own-row';
      row.dataset.own = f;
      const toggleLabel = document.createElement('label');
      toggleLabel.className = 'inline-check';
      const toggle = document.createElement('input');
      toggle.type = 'checkbox';
      toggle.dataset.testid = `own-${f}`;
      // One span for the text: the label is a flex row, which would space out each sub/sup.
      const words = document.createElement('span');
      words.append(` ${f}: its own σ`, sub('l'), sup('2'), ' (c · l', sup('q'), ' or a list)');
      toggleLabel.append(toggle, words);
      const fields = document.createElement('div');
      fields.className = 'own-fields';
      const mk = (field, label) => {
        const lab = document.createElement('label');
        lab.className = 'own-field';
        const input = document.createElement('input');
        input.type = 'text';
        input.inputMode = 'decimal';
        input.autocomplete = 'off';
        input.spellcheck = false;
        input.dataset.testid = `own-${f}-${field}`;
        input.id = `own-${f}-${field}`;
        input.setAttribute('aria-describedby', `error-own-${f}`);
        lab.append(`${label} `, input);
        input.addEventListener('input', () => {
          const m = this.state.own[f];
          if (!m) return;
          m[field === 'exp' ? (m.lns ? 'eps' : 'q') : field] = input.value;
          this.onChange({ kind: 'input', field: `own-${f}` });
        });
        input.addEventListener('change', () => this.onChange({ kind: 'commit', field: `own-${f}` }));
        return [lab, input];
      };
      const [cLabel, cInput] = mk('c', 'c');
      const lnsLabel = document.createElement('label');
      lnsLabel.className = 'inline-check';
      const lns = document.createElement('input');
      lns.type = 'checkbox';
      lns.dataset.testid = `own-${f}-lns`;
      lnsLabel.append(lns, ' LNS: q = 2 − ε');
      const [expLabel, expInput] = mk('exp', 'q');
      // Or its own measured list (a lab hand-off gives Pre-LN's list to one product, LNS's to another).
      const listModeLabel = document.createElement('label');
      listModeLabel.className = 'inline-check';
      const listMode = document.createElement('input');
      listMode.type = 'checkbox';
      listMode.dataset.testid = `own-${f}-islist`;
      listModeLabel.append(listMode, ' a measured list');
      const listLabel = document.createElement('label');
      listLabel.className = 'own-field own-list';
      const listBox = document.createElement('textarea');
      listBox.rows = 2;
      listBox.spellcheck = false;
      listBox.id = `own-${f}-list`;
      listBox.dataset.testid = `own-${f}-list`;
      listBox.setAttribute('aria-describedby', `error-own-${f}`);
      listLabel.append(`${f} σ_l², l = 1 … L `, listBox);
      listBox.addEventListener('input', () => {
        const m = this.state.own[f];
        if (!m) return;
        m.list = listBox.value;
        this.onChange({ kind: 'input', field: `own-${f}-list` });
      });
      listBox.addEventListener('change', () => this.onChange({ kind: 'commit', field: `own-${f}-list` }));
      listMode.addEventListener('change', () => {
        const m = this.state.own[f];
        if (!m) return;
        if (listMode.checked) m.list = this.state.variance === 'list' ? this.state.text.list : '';
        else delete m.list;
        this.render();
        this.onChange({ kind: 'commit', field: `own-${f}-list` });
      });
      fields.append(cLabel, expLabel, lnsLabel, listModeLabel, listLabel);
      const err = document.createElement('p');
      err.className = 'error';
      err.id = `error-own-${f}`;
      err.dataset.testid = `error-own-${f}`;
      err.setAttribute('role', 'alert');
      row.append(toggleLabel, fields, err);
      container.append(row);
      toggle.addEventListener('change', () => {
        if (toggle.checked) {
          const t = this.state.text;
          this.state.own[f] = this.state.variance === 'power' ? ownModel({ c: t.c, q: t.q, eps: t.eps, lns: this.state.lns }) : ownModel();
        } else delete this.state.own[f];
        this.render();
        this.onChange({ kind: 'commit', field: `own-${f}` });
      });
      lns.addEventListener('change', () => {
        const m = this.state.own[f];
        if (!m) return;
        m.lns = lns.checked;
        if (m.lns) {
          const e = lnsEpsilon(m.q.trim());
          if (!Number.isNaN(e)) m.eps = paramToken(e);
        } else {
          const q = lnsExponent(m.eps.trim());
          if (!Number.isNaN(q)) m.q = paramToken(q);
        }
        this.render();
        this.onChange({ kind: 'commit', field: `own-${f}` });
      });
      this.own[f] = { row, toggle, fields, cInput, expInput, expLabel, lns, err, cLabel, lnsLabel, listMode, listLabel, listBox };
    }
  }

  renderOwn(state) {
    for (const f of FAMILIES) {
      const o = this.own[f];
      if (!o) continue;
      const m = state.own?.[f];
      o.row.hidden = !state.families.includes(f) && !m;
      o.toggle.checked = !!m;
      o.fields.hidden = !m;
      if (!m) continue;
      const isList = typeof m.list === 'string';
      o.listMode.checked = isList;
      o.listLabel.hidden = !isList;
      o.cLabel.hidden = isList;
      o.expLabel.hidden = isList;
      o.lnsLabel.hidden = isList;
      if (isList && o.listBox.value !== m.list) o.listBox.value = m.list;
      if (o.cInput.value !== m.c) o.cInput.value = m.c;
      const exp = m.lns ? m.eps : m.q;
      if (o.expInput.value !== exp) o.expInput.value = exp;
      o.lns.checked = m.lns;
      o.expLabel.firstChild.textContent = m.lns ? 'ε ' : 'q ';
    }
  }

  placeSlider(f) {
    const sl = this.slider[f];
    if (!sl) return;
    const v = f === 'n' ? depthValue(this.state.text[f]) : strictNum(this.state.text[f]);
    if (v === 'inf' || (typeof v === 'number' && Number.isFinite(v) && v > (f === 'c' || f === 'lambda' || f === 'n' ? 0 : -Infinity))) {
      const pos = MAPS[f].toSlider(v);
      if (Number.isFinite(pos)) sl.value = String(pos);
    }
  }

  /** Writes the whole state into the controls (after load, preset, back/forward). */
  render(state = this.state) {
    this.state = state;
    for (const f of ['a', 'b', 'c', 'q', 'eps', 'lambda', 'n', 'list']) {
      if (this.text[f].value !== state.text[f]) this.text[f].value = state.text[f];
      if (f !== 'list') this.placeSlider(f);
    }
    this.families.forEach((box, i) => (box.checked = state.families.includes(FAMILIES[i])));
    this.model.value = state.variance;
    this.lns.checked = state.lns;
    this.logy.checked = state.logy;
    if (this.linx) this.linx.checked = !!state.linx;
    const isInf = depthValue(state.text.n) === 'inf';
    this.inf.setAttribute('aria-pressed', String(isInf));
    for (const el of document.querySelectorAll('[data-models]')) {
      el.hidden = !el.dataset.models.split(' ').includes(state.variance);
    }
    for (const el of document.querySelectorAll('[data-when]')) {
      el.hidden = (el.dataset.when === 'lns') !== state.lns;
    }
    this.qFromEps.textContent = state.text.q;
    this.renderOwn(state);
  }

  /** Shows each field's message next to it (textContent only) and marks the input invalid. */
  showErrors(errors, fragmentMessages = []) {
    for (const f of Object.keys(this.err)) {
      if (f === 'fragment') continue;
      const msg = errors[f] || '';
      if (this.err[f].textContent !== msg) this.err[f].textContent = msg;
      const input = this.text[f];
      if (input) {
        if (msg) input.setAttribute('aria-invalid', 'true');
        else input.removeAttribute('aria-invalid');
      }
    }
    for (const f of FAMILIES) {
      const o = this.own?.[f];
      if (!o) continue;
      const isList = typeof this.state.own?.[f]?.list === 'string';
      const msg = (isList ? [errors[`${f}.list`]] : [errors[`${f}.c`], errors[`${f}.q`], errors[`${f}.eps`]]).filter(Boolean).map((m) => `${f}: ${m}`).join('; ');
      if (o.err.textContent !== msg) o.err.textContent = msg;
      const box = isList ? o.listBox : null;
      for (const input of [o.cInput, o.expInput, o.listBox]) {
        if (msg && (input === box || (!isList && input !== o.listBox))) input.setAttribute('aria-invalid', 'true');
        else input.removeAttribute('aria-invalid');
      }
    }
    // A hostile link can carry thousands of bad settings: name a few, count the rest.
    const unique = [...new Set(fragmentMessages)];
    const shown = unique.slice(0, FRAGMENT_MESSAGES_MAX).join('; ');
    const more = unique.length > FRAGMENT_MESSAGES_MAX ? `; and ${unique.length - FRAGMENT_MESSAGES_MAX} more` : '';
    const frag = unique.length ? `The link’s settings were not all usable: ${shown}${more}.` : '';
    if (this.err.fragment.textContent !== frag) this.err.fragment.textContent = frag;
  }

  setListInfo(text) {
    if (this.listInfo.textContent !== text) this.listInfo.textContent = text;
  }
}
