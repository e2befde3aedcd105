#!/usr/bin/env python3
"""Independent high-precision reference values for depthprod (see README.md in this folder).

S(N) = sum_{l=1}^{N} g(l),  g(l) = log(1 + A a_l + B a_l^2),  a_l = kappa * l^(-p).

Every value is computed by at least two independent routes which must agree to <= 1e-20 relative
(relative to max(1, |value|)), otherwise the case is dropped (and reported).

Routes (see README.md for details):
  route1   head sum l < M (mp log1p) + tail sum_k c_k kappa^k [zeta(kp, M) - zeta(kp, N+1)]
           (digamma differences where kp == 1), M chosen so theta = rho kappa M^-p <= 1/4,
           K chosen so that the docs/MATH.md section 4.4 (Lemma 4) truncation bound is < 1e-45.
  em-hyp   Euler-Maclaurin on g itself from J (head sum l < J), exact Taylor coefficients of g at J
           (power-series arithmetic, no numerical differentiation), integral int_J^N g(x) dx in closed
           form through Gauss 2F1 (integration by parts + partial fractions over the roots).
  em-quad  Euler-Maclaurin from a different J' with a different number of terms, integral by
           tanh-sinh quadrature in u = log x (for C: of g minus its divergent power terms).
  direct   plain mp sum of log1p (N <= 10^6), or of log(1 - r_i a_l) over the complex roots.
  closed   exact closed forms (log(N+1), Gamma-function products, Euler's sine product).
"""
import json
import math
import sys
from fractions import Fraction
import time

import mpmath
from mpmath import mp, mpf, mpc

DPS = 80                 # working precision (decimal digits)
AGREE_REL = mpf('1e-20')  # required agreement between routes, relative to max(1, |value|)
MMAX = 300000            # largest head length for route 1
JMAX = 200000            # largest head length for Euler-Maclaurin routes
OUT_DIGITS_AFTER_ERR = 6  # digits printed below the abs_err level

mp.dps = DPS


# ---------------------------------------------------------------- parameters
def setup(family, A, B, c, q):
    """Exact-double inputs -> mp parameters (p computed exactly from the double q).
    q may also be a decimal string such as '0.4': the exact rational a person typed (the core's
    input semantics); then k p == 1 is decided exactly (Fraction) and such k get s = 1 exactly."""
    exact_q = Fraction(q) if isinstance(q, str) else None
    A, B, c, q = mpf(A), mpf(B), mpf(c), (mpf(exact_q.numerator) / exact_q.denominator if exact_q is not None else mpf(q))
    if family == 'harmonic':
        kappa, p = mpf(1), mpf(1)
    else:
        kappa = 1 / mp.sqrt(c)
        p = {'unscaled': q / 2, 'scaled': 1 + q / 2, 'sqrt-scaled': (1 + q) / 2}[family]
    # roots of z^2 + A z + B  (1 + A x + B x^2 = (1 - r1 x)(1 - r2 x))
    disc = mpc(A * A - 4 * B)
    r1 = (-A + mp.sqrt(disc)) / 2
    r2 = (-A - mp.sqrt(disc)) / 2
    rho = max(abs(r1), abs(r2))
    extra = {'unscaled': Fraction(0), 'scaled': Fraction(1), 'sqrt-scaled': Fraction(1, 2), 'harmonic': None}[family]
    exact_p = Fraction(1) if family == 'harmonic' else (extra + exact_q / 2 if exact_q is not None else None)
    return dict(A=A, B=B, kappa=kappa, p=p, roots=[r1, r2], rho=rho, exact_p=exact_p)


def kp(P, k):
    """k p, exactly 1 where the exact p says k p = 1."""
    if P.get('exact_p') is not None and k * P['exact_p'] == 1:
        return mpf(1)
    return k * P['p']


def coeffs(P, K):
    """c_1..c_K of log(1 + A x + B x^2) by Newton's recurrence."""
    A, B = P['A'], P['B']
    s = [mpf(2), -A]
    for k in range(2, K + 1):
        s.append(-A * s[k - 1] - B * s[k - 2])
    return [None] + [-s[k] / k for k in range(1, K + 1)]


def g(P, l):
    x = P['kappa'] * mpf(l) ** (-P['p'])
    return mp.log1p(x * (P['A'] + P['B'] * x))


