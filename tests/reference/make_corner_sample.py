#!/usr/bin/env python3
"""Reference constants at random points of the corner that crates/depthprod/tests/far_constants.rs
samples (unscaled family, small q, large A/sqrt(c): the series start beyond every double depth,
docs/MATH.md section 4.8), drawn from the same distributions as its property tests:

- corner: A in [1, 100], B = min(b A^2, 100) with b in [0, 2], c in [1e-3, 1] (log-uniform),
  q in {0.05, 0.1, 0.2}; and the same with A = 0 and B at least 0.01;
- general exponents: the same A, B, c with q in {0.07, 0.13} (1/p far from an integer).

Every input is a double (the seeded draw, written with 17 significant digits, reads back as it).
Each value is make_far_constants.constant's (two routes at 60 digits, agreement 1e-30 required):
C' = C + c_n/d_n beside a log-like term, the constant the core shows. A disagreement stops the run.

    pip install mpmath==1.3.0
    cd tests/reference && python3 make_corner_sample.py      # writes corner_sample.json
"""
import json
import random

import make_far_constants as FC
from mpmath import mp, mpf

mp.dps = 60


def draw(rng, qs, zero_a):
    a = 0.0 if zero_a else rng.uniform(1.0, 100.0)
    b_frac = rng.uniform(0.0, 2.0)
    if zero_a:
        b = max(min(b_frac * rng.uniform(1.0, 100.0) ** 2, 100.0), 1e-2)
    else:
        b = min(b_frac * a * a, 100.0)
    c = 10 ** rng.uniform(-3.0, 0.0)
    q = rng.choice(qs)
    # 17 significant digits: the text reads back as the same double
    return [float('%.17g' % x) for x in (a, b, c)] + [q]


def main():
    rng = random.Random(20240901)
    points = [draw(rng, [0.05, 0.1, 0.2], False) for _ in range(24)]
    points += [draw(rng, [0.05, 0.1, 0.2], True) for _ in range(8)]
    points += [draw(rng, [0.07, 0.13], False) for _ in range(8)]
    out = []
    for A, B, c, q in points:
        c1, c2, shift = FC.constant(A, B, c, q)
        agree = abs(c1 - c2) / max(1, abs(c1))
        assert agree < mpf('1e-30'), (A, B, c, q, c1, c2)
        out.append(dict(A=A, B=B, c=c, q=q, merged=mp.nstr(c1 + shift, 40), C=mp.nstr(c1, 40),
                        agreement=mp.nstr(agree, 3)))
        print(A, B, c, q, mp.nstr(c1 + shift, 20), mp.nstr(agree, 3), flush=True)
    with open('corner_sample.json', 'w') as fh:
        json.dump(dict(about='make_corner_sample.py; docs/MATH.md section 4.8', cases=out), fh, indent=1)


if __name__ == '__main__':
    main()
