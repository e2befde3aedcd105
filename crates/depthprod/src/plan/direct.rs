//! The direct engine: compensated sums for exponential variance (with a certified geometric tail)
//! and for measured lists, kept as sparse checkpoints.
//!
//! Memory: the plan keeps the compensated [`Accumulator`] (40 bytes) after every
//! [`CHECKPOINT_EVERY`] = 64 terms, and never a copy of a measured list (it reads the list from
//! the `Params` the [`super::Plan`] already holds). A 10^6-entry list costs 15,626 checkpoints,
//! about 0.63 MB, where the dense prefix of (value, error) pairs it replaces cost 16 MB (16 bytes
//! per layer); an exponential-variance sum of up to 4 * 10^6 terms costs at most 2.5 MB instead of
//! 64 MB.
//!
//! `sum(n)` restores the checkpoint at 64 floor(n/64) and adds the remaining < 64 terms with the
//! very operations of the loop that made the checkpoints (the same [`Terms::add`]), so the state
//! after n terms, and with it (value, error), is bit-identical to what a dense prefix stored:
//! the enclosures are unchanged (`checkpoints_match_a_dense_prefix_bit_for_bit` checks every n).

use super::{down, up, EXP_MAX_TERMS, TOL};
use crate::sum::{Accumulator, U};
use crate::Bounds;

/// Terms between two stored checkpoints: at most 63 terms are re-added per `sum`.
pub(super) const CHECKPOINT_EVERY: usize = 64;

/// How the l-th term g(l) = ln(1 + A x_l + B x_l^2) and its error bound are made.
#[derive(Debug, Clone, Copy)]
enum Terms {
    /// x_l = kappa e^(-lambda l / 2) l^-extra.
    Exponential {
        a: f64,
        b: f64,
        kappa: f64,
        lambda: f64,
        extra: f64,
    },
    /// x_l = l^-extra / sqrt(sigma_l^2), sigma_l^2 = `values[l - 1]` of the list passed in.
    Measured { a: f64, b: f64, extra: f64 },
}

impl Terms {
    /// Adds g(l) to `acc` and returns it. `values` is the measured list (unused for exponential
    /// variance). Every sum goes through here, so a restart from a checkpoint repeats exactly
    /// the operations of the first pass.
    #[inline]
    fn add(&self, acc: &mut Accumulator, l: usize, values: &[f64]) -> f64 {
        let (g, err) = self.term(l, values);
        acc.add_inlined(g, err);
        g
    }

    /// g(l) and its error bound.
    #[inline]
    fn term(&self, l: usize, values: &[f64]) -> (f64, f64) {
        let lf = l as f64;
        match *self {
            Terms::Exponential {
                a,
                b,
                kappa,
                lambda,
                extra,
            } => {
                let x = kappa * (-0.5 * lambda * lf).exp() * lf.powf(-extra);
                let x_rel = (0.5 * lambda * lf + 8.0) * U;
                let g = (x * (a + b * x)).ln_1p();
                (g, (2.0 * x_rel + 7.0 * U) * g)
            }
            Terms::Measured { a, b, extra } => {
                let x = lf.powf(-extra) / values[l - 1].sqrt();
                let g = (x * (a + b * x)).ln_1p();
                (g, 20.0 * U * g)
            }
        }
    }
}

