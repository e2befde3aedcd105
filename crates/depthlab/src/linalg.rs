//! Dense row-major products, written here so that every build computes the same bits: each
//! entry of a product is one sum in one order, whatever the target's vector width (see [`gemm`]).
//! Every matrix here is a row-major `&[f64]` with its shape passed alongside.

use crate::parallel::{join, worker_threads};
use std::sync::atomic::{AtomicU64, Ordering};

/// Floating-point operations (2 m k n per product) done by [`gemm`] since the process (or wasm
/// instance) started: the benchmarks divide it by a run's time and by the machine's GEMM rate to
/// report the fraction of the peak a run achieves. One relaxed atomic add per product, which at
/// the lab's smallest products (32 x 128 x 344, ~3 MFLOP) is noise.
static GEMM_FLOPS: AtomicU64 = AtomicU64::new(0);

/// See [`GEMM_FLOPS`].
pub fn gemm_flops() -> u64 {
    GEMM_FLOPS.load(Ordering::Relaxed)
}

// Blocking (Goto's layout: packed panels of op(a) and op(b), a register tile of c). The sizes
// change only the speed, never the bits (see `gemm`); the tile is chosen per target below.
/// Depth of one packed block.
const KC: usize = 256;
/// Rows of op(a) packed at once.
const MC: usize = 64;
/// Columns of op(b) packed at once.
const NC: usize = 512;
/// f64s of the packed panels one product allocates at most (MC and NC are multiples of every
/// tile's MR and NR), counted by the memory estimate once per thread.
pub(crate) const PACK_ELEMENTS: usize = (MC + NC) * KC;

/// c (m x n) = beta_add ? c + op(a) op(b) : op(a) op(b), where op(a) is m x k and op(b) is k x n.
/// `ta`: a is stored k x m (so op(a) = a^T); `tb`: b is stored n x k (so op(b) = b^T).
///
/// Each entry is computed as `s = c_ij` (or 0), then `s = s + a_ip * b_pj` for p = 0, 1, ..., k-1
/// in that order, every product and sum rounded once (Rust never fuses them into an FMA). The
/// blocking below only chooses which entries advance together, so the result equals the naive
/// triple loop's bit for bit on every target (tested), and native and wasm32 builds of the lab
/// give identical measurements. The price: no FMA natively (faer, with FMA, ran 1.2-1.7 times
/// as fast per core here; `examples/bench.rs` reports both rates).
#[allow(clippy::too_many_arguments)]
pub(crate) fn gemm(
    c: &mut [f64],
    a: &[f64],
    b: &[f64],
    m: usize,
    k: usize,
    n: usize,
    ta: bool,
    tb: bool,
    add: bool,
) {
    debug_assert_eq!(b.len(), k * n);
    let form = Form {
        shape: (m, k, n),
        ta,
        tb,
        packed: false,
        add,
    };
    dispatch(c, a, b, form);
}

/// [`gemm`] with op(b) packed beforehand ([`PackedB`], k x n): the same entries, the same sums in
/// the same order, so the same bits; only the packing of b is not repeated on every call.
pub(crate) fn gemm_packed(c: &mut [f64], a: &[f64], b: &PackedB, m: usize, ta: bool, add: bool) {
    let form = Form {
        shape: (m, b.k, b.n),
        ta,
        tb: false,
        packed: true,
        add,
    };
    dispatch(c, a, &b.data, form);
}

/// How a product reads its operands: (m, k, n), op(a) = a^T (`ta`), op(b) = b^T (`tb`, for b as
/// stored), b already packed ([`PackedB`]'s data, `packed`), c added to (`add`).
#[derive(Clone, Copy)]
struct Form {
    shape: (usize, usize, usize),
    ta: bool,
    tb: bool,
    packed: bool,
    add: bool,
}

