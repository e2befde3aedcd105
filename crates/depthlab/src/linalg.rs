//! Dense row-major products through `faer` (safe API: the workspace forbids `unsafe`, which rules
//! out the raw-pointer entry points of `matrixmultiply` and `gemm`). Every matrix here is a
//! row-major `&[f64]` with its shape passed alongside.

use faer::linalg::matmul::matmul;
use faer::{Accum, MatMut, MatRef, Par};
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

/// c (m x n) = beta_add ? c + op(a) op(b) : op(a) op(b), where op(a) is m x k and op(b) is k x n.
/// `ta`: a is stored k x m (so op(a) = a^T); `tb`: b is stored n x k (so op(b) = b^T).
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
    debug_assert_eq!(c.len(), m * n);
    debug_assert_eq!(a.len(), m * k);
    debug_assert_eq!(b.len(), k * n);
    GEMM_FLOPS.fetch_add(2 * (m * k * n) as u64, Ordering::Relaxed);
    let am = if ta {
        MatRef::from_row_major_slice(a, k, m).transpose()
    } else {
        MatRef::from_row_major_slice(a, m, k)
    };
    let bm = if tb {
        MatRef::from_row_major_slice(b, n, k).transpose()
    } else {
        MatRef::from_row_major_slice(b, k, n)
    };
    let cm = MatMut::from_row_major_slice_mut(c, m, n);
    let accum = if add { Accum::Add } else { Accum::Replace };
    matmul(cm, accum, am, bm, 1.0, Par::Seq);
}

/// y (rows x out) = x (rows x inp) W^T with W stored out x inp (the Hugging Face layout).
pub(crate) fn linear(x: &[f64], w: &[f64], rows: usize, inp: usize, out: usize) -> Vec<f64> {
    let mut y = vec![0.0; rows * out];
    gemm(&mut y, x, w, rows, inp, out, false, true, false);
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