/// Direct summation for exponential variance (with a certified geometric tail) and measured lists.
#[derive(Debug, Clone)]
pub(super) struct DirectPlan {
    terms: Terms,
    /// checkpoints[k] = the accumulator after the terms l = 1..=64k, for 64k <= len.
    checkpoints: Vec<Accumulator>,
    /// The accumulator after all `len` terms.
    last: Accumulator,
    pub(super) len: usize,
    /// Upper bound on sum_{l > len} g(l) (exponential variance), `None` for a finite list.
    pub(super) tail: Option<f64>,
    /// For tail bounds at n < len under exponential variance: (A kappa, B kappa^2, lambda, extra power).
    pub(super) exp_shape: Option<(f64, f64, f64, f64)>,
    /// Exponential variance with len <= [`SUFFIX_MAX`] (else empty): suffix[n] =
    /// sum_{l=n+1}^{len2} g(l) with its error (len2 >= len, see `exponential`), accumulated from l = len2 down, so a tail at n < len
    /// is a sum of positive terms with an error relative to itself, never S(len) - S(n) (which
    /// left the tail at N = 20, lambda = 1, 3e-10 wide relative).
    /// Made on the first tail asked for (a value alone never needs it: the page asks for tails
    /// only while the tail plot or readout shows), with the upper bound on sum_{l > len2} g(l).
    suffix: std::sync::OnceLock<(Vec<(f64, f64)>, f64)>,
}

/// Longest exponential-variance suffix table (16 bytes a term, 1 MiB). Routes chosen
/// automatically sum directly only for lambda > 1/8, whose terms underflow before l = 12,000;
/// longer sums (a forced direct route) keep the difference S(len) - S(n) beyond the table.
const SUFFIX_MAX: usize = 1 << 16;

/// Where a previous `sum_from` stopped: a curve over increasing depths continues from it when it
/// lies between the checkpoint and the next depth (the state is that of the same sequential
/// loop, so the result is still bit-identical).
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Cursor {
    at: usize,
    acc: Accumulator,
}

impl DirectPlan {
    /// `typed` = (relative distance of the typed A, B and kappa = c^(-1/2) from their doubles
    /// combined, the same for lambda): the tail bounds then hold for every parameter in that box
    /// (larger A kappa, B kappa^2 and a smaller lambda give a larger geometric bound).
    pub(super) fn exponential(
        a: f64,
        b: f64,
        c: f64,
        lambda: f64,
        extra: f64,
        typed: (f64, f64),
    ) -> DirectPlan {
        let kappa = 1.0 / c.sqrt();
        let terms = Terms::Exponential {
            a,
            b,
            kappa,
            lambda,
            extra,
        };
        let mut checkpoints = vec![Accumulator::new()];
        let mut acc = Accumulator::new();
        let (up_ab, rel_lambda) = typed;
        // kappa and the products round (a few u): 8u covers them in the bound's arguments
        let grow = 1.0 + up_ab + 8.0 * U;
        let shape = (
            a * kappa * grow,
            b * kappa * kappa * grow * grow,
            lambda * (1.0 - rel_lambda),
            extra,
        );
        let mut tail = f64::INFINITY;
        let mut len = 0;
        for l in 1..=EXP_MAX_TERMS {
            let g = terms.add(&mut acc, l, &[]);
            len = l;
            if l % CHECKPOINT_EVERY == 0 {
                checkpoints.push(acc);
            }
            if l % 16 == 0 || g == 0.0 {
                tail = exp_tail_bound(shape, l as u64);
                if tail <= TOL * acc.value().max(1.0) {
                    break;
                }
            }
        }
        DirectPlan {
            terms,
            checkpoints,
            last: acc,
            len,
            tail: Some(exp_tail_bound(shape, len as u64).min(tail)),
            exp_shape: Some(shape),
            suffix: std::sync::OnceLock::new(),
        }
    }

    /// A plan over the list `values`; every later call must pass the same slice.
    pub(super) fn measured(a: f64, b: f64, values: &[f64], extra: f64) -> DirectPlan {
        let terms = Terms::Measured { a, b, extra };
        let mut checkpoints = Vec::with_capacity(values.len() / CHECKPOINT_EVERY + 1);
        checkpoints.push(Accumulator::new());
        let mut acc = Accumulator::new();
        for l in 1..=values.len() {
            terms.add(&mut acc, l, values);
            if l % CHECKPOINT_EVERY == 0 {
                checkpoints.push(acc);
            }
        }
        DirectPlan {
            terms,
            checkpoints,
            last: acc,
            len: values.len(),
            tail: None,
            exp_shape: None,
            suffix: std::sync::OnceLock::new(),
        }
    }