/// The kernel for this target (see [`gemm`]). The kernels take the three matrices as separate
/// slice arguments, not in a tuple or behind a struct: then the compiler knows that c does not
/// overlap a or b and keeps the register tile in vector registers (reading b through a struct's
/// field left the tile update scalar, ten times slower).
fn dispatch(c: &mut [f64], a: &[f64], b: &[f64], form: Form) {
    let (m, k, n) = form.shape;
    debug_assert_eq!(c.len(), m * n);
    debug_assert_eq!(a.len(), m * k);
    GEMM_FLOPS.fetch_add(2 * (m * k * n) as u64, Ordering::Relaxed);
    if let Some(rows) = split_rows(form) {
        // Each entry of c is the same sum in the same order whichever call computes it, so the
        // halves give the bits of the whole product.
        let (c_top, c_bottom) = c.split_at_mut(rows * n);
        let (a_top, a_bottom) = a.split_at(rows * k);
        let top = Form {
            shape: (rows, k, n),
            ..form
        };
        let bottom = Form {
            shape: (m - rows, k, n),
            ..form
        };
        join(
            || dispatch_unsplit(c_top, a_top, b, top),
            || dispatch_unsplit(c_bottom, a_bottom, b, bottom),
        );
        return;
    }
    dispatch_unsplit(c, a, b, form);
}

/// Products of at least this many flops are split in two by rows when the lab runs on threads
/// ([`split_rows`]): about 0.1 ms of work per half, against a few microseconds to hand one to
/// another thread.
const SPLIT_FLOPS: usize = 2_000_000;

/// Where a product is split in two for two threads: the rows of c (and of a, stored m x k) above
/// the returned index go to one thread, the rest to another. Only with more than one thread
/// (feature `parallel`), for a not transposed (its rows are then contiguous) and at least
/// [`SPLIT_FLOPS`]; the index a whole number of 4-row tiles. The end-to-end norms sweep one vector
/// at a time through the layers, a chain no other work overlaps once the per-layer norms are done:
/// this puts the second core to work on it.
fn split_rows(form: Form) -> Option<usize> {
    let (m, k, n) = form.shape;
    if form.ta || 2 * m * k * n < SPLIT_FLOPS || m < 8 || worker_threads() < 2 {
        return None;
    }
    Some((m / 2).next_multiple_of(4).min(m - 4))
}

/// [`dispatch`]'s kernel for this target, on the whole product.
fn dispatch_unsplit(c: &mut [f64], a: &[f64], b: &[f64], form: Form) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the only requirement of a `target_feature` function is that the CPU has the
        // feature, checked on the line above. This is the crate's one `unsafe`: without it a
        // native build is held to SSE2's 2 lanes, 2-3x slower per product here.
        #[allow(unsafe_code)]
        unsafe {
            blocked_avx2(c, a, b, form)
        };
        return;
    }
    #[cfg(target_arch = "wasm32")]
    blocked_simd128(c, a, b, form);
    #[cfg(not(target_arch = "wasm32"))]
    if form.packed {
        blocked_packed::<TILE_ROWS>(c, a, b, form)
    } else {
        blocked::<TILE_ROWS, PANEL>(c, a, b, form)
    }
}

/// Columns of every register tile, hence the width of a packed panel of op(b): [`PackedB`] is
/// packed once for all of this file's kernels.
const PANEL: usize = 8;

/// Rows of the register tile where no wider clone applies: SSE2's 16 registers of 2 lanes
/// natively, SIMD128 in wasm32 (measured: 2 x 8 fastest natively, see the lab bench).
const TILE_ROWS: usize = 2;

/// The AVX2 clone (4 lanes, 16 registers): a 4 x 8 tile, measured fastest here. Same
/// operations in the same order as [`blocked`] (no FMA is enabled), hence the same bits.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn blocked_avx2(c: &mut [f64], a: &[f64], b: &[f64], form: Form) {
    if form.packed {
        blocked_packed::<4>(c, a, b, form)
    } else {
        blocked::<4, PANEL>(c, a, b, form)
    }
}

/// The SIMD128 clone for wasm32 (2 lanes, no fused multiply-add in the module's instruction set):
/// a host that lacks SIMD128 rejects the whole module when it loads (wasm validates before it
/// runs), so calling it needs no check; every browser the page supports has it.
#[cfg(target_arch = "wasm32")]
#[target_feature(enable = "simd128")]
fn blocked_simd128(c: &mut [f64], a: &[f64], b: &[f64], form: Form) {
    if form.packed {
        blocked_packed::<TILE_ROWS>(c, a, b, form)
    } else {
        blocked::<TILE_ROWS, PANEL>(c, a, b, form)
    }
}