def head(P, n):
    """sum_{l=1}^{n} g(l), direct."""
    if n <= 0:
        return mpf(0)
    return mp.fsum(g(P, l) for l in range(1, n + 1))


def convergent(P):
    return P['p'] > 1 or (P['A'] == 0 and 2 * P['p'] > 1)


def leading_terms(P):
    """[(k, coeff c_k kappa^k, s = kp)] for the divergent terms kp <= 1 with c_k != 0."""
    out = []
    K = int(mp.floor(1 / P['p']))
    cs = coeffs(P, max(K, 2))
    for k in range(1, K + 1):
        if cs[k] != 0:
            out.append((k, cs[k] * P['kappa'] ** k, kp(P, k)))
    return out


def log_like_terms(P):
    """[(k, c_k kappa^k, d = 1 - kp)] for the near-resonant k: 0 < |1 - kp| < 1e-3, c_k != 0 (either
    side of the pole). The core writes each as c (N^d - 1)/d, and its constant is then
    C + sum c_k kappa^k / d_k (docs/MATH.md section 6.6): `constant_log_like`."""
    K = int(mp.floor((1 + mpf('1e-3')) / P['p'])) + 1
    cs = coeffs(P, max(K, 2))
    out = []
    for k in range(1, K + 1):
        d = 1 - kp(P, k)
        if cs[k] != 0 and d != 0 and abs(d) < mpf('1e-3'):
            out.append((k, cs[k] * P['kappa'] ** k, d))
    return out


def leading(P, N):
    tot = mpf(0)
    for k, ck, s in leading_terms(P):
        tot += ck * (mp.log(N) if s == 1 else mpf(N) ** (1 - s) / (1 - s))
    return tot


# ---------------------------------------------------------------- route 1
def hurwitz_zeta(s, a):
    """zeta(s, a) = sum_{n>=0} (a+n)^-s for real s != 1, a > 0: direct sum up to X = a + L >= s + 80,
    then Euler-Maclaurin; for s > 0 the error is below the first omitted term (x^-s is completely
    monotone), which is driven far below the working precision.
    NOT mpmath.zeta(s, a): at dps 100 it is off by ~5e-12 relative for s = 41, a = 3900 (docs/MATH.md, section 5.7)."""
    s, a = mpf(s), mpf(a)
    L = max(0, int(mp.ceil(s + 80 - a)))
    hd = mp.fsum((a + n) ** (-s) for n in range(L))
    X = a + L
    tail = X ** (1 - s) / (s - 1) + X ** (-s) / 2
    poch, j = s, 1   # poch = s (s+1) ... (s+2j-2)
    while True:
        t = mp.bernoulli(2 * j) / mp.factorial(2 * j) * poch * X ** (-s - 2 * j + 1)
        tail += t
        if abs(t) < mp.eps * 1e-10 * (abs(tail) + abs(hd)):
            break
        poch *= (s + 2 * j - 1) * (s + 2 * j)
        j += 1
    return hd + tail


def route1(P, N):
    """N: int, 'inf' or 'C'. Returns (value, error bound) or None if M too large."""
    p, kappa, rho = P['p'], P['kappa'], P['rho']
    M = max(1, int(mp.ceil((4 * rho * kappa) ** (1 / p))))
    if M > MMAX:
        return None
    if N not in ('inf', 'C') and N < M:
        return head(P, N), mpf(0)
    theta = rho * kappa * mpf(M) ** (-p)
    K = int(mp.ceil(1 / p)) + 1
    while True:
        bound = (mpf(2) / (K + 1)) * (1 + M / ((K + 1) * p - 1)) * theta ** (K + 1) / (1 - theta)
        if (K + 1) * p > 1 and bound < mpf('1e-45'):
            break
        K += 1
    cs = coeffs(P, K)
    tail = mpf(0)
    with mp.workdps(DPS + 20):   # Hurwitz zeta loses digits for large s: compute with guard digits
        for k in range(1, K + 1):
            if cs[k] == 0:
                continue
            s = kp(P, k)
            if N == 'inf':
                assert s > 1
                T = hurwitz_zeta(s, M)
            elif N == 'C':
                T = -mp.digamma(M) if s == 1 else hurwitz_zeta(s, M)
            else:
                T = (mp.digamma(N + 1) - mp.digamma(M)) if s == 1 else (hurwitz_zeta(s, M) - hurwitz_zeta(s, N + 1))
            tail += cs[k] * kappa ** k * T
    return head(P, M - 1) + tail, bound