    /// The number of terms summed as a depth (depths are u64 everywhere: `n as usize` would
    /// truncate N >= 2^32 on wasm32).
    fn len_u64(&self) -> u64 {
        self.len as u64
    }

    /// The accumulator after n <= len terms: the checkpoint at 64 floor(n/64) (or `cursor`, when
    /// it lies between that checkpoint and n) plus the remaining terms, one by one.
    fn state(&self, n: usize, values: &[f64], cursor: Option<&mut Cursor>) -> Accumulator {
        if n == self.len {
            return self.last;
        }
        let k = n / CHECKPOINT_EVERY;
        let (mut from, mut acc) = (k * CHECKPOINT_EVERY, self.checkpoints[k]);
        if let Some(c) = &cursor {
            if c.at >= from && c.at <= n {
                (from, acc) = (c.at, c.acc);
            }
        }
        for l in from + 1..=n {
            self.terms.add(&mut acc, l, values);
        }
        if let Some(c) = cursor {
            *c = Cursor { at: n, acc };
        }
        acc
    }

    /// sum_{l <= n} g(l) as (value, error); `values` is the list the plan was made from (empty
    /// for exponential variance).
    pub(super) fn sum(&self, n: u64, values: &[f64]) -> (f64, f64) {
        self.sum_from(n, values, None)
    }

    /// [`DirectPlan::sum`], continuing from `cursor` when that is shorter (curves).
    pub(super) fn sum_from(
        &self,
        n: u64,
        values: &[f64],
        cursor: Option<&mut Cursor>,
    ) -> (f64, f64) {
        if n <= self.len_u64() {
            // n <= len < 2^32 here, so the index is exact on every target
            let acc = self.state(n as usize, values, cursor);
            (acc.value(), acc.error())
        } else {
            // Beyond the stopping point: sum_{l <= len} plus at most the tail bound.
            let (v, e) = (self.last.value(), self.last.error());
            let t = self.tail.unwrap_or(0.0);
            (v + 0.5 * t, e + 0.5 * t)
        }
    }

    /// Whether every term from n + 1 on is 0 in doubles, so the suffix table (which ends where the
    /// terms underflow) cannot reach n and need not be made for it: a value far beyond the sum's
    /// end asks for its tail bound alone. With x_l <= kappa e^(-lambda l / 2) (l^-extra <= 1),
    /// g(l) <= A x_l + B x_l^2 < 2^-1075 once lambda l / 2 > log(kappa (A + B)) + 1075 log 2; twice
    /// that depth plus 64 leaves room for every rounding of this estimate.
    fn beyond_underflow(&self, n: u64) -> bool {
        let Some((ak, bk2, lambda, _)) = self.exp_shape else {
            return false;
        };
        let scale = (ak + bk2.sqrt()).max(1.0);
        let l_zero = 2.0 * (2.0 * scale.ln() + 1075.0 * std::f64::consts::LN_2) / lambda;
        (n as f64) > 2.0 * l_zero + 64.0
    }

