// The rotation panel: products of rotations by θ/l^r have norm 1 yet, for r ≤ 1, never settle.
// The core computes the product (angle, matrix, norm); this file draws the image of e₁.

import * as core from '../common/core.js';
import { colour, refreshTheme } from '../common/plot.js';
import { depthLabel, headlineNumber, plain } from '../common/format.js';
import { strictNum, cleanMessage } from './state.js';

const TRAIL = 240;

export class RotationPanel {
  constructor(root) {
    this.canvas = root.querySelector('[data-testid="plot-rotation"]');
    this.ctx = this.canvas.getContext('2d');
    this.theta = root.querySelector('#input-theta');
    this.thetaErr = root.querySelector('#error-theta');
    this.slider = root.querySelector('#rot-n');
    this.nText = root.querySelector('#rot-n-text');
    this.play = root.querySelector('#rot-play');
    this.follow = root.querySelector('#rot-follow');
    this.out = {
      angle: root.querySelector('#rotation-angle'),
      norm: root.querySelector('#rotation-norm'),
      matrix: root.querySelector('#rotation-matrix'),
    };
    this.radios = [...root.querySelectorAll('input[name="rot-r"]')];
    this.good = { theta: 1, r: 1, n: 1000 };
    this.mainN = 1e6;
    this.trail = null;
    this.trailKey = '';
    this.playing = false;
    this.queued = false;
    this.cssW = 0;
    this.dpr = 1;

    this.theta.value = '1';
    this.slider.value = '3';
    this.theta.addEventListener('input', () => this.schedule());
    this.slider.addEventListener('input', () => {
      this.follow.checked = false;
      this.schedule();
    });
    for (const r of this.radios) r.addEventListener('change', () => this.schedule());
    this.follow.addEventListener('change', () => this.schedule());
    this.play.addEventListener('click', () => this.toggle());
    new ResizeObserver(() => this.resize()).observe(this.canvas);
  }

  /** The main page's N, for "follow main N". */
  setMainN(n) {
    this.mainN = n;
    if (this.follow.checked) this.schedule();
  }

  toggle(force) {
    this.playing = force ?? !this.playing;
    this.play.setAttribute('aria-pressed', String(this.playing));
    this.play.textContent = this.playing ? 'Pause' : 'Play';
    if (this.playing) {
      this.follow.checked = false;
      if (Number(this.slider.value) >= Number(this.slider.max)) this.slider.value = '0';
      const step = () => {
        if (!this.playing) return;
        const v = Math.min(Number(this.slider.max), Number(this.slider.value) + 0.01);
        this.slider.value = String(v);
        this.update();
        if (v >= Number(this.slider.max)) this.toggle(false);
        else requestAnimationFrame(step);
      };
      requestAnimationFrame(step);
    }
  }

  schedule() {
    if (this.queued) return;
    this.queued = true;
    requestAnimationFrame(() => {
      this.queued = false;
      this.update();
    });
  }

  currentN() {
    if (this.follow.checked && this.mainN !== 'inf' && Number.isFinite(this.mainN)) return this.mainN;
    return Math.max(1, Math.round(10 ** Number(this.slider.value)));
  }

  update() {
    const theta = strictNum(this.theta.value);
    const r = Number(this.radios.find((x) => x.checked)?.value ?? 1);
    const n = this.currentN();
    this.nText.textContent = `= ${depthLabel(n)}`;
    // The core reads the text as the exact decimal typed (θ = 0.1 is 1/10, not its double); the
    // number is only for the picture's trail.
    const res = core.rotation(Number.isNaN(theta) ? theta : this.theta.value.trim(), r, n);
    if (!res.ok) {
      const msg = cleanMessage(res.error);
      // Only a bad θ is the user's doing; anything else is reported there too, but the last good picture stays.
      this.thetaErr.textContent = msg;
      this.theta.setAttribute('aria-invalid', String(Number.isNaN(theta) || /theta|θ/i.test(msg)));
      this.draw();
      return;
    }
    this.thetaErr.textContent = '';
    this.theta.removeAttribute('aria-invalid');
    this.good = { theta, r, n };
    this.current = res.value;
    // Certified digits: those both ends of each enclosure agree on (at most 12 for the angle, 6 per
    // matrix entry); the norm is exactly 1 (a product of rotations is orthogonal).
    const { enclosures, norm } = res.value;
    const digits = (e, max) => headlineNumber(e, max) ?? '—';
    this.out.angle.textContent = `${digits(enclosures.angle, 12)} rad`;
    this.out.norm.textContent = plain(norm, 15);
    const m = enclosures.matrix.map((e) => digits(e, 6));
    this.out.matrix.textContent = `[[${m[0]}, ${m[1]}], [${m[2]}, ${m[3]}]]`;
    this.updateTrail(theta, r, n);
    this.draw();
  }