# ---------------------------------------------------------------- Euler-Maclaurin routes
def taylor_g(P, x0, n):
    """Taylor coefficients t_0..t_n of g(x0 + h) in h (exact power-series arithmetic)."""
    x0 = mpf(x0)
    A, B, kappa, p = P['A'], P['B'], P['kappa'], P['p']

    def powser(e):  # (x0 + h)^e = x0^e sum binom(e, j) (h/x0)^j
        out, cur = [], x0 ** e
        for j in range(n + 1):
            out.append(cur)
            cur = cur * (e - j) / ((j + 1) * x0)
        return out
    y1, y2 = powser(-p), powser(-2 * p)
    f = [A * kappa * y1[j] + B * kappa ** 2 * y2[j] for j in range(n + 1)]
    f[0] += 1
    # log f: (log f)' = f'/f ; d = f'/f by series division
    fp = [(j + 1) * f[j + 1] for j in range(n)]
    d = []
    for j in range(n):
        acc = fp[j] - mp.fsum(d[i] * f[j - i] for i in range(j)) if j else fp[0]
        d.append(acc / f[0])
    return [mp.log(f[0])] + [d[j - 1] / j for j in range(1, n + 1)]


def em_correction(P, J, N, mmax=60):
    """g(J)/2 [+ g(N)/2] + sum_j B_2j/(2j) (t_{2j-1}(N) - t_{2j-1}(J)); returns (value, est. error)."""
    n = 2 * mmax + 1
    tJ = taylor_g(P, J, n)
    tN = taylor_g(P, N, n) if isinstance(N, int) else [mpf(0)] * (n + 1)
    tot = (tJ[0] + tN[0]) / 2
    prev = None
    for j in range(1, mmax + 1):
        term = mp.bernoulli(2 * j) / (2 * j) * (tN[2 * j - 1] - tJ[2 * j - 1])
        if prev is not None and abs(term) > abs(prev) and abs(term) > 0:
            break  # asymptotic series started to grow
        tot += term
        prev = term
        if abs(term) < mpf(10) ** (-DPS + 10):
            break
    return tot, abs(prev) * 10


def hyp_integral(P, J, N):
    """int_J^N g(x) dx in closed form (N int or 'inf')."""
    p, kappa = P['p'], P['kappa']
    ws = [kappa * r for r in P['roots'] if r != 0]
    if P['A'] == 0:   # g = log(1 - w x^(-2p)) with the single w = -B kappa^2
        p, ws = 2 * p, [-P['B'] * kappa ** 2]
    J = mpf(J)
    if N == 'inf':
        assert p > 1
        tot = -J * g(P, J)
        for w in ws:
            om = w * J ** (-p)
            tot -= p * J * om / (p - 1) * mp.hyp2f1(1, 1 - 1 / p, 2 - 1 / p, om)
        return mp.re(tot)
    N = mpf(N)

    def F(X, w):
        return X * mp.hyp2f1(1, 1 / p, 1 + 1 / p, X ** p / w)
    tot = N * g(P, N) - J * g(P, J)
    for w in ws:
        tot += p * (F(N, w) - F(J, w))
    return mp.re(tot)


def quad_integral(P, J, N, subtract=False):
    """int_J^N g(x) dx (or of g - divergent power terms, N = 'inf') by tanh-sinh in u = log x."""
    lt = leading_terms(P) if subtract else []
    kmin = max([k for k, _, _ in lt], default=0) + 1
    cs = coeffs(P, 400)

    def f(u):
        x = mp.exp(u)
        y = mp.exp(-P['p'] * u)   # a(x) = kappa y
        a = P['kappa'] * y
        if subtract and P['rho'] * a < mpf('1e-3'):
            # g - leading terms by its (rapidly convergent) Taylor series in a(x): avoids cancellation
            v, k = mpf(0), kmin
            while True:
                t = cs[k] * a ** k
                v += t
                if abs(P['rho'] * a) ** k < mpf(10) ** (-DPS - 5) * abs(P['rho'] * a) ** kmin:
                    break
                k += 1
            return v * x
        v = mp.log1p(a * (P['A'] + P['B'] * a))
        for k, ck, s in lt:
            v -= ck * mp.exp(-s * u)
        return v * x
    a = mp.log(J)
    if N == 'inf':
        pts = [a + t for t in (0, 0.5, 1, 2, 4, 8, 16, 32, 64, 128, 256)] + [mp.inf]
    else:
        b = mp.log(N)
        nseg = max(1, int(mp.ceil((b - a) / 1)))
        pts = [a + (b - a) * i / nseg for i in range(nseg + 1)]
    return mp.quad(f, pts)