/// A constant k x n right operand op(b), packed once into the panels [`blocked`] reads (the
/// layer weights: each is packed once per layout when the model is built, where a product used
/// to allocate, zero and re-pack it on every call).
#[derive(Debug, Clone)]
pub(crate) struct PackedB {
    k: usize,
    n: usize,
    data: Vec<f64>,
}

/// f64s of a packed k x n operand: per block of [`NC`] columns, the columns rounded up to a whole
/// panel, times k. Counted by the memory estimate.
pub(crate) fn packed_len(k: usize, n: usize) -> usize {
    k * ((n / NC) * NC + (n % NC).next_multiple_of(PANEL))
}

impl PackedB {
    /// op(b) of `b`, stored n x k when `tb` (op(b) = b^T) and k x n otherwise, in [`blocked`]'s
    /// order: for each block of NC columns, for each block of KC depth steps, the panels of
    /// [`PANEL`] columns.
    pub(crate) fn new(b: &[f64], k: usize, n: usize, tb: bool) -> PackedB {
        assert_eq!(b.len(), k * n, "a k x n operand");
        let mut data = vec![0.0; packed_len(k, n)];
        let mut at = 0;
        for jc in (0..n).step_by(NC) {
            let nc = NC.min(n - jc);
            for pc in (0..k).step_by(KC) {
                let kc = KC.min(k - pc);
                let used = nc.next_multiple_of(PANEL) * kc;
                pack::<PANEL>(&mut data[at..at + used], kc, nc, |j, p| {
                    let (j, p) = (jc + j, pc + p);
                    if tb {
                        b[j * k + p]
                    } else {
                        b[p * n + j]
                    }
                });
                at += used;
            }
        }
        PackedB { k, n, data }
    }

    /// The f64s held.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.data.len()
    }

    /// Columns of op(b) (the product's output width).
    pub(crate) fn cols(&self) -> usize {
        self.n
    }
}

/// [`gemm`] with an MR x NR register tile, b as stored: each block of op(b) is packed here.
#[inline(always)]
fn blocked<const MR: usize, const NR: usize>(c: &mut [f64], a: &[f64], b: &[f64], form: Form) {
    let Form {
        shape: (m, k, n),
        tb,
        add,
        ..
    } = form;
    if !add {
        c.fill(0.0);
    }
    if m == 0 || n == 0 || k == 0 {
        return;
    }
    let mut a_pack = vec![0.0; MC.min(m).next_multiple_of(MR) * KC.min(k)];
    let mut b_pack = vec![0.0; NC.min(n).next_multiple_of(NR) * KC.min(k)];
    for jc in (0..n).step_by(NC) {
        let nc = NC.min(n - jc);
        for pc in (0..k).step_by(KC) {
            let kc = KC.min(k - pc);
            // op(b)[pc.., jc..] as panels of NR columns (see `pack`).
            let b_used = nc.next_multiple_of(NR) * kc;
            pack::<NR>(&mut b_pack[..b_used], kc, nc, |j, p| {
                let (j, p) = (jc + j, pc + p);
                if tb {
                    b[j * k + p]
                } else {
                    b[p * n + j]
                }
            });
            let block = (jc, nc, pc, kc);
            block_product::<MR, NR>(c, a, &mut a_pack, &b_pack[..b_used], form, block);
        }
    }
}

/// [`blocked`] with b packed beforehand ([`PackedB`]'s data, panels PANEL columns wide).
#[inline(always)]
fn blocked_packed<const MR: usize>(c: &mut [f64], a: &[f64], b: &[f64], form: Form) {
    let Form {
        shape: (m, k, n),
        add,
        ..
    } = form;
    if !add {
        c.fill(0.0);
    }
    if m == 0 || n == 0 || k == 0 {
        return;
    }
    assert_eq!(b.len(), packed_len(k, n), "a packed k x n operand");
    let mut a_pack = vec![0.0; MC.min(m).next_multiple_of(MR) * KC.min(k)];
    let mut at = 0;
    for jc in (0..n).step_by(NC) {
        let nc = NC.min(n - jc);
        for pc in (0..k).step_by(KC) {
            let kc = KC.min(k - pc);
            let b_used = nc.next_multiple_of(PANEL) * kc;
            let block = (jc, nc, pc, kc);
            let b_panels = &b[at..at + b_used];
            block_product::<MR, PANEL>(c, a, &mut a_pack, b_panels, form, block);
            at += b_used;
        }
    }
}

