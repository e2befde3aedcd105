#!/usr/bin/env python3
"""Reference values for the models the core sums directly: exponential variance
sigma_l^2 = c e^(lambda l) (limit N -> infinity, which equals log P_N to far below double
precision for every N >= 2^32) and measured lists (finite N). Each value by two independent routes.

    pip install mpmath==1.3.0
    python3 tests/reference/make_direct_models.py    # writes tests/reference/direct_models.json

Exponential variance, a_l = kappa e^(-lambda l/2) l^-extra (extra 0 unscaled, 1 scaled,
1/2 sqrt-scaled), kappa = c^-1/2:
- `direct`: sum_{l=1}^{L} log(1 + A a_l + B a_l^2) in mp arithmetic, L where the remaining
  geometric tail bound is below 1e-60;
- `series`: log(1 + A x + B x^2) = sum_k c_k x^k (Newton's recurrence), so
  S = sum_k c_k kappa^k sum_l e^(-k lambda l/2) l^(-k extra) = sum_k c_k kappa^k Li_{k extra}(e^(-k lambda/2))
  (polylog; Li_0(z) = z/(1-z)), k up to where |rho kappa e^(-lambda/2)|^k k^-1 < 1e-60, requiring
  rho kappa e^(-lambda/2) < 1 (rho the larger root modulus of z^2 + A z + B).
Measured lists (values are exact doubles): `direct` as above; `product`: log of the exact product
prod_l (1 + A a_l + B a_l^2) computed at 3x the working precision.
Agreement <= 1e-40 relative is required; abs_err is 1e-40 x max(1, |value|) rounded up to a power of 10.
"""
import json
import sys

from mpmath import mp, mpf

mp.dps = 60

EXP_CASES = [
    # id, family, A, B, c, lambda
    ('exp-unscaled-A1B1c1-l0.1', 'unscaled', 1, 1, 1, 0.1),
    ('exp-unscaled-A1B1c1-l0.001', 'unscaled', 1, 1, 1, 0.001),
    ('exp-scaled-A1B1c1-l0.1', 'scaled', 1, 1, 1, 0.1),
    ('exp-unscaled-A2B0.5c3-l0.25', 'unscaled', 2, 0.5, 3, 0.25),
    ('exp-sqrt-scaled-A1B1c1-l1', 'sqrt-scaled', 1, 1, 1, 1),
    # small lambda, where the core uses Euler-Maclaurin (every family)
    ('exp-scaled-A1B1c4-l0.001', 'scaled', 1, 1, 4, 0.001),
    ('exp-sqrt-scaled-A2B1c9-l0.01', 'sqrt-scaled', 2, 1, 9, 0.01),
    ('exp-unscaled-A0.5B0.1c1-l0.01', 'unscaled', 0.5, 0.1, 1, 0.01),
]

LIST_CASES = [
    # id, family, A, B, list
    ('list-unscaled-1000', 'unscaled', 1, 1, [1 + (l * 37 % 101) / 8 for l in range(1, 1001)]),
    ('list-scaled-7', 'scaled', 3, 0.5, [0.5, 1, 2, 4, 8, 16, 32]),
]

EXTRA = {'unscaled': 0, 'scaled': 1, 'sqrt-scaled': mpf(1) / 2, 'harmonic': None}


def coeffs(A, B, K):
    s = [mpf(2), -A]
    for k in range(2, K + 1):
        s.append(-A * s[k - 1] - B * s[k - 2])
    return [None] + [-s[k] / k for k in range(1, K + 1)]


def exp_direct(fam, A, B, c, lam):
    kappa, extra = 1 / mp.sqrt(c), EXTRA[fam]
    tot, l = mpf(0), 1
    while True:
        x = kappa * mp.exp(-lam * l / 2) * mpf(l) ** (-extra)
        tot += mp.log1p(x * (A + B * x))
        # tail after l <= (A x + B x^2) / (1 - e^(-lambda/2)) with x the next term's bound
        if (A * x + B * x * x) / (1 - mp.exp(-lam / 2)) < mpf('1e-62'):
            return tot
        l += 1


def exp_series(fam, A, B, c, lam):
    kappa, extra = 1 / mp.sqrt(c), EXTRA[fam]
    disc = A * A - 4 * B
    rho = (A + mp.sqrt(disc)) / 2 if disc >= 0 else mp.sqrt(B)
    r = rho * kappa * mp.exp(-lam / 2)
    assert r < 1, 'series route needs rho kappa e^(-lambda/2) < 1'
    K = 1
    while r ** K / K > mpf('1e-64'):
        K += 1
    cs = coeffs(A, B, K)
    tot = mpf(0)
    for k in range(1, K + 1):
        z = mp.exp(-k * lam / 2)
        li = z / (1 - z) if extra == 0 else mp.polylog(k * extra, z)
        tot += cs[k] * kappa ** k * li
    return tot


def list_direct(fam, A, B, values):
    extra = EXTRA[fam]
    return mp.fsum(mp.log1p(x * (A + B * x)) for x in
                   (mpf(l) ** (-extra) / mp.sqrt(mpf(v)) for l, v in enumerate(values, 1)))


def list_product(fam, A, B, values):
    extra = EXTRA[fam]
    with mp.workdps(3 * mp.dps):
        prod = mpf(1)
        for l, v in enumerate(values, 1):
            x = mpf(l) ** (-extra) / mp.sqrt(mpf(v))
            prod *= 1 + A * x + B * x * x
        return +mp.log(prod)


def record(cid, fam, params, r1, r2, names):
    diff = abs(r1 - r2)
    scale = max(mpf(1), abs(r1))
    assert diff <= mpf('1e-40') * scale, (cid, r1, r2)
    abs_err = mpf(10) ** int(mp.ceil(mp.log10(mpf('1e-40') * scale)))
    return dict(id=cid, family=fam, **params, log_product=mp.nstr(r1, 50), abs_err=mp.nstr(abs_err, 1),
                **{'route:' + names[0]: mp.nstr(r1, 50), 'route:' + names[1]: mp.nstr(r2, 50)},
                agreement=mp.nstr(diff, 3))


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else 'tests/reference/direct_models.json'
    cases = []
    for cid, fam, A, B, c, lam in EXP_CASES:
        a, b, cc, ll = mpf(A), mpf(B), mpf(c), mpf(lam)
        r1, r2 = exp_direct(fam, a, b, cc, ll), exp_series(fam, a, b, cc, ll)
        cases.append(record(cid, fam, dict(a=A, b=B, c=c, **{'lambda': lam}, n='inf'), r1, r2,
                            ('direct', 'series')))
        print(cid, mp.nstr(r1, 30), 'agree', cases[-1]['agreement'], flush=True)
    for cid, fam, A, B, values in LIST_CASES:
        a, b = mpf(A), mpf(B)
        r1, r2 = list_direct(fam, a, b, values), list_product(fam, a, b, values)
        cases.append(record(cid, fam, dict(a=A, b=B, values=values, n=str(len(values))), r1, r2,
                            ('direct', 'product')))
        print(cid, mp.nstr(r1, 30), 'agree', cases[-1]['agreement'], flush=True)
    with open(out, 'w') as f:
        json.dump(dict(generated_by='tests/reference/make_direct_models.py (mpmath %s, dps %d)'
                       % (mp.__version__ if hasattr(mp, '__version__') else '1.3.0', mp.dps),
                       cases=cases), f, indent=1)


if __name__ == '__main__':
    main()