def em_route(P, J, N, integral):
    """Euler-Maclaurin from J; N int, 'inf' or 'C'."""
    if N == 'C':
        I = quad_integral(P, J, 'inf', subtract=True)
        for k, ck, s in leading_terms(P):
            I -= ck * (mp.log(J) if s == 1 else mpf(J) ** (1 - s) / (1 - s))
        corr, err = em_correction(P, J, 'inf')
    else:
        I = integral(P, J, N)
        corr, err = em_correction(P, J, N)
    return head(P, J - 1) + I + corr, err


def em_J(P, base):
    """A J beyond the complex zeros of 1 + A a(x) + B a(x)^2 that lie on the principal sheet."""
    p, rk = P['p'], P['rho'] * P['kappa']
    J = base
    if p > mpf(1) / 2:
        J = max(J, int(mp.ceil(2 * rk ** (1 / p))) + base)
    return J if J <= JMAX else None


def direct_complex(P, N):
    """sum_l sum_i log(1 - r_i a_l) in complex arithmetic at a different precision."""
    with mp.workdps(DPS - 20):
        tot = mpc(0)
        for l in range(1, N + 1):
            a = P['kappa'] * mpf(l) ** (-P['p'])
            for r in P['roots']:
                tot += mp.log(1 - r * a)
        return mp.re(tot)


# ---------------------------------------------------------------- closed forms
def closed_form(case, P):
    fam, N = case['family'], case['n']
    A, B, c, q = (mpf(case[k]) for k in ('a', 'b', 'c', 'q'))
    if fam == 'harmonic' or (fam == 'unscaled' and q == 2):
        # prod (1 + a/l + b/l^2) = prod (l - r1)(l - r2)/l^2, r_i roots of z^2 + a z + b
        rs = [P['kappa'] * r for r in P['roots']]
        if N == 'C':
            return mp.re(-sum(mp.loggamma(1 - r) for r in rs))
        if N == 'inf':
            if A == 0:   # prod (1 + x^2/l^2) = sinh(pi x)/(pi x), x = kappa sqrt(B)
                x = P['kappa'] * mp.sqrt(B)
                return mp.log(mp.sinh(mp.pi * x) / (mp.pi * x))
            return None
        return mp.re(sum(mp.loggamma(N + 1 - r) for r in rs) - sum(mp.loggamma(1 - r) for r in rs)
                     - 2 * mp.loggamma(N + 1))
    if fam == 'unscaled' and A == 0 and B == 1 and c == 1 and q == 1 and N not in ('inf', 'C'):
        return mp.log(N + 1)
    if fam == 'scaled' and q == 2 and N == 'inf':
        # 1 + a t + b t^2 = (1 + r1 t)(1 + r2 t): r_i = -kappa * roots
        return mp.re(sum(mp.log(mp.sinh(mp.pi * mp.sqrt(-P['kappa'] * r)) / (mp.pi * mp.sqrt(-P['kappa'] * r)))
                         for r in P['roots'] if r != 0))
    return None