/// c[.., jc..jc + nc] += op(a)[.., pc..pc + kc] op(b)[pc..pc + kc, jc..jc + nc], the block of
/// op(b) given as its packed panels: op(a) is packed MC rows at a time into `a_pack`, and each
/// MR x NR tile of c is loaded, updated by one rank-1 update per depth step, and stored.
#[inline(always)]
fn block_product<const MR: usize, const NR: usize>(
    c: &mut [f64],
    a: &[f64],
    a_pack: &mut [f64],
    b_panels: &[f64],
    form: Form,
    (jc, nc, pc, kc): (usize, usize, usize, usize),
) {
    let (m, k, n) = form.shape;
    for ic in (0..m).step_by(MC) {
        let mc = MC.min(m - ic);
        let a_used = mc.next_multiple_of(MR) * kc;
        pack::<MR>(&mut a_pack[..a_used], kc, mc, |i, p| {
            let (i, p) = (ic + i, pc + p);
            if form.ta {
                a[p * m + i]
            } else {
                a[i * k + p]
            }
        });
        for (q, b_panel) in b_panels.chunks_exact(kc * NR).enumerate() {
            let j0 = jc + q * NR;
            let nr = NR.min(jc + nc - j0);
            for (r, a_panel) in a_pack[..a_used].chunks_exact(kc * MR).enumerate() {
                let i0 = ic + r * MR;
                let mr = MR.min(ic + mc - i0);
                let mut tile = [[0.0; NR]; MR];
                for (ii, t) in tile.iter_mut().enumerate().take(mr) {
                    t[..nr].copy_from_slice(&c[(i0 + ii) * n + j0..][..nr]);
                }
                tile_update(&mut tile, a_panel, b_panel);
                for (ii, t) in tile.iter().enumerate().take(mr) {
                    c[(i0 + ii) * n + j0..][..nr].copy_from_slice(&t[..nr]);
                }
            }
        }
    }
}

/// Packs `valid` lines (rows of op(a), columns of op(b)) of depth `kc` into panels of W lines:
/// panel r holds depth step p's W entries at [r kc W + p W ..], `at(line, p)` for line = r W + w,
/// zero past `valid` (the tile entries those padding lines produce are never stored).
#[inline(always)]
fn pack<const W: usize>(
    dst: &mut [f64],
    kc: usize,
    valid: usize,
    at: impl Fn(usize, usize) -> f64,
) {
    for (r, panel) in dst.chunks_exact_mut(kc * W).enumerate() {
        for (p, step) in panel.chunks_exact_mut(W).enumerate() {
            for (w, v) in step.iter_mut().enumerate() {
                let line = r * W + w;
                *v = if line < valid { at(line, p) } else { 0.0 };
            }
        }
    }
}

/// tile += (packed a panel) (packed b panel), one rank-1 update per depth step, in order.
#[inline(always)]
fn tile_update<const MR: usize, const NR: usize>(
    tile: &mut [[f64; NR]; MR],
    a_panel: &[f64],
    b_panel: &[f64],
) {
    for (ap, bp) in a_panel.chunks_exact(MR).zip(b_panel.chunks_exact(NR)) {
        for (t, &ai) in tile.iter_mut().zip(ap) {
            for (tj, &bj) in t.iter_mut().zip(bp) {
                *tj += ai * bj;
            }
        }
    }
}

/// y (rows x out) = x (rows x inp) W^T with W stored out x inp (the Hugging Face layout).
pub(crate) fn linear(x: &[f64], w: &[f64], rows: usize, inp: usize, out: usize) -> Vec<f64> {
    let mut y = vec![0.0; rows * out];
    gemm(&mut y, x, w, rows, inp, out, false, true, false);
    y
}

/// y (rows x b.cols()) = x op(b) for a packed operand: [`linear`] (op(b) = W^T) or
/// [`linear_t`] (op(b) = W) with the packing done once, the same bits.
pub(crate) fn linear_packed(x: &[f64], b: &PackedB, rows: usize) -> Vec<f64> {
    let mut y = vec![0.0; rows * b.n];
    gemm_packed(&mut y, x, b, rows, false, false);
    y
}