    /// Exponential variance's backward suffix sums (see the field `suffix`), made once.
    fn suffix(&self) -> &(Vec<(f64, f64)>, f64) {
        self.suffix.get_or_init(|| {
            // The suffixes run past len, to where the terms underflow to 0 (l ~ 1490/lambda; at most
            // SUFFIX_MAX): every tail before that is then a sum of its own terms, within 2^-60-ish
            // of itself; a relative cut could not stop earlier, since each term is a fixed fraction
            // e^(-lambda/2) of the one before. Beyond len2 the tail is below the bound there (~1e-300).
            let (len, terms, shape) = (self.len, self.terms, self.exp_shape);
            let (mut suffix, mut suffix_tail) = (Vec::new(), 0.0);
            if let (true, Some(shape)) = (len <= SUFFIX_MAX, shape) {
                // each term made once, forwards (to find where they underflow), then summed back
                let mut each: Vec<(f64, f64)> = Vec::with_capacity(2 * len + 64);
                loop {
                    let t = terms.term(each.len() + 1, &[]);
                    if t.0 == 0.0 || each.len() >= SUFFIX_MAX {
                        break;
                    }
                    each.push(t);
                }
                let len2 = each.len().max(len);
                suffix = vec![(0.0, 0.0); len2 + 1];
                let mut back = Accumulator::new();
                for l in (1..=len2).rev() {
                    let (g, err) = each
                        .get(l - 1)
                        .copied()
                        .unwrap_or_else(|| terms.term(l, &[]));
                    back.add(g, err);
                    suffix[l - 1] = (back.value(), back.error());
                }
                suffix_tail = exp_tail_bound(shape, len2 as u64);
            }
            (suffix, suffix_tail)
        })
    }

    /// The last depth a tail sums term by term: the end of the suffix sums (where the terms
    /// underflow), or `len`. The typed inputs' widening of a tail must reach it.
    pub(super) fn tail_end(&self) -> u64 {
        if self.exp_shape.is_none() {
            return self.len_u64();
        }
        let (suffix, _) = self.suffix();
        (suffix.len() as u64).saturating_sub(1).max(self.len_u64())
    }

    /// Bounds on sum_{l>n} g(l), continuing from `cursor` when that is shorter (curves).
    pub(super) fn tail_from(&self, n: u64, cursor: Option<&mut Cursor>) -> Option<Bounds> {
        let t = self.tail?;
        let shape = self.exp_shape?;
        let (suffix, suffix_tail) = if self.beyond_underflow(n) {
            (&Vec::new(), &0.0)
        } else {
            let (s, st) = self.suffix();
            (s, st)
        };
        if n + 1 < suffix.len() as u64 {
            // sum_{l=n+1}^{len2} g(l), summed backwards once, plus [0, bound] beyond len2
            let (d, e) = suffix[n as usize];
            let e = e + U * d;
            Some(Bounds {
                lo: down(d - e).max(0.0),
                hi: up(d + e + suffix_tail),
            })
        } else if n < self.len_u64() {
            let (total, te) = (self.last.value(), self.last.error());
            // exponential variance only (a list has no tail): no list to read
            let (part, pe) = self.sum_from(n, &[], cursor);
            let d = total - part;
            let e = te + pe + U * d;
            Some(Bounds {
                lo: down(d - e).max(0.0),
                hi: up(d + e + t),
            })
        } else {
            Some(Bounds {
                lo: 0.0,
                hi: exp_tail_bound(shape, n),
            })
        }
    }
}