# ---------------------------------------------------------------- cases
E = 10 ** 18
Q_2_MINUS_ULP = '1.9999999999999997779553950749686919152736663818359375'   # 2 - 2^-52 exactly
assert Fraction(Q_2_MINUS_ULP) == Fraction(2 - 2.0 ** -52)
CASES = [
    # --- the seed: A = B = 1, c = 1, q = 1
    ('seed-unscaled-10', 'unscaled', 1, 1, 1, 1, 10),
    ('seed-unscaled-1e3', 'unscaled', 1, 1, 1, 1, 1000),
    ('seed-unscaled-1e6', 'unscaled', 1, 1, 1, 1, 10 ** 6),
    ('seed-unscaled-1e9', 'unscaled', 1, 1, 1, 1, 10 ** 9),
    ('seed-unscaled-1e18', 'unscaled', 1, 1, 1, 1, E),
    ('seed-unscaled-C', 'unscaled', 1, 1, 1, 1, 'C'),
    ('seed-scaled-1e6', 'scaled', 1, 1, 1, 1, 10 ** 6),
    ('seed-scaled-1e18', 'scaled', 1, 1, 1, 1, E),
    ('seed-scaled-inf', 'scaled', 1, 1, 1, 1, 'inf'),
    ('seed-harmonic-1e6', 'harmonic', 1, 1, 1, 1, 10 ** 6),
    ('seed-harmonic-C', 'harmonic', 1, 1, 1, 1, 'C'),
    ('seed-sqrt-scaled-1e6', 'sqrt-scaled', 1, 1, 1, 1, 10 ** 6),
    ('seed-sqrt-scaled-C', 'sqrt-scaled', 1, 1, 1, 1, 'C'),
    ('lns-scaled-q1.5-inf', 'scaled', 1, 1, 1, 1.5, 'inf'),
    # --- exact closed forms
    ('exact-unscaled-A0B1-1e6', 'unscaled', 0, 1, 1, 1, 10 ** 6),
    ('exact-unscaled-A0B1-1e18', 'unscaled', 0, 1, 1, 1, E),
    ('exact-unscaled-A2B1q2-12345', 'unscaled', 2, 1, 1, 2, 12345),
    ('exact-unscaled-A2B1q2-1e12', 'unscaled', 2, 1, 1, 2, 10 ** 12),
    ('exact-scaled-A3B2q2-inf', 'scaled', 3, 2, 1, 2, 'inf'),
    ('exact-harmonic-A0B2-inf', 'harmonic', 0, 2, 1, 1, 'inf'),
    # --- spread: A^2 < 4B
    ('unscaled-cplx-7', 'unscaled', 0.5, 3, 0.37, 0.7, 7),
    ('unscaled-cplx-1000', 'unscaled', 0.5, 3, 0.37, 0.7, 1000),
    ('unscaled-cplx-1e7', 'unscaled', 0.5, 3, 0.37, 0.7, 10 ** 7),
    ('unscaled-cplx-1e12', 'unscaled', 0.5, 3, 0.37, 0.7, 10 ** 12),
    ('unscaled-cplx-C', 'unscaled', 0.5, 3, 0.37, 0.7, 'C'),
    # --- A^2 = 4B
    ('unscaled-double-root-1', 'unscaled', 10, 25, 2.5, 3.3, 1),
    ('unscaled-double-root-1000', 'unscaled', 10, 25, 2.5, 3.3, 1000),
    ('unscaled-double-root-inf', 'unscaled', 10, 25, 2.5, 3.3, 'inf'),
    # --- A^2 > 4B, extreme c and q
    ('scaled-real-12345', 'scaled', 37.5, 12.25, 0.001, 0.05, 12345),
    ('scaled-real-1e18', 'scaled', 37.5, 12.25, 0.001, 0.05, E),
    ('scaled-real-inf', 'scaled', 37.5, 12.25, 0.001, 0.05, 'inf'),
    ('sqrt-scaled-bigA-7', 'sqrt-scaled', 99, 0.5, 1000, 1.7, 7),
    ('sqrt-scaled-bigA-1e7', 'sqrt-scaled', 99, 0.5, 1000, 1.7, 10 ** 7),
    ('sqrt-scaled-bigA-inf', 'sqrt-scaled', 99, 0.5, 1000, 1.7, 'inf'),
    ('unscaled-q8-7', 'unscaled', 3, 2, 7.5, 8, 7),
    ('unscaled-q8-inf', 'unscaled', 3, 2, 7.5, 8, 'inf'),
    ('unscaled-p075-1e18', 'unscaled', 5, 7, 3, 1.5, E),
    ('unscaled-p075-C', 'unscaled', 5, 7, 3, 1.5, 'C'),
    # --- A = 0
    ('sqrt-scaled-A0-1000', 'sqrt-scaled', 0, 40, 0.05, 0.6, 1000),
    ('sqrt-scaled-A0-inf', 'sqrt-scaled', 0, 40, 0.05, 0.6, 'inf'),
    ('unscaled-A0-q0.5-1e7', 'unscaled', 0, 4, 0.2, 0.5, 10 ** 7),
    ('unscaled-A0-q0.5-C', 'unscaled', 0, 4, 0.2, 0.5, 'C'),
    # --- harmonic
    ('harmonic-real-12345', 'harmonic', 2.75, 0.3, 1, 1, 12345),
    ('harmonic-real-1e18', 'harmonic', 2.75, 0.3, 1, 1, E),
    ('harmonic-real-C', 'harmonic', 2.75, 0.3, 1, 1, 'C'),
    ('harmonic-cplx-C', 'harmonic', 1.5, 5, 1, 1, 'C'),
    # --- hard corners
    ('corner-unscaled-q0.1-1e6', 'unscaled', 1, 1, 1, 0.1, 10 ** 6),
    ('corner-unscaled-q0.1-1e12', 'unscaled', 1, 1, 1, 0.1, 10 ** 12),
    ('corner-unscaled-q2/3-1e9', 'unscaled', 1, 1, 1, 2 / 3, 10 ** 9),   # kp = 3 q/2 = 1 - 1.1e-16
    # --- depths at and beyond 2^32 and 2^53 (wasm32 must not truncate them)
    ('seed-unscaled-2^32-1', 'unscaled', 1, 1, 1, 1, 2 ** 32 - 1),
    ('seed-unscaled-2^32', 'unscaled', 1, 1, 1, 1, 2 ** 32),
    ('seed-scaled-2^32+1', 'scaled', 1, 1, 1, 1, 2 ** 32 + 1),
    ('seed-sqrt-scaled-2^53-1', 'sqrt-scaled', 1, 1, 1, 1, 2 ** 53 - 1),
    ('harmonic-real-2^53+2', 'harmonic', 2.75, 0.3, 1, 1, 2 ** 53 + 2),
    # --- near-resonant exponents (k p close to 1, not equal)
    ('near-resonant-unscaled-q1.99999-1e9', 'unscaled', 1, 1, 1, 1.99999, 10 ** 9),
    ('near-resonant-sqrt-scaled-q1.0001-1e12', 'sqrt-scaled', 1, 1, 1, 1.0001, 10 ** 12),
    # --- exact resonance: a typed q = '0.4' is 2/5, so 5 p = 1 exactly (a log N term; C has digamma)
    ('resonant-unscaled-q0.4-C', 'unscaled', 1, 1, 1, '0.4', 'C'),
    ('resonant-unscaled-q0.4-A0.01-C', 'unscaled', 0.01, 1, 1000, '0.4', 'C'),
    ('resonant-unscaled-q0.4-1e6', 'unscaled', 1, 1, 1, '0.4', 10 ** 6),
    # --- near-resonant exponents : q = 2 - 2^-52 (the double) and the decimal
    # '1.9999999999999998' (a different rational), 1.9999999, 1.99999; sqrt-scaled on both sides
    # of q = 1; unscaled q = 1.0000001 (2p just above 1). C cases also give constant_log_like.
    # (2 - 2^-52 as its exact decimal string: serde_json's default float parser does not round
    # 1.9999999999999998 correctly, and the string is the same rational)
    ('near-resonant-unscaled-q2-2^-52-1e18', 'unscaled', 1, 1, 1, Q_2_MINUS_ULP, E),
    ('near-resonant-unscaled-q2-2^-52-C', 'unscaled', 1, 1, 1, Q_2_MINUS_ULP, 'C'),
    ('near-resonant-unscaled-q"1.9999999999999998"-1e18', 'unscaled', 1, 1, 1, '1.9999999999999998', E),
    ('near-resonant-unscaled-q"1.9999999999999998"-C', 'unscaled', 1, 1, 1, '1.9999999999999998', 'C'),
    ('near-resonant-unscaled-q"1.9999999"-1e18', 'unscaled', 1, 1, 1, '1.9999999', E),
    ('near-resonant-unscaled-q"1.9999999"-C', 'unscaled', 1, 1, 1, '1.9999999', 'C'),
    ('near-resonant-unscaled-q1.99999-1e18', 'unscaled', 1, 1, 1, 1.99999, E),
    ('near-resonant-unscaled-q1.99999-C', 'unscaled', 1, 1, 1, 1.99999, 'C'),
    ('near-resonant-sqrt-scaled-q"0.9999999"-1e18', 'sqrt-scaled', 1, 1, 1, '0.9999999', E),
    ('near-resonant-sqrt-scaled-q"0.9999999"-C', 'sqrt-scaled', 1, 1, 1, '0.9999999', 'C'),
    ('near-resonant-sqrt-scaled-q"1.0000001"-1e18', 'sqrt-scaled', 1, 1, 1, '1.0000001', E),
    ('near-resonant-sqrt-scaled-q"1.0000001"-inf', 'sqrt-scaled', 1, 1, 1, '1.0000001', 'inf'),
    ('near-resonant-unscaled-q"1.0000001"-1e12', 'unscaled', 1, 1, 1, '1.0000001', 10 ** 12),
    ('near-resonant-unscaled-q"1.0000001"-C', 'unscaled', 1, 1, 1, '1.0000001', 'C'),
]