/// gx (rows x inp) (+)= gy (rows x out) W: the transpose of [`linear`] in x.
pub(crate) fn linear_t(gy: &[f64], w: &[f64], rows: usize, inp: usize, out: usize) -> Vec<f64> {
    let mut gx = vec![0.0; rows * inp];
    gemm(&mut gx, gy, w, rows, out, inp, false, false, false);
    gx
}

/// gW (out x inp) += gy^T x: the weight gradient of [`linear`].
pub(crate) fn linear_grad_w(
    gw: &mut [f64],
    gy: &[f64],
    x: &[f64],
    rows: usize,
    inp: usize,
    out: usize,
) {
    gemm(gw, gy, x, out, rows, inp, true, false, true);
}

/// sum a_i b_i in eight interleaved partial sums (see [`dot_lanes`]): where one running sum waits
/// for each addition, this was about 4x slower over a 4096-entry stream, the reorthogonalisations'
/// inner loop.
pub fn dot(a: &[f64], b: &[f64]) -> f64 {
    dot_lanes::<8>(a, b)
}

/// sum a_i b_i in `L` interleaved partial sums, added pairwise at the end (for L = 8:
/// ((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7))), then the last len mod L products in
/// order: a fixed order, so the same bits natively and in wasm32, that the compiler can keep in
/// vector registers. `L` = 8 for long streams ([`dot`]), 4 over an attention head's width.
#[inline]
pub(crate) fn dot_lanes<const L: usize>(a: &[f64], b: &[f64]) -> f64 {
    debug_assert_eq!(a.len(), b.len());
    let mut acc = [0.0f64; L];
    let (ac, bc) = (a.chunks_exact(L), b.chunks_exact(L));
    let (ar, br) = (ac.remainder(), bc.remainder());
    for (x, y) in ac.zip(bc) {
        for i in 0..L {
            acc[i] += x[i] * y[i];
        }
    }
    // Pairwise, adjacent lanes first (L a power of two): the tree written out above.
    const { assert!(L.is_power_of_two()) };
    let mut n = L;
    while n > 1 {
        n /= 2;
        for i in 0..n {
            acc[i] = acc[2 * i] + acc[2 * i + 1];
        }
    }
    let mut s = acc[0];
    for (x, y) in ar.iter().zip(br) {
        s += x * y;
    }
    s
}

pub fn norm2(a: &[f64]) -> f64 {
    dot(a, a).sqrt()
}

/// y += alpha x.
#[inline]
pub(crate) fn axpy(y: &mut [f64], alpha: f64, x: &[f64]) {
    for (yi, xi) in y.iter_mut().zip(x) {
        *yi += alpha * xi;
    }
}

/// `reps` products c = x W^T (x: m x k, W stored n x k, a layer's layout) on fixed data, for the
/// benchmarks' GEMM rate in the build being measured (native, or the wasm module in node): returns
/// the sum of the last c so the work cannot be skipped. Reported, never timed in a test.
pub fn gemm_repeat(m: usize, k: usize, n: usize, reps: usize) -> f64 {
    let a: Vec<f64> = (0..m * k).map(|i| ((i % 7) as f64 - 3.0) * 0.25).collect();
    let b: Vec<f64> = (0..n * k).map(|i| ((i % 5) as f64 - 2.0) * 0.5).collect();
    let mut c = vec![0.0; m * n];
    for _ in 0..reps {
        gemm(&mut c, &a, &b, m, k, n, false, true, false);
    }
    c.iter().sum()
}

