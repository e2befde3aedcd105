#!/usr/bin/env python3
"""Reference values for inputs typed as exact decimals: rotations, exponential-variance tails, a
coefficient that vanishes beside a pole, and c outside [1e-3, 1e3] (the effective coefficients).
Every input is a decimal string and means the exact rational it denotes (Python Fraction), as the
core reads typed text. Each value comes from two independent routes that must agree to 1e-30
(relative to max(1, |value|)); a case that does not is an error, never dropped silently.

    pip install mpmath==1.3.0
    cd tests/reference && python3 make_exact_decimals.py      # writes exact_decimals.json

Sections (see README.md):
- rotation: theta sum_{l<=n} l^-r and the matrix entries cos, sin of it. Route 1: mpmath at 80
  digits (H = harmonic(n) or zeta(r) - zeta(r, n+1); cos/sin of the whole angle). Route 2: the angle
  reduced modulo 2 pi exactly against pi from Machin's formula in integers (r = 0: theta n is a
  Fraction), H by a direct sum (n <= 10^5) or our own Euler-Maclaurin sum (n > 10^5), and cos/sin
  of the reduced angle by their Taylor series.
- exp_tails: sum_{l>N} log(1 + A a_l + B a_l^2), a_l = c^(-1/2) e^(-lambda l/2) l^(-extra). Route 1:
  direct sum to L (where rho kappa e^(-lambda L/2) <= 1/64), then the log series sum_k c_k kappa^k
  sum_{l>L} e^(-k lambda l/2) l^(-k extra) (geometric, or mpmath's lerchphi). Route 2:
  Euler-Maclaurin from J = N + 1 + 8 (direct terms before it) with mpmath's quadrature of the
  integral to infinity and mpmath's numerical derivatives at J (4 correction terms).
- zero_coefficient and effective: power laws a_l = kappa l^-p, the sum S(N) or the constant C
  (S(N) minus its leading terms, N -> infinity). Both routes: direct head to M, then
  sum_k c_k kappa^k [zeta(kp, M) - zeta(kp, N+1)] (C: zeta(kp, M), analytic continuation for
  kp < 1; Hurwitz zeta by make_reference.py's own Euler-Maclaurin), with c_k from the exact A, B (an exactly zero c_k is left out: its term is 0), at two
  different M (rho kappa M^-p <= 1/4 and <= 1/32). Exponential variance in `effective`: the exp_tails
  routes at N = 0.
"""
import json
import sys
import time
from fractions import Fraction as F

import make_reference as R
from mpmath import mp, mpf

mp.dps = 60
AGREE = mpf('1e-30')


def fr(x):
    return F(x)


def mpq(q):
    return mpf(q.numerator) / q.denominator


