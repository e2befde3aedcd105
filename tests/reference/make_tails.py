"""Reference tails sum_{l>N} log(1 + A a_l + B a_l^2) of convergent products, two ways, at 50 digits.

a_l = kappa l^-p as in reference.json's definition (unscaled p = q/2, scaled p = 1 + q/2,
sqrt-scaled p = (1+q)/2, kappa = c^-1/2); A, B, c, q are the doubles written in the JSON.
Both routes split the tail at a depth L > N: a direct sum of g(l) for N < l <= L, then the log series
sum_k c_k kappa^k zeta(kp, L + 1), with c_k the Taylor coefficients of log(1 + A x + B x^2) (Newton's recurrence) and
mpmath's Hurwitz zeta (it converges once kappa rho (L + 1)^-p < 1, rho the largest root modulus).
Route 1 takes the first L where that ratio is below 1/4, route 2 the first where it is below 1/16
(a longer direct sum and fewer series terms). A case is kept only if they agree to 1e-30 relative.
Not run at test time:
  python3 tests/reference/make_tails.py > tests/reference/tails.json
"""
import json
import sys
import mpmath as mp

mp.mp.dps = 50

P = {
    "unscaled": lambda q: q / 2,
    "scaled": lambda q: 1 + q / 2,
    "sqrt-scaled": lambda q: (1 + q) / 2,
}

CASES = [
    # family, A, B, c, q
    ("unscaled", 1.0, 1.0, 1.0, 8.0),
    ("unscaled", 1.0, 1.0, 1.0, 3.0),
    ("unscaled", 100.0, 100.0, 1.0, 4.0),
    ("unscaled", 0.01, 1.0, 1000.0, 6.0),
    ("scaled", 1.0, 1.0, 1.0, 8.0),
    ("scaled", 1.0, 1.0, 1.0, 3.0),
    ("scaled", 1.0, 1.0, 1.0, 1.0),
    ("scaled", 100.0, 100.0, 0.001, 2.0),
    ("scaled", 0.01, 0.01, 1.0, 0.5),
    ("sqrt-scaled", 1.0, 1.0, 1.0, 3.0),
    ("sqrt-scaled", 10.0, 1.0, 1.0, 8.0),
]
DEPTHS = [1, 10, 31, 100, 400, 1000, 10**4, 10**6, 10**12]
EXP_CASES = [
    # family, A, B, c, lambda (directly summed routes: lambda > 1/8)
    ("unscaled", 1.0, 1.0, 1.0, 1.0),
    ("scaled", 1.0, 1.0, 1.0, 1.0),
    ("unscaled", 100.0, 100.0, 0.001, 0.25),
    ("sqrt-scaled", 0.01, 1.0, 1000.0, 10.0),
    ("scaled", 3.0, 0.5, 1.0, 0.5),
]
EXP_DEPTHS = [1, 5, 20, 60, 200, 1000]


def tail(g, coef, kappa, p, rho, n, ratio):
    """sum_{l>n} g(l) split at the first L >= n with kappa rho (L + 1)^-p <= ratio."""
    L = max(n, int(mp.ceil((kappa * rho / ratio) ** (1 / p))))
    direct = mp.fsum(g(l) for l in range(n + 1, L + 1))
    x = kappa * rho * mp.power(L + 1, -p)
    series = mp.fsum(coef[k] * kappa**k * mp.zeta(k * p, L + 1)
                     for k in range(1, len(coef)) if coef[k] != 0 and x**k > mp.mpf("1e-70"))
    return direct + series, L


def run():
    out = []
    for fam, a, b, c, q in CASES:
        p = P[fam](mp.mpf(q))
        kappa = 1 / mp.sqrt(mp.mpf(c))
        A, B = mp.mpf(a), mp.mpf(b)
        rho = max(abs(r) for r in mp.polyroots([1, A, B])) if B != 0 else A
        # Taylor coefficients of log(1 + A x + B x^2) = sum_k c_k x^k by the power sums of its
        # roots, c_k = -s_k / k, s_k = -A s_(k-1) - B s_(k-2) (exact in mpf; no numerical derivatives)
        s_k = [mp.mpf(2), -A]
        for k in range(2, 161):
            s_k.append(-A * s_k[-1] - B * s_k[-2])
        coef = [mp.mpf(0)] + [-s_k[k] / k for k in range(1, 161)]

        def g(l):
            x = kappa * mp.power(l, -p)
            return mp.log1p(A * x + B * x * x)

        for n in DEPTHS:
            r1, l1 = tail(g, coef, kappa, p, rho, n, mp.mpf(1) / 4)
            r2, l2 = tail(g, coef, kappa, p, rho, n, mp.mpf(1) / 16)
            rel = abs(r1 - r2) / abs(r1)
            if rel > mp.mpf("1e-30"):
                print(f"dropped {fam} {a} {b} {c} {q} N={n}: routes differ by {mp.nstr(rel, 3)}", file=sys.stderr)
                continue
            out.append({
                "family": fam, "a": a, "b": b, "c": c, "q": q, "n": n,
                "tail": mp.nstr(r1, 40), "agreement": mp.nstr(rel, 3), "splits": [l1, l2],
            })
    # Exponential variance sigma_l^2 = c e^(lambda l): a_l = kappa e^(-lambda l / 2) l^-extra (extra 0
    # unscaled, 1 scaled, 1/2 sqrt-scaled); the tail summed term by term until the terms fall
    # below 1e-75 of the sum, at 50 and at 70 digits (the two must agree to 1e-30).
    extra_of = {"unscaled": 0, "scaled": 1, "sqrt-scaled": mp.mpf(1) / 2}
    for fam, a, b, c, lam in EXP_CASES:
        for n in EXP_DEPTHS:
            got = []
            for dps in (50, 70):
                with mp.workdps(dps):
                    kappa = 1 / mp.sqrt(mp.mpf(c))
                    A, B, L = mp.mpf(a), mp.mpf(b), mp.mpf(lam)
                    total, l = mp.mpf(0), n + 1
                    while True:
                        x = kappa * mp.exp(-L * l / 2) * mp.power(l, -extra_of[fam])
                        t = mp.log1p(A * x + B * x * x)
                        total += t
                        if t < total * mp.mpf("1e-75"):
                            break
                        l += 1
                    got.append(total)
            rel = abs(got[0] - got[1]) / got[1]
            if rel > mp.mpf("1e-30"):
                print(f"dropped exp {fam} {a} {b} {c} {lam} N={n}: {mp.nstr(rel, 3)}", file=sys.stderr)
                continue
            out.append({"family": fam, "a": a, "b": b, "c": c, "lambda": lam, "n": n,
                        "tail": mp.nstr(got[1], 40), "agreement": mp.nstr(rel, 3), "route2": "70 digits"})
    json.dump({"generated_by": "tests/reference/make_tails.py (mpmath %s, 50 digits)" % mp.__version__,
               "definition": __doc__.strip().splitlines()[0], "cases": out}, sys.stdout, indent=1)


run()
