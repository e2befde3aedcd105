#!/usr/bin/env python3
"""Reference values for every point of the coverage grid (crates/depthprod/examples/shared/
coverage_grid.rs) at the depths no direct sum reaches: N = 10^6, 10^9, 10^12, 10^18 and N = inf
(the limit of a convergent product, or the constant a divergent one shows: C, or C' = C + sum c_k/d_k
beside near-resonant log-like terms, docs/MATH.md section 6.6). The grid's parameters are doubles
and every value is for their exact values. (N = 10 and 10^3 are checked by the tests themselves
against a direct double-double sum.)

Each value comes from at least two independent routes that must agree to 1e-20 relative
(make_reference.py's rule), built from make_reference.py's pieces:
- `series`: direct head to the series start M (rho kappa M^-p <= 1/4) plus the Hurwitz-zeta series
  (make_reference.route1), where M <= 300000;
- `em-quad`: Euler-Maclaurin on g from J (exact Taylor coefficients), the integral by tanh-sinh
  quadrature in u = log x;
- `em-hyp`: Euler-Maclaurin from another J, the integral in closed form (2F1), where the series
  route is missing;
- constants C of the unscaled family whose series start is beyond every double depth:
  make_far_constants.constant (two routes at 60 digits, agreement 1e-30);
- other constants with neither series nor closed form: em-quad from two different starts.
A point where the routes disagree stops the run: nothing is dropped silently.

    pip install mpmath==1.3.0
    cd tests/reference && nice python3 make_coverage.py    # writes coverage_reference.txt

Output, one line per point in grid order: family A B c q N value abs_err (N an integer or `inf`),
abs_err bounding |value - exact| (a power of ten at least ten times the routes' disagreement and
their own error estimates). The run appends as it goes and resumes where a previous run stopped.
"""
import os
import time

import make_reference as R
import make_far_constants as FC
from mpmath import mp, mpf

DPS = 45
mp.dps = DPS
R.DPS = DPS

FAMILIES = ['unscaled', 'scaled', 'harmonic', 'sqrt-scaled']
ABS = [0.0, 0.01, 1.0, 10.0, 100.0]
CS = [1e-3, 1.0, 1e3]
QS = [0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 8.0]
FINITE = [10 ** 6, 10 ** 9, 10 ** 12, 10 ** 18]
OUT = 'coverage_reference.txt'

# route1 and the Euler-Maclaurin routes each sum a direct head: remember them per parameter set
_head = R.head
_cache = {}


def cached_head(P, n):
    key = (P['A'], P['B'], P['kappa'], P['p'], n)
    if key not in _cache:
        _cache[key] = _head(P, n)
    return _cache[key]


R.head = cached_head
_hurwitz = R.hurwitz_zeta
_zeta_cache = {}


def cached_hurwitz(s, a):
    """make_reference.hurwitz_zeta, remembered: route1 asks for zeta(kp, M) at every depth."""
    key = (s, a, mp.prec)
    if key not in _zeta_cache:
        if len(_zeta_cache) > 20000:
            _zeta_cache.clear()
        _zeta_cache[key] = _hurwitz(s, a)
    return _zeta_cache[key]


R.hurwitz_zeta = cached_hurwitz
# a head of at most 20000 terms for the series route (the Euler-Maclaurin routes cover the rest)
R.MMAX = 20000
_em_j = R.em_J


def em_j(P, base):
    """make_reference.em_J, from `base` itself when p <= 1: the zeros of 1 + A a(x) + B a(x)^2 are
    at x = (kappa r)^(1/p) with r a root of z^2 + A z + B, whose argument lies in [pi/2, pi]
    (Re r < 0 since A, B >= 0), so on the principal sheet they lie at |arg x| >= pi/(2p) >= pi/2:
    outside the disk of radius t around any point t of the positive axis, which is what
    Euler-Maclaurin from J needs (the branch point x = 0 is the nearest singularity). For p > 1
    they may lie near the axis."""
    return base if P['p'] <= 1 else _em_j(P, base)


R.em_J = em_j


def text(x):
    """A grid double as Rust's `{}` writes it."""
    return str(int(x)) if x == int(x) else repr(x)


def route1_at(P, N, ratio):
    """make_reference.route1 with the series start where rho kappa M^-p <= ratio (route1 takes 1/4):
    a head of a different length and a series of different length. None when M > MMAX."""
    p, kappa, rho = P['p'], P['kappa'], P['rho']
    M = max(1, int(mp.ceil((rho * kappa / ratio) ** (1 / p))))
    if M > R.MMAX:
        return None
    theta = rho * kappa * mpf(M) ** (-p)
    K = int(mp.ceil(1 / p)) + 1
    while True:
        bound = (mpf(2) / (K + 1)) * (1 + M / ((K + 1) * p - 1)) * theta ** (K + 1) / (1 - theta)
        if (K + 1) * p > 1 and bound < mpf(10) ** (-DPS):
            break
        K += 1
    cs = R.coeffs(P, K)
    tail = mpf(0)
    with mp.workdps(DPS + 20):
        for k in range(1, K + 1):
            if cs[k] == 0:
                continue
            s = R.kp(P, k)
            if N == 'inf':
                T = R.hurwitz_zeta(s, M)
            elif N == 'C':
                T = -mp.digamma(M) if s == 1 else R.hurwitz_zeta(s, M)
            elif s == 1:
                T = mp.digamma(N + 1) - mp.digamma(M)
            else:
                T = R.hurwitz_zeta(s, M) - R.hurwitz_zeta(s, N + 1)
            tail += cs[k] * kappa ** k * T
    return R.head(P, M - 1) + tail, bound