/// Upper bound on sum_{l > n} g(l) for exponential variance, from g <= A x + B x^2 and
/// x_l <= kappa (n+1)^-extra e^(-lambda l / 2): two geometric series,
/// A kappa e^(-lambda (n+1)/2) (n+1)^-extra / (1 - e^(-lambda/2)) + B kappa^2 (...)^2 / (1 - e^(-lambda)).
///
/// Each term is evaluated as exp(log of it), so that it never underflows to 0 while the truth is
/// positive: the log is computed with an absolute error below 1e-9 (a few roundings of numbers
/// below 1e7 in size, and ln/ln_1p/exp_m1 within one ulp, [`crate::sum::LIBM_REL`]), which
/// `+ 1e-9` covers; exp then rounds within one ulp (relative) when the result is normal, and
/// within one subnormal step (2^-1074 absolute) otherwise, which the final `next_up` covers. The
/// smallest bound returned while A or B is positive is therefore 2^-1074 (the smallest positive
/// double), never 0.
pub(super) fn exp_tail_bound((ak, bk2, lambda, extra): (f64, f64, f64, f64), n: u64) -> f64 {
    let n1 = n as f64 + 1.0;
    // log of (n+1)^-extra e^(-lambda (n+1)/2); n1 may round (n > 2^53): rounding down n1 only
    // raises the bound, and (n as f64) + 1 rounds to nearest, so use it minus one ulp
    let n1 = crate::enclosure::next_down(n1).max(1.0);
    let log_first = -0.5 * lambda * n1 - extra * n1.ln();
    let term = |coef: f64, log_x: f64, rate: f64| -> f64 {
        if coef == 0.0 {
            return 0.0;
        }
        // 1 - e^(-rate) = -expm1(-rate) > 0
        let log_t = coef.ln() + log_x - (-(-rate).exp_m1()).ln() + 1e-9;
        let t = log_t.exp();
        if t >= f64::MIN_POSITIVE {
            t * (1.0 + 2.0 * crate::sum::LIBM_REL)
        } else {
            crate::enclosure::next_up(t)
        }
    };
    let t1 = term(ak, log_first, 0.5 * lambda);
    let t2 = term(bk2, 2.0 * log_first, lambda);
    let sum = t1 + t2;
    // the sum rounds once (relative u when normal, absolute 2^-1075 when not)
    crate::enclosure::next_up(sum * (1.0 + U))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The dense prefix the checkpoints replaced, written out as it was (one (value, error) pair
    /// per layer), for a list.
    fn dense_measured(a: f64, b: f64, values: &[f64], extra: f64) -> Vec<(f64, f64)> {
        let mut prefix = vec![(0.0, 0.0)];
        let mut acc = Accumulator::new();
        for (i, v) in values.iter().enumerate() {
            let lf = (i + 1) as f64;
            let x = lf.powf(-extra) / v.sqrt();
            let g = (x * (a + b * x)).ln_1p();
            acc.add(g, 20.0 * U * g);
            prefix.push((acc.value(), acc.error()));
        }
        prefix
    }

    /// The same for exponential variance, over the first `len` terms.
    fn dense_exponential(
        a: f64,
        b: f64,
        c: f64,
        lambda: f64,
        extra: f64,
        len: usize,
    ) -> Vec<(f64, f64)> {
        let kappa = 1.0 / c.sqrt();
        let mut prefix = vec![(0.0, 0.0)];
        let mut acc = Accumulator::new();
        for l in 1..=len {
            let lf = l as f64;
            let x = kappa * (-0.5 * lambda * lf).exp() * lf.powf(-extra);
            let x_rel = (0.5 * lambda * lf + 8.0) * U;
            let g = (x * (a + b * x)).ln_1p();
            acc.add(g, (2.0 * x_rel + 7.0 * U) * g);
            prefix.push((acc.value(), acc.error()));
        }
        prefix
    }

    /// A reproducible pseudo-random stream in [0, 1) (SplitMix64).
    fn uniform(state: &mut u64) -> f64 {
        *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = *state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        (z ^ (z >> 31)) as f64 / 2f64.powi(64)
    }

    fn same(got: (f64, f64), want: (f64, f64), what: &str) {
        assert!(
            got.0.to_bits() == want.0.to_bits() && got.1.to_bits() == want.1.to_bits(),
            "{what}: checkpoints gave {got:?}, the dense prefix {want:?}"
        );
    }

    #[test]
    fn checkpoints_match_a_dense_prefix_bit_for_bit() {
        let mut seed = 7u64;
        // lengths around the checkpoint stride, and one long list
        for (len, extra, a, b) in [
            (1usize, 0.0, 1.0, 1.0),
            (63, 1.0, 3.5, 0.25),
            (64, 0.5, 100.0, 100.0),
            (65, 0.0, 0.0, 7.0),
            (1000, 1.0, 1.0, 1.0),
            (4097, 0.5, 12.0, 0.0),
            (20_000, 0.0, 2.0, 3.0),
        ] {
            // variances spread over many orders of magnitude (1e-3 .. 1e3)
            let values: Vec<f64> = (0..len)
                .map(|_| 10f64.powf(6.0 * uniform(&mut seed) - 3.0))
                .collect();
            let plan = DirectPlan::measured(a, b, &values, extra);
            let dense = dense_measured(a, b, &values, extra);
            let what = |n: usize| format!("list of {len}, extra {extra}, A {a}, B {b}, n = {n}");
            for (n, &want) in dense.iter().enumerate() {
                same(plan.sum(n as u64, &values), want, &what(n));
            }
            // a curve's cursor, over increasing depths with steps below and above the stride
            let mut cursor = Cursor::default();
            let mut n = 0usize;
            while n <= len {
                let got = plan.sum_from(n as u64, &values, Some(&mut cursor));
                same(got, dense[n], &what(n));
                n += 1 + (uniform(&mut seed) * 150.0) as usize;
            }
            // and in a random order (the cursor is used only when it lies before n)
            for _ in 0..500 {
                let n = (uniform(&mut seed) * (len + 1) as f64) as usize;
                same(
                    plan.sum_from(n as u64, &values, Some(&mut cursor)),
                    dense[n],
                    &what(n),
                );
            }
        }
    }

    #[test]
    fn exponential_checkpoints_match_a_dense_prefix_bit_for_bit() {
        for (lambda, extra, a, b, c) in [
            (10.0, 0.0, 1.0, 1.0, 1.0),
            (1.0, 1.0, 100.0, 100.0, 1e-3),
            (0.1, 0.5, 1.0, 1.0, 1.0),
            (0.01, 0.0, 3.0, 0.5, 1e3),
        ] {
            let plan = DirectPlan::exponential(a, b, c, lambda, extra, (0.0, 0.0));
            let dense = dense_exponential(a, b, c, lambda, extra, plan.len);
            assert!(plan.len > 1, "lambda {lambda}: {} terms", plan.len);
            let (total, te) = dense[plan.len];
            let mut cursor = Cursor::default();
            for (n, &want) in dense.iter().enumerate() {
                let what = format!("lambda {lambda}, extra {extra}, n = {n} of {}", plan.len);
                same(plan.sum(n as u64, &[]), want, &what);
                if n < plan.len {
                    // the tail below the stopping point: the backward suffix sums overlap the
                    // dense prefix's difference S(len) - S(n) and are no wider than it
                    let d = total - want.0;
                    let e = te + want.1 + U * d;
                    let (old_lo, old_hi) = (down(d - e).max(0.0), up(d + e + plan.tail.unwrap()));
                    let t = plan.tail_from(n as u64, None).unwrap();
                    assert!(t.lo <= old_hi && old_lo <= t.hi, "{what}: {t:?}");
                    assert!(t.hi - t.lo <= old_hi - old_lo, "{what}: {t:?}");
                    // and through a curve's cursor, which here always continues from n - 1
                    let c = plan.tail_from(n as u64, Some(&mut cursor)).unwrap();
                    assert_eq!(
                        (c.lo.to_bits(), c.hi.to_bits()),
                        (t.lo.to_bits(), t.hi.to_bits()),
                        "{what}"
                    );
                }
            }
        }
    }

    #[test]
    fn a_million_layer_list_keeps_checkpoints_not_a_prefix() {
        let values = vec![2.0; 1_000_000];
        let plan = DirectPlan::measured(1.0, 1.0, &values, 0.0);
        assert_eq!(plan.checkpoints.len(), 1_000_000 / CHECKPOINT_EVERY + 1);
        // 40 bytes a checkpoint: about 0.63 MB, against 16 MB of dense (value, error) pairs
        let bytes = plan.checkpoints.len() * std::mem::size_of::<Accumulator>();
        assert!(bytes < 700_000, "{bytes} bytes of checkpoints");
    }
}