# ------------------------------------------------------------------ pi in integers (Machin)
def machin_pi(digits):
    """floor(pi 10^digits), from pi = 16 atan(1/5) - 4 atan(1/239) in integers (each series
    truncated with guard digits)."""
    guard = 20
    scale = 10 ** (digits + guard)

    def atan_inv(x):
        total, term, n, sign, x2 = 0, scale // x, 1, 1, x * x
        while term:
            total += sign * (term // n)
            term //= x2
            n += 2
            sign = -sign
        return total

    return (16 * atan_inv(5) - 4 * atan_inv(239)) // 10 ** guard


PI_DIGITS = 120
PI_FRACTION = F(machin_pi(PI_DIGITS), 10 ** PI_DIGITS)  # within 1e-119 of pi (below it)


# ------------------------------------------------------------------ rotation
def harmonic_em(r, n, dps=80):
    """sum_{l=1}^{n} l^-r by our own Euler-Maclaurin: direct to J, then int_J^n + (f(J)+f(n))/2 +
    Bernoulli corrections (analytic derivatives of x^-r)."""
    with mp.workdps(dps):
        J = 1000
        s = mp.fsum(mpf(l) ** (-r) for l in range(1, J))
        a, b = mpf(J), mpf(n)
        if r == 1:
            integral = mp.log(b) - mp.log(a)
        else:
            integral = (b ** (1 - r) - a ** (1 - r)) / (1 - r)
        s += integral + (a ** (-r) + b ** (-r)) / 2
        for j in range(1, 25):
            # d^(2j-1)/dx^(2j-1) x^-r = (-r)(-r-1)...(-r-2j+2) x^(-r-2j+1)
            k = 2 * j - 1
            coef = mp.rf(-r - k + 1, k)  # (-r-k+1)...(-r-1)(-r)
            deriv = lambda x: coef * x ** (-r - k)
            s += mp.bernoulli(2 * j) / mp.factorial(2 * j) * (deriv(b) - deriv(a))
        return s


def rotation_case(theta_text, r, n):
    theta = fr(theta_text)
    # route 1
    with mp.workdps(80):
        if r == 0:
            h1 = mpf(n)
        elif r == 1:
            h1 = mp.harmonic(n)
        else:
            h1 = mp.zeta(r) - mp.zeta(r, n + 1)
        angle1 = mpq(theta) * h1
        c1, s1 = mp.cos(angle1), mp.sin(angle1)
    # route 2
    with mp.workdps(90):
        if r == 0:
            exact = theta * n
            turns = round(exact / (2 * PI_FRACTION))
            reduced = mpq(exact - 2 * turns * PI_FRACTION)
            angle2 = mpq(exact)
        else:
            h2 = mp.fsum(mpf(l) ** (-r) for l in range(1, n + 1)) if n <= 10 ** 5 else harmonic_em(r, n)
            angle2 = mpq(theta) * h2
            pi = mpq(PI_FRACTION)
            turns = int(mp.nint(angle2 / (2 * pi)))
            reduced = angle2 - 2 * turns * pi
        # Taylor series of cos and sin at the reduced argument (|x| <= pi + tiny)
        x = reduced
        term, c2, s2, k = mpf(1), mpf(0), mpf(0), 0
        while True:
            if k % 2 == 0:
                c2 += term if k % 4 == 0 else -term
            else:
                s2 += term if k % 4 == 1 else -term
            k += 1
            term = term * x / k
            if abs(term) < mpf(10) ** -85 and k > 10:
                break
    for name, u, v in (('angle', angle1, angle2), ('cos', c1, c2), ('sin', s1, s2)):
        diff = abs(u - v) / max(1, abs(u))
        assert diff < AGREE, (theta_text, r, n, name, u, v)
    return dict(theta=theta_text, r=r, n=str(n), angle=mp.nstr(angle1, 45), cos=mp.nstr(c1, 40),
                sin=mp.nstr(s1, 40))


ROTATIONS = [
    (t, r, n)
    for t in ['0.1', '1', '-0.75', '100', '-100', '0.123456789', '3.14159265358979323846264338327950288',
              '99.999999999999999999']
    for r in (0, 1, 2, 3)
    for n in (1, 10, 1000, 100000, 10 ** 6, 999999999999999999, 10 ** 18)
]


# ------------------------------------------------------------------ series helpers
EXTRA = {'unscaled': F(0), 'scaled': F(1), 'sqrt-scaled': F(1, 2)}


def coeffs(A, B, K):
    """c_1..c_K of log(1 + A x + B x^2) (Newton's recurrence), exactly when A, B are Fractions."""
    s = [2 * A ** 0, -A]
    for k in range(2, K + 1):
        s.append(-A * s[k - 1] - B * s[k - 2])
    return [None] + [-s[k] / k for k in range(1, K + 1)]


def rho_of(A, B):
    disc = A * A - 4 * B
    return (A + mp.sqrt(disc)) / 2 if disc >= 0 else mp.sqrt(B)


# ------------------------------------------------------------------ exponential tails
def exp_tail_series(fam, A, B, c, lam, N, ratio):
    """Route 1: direct to L, then the log series (module docs)."""
    Am, Bm, cm, lm = mpq(A), mpq(B), mpq(c), mpq(lam)
    kappa, extra, mu = 1 / mp.sqrt(cm), mpq(EXTRA[fam]), lm / 2
    rho = rho_of(Am, Bm)
    L = max(N, int(mp.ceil(mp.log(rho * kappa / ratio) / mu)) if rho * kappa > ratio else N)

    def g(l):
        x = kappa * mp.exp(-mu * l) * mpf(l) ** (-extra)
        return mp.log1p(x * (Am + Bm * x))

    direct = mp.fsum(g(l) for l in range(N + 1, L + 1))
    theta = rho * kappa * mp.exp(-mu * (L + 1))
    K = 1
    while theta ** K > mpf(10) ** -(mp.dps + 5):
        K += 1
    cs = coeffs(Am, Bm, K)
    series = mpf(0)
    for k in range(1, K + 1):
        z = mp.exp(-k * mu)
        if extra == 0:
            inner = z ** (L + 1) / (1 - z)
        else:
            inner = z ** (L + 1) * mp.lerchphi(z, k * extra, L + 1)
        series += cs[k] * kappa ** k * inner
    return direct + series


def exp_taylor(A, B, kappa, mu, extra, J, n):
    """Taylor coefficients t_0..t_n of g(J + h) in h, g = log(1 + A x + B x^2),
    x(J + h) = x(J) e^(-mu h) (1 + h/J)^(-extra): power-series arithmetic, no numerical derivatives."""
    J = mpf(J)
    e = [mpf(1)]
    v = [mpf(1)]
    for j in range(1, n + 1):
        e.append(e[-1] * (-mu) / j)
        v.append(v[-1] * (-extra - j + 1) / (j * J))
    uv = [mp.fsum(e[i] * v[j - i] for i in range(j + 1)) for j in range(n + 1)]
    x0 = kappa * mp.exp(-mu * J) * J ** (-extra)
    x = [x0 * c for c in uv]
    xx = [mp.fsum(x[i] * x[j - i] for i in range(j + 1)) for j in range(n + 1)]
    w = [A * x[j] + B * xx[j] for j in range(n + 1)]
    w[0] += 1
    wp = [(j + 1) * w[j + 1] for j in range(n)]
    d = []
    for j in range(n):
        acc = wp[j] - mp.fsum(d[i] * w[j - i] for i in range(j))
        d.append(acc / w[0])
    return [mp.log(w[0])] + [d[j - 1] / j for j in range(1, n + 1)]


def exp_tail_em(fam, A, B, c, lam, N):
    """Route 2: Euler-Maclaurin with quadrature (module docs)."""
    Am, Bm, cm, lm = mpq(A), mpq(B), mpq(c), mpq(lam)
    kappa, extra, mu = 1 / mp.sqrt(cm), mpq(EXTRA[fam]), lm / 2

    def g(t):
        x = kappa * mp.exp(-mu * t) * t ** (-extra)
        return mp.log1p(x * (Am + Bm * x))

    J = N + 200
    direct = mp.fsum(g(mpf(l)) for l in range(N + 1, J))
    # quad works to an absolute tolerance: scale g to 1 at J so that tails of 1e-250 get the
    # same relative accuracy as tails of 1
    t = exp_taylor(Am, Bm, kappa, mu, extra, J, 61)
    scale = g(mpf(J))

    def h(x):
        return g(x) / scale

    edges = [mpf(J)] + [J + k / mu for k in (1, 4, 16, 64, 256, 1024)] + [mp.inf]
    integral = mp.quad(h, edges)
    corr = mpf(1) / 2
    prev = None
    for j in range(1, 31):
        term = mp.bernoulli(2 * j) / (2 * j) * t[2 * j - 1] / scale
        if prev is not None and abs(term) > abs(prev):
            break
        corr -= term
        prev = term
        if abs(term) < mpf(10) ** -(mp.dps + 5):
            break
    return direct + scale * (integral + corr)


EXP_TAILS = [
    # family, A, B, c, lambda, depths
    ('unscaled', '2.5', '0.4', '0.6', '0.005',
     [0, 1, 10, 62, 63, 64, 100, 1000, 2000, 5000, 10000, 20000, 50000, 100000, 200000, 250000]),
    ('scaled', '1', '1', '4', '0.001', [0, 1, 63, 64, 500, 5000, 50000, 500000, 1000000]),
    ('sqrt-scaled', '2', '1', '9', '0.01', [0, 1, 64, 100, 1000, 10000, 50000, 100000]),
    ('unscaled', '100', '100', '0.001', '0.001', [0, 1, 100, 10000, 100000, 1000000]),
    ('scaled', '0.3', '0.045', '0.7', '0.02', [0, 5, 70, 700, 7000, 30000]),
]


def exp_tail_case(fam, a, b, c, lam, N):
    A, B, cc, ll = fr(a), fr(b), fr(c), fr(lam)
    t1 = exp_tail_series(fam, A, B, cc, ll, N, mpf(1) / 64)
    t2 = exp_tail_em(fam, A, B, cc, ll, N)
    rel = abs(t1 - t2) / abs(t1)
    assert rel < AGREE, (fam, a, b, c, lam, N, t1, t2)
    return dict(family=fam, a=a, b=b, c=c, **{'lambda': lam}, n=N, tail=mp.nstr(t1, 45),
                agreement=mp.nstr(rel, 3))


# ------------------------------------------------------------------ power laws (exact inputs)
def power_setup(fam, a, b, c, q):
    A, B, cc, qq = fr(a), fr(b), fr(c), fr(q)
    p = {'unscaled': qq / 2, 'scaled': 1 + qq / 2, 'sqrt-scaled': (1 + qq) / 2, 'harmonic': F(1)}[fam]
    kappa = mpf(1) if fam == 'harmonic' else 1 / mp.sqrt(mpq(cc))
    return A, B, kappa, p


def power_route(fam, a, b, c, q, N, ratio):
    """S(N) (N an int) or C (N None) by head to M + Hurwitz series; exact zero c_k left out."""
    A, B, kappa, p = power_setup(fam, a, b, c, q)
    Am, Bm, pm = mpq(A), mpq(B), mpq(p)
    rho = rho_of(Am, Bm)
    M = max(2, int(mp.ceil((rho * kappa / ratio) ** (1 / pm))))
    assert M < 400000, M
    if N is not None and N < M:
        return mp.fsum(mp.log1p(kappa * mpf(l) ** -pm * (Am + Bm * kappa * mpf(l) ** -pm)) for l in range(1, N + 1)), []
    head = mp.fsum(mp.log1p(kappa * mpf(l) ** -pm * (Am + Bm * kappa * mpf(l) ** -pm)) for l in range(1, M))
    theta = rho * kappa * mpf(M) ** -pm
    K = 1
    while theta ** K * M > mpf(10) ** -(mp.dps + 5):
        K += 1
    cs = coeffs(A, B, K)  # exact Fractions
    total = head
    leading = []
    for k in range(1, K + 1):
        if cs[k] == 0:
            continue
        ck = mpq(cs[k]) * kappa ** k
        s = k * p  # exact Fraction
        sm = mpq(s)
        # make_reference's own Hurwitz zeta (mpmath's loses digits at large s and a), with guard digits
        with mp.workdps(mp.dps + 20):
            if N is None:
                if s == 1:
                    total += ck * -mp.digamma(M)
                    leading.append((k, 'log'))
                else:
                    total += ck * R.hurwitz_zeta(sm, M)
                    if s < 1:
                        leading.append((k, mp.nstr(ck / (1 - sm), 30)))
            else:
                if s == 1:
                    total += ck * (mp.digamma(N + 1) - mp.digamma(M))
                else:
                    total += ck * (R.hurwitz_zeta(sm, M) - R.hurwitz_zeta(sm, N + 1))
    return total, leading


def power_case(section, fam, a, b, c, q, N):
    v1, lead = power_route(fam, a, b, c, q, N, mpf(1) / 4)
    v2, _ = power_route(fam, a, b, c, q, N, mpf(1) / 32)
    rel = abs(v1 - v2) / max(1, abs(v1))
    assert rel < AGREE, (section, fam, a, b, c, q, N, v1, v2)
    return dict(family=fam, a=a, b=b, c=c, q=q, n='C' if N is None else str(N),
                value=mp.nstr(v1, 45), agreement=mp.nstr(rel, 3), leading=lead)


ZERO_COEFFICIENT = [
    # c_2 = B - A^2/2 = 0 exactly beside 2p = 1 + 1e-16 (the audit's case), and beside 2p = 1 exactly
    ('unscaled', '0.3', '0.045', '1', '1.0000000000000001'),
    ('unscaled', '0.3', '0.045', '1', '1'),
    ('unscaled', '1', '0.5', '2', '0.99999999999999'),
    # c_3 = A (A^2/3 - B) = 0 exactly beside 3p = 1 + 1.5e-16
    ('unscaled', '0.3', '0.03', '1', '0.6666666666666667'),
]
ZERO_DEPTHS = [None, 10, 1000, 10 ** 6, 10 ** 12, 10 ** 18]

EFFECTIVE = [
    # c outside [1e-3, 1e3], A/sqrt(c) and B/c inside their ranges
    ('unscaled', '0.5', '0.01', '0.000327206', '1.3'),
    ('scaled', '1', '1', '0.00001', '1'),
    ('scaled', '100', '1', '1e7', '2'),
    ('sqrt-scaled', '1', '0.05', '0.000001', '1.5'),
    ('unscaled', '0.02', '0.0001', '0.0000004', '2.5'),
]
EFFECTIVE_DEPTHS = [None, 1000, 10 ** 6, 10 ** 18]
EFFECTIVE_EXP = [
    ('unscaled', '0.5', '0.01', '0.00001', '0.05'),
    ('scaled', '3', '0.5', '5000', '0.5'),
]


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else 'exact_decimals.json'
    started = time.time()
    import mpmath
    data = dict(generated_by='tests/reference/make_exact_decimals.py (mpmath %s)' % mpmath.__version__,
                definition=__doc__.strip().splitlines()[0])
    data['rotation'] = [rotation_case(*case) for case in ROTATIONS]
    print('rotation', len(data['rotation']), round(time.time() - started), 's', flush=True)
    data['exp_tails'] = []
    for fam, a, b, c, lam, depths in EXP_TAILS:
        for N in depths:
            data['exp_tails'].append(exp_tail_case(fam, a, b, c, lam, N))
            print('exp tail', fam, a, b, c, lam, N, data['exp_tails'][-1]['tail'][:25],
                  round(time.time() - started), 's', flush=True)
    data['zero_coefficient'] = [power_case('zero', *case, N) for case in ZERO_COEFFICIENT for N in ZERO_DEPTHS]
    print('zero coefficient', len(data['zero_coefficient']), round(time.time() - started), 's', flush=True)
    data['effective'] = [power_case('effective', *case, N) for case in EFFECTIVE for N in EFFECTIVE_DEPTHS]
    for fam, a, b, c, lam in EFFECTIVE_EXP:
        data['effective'].append(dict(exp_tail_case(fam, a, b, c, lam, 0), kind='exponential-limit'))
    print('effective', len(data['effective']), round(time.time() - started), 's', flush=True)
    with open(out, 'w') as f:
        json.dump(data, f, indent=1)


if __name__ == '__main__':
    main()