  updateTrail(theta, r, n) {
    const key = `${theta}|${r}|${n}`;
    if (key === this.trailKey) return;
    this.trailKey = key;
    const g = core.depthGrid(n, TRAIL);
    if (!g.ok) {
      this.trail = null;
      return;
    }
    const ns = g.value;
    const pts = new Float64Array(ns.length * 2);
    for (let i = 0; i < ns.length; i++) {
      const rr = core.rotation(theta, r, ns[i]);
      // The image of e₁ is the first column of the matrix.
      pts[2 * i] = rr.ok ? rr.value.matrix[0] : NaN;
      pts[2 * i + 1] = rr.ok ? rr.value.matrix[2] : NaN;
    }
    this.trail = pts;
  }

  resize() {
    const rect = this.canvas.getBoundingClientRect();
    const dpr = Math.max(1, window.devicePixelRatio || 1);
    const w = Math.max(1, Math.round(rect.width));
    if (w === this.cssW && dpr === this.dpr) return;
    this.cssW = w;
    this.dpr = dpr;
    this.canvas.width = Math.round(w * dpr);
    this.canvas.height = Math.round(w * dpr);
    this.draw();
  }

  draw() {
    refreshTheme();
    const ctx = this.ctx;
    const W = this.cssW;
    if (!W) return;
    const dpr = this.dpr;
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    const cs = getComputedStyle(document.documentElement);
    const v = (n) => cs.getPropertyValue(n).trim();
    ctx.fillStyle = v('--plot-bg');
    ctx.fillRect(0, 0, W, W);
    const cx = W / 2;
    const cy = W / 2;
    const R = W * 0.38;
    // Axes and unit circle
    ctx.strokeStyle = v('--grid');
    ctx.lineWidth = 1;
    ctx.beginPath();
    ctx.moveTo(cx - R * 1.2, cy);
    ctx.lineTo(cx + R * 1.2, cy);
    ctx.moveTo(cx, cy - R * 1.2);
    ctx.lineTo(cx, cy + R * 1.2);
    ctx.stroke();
    ctx.strokeStyle = v('--axis');
    ctx.beginPath();
    ctx.arc(cx, cy, R, 0, Math.PI * 2);
    ctx.stroke();
    ctx.fillStyle = v('--ink-3');
    ctx.font = `12px ${v('--font')}`;
    ctx.textAlign = 'left';
    ctx.textBaseline = 'bottom';
    ctx.fillText('e₁', cx + R + 4, cy - 2);
    ctx.fillText(fitText(ctx, W - 16, '‖R(N)‖ = 1: the image of e₁ stays on the unit circle', '‖R(N)‖ = 1: e₁ stays on the circle'), 8, W - 6);

    const col = colour('--c-scaled');
    if (this.trail) {
      const pts = this.trail;
      const m = pts.length / 2;
      ctx.fillStyle = colour('--c-orange');
      for (let i = 0; i < m; i++) {
        const x = pts[2 * i];
        const y = pts[2 * i + 1];
        if (!Number.isFinite(x) || !Number.isFinite(y)) continue;
        ctx.globalAlpha = 0.15 + (0.75 * i) / m;
        ctx.beginPath();
        ctx.arc(cx + R * x, cy - R * y, 2.2, 0, Math.PI * 2);
        ctx.fill();
      }
      ctx.globalAlpha = 1;
    }
    if (this.current) {
      const [m00, , m10] = this.current.matrix;
      const x = cx + R * m00;
      const y = cy - R * m10;
      ctx.strokeStyle = col;
      ctx.fillStyle = col;
      ctx.lineWidth = 3;
      ctx.beginPath();
      ctx.moveTo(cx, cy);
      ctx.lineTo(x, y);
      ctx.stroke();
      ctx.beginPath();
      ctx.arc(x, y, 5, 0, Math.PI * 2);
      ctx.fill();
      ctx.fillStyle = v('--ink-2');
      ctx.textBaseline = 'top';
      ctx.fillText(fitText(ctx, W - 16, `R(N) e₁ at N = ${depthLabel(this.good.n)}, r = ${this.good.r}; dots: earlier N`, `R(N) e₁, N = ${depthLabel(this.good.n)}, r = ${this.good.r}`), 8, 8);
    }
  }
}

/** The long caption when it fits the canvas width, else the short one (narrow phones). */
function fitText(ctx, width, long, short) {
  return ctx.measureText(long).width <= width ? long : short;
}