def fmt(x, err):
    """Decimal string with digits down to err * 10^-OUT_DIGITS_AFTER_ERR (>= 30 significant)."""
    mag = int(mp.floor(mp.log10(abs(x)))) if x != 0 else 0
    e = int(mp.floor(mp.log10(err))) if err > 0 else -DPS + 15
    n = max(30, mag - e + OUT_DIGITS_AFTER_ERR)
    n = min(n, DPS - 10)
    return mp.nstr(x, n, strip_zeros=False, min_fixed=-mp.inf, max_fixed=mp.inf)


def run_case(spec):
    cid, fam, A, B, c, q, N = spec
    case = dict(id=cid, family=fam, a=A, b=B, c=c, q=q,
                n=('inf' if N in ('inf', 'C') else str(N)))
    P = setup(fam, A, B, c, q)
    if N == 'inf' and not convergent(P):
        raise ValueError(cid + ': divergent')
    if N == 'C' and convergent(P):
        raise ValueError(cid + ': convergent, no C')
    routes = {}
    errs = {}
    t0 = time.time()
    r = route1(P, N)
    if r is not None:
        routes['route1'], errs['route1'] = r
    J1 = em_J(P, 100)
    J2 = em_J(P, 317)
    small = N not in ('inf', 'C') and J1 is not None and N < J1
    if small:
        routes['direct-complex'], errs['direct-complex'] = direct_complex(P, N), mpf(10) ** (-DPS + 25)
    else:
        if N != 'C' and J1 is not None:
            routes['em-hyp'], errs['em-hyp'] = em_route(P, J1, N, hyp_integral)
        if J2 is not None:
            routes['em-quad'], errs['em-quad'] = em_route(P, J2, N, quad_integral)
        if N not in ('inf', 'C') and N <= 10 ** 6 and 'route1' not in routes:
            routes['direct'], errs['direct'] = head(P, N), mpf(10) ** (-DPS + 15)
    cf = closed_form(case | {'n': N}, P)
    if cf is not None:
        routes['closed-form'], errs['closed-form'] = cf, mpf(10) ** (-DPS + 15)
    names = list(routes)
    if len(names) < 2:
        return None, cid + ': fewer than two routes available (' + ','.join(names) + ')'
    vals = [routes[k] for k in names]
    diff = max(abs(x - y) for x in vals for y in vals)
    order = ['closed-form', 'route1', 'em-hyp', 'direct', 'em-quad', 'direct-complex']
    best = next(k for k in order if k in routes)
    v = routes[best]
    scale = max(mpf(1), abs(v))
    if diff > AGREE_REL * scale:
        return None, '%s: routes disagree by %s (%s)' % (cid, mp.nstr(diff, 3),
                                                          {k: mp.nstr(x, 25) for k, x in routes.items()})
    est = max(errs.values())
    bound = max(10 * diff, 10 * est, mpf(10) ** (-DPS + 20) * scale)
    abs_err = mpf(10) ** int(mp.ceil(mp.log10(bound)))
    key = 'constant_c' if N == 'C' else 'log_product'
    case[key] = fmt(v, abs_err)
    if N == 'C':
        case['kind'] = 'asymptotic-constant'
        case['leading_terms'] = [
            {'coefficient': mp.nstr(ck if s == 1 else ck / (1 - s), 40), 'exponent': '0' if s == 1 else mp.nstr(1 - s, 40),
             'log': s == 1} for k, ck, s in leading_terms(P)]
        near = log_like_terms(P)
        if near:
            # the same constant for the log-like form: C + sum c_k/d_k (80 digits: no cancellation
            # that matters at this precision)
            case['constant_log_like'] = fmt(v + sum(ck / d for k, ck, d in near), abs_err)
            case['log_like_terms'] = [{'coefficient': mp.nstr(ck, 40), 'exponent': mp.nstr(d, 40)}
                                      for k, ck, d in near]
    case['abs_err'] = mp.nstr(abs_err, 1)
    case['value_from'] = best
    for k in names:
        case[k if k.startswith('route') else 'route:' + k] = fmt(routes[k], abs_err)
    case['route1'] = case.get('route1', '(not available: M > %d)' % MMAX)
    alt = [k for k in names if k != best]
    case['route2'] = fmt(routes[alt[0]], abs_err) + ' [' + alt[0] + ']'
    case['agreement'] = mp.nstr(diff, 3)
    case['seconds'] = round(time.time() - t0, 2)
    return case, None