def quad_log(P, a, b):
    """int_a^b g(x) dx by tanh-sinh in u = log x, in segments of width at most 2."""
    def f(u):
        y = P['kappa'] * mp.exp(-P['p'] * u)
        return mp.log1p(y * (P['A'] + P['B'] * y)) * mp.exp(u)
    la, lb = mp.log(a), mp.log(b)
    n = max(1, int(mp.ceil((lb - la) / 2)))
    return mp.quad(f, [la + (lb - la) * i / n for i in range(n + 1)])


def em_quad_finite(P, J):
    """{N: (S(N), error estimate)} by Euler-Maclaurin from J, the integral by quadrature
    accumulated from one depth to the next."""
    out = {}
    base = R.head(P, J - 1)
    integral, at = mpf(0), J
    for N in FINITE:
        integral += quad_log(P, at, N)
        at = N
        corr, err = R.em_correction(P, J, N)
        out[N] = (base + integral + corr, err)
    return out


def agree(what, values):
    """The first value and its abs_err, after checking that the routes agree."""
    vals = [v for v, _ in values]
    v = vals[0]
    scale = max(mpf(1), abs(v))
    diff = max(abs(x - y) for x in vals for y in vals)
    if diff > R.AGREE_REL * scale:
        raise AssertionError('routes disagree at %s: %s' % (what, [mp.nstr(x, 25) for x in vals]))
    bound = max([10 * diff, mpf(10) ** (-DPS + 20) * scale] + [10 * e for _, e in values])
    return v, mpf(10) ** int(mp.ceil(mp.log10(bound)))


def parameter_set(fam, A, B, c, q):
    """{N: (value, abs_err)} for every depth of the grid (module docs)."""
    if A == 0 and B == 0:
        return {N: (mpf(0), mpf(0)) for N in FINITE + ['inf']}
    P = R.setup(fam, A, B, c, q)
    inf = 'inf' if R.convergent(P) else 'C'
    routes = {N: [] for N in FINITE + ['inf']}
    if route1_at(P, FINITE[0], mpf(1) / 4) is not None:
        for N in FINITE + [inf]:
            routes['inf' if N == inf else N].append(route1_at(P, N, mpf(1) / 4))
    J2 = R.em_J(P, 317)
    if J2 is not None:
        for N, ve in em_quad_finite(P, J2).items():
            routes[N].append(ve)
    J1 = R.em_J(P, 100)
    if J1 is not None and len(routes[FINITE[0]]) < 2:
        for N in FINITE:
            routes[N].append(R.em_route(P, J1, N, R.hyp_integral))
    # the shown constant beside near-resonant log-like terms: C' = C + sum c_k/d_k
    shift = sum((ck / d for _, ck, d in R.log_like_terms(P)), mpf(0)) if inf == 'C' else mpf(0)
    out = {}
    second = route1_at(P, inf, mpf(1) / 16) if routes['inf'] else None
    if second is not None:
        routes['inf'].append(second)
    elif inf == 'inf':
        routes['inf'].append(R.em_route(P, J2, 'inf', R.quad_integral))
        if len(routes['inf']) < 2:
            routes['inf'].append(R.em_route(P, J1, 'inf', R.hyp_integral))
    elif fam == 'unscaled':
        with mp.workdps(60):
            c1, c2, sh = FC.constant(A, B, c, q)
            diff = abs(c1 - c2) / max(1, abs(c1))
            if diff > mpf('1e-30'):
                raise AssertionError('far constant routes disagree: %s %s' % (c1, c2))
            # ten times the routes' disagreement, or 1e-50 of the classic C at 60 digits (C' =
            # C + c/d can be 10^15 times smaller than C beside a near-resonant term, so a bound of
            # 1e-30 of C would be wider than the core's enclosure of C')
            bound = max(10 * abs(c1 - c2), mpf('1e-50') * max(1, abs(c1)))
            out['inf'] = (c1 + sh, mpf(10) ** int(mp.ceil(mp.log10(bound))))
    else:
        # Euler-Maclaurin with the divergent terms subtracted, from two starts (no near-resonant
        # k p here: only the unscaled family has those)
        assert not R.log_like_terms(P), (fam, A, B, c, q)
        routes['inf'] = [R.em_route(P, J, 'C', R.quad_integral) for J in (J2, R.em_J(P, 537))]
    for N in FINITE + ['inf']:
        if N in out:
            continue
        if len(routes[N]) < 2:
            raise AssertionError('fewer than two routes at %s N=%s' % ((fam, A, B, c, q), N))
        v, err = agree((fam, A, B, c, q, N), routes[N])
        out[N] = (v + shift, err) if N == 'inf' else (v, err)
    return out


def main():
    done = set()
    if os.path.exists(OUT):
        with open(OUT) as f:
            for line in f:
                if not line.startswith('#'):
                    done.add(tuple(line.split()[:5]))
    else:
        with open(OUT, 'w') as f:
            f.write('# coverage grid references: family A B c q N value abs_err (make_coverage.py)\n')
    started = time.time()
    count = 0
    with open(OUT, 'a') as f:
        for fam in FAMILIES:
            for A in ABS:
                for B in ABS:
                    for c in CS:
                        for q in QS:
                            key = (fam, text(A), text(B), text(c), text(q))
                            if key in done:
                                continue
                            _cache.clear()
                            t0 = time.time()
                            values = parameter_set(fam, A, B, c, q)
                            for N in FINITE + ['inf']:
                                v, err = values[N]
                                f.write(' '.join(key) + ' %s %s %s\n' % (N, mp.nstr(v, 30), mp.nstr(err, 1)))
                            f.flush()
                            count += 1
                            print(' '.join(key), 'done', count, round(time.time() - t0, 1), 's,',
                                  round(time.time() - started), 's in all', flush=True)


if __name__ == '__main__':
    main()