/// [`gemm_repeat`] with b packed once ([`PackedB`], as the model's layer products use it).
pub fn gemm_repeat_packed(m: usize, k: usize, n: usize, reps: usize) -> f64 {
    let a: Vec<f64> = (0..m * k).map(|i| ((i % 7) as f64 - 3.0) * 0.25).collect();
    let b: Vec<f64> = (0..n * k).map(|i| ((i % 5) as f64 - 2.0) * 0.5).collect();
    let packed = PackedB::new(&b, k, n, true);
    let mut c = vec![0.0; m * n];
    for _ in 0..reps {
        gemm_packed(&mut c, &a, &packed, m, false, false);
    }
    c.iter().sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The naive triple loop `gemm` must equal bit for bit (its documented order).
    fn naive(
        c: &mut [f64],
        a: &[f64],
        b: &[f64],
        shape: (usize, usize, usize),
        ta: bool,
        tb: bool,
        add: bool,
    ) {
        let (m, k, n) = shape;
        for i in 0..m {
            for j in 0..n {
                let mut s = if add { c[i * n + j] } else { 0.0 };
                for p in 0..k {
                    let x = if ta { a[p * m + i] } else { a[i * k + p] };
                    let y = if tb { b[j * k + p] } else { b[p * n + j] };
                    s += x * y;
                }
                c[i * n + j] = s;
            }
        }
    }

    type Kernel = fn(&mut [f64], &[f64], &[f64], Form);

    #[test]
    fn gemm_equals_the_naive_loop_bit_for_bit() {
        // Shapes on both sides of every block size (MR, NR, KC, MC, NC), empty ones included.
        let dims = [0usize, 1, 3, 4, 5, 63, 64, 65, 255, 256, 257, 513, 600];
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            // Magnitudes over ten decades and both signs, so roundings differ by order.
            let u = (state >> 11) as f64 / (1u64 << 53) as f64;
            (u - 0.5) * 10f64.powi((state % 11) as i32 - 5)
        };
        let mut checked = 0;
        // Products the threaded build splits in two by rows ([`split_rows`]): their bits too.
        let mut split = 0;
        for (t, &m) in dims.iter().enumerate() {
            for (u, &k) in dims.iter().enumerate() {
                let n = dims[(t * 5 + u * 3) % dims.len()];
                if m * k * n > 4_000_000 {
                    continue;
                }
                for (ta, tb, add) in [
                    (false, false, false),
                    (false, true, true),
                    (true, false, true),
                    (true, true, false),
                ] {
                    let a: Vec<f64> = (0..m * k).map(|_| next()).collect();
                    let b: Vec<f64> = (0..k * n).map(|_| next()).collect();
                    let c0: Vec<f64> = (0..m * n).map(|_| next()).collect();
                    let mut want = c0.clone();
                    naive(&mut want, &a, &b, (m, k, n), ta, tb, add);
                    // The dispatched product, and tiles of other shapes: the bits must not depend
                    // on the tile (this machine may take only one of the dispatch's branches).
                    let kernels: [(&str, Kernel); 4] = [
                        ("gemm", |c, a, b, f| {
                            let (m, k, n) = f.shape;
                            gemm(c, a, b, m, k, n, f.ta, f.tb, f.add)
                        }),
                        ("2x8", blocked::<2, 8>),
                        ("4x8", blocked::<4, 8>),
                        ("3x5", blocked::<3, 5>),
                    ];
                    let form = Form {
                        shape: (m, k, n),
                        ta,
                        tb,
                        packed: false,
                        add,
                    };
                    if split_rows(form).is_some() {
                        split += 1;
                    }
                    for (name, kernel) in kernels {
                        let mut got = c0.clone();
                        kernel(&mut got, &a, &b, form);
                        let same = got
                            .iter()
                            .zip(&want)
                            .all(|(x, y)| x.to_bits() == y.to_bits());
                        assert!(same, "{name}: m={m} k={k} n={n} ta={ta} tb={tb} add={add}");
                    }
                    // Packed once: the same bits, through the dispatch and the wider tile.
                    let packed = PackedB::new(&b, k, n, tb);
                    assert_eq!(packed.data.len(), packed_len(k, n));
                    let mut got = c0.clone();
                    gemm_packed(&mut got, &a, &packed, m, ta, add);
                    let mut wide = c0.clone();
                    let packed_form = Form {
                        packed: true,
                        ..form
                    };
                    blocked_packed::<4>(&mut wide, &a, &packed.data, packed_form);
                    for (name, got) in [("packed", got), ("packed 4x8", wide)] {
                        let same = got
                            .iter()
                            .zip(&want)
                            .all(|(x, y)| x.to_bits() == y.to_bits());
                        assert!(same, "{name}: m={m} k={k} n={n} ta={ta} tb={tb} add={add}");
                    }
                    checked += 1;
                }
            }
        }
        assert!(checked > 300, "{checked}");
        if worker_threads() > 1 {
            assert!(split > 20, "{split} split products");
        }
    }
}