def trap_checks():
    """docs/MATH.md section 5.7 traps, re-verified, plus the consistency of the C convention."""
    out = {}
    P = setup('unscaled', 1, 1, 1, 1)
    C, _ = route1(P, 'C')
    for e in (20, 30, 40):   # S(N) - leading(N) - C -> 0 like N^-1/2
        S, _ = route1(P, 10 ** e)
        out['seed-unscaled: S(1e%d) - leading - C' % e] = mp.nstr(S - leading(P, 10 ** e) - C, 6)
    with mp.workdps(30):
        f = lambda l: mp.log1p(l ** -1.5 + l ** -3)
        out['mpmath nsum default, seed scaled limit (wrong)'] = mp.nstr(mp.nsum(f, [1, mp.inf]), 30)
    with mp.workdps(100):
        z_mp, z_ref = mp.zeta(mpf(41), 3900), hurwitz_zeta(41, 3900)
        out['mpmath zeta(41, 3900) relative error at dps 100'] = mp.nstr((z_mp - z_ref) / z_ref, 3)
    out['seed scaled limit (this file)'] = mp.nstr(route1(setup('scaled', 1, 1, 1, 1), 'inf')[0], 30)
    return out


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else 'tests/reference/reference.json'
    only = sys.argv[2:]
    cases, dropped = [], []
    worst = (mpf(0), None)
    for spec in CASES:
        if only and spec[0] not in only:
            continue
        case, why = run_case(spec)
        if case is None:
            dropped.append(why)
            print('DROPPED', why, flush=True)
            continue
        rel = mpf(case['agreement']) / max(1, abs(mpf(case.get('log_product', case.get('constant_c')))))
        if rel >= worst[0]:
            worst = (rel, case['id'])
        print('%-32s %-44s err %-6s agree %-9s %5.1fs' % (case['id'], case.get('log_product', case.get('constant_c'))[:44],
                                                        case['abs_err'], case['agreement'], case['seconds']), flush=True)
        cases.append(case)
    checks = trap_checks() if not only else {}
    doc = {
        'generated_by': 'tests/reference/make_reference.py (Python %s, mpmath %s, mp.dps = %d)'
                        % (sys.version.split()[0], mpmath.__version__, DPS),
        'definition': 'S(N) = sum_{l=1}^{N} log(1 + A a_l + B a_l^2), a_l = kappa l^-p; unscaled p = q/2, '
                      'scaled p = 1 + q/2, sqrt-scaled p = (1+q)/2, kappa = c^-1/2; harmonic p = 1, kappa = 1. '
                      'a, b, c, q are IEEE doubles; p and kappa are computed exactly from them (not rounded). '
                      'n = "inf" with log_product: the limit (convergent cases). kind = asymptotic-constant: '
                      'S(N) = sum_{kp<1, c_k != 0} c_k kappa^k N^(1-kp)/(1-kp) + [c_k kappa^k log N if kp = 1] '
                      '+ constant_c + o(1), the leading terms are listed per case.',
        'agreement_rule': 'every value from >= 2 independent routes agreeing to <= 1e-20 * max(1, |value|); '
                          'abs_err = power of ten >= 10 * max(route disagreement, route error estimates)',
        'worst_relative_disagreement': [mp.nstr(worst[0], 3), worst[1]],
        'dropped': dropped,
        'checks': checks,
        'cases': cases,
    }
    with open(out, 'w') as fh:
        json.dump(doc, fh, indent=1)
        fh.write('\n')
    print('%d cases, %d dropped, worst relative disagreement %s (%s)'
          % (len(cases), len(dropped), mp.nstr(worst[0], 3), worst[1]))


if __name__ == '__main__':
    main()
