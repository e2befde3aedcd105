// The "Why" derivations of the claim cards, as TeX and prose: the source that scripts/build-math.mjs
// turns into www/js/explorer/proofs-math.js (MathML trees, no TeX at page load). docs/MATH.md has
// the full proofs; these are their short forms in the paper's notation.
//
// A card's entry: { summary (shown after a bold "Why"), blocks }. A block is
//   { p: 'prose with $inline TeX$' }   a paragraph
//   { m: 'display TeX' }               a displayed formula
// and may carry `when: 'name'` (shown only when that condition of the card's numbers holds; see
// proofs.js claimNumbers).
//
// Every displayed relation is a claim the tests check (tests/e2e/equations.test.mjs): where both
// sides are numbers, or expressions in the card's parameters A, B, c, q, ε and N, they must agree
// to the digits shown and on the certified enclosures. So a derivation uses its card's parameters
// (cards.js claimParams) and names them; a statement about other values than the card's (the
// paper's regimes, the correction's own case, "q < 2 is ...") is wrapped in \general{…}, which
// the tests skip. `\slot{id}` marks a live number: an <mn> whose text the page fills in.

/** Said of every card: what it judges and what it does not. */
const NOT_THE_METHOD = 'it is an upper bound (actual Jacobians could still grow or not), and the correction does not refute LNS’s reported pretraining gains.';

/** §4.1's last words, with and without a finite depth. */
const GRADIENT = 'Finally, a near-identity input Jacobian is not a negligible parameter gradient: the gradient with respect to layer $l$’s weights involves that layer’s activations and the signal sent back to it, and can be large while later layers barely change the input. A bounded product is therefore neither useful depth nor a trainability result; it judges the paper’s displayed bound only, and the correction does not refute LNS’s pretraining gains.';

export const PROOFS = {
  eq11: {
    summary: 'the unscaled product is not Θ(L)',
    blocks: [
      { p: 'Eq. 9’s product is $P_N=\\prod_{l=1}^{N}\\bigl(1+A/\\sigma_l+B/\\sigma_l^2\\bigr)$. Write $x=1/\\sigma_l$ and factor $1+Ax+Bx^2=(1-r_1x)(1-r_2x)$; then for small $x$' },
      { m: '\\log(1+Ax+Bx^2)=\\sum_{k\\ge1}c_k\\,x^k,\\quad c_k=-\\frac{r_1^k+r_2^k}{k},\\quad c_1=A,\\ c_2=B-\\frac{A^2}{2},' },
      { p: 'with the power sums $s_k=r_1^k+r_2^k$ from Newton’s recurrence $s_k=-A\\,s_{k-1}-B\\,s_{k-2}$. With $\\sigma_l^2=c\\,l$ the terms are $c_k\\,c^{-k/2}\\,l^{-k/2}$: only $k=1,2$ have divergent sums,' },
      { m: '\\sum_{l\\le N}l^{-1/2}=2\\sqrt N+\\zeta(\\tfrac12)+o(1),\\qquad\\sum_{l\\le N}l^{-1}=\\log N+\\gamma+o(1),' },
      { p: 'and the terms with $k\\ge3$ converge. Hence the correction’s expansion (which it states for $\\general{c=1}$):' },
      { m: '\\log P_N=\\frac{2A}{\\sqrt c}\\sqrt N+\\frac1c\\Bigl(B-\\frac{A^2}{2}\\Bigr)\\log N+C+o(1),' },
      { m: 'C=\\frac{A}{\\sqrt c}\\,\\zeta(\\tfrac12)+\\frac1c\\Bigl(B-\\frac{A^2}{2}\\Bigr)\\gamma+\\sum_{l\\ge1}\\Bigl[\\log\\Bigl(1+\\frac{A}{\\sqrt{cl}}+\\frac{B}{cl}\\Bigr)-\\frac{A}{\\sqrt{cl}}-\\Bigl(B-\\frac{A^2}{2}\\Bigr)\\frac1{cl}\\Bigr].' },
      { p: 'A stretched exponential times a power, not the $\\Theta(L)$ behind Eq. 11. This card judges $P_N$ with $\\sigma_l^2=c\\,l$ at $A=\\slot{A}$, $B=\\slot{B}$, $c=\\slot{c}$; for these the core certifies' },
      { m: '\\log P_N=\\slot{u1}\\sqrt N+\\slot{u2}\\log N+C+o(1),\\qquad C=\\slot{cc},', when: 'eq11both' },
      { m: '\\log P_N=\\slot{u1}\\sqrt N+\\bigl(\\slot{u2}\\bigr)\\log N+C+o(1),\\qquad C=\\slot{cc},', when: 'eq11bothneg' },
      { m: '\\frac{2A}{\\sqrt c}=\\slot{u1},\\qquad\\frac1c\\Bigl(B-\\frac{A^2}{2}\\Bigr)=\\slot{u2}.', when: 'eq11coef' },
      { m: '\\log P_N=\\slot{u1}\\sqrt N+C+o(1),\\qquad C=\\slot{cc},\\qquad\\frac{2A}{\\sqrt c}=\\slot{u1},\\qquad B=\\frac{A^2}{2}\\text{ (no }\\log N\\text{ term).}', when: 'eq11sqrt' },
      { m: '\\log P_N=\\slot{u2}\\log N+C+o(1),\\qquad C=\\slot{cc},\\qquad A=0,\\qquad\\frac Bc=\\slot{u2}\\text{: a power of }N.', when: 'eq11log' },
      { m: 'A=B=0:\\quad\\text{every factor is 1.}', when: 'eq11conv' },
      { m: '\\log P_{\\slot{N}}=\\slot{pn}', when: 'finite' },
      { p: 'C is certified by the core as the value at infinity of its own route (docs/MATH.md, §4.5 and §6.1), not by summing the series above. In general, for $\\general{\\sigma_l^2=c\\,l^q}$, $x=\\kappa l^{-q/2}$ with $\\kappa=c^{-1/2}$: every $k$ with $kq/2<1$ adds $c_k\\kappa^kN^{1-kq/2}/(1-kq/2)$ and $kq/2=1$ adds $c_k\\kappa^k\\log N$. So $\\general{q<2}$ is a stretched exponential and $\\general{q>2}$ converges; $\\general{q=2}$ is a power law, exactly' },
      { m: '\\general{P_N=\\frac{\\Gamma(N+1+t_1)\\,\\Gamma(N+1+t_2)}{\\Gamma(1+t_1)\\,\\Gamma(1+t_2)\\,\\Gamma(N+1)^2}\\sim e^C N^{A/\\sqrt c},\\qquad t_1+t_2=\\frac{A}{\\sqrt c},\\ t_1t_2=\\frac Bc.}' },
      { p: 'The correction states the $\\log N$ term only for $\\general{\\sigma_l^2=l}$ exactly; elsewhere these constants are this page’s generalisation. All of this concerns the paper’s displayed upper product: actual Jacobians could still grow or not.' },
    ],
  },
  eq65: {
    summary: 'the scaled product is bounded, and where Eq. 65’s limit comes from',
    blocks: [
      { p: 'Every factor of $Q_N=\\prod_{l\\le N}\\bigl(1+\\frac{A}{l\\sigma_l}+\\frac{B}{l^2\\sigma_l^2}\\bigr)$ is at least 1, so $\\log Q_N$ is non-negative and increases to $\\log Q_\\infty$. With $\\log(1+x)\\le x$ and $\\sigma_l^2\\ge c\\,l^q$, each term is at most $\\frac{A}{\\sqrt c}l^{-1-q/2}+\\frac{B}{c}l^{-2-q}$, and by the integral test $\\sum_l l^{-s}=\\zeta(s)<\\infty$ for $s>1$.' },
      { p: 'This card judges $Q_N$ with $\\sigma_l^2=c\\,l^{2-\\varepsilon}$ at $A=\\slot{A}$, $B=\\slot{B}$, $c=\\slot{c}$, $\\varepsilon=\\slot{eps}$, so $q=2-\\varepsilon=\\slot{q}$, and' },
      { m: '0\\le\\log Q_{\\slot{N}}=\\slot{qn}\\le\\log Q_\\infty=\\slot{qinf}\\le\\frac{A}{\\sqrt c}\\,\\zeta\\bigl(1+\\tfrac q2\\bigr)+\\frac Bc\\,\\zeta(2+q)=\\slot{z1}+\\slot{z2}=\\slot{zb}', when: 'limitN' },
      { m: '0\\le\\log Q_\\infty=\\slot{qinf}\\le\\frac{A}{\\sqrt c}\\,\\zeta\\bigl(1+\\tfrac q2\\bigr)+\\frac Bc\\,\\zeta(2+q)=\\slot{z1}+\\slot{z2}=\\slot{zb}', when: 'limitInf' },
      { p: 'Both of the paper’s regimes, $\\general{\\sigma_l^2\\propto l}$ and $\\general{\\sigma_l^2\\propto l^{2-\\varepsilon}}$ with $\\general{\\tfrac12\\le\\varepsilon<1}$, satisfy the hypothesis, so the displayed product is $O(1)$.' },
      { p: 'App. A.4 writes the exponent of its bound (with $\\sigma_l^2=l^{2-\\varepsilon}$) as' },
      { m: 'E(L)=A\\,\\frac{L^{\\varepsilon/2-1}-1}{\\varepsilon/2-1}+B\\,\\frac{L^{\\varepsilon-3}-1}{\\varepsilon-3}=\\int_1^L\\bigl(A\\,x^{\\varepsilon/2-2}+B\\,x^{\\varepsilon-4}\\bigr)\\,dx,' },
      { p: 'which increases in $L$; both exponents are negative for $\\varepsilon<2$, so it tends to a finite number, not $\\omega(1)$:' },
      { m: 'E(\\slot{N})=\\slot{e65n}\\le E_\\infty=\\frac{A}{1-\\varepsilon/2}+\\frac{B}{3-\\varepsilon}=\\slot{e65lim}\\quad(\\varepsilon=\\slot{eps})', when: 'e65finite' },
      { m: 'E_\\infty=\\frac{A}{1-\\varepsilon/2}+\\frac{B}{3-\\varepsilon}=\\slot{e65lim}\\quad(\\varepsilon=\\slot{eps})', when: 'e65inf' },
      { p: 'The integral starts at 1 and so replaces only the terms $l\\ge2$ of the sum (integral test for a decreasing integrand): it drops the $l=1$ term $A+B$. That is why $E_\\infty$ can sit below the true $\\log Q_\\infty$.' },
      { p: 'Here $c=\\slot{c}$, so the correct chain keeps the first factor:', when: 'c1' },
      { m: '\\log Q_\\infty=\\slot{qinf}\\le\\log Q_1+E_\\infty=\\slot{q1}+\\slot{e65lim},\\qquad\\log Q_1=\\log(1+A+B)=\\slot{q1}', when: 'c1' },
      { p: 'Eq. 65 as written has no $c$; with $c=\\slot{c}$ read $A/\\sqrt c$ for $A$ and $B/c$ for $B$ before comparing it with $\\log Q_\\infty=\\slot{qinf}$.', when: 'cnot1' },
      { p: `This judges the displayed product and its derivation, not LayerNorm Scaling: ${NOT_THE_METHOD}` },
    ],
  },
  eq50: {
    summary: 'A/k gives Θ(N^A), and Θ(L) only when A = 1',
    blocks: [
      { p: 'App. A.2 uses the factor $1+A/k+O(k^{-2})$ where Eq. 9 with $\\sigma_k^2=k$ has $A/\\sqrt k$. Even granting it: by the integral test the harmonic number $h_N$ minus $\\log N$ decreases to Euler’s constant,' },
      { m: 'h_N=\\sum_{k\\le N}\\frac1k=\\log N+\\gamma+o(1),\\qquad h_{\\slot{N}}\\approx\\slot{hn}', when: 'finite' },
      { m: 'h_N=\\sum_{k\\le N}\\frac1k=\\log N+\\gamma+o(1)', when: 'infinite' },
      { p: 'and since $\\log(1+A/k+B/k^2)=A/k+O(k^{-2})$ and $\\sum k^{-2}<\\infty$,' },
      { m: '\\log H_N=\\log\\prod_{k\\le N}\\Bigl(1+\\frac Ak+\\frac B{k^2}\\Bigr)=A\\log N+C+o(1),\\qquad\\text{so }H_N=\\Theta(N^{A}).' },
      { p: 'This card judges $H_N$ at $A=\\slot{A}$, $B=\\slot{B}$; the core certifies', when: 'harmlog' },
      { m: '\\log H_N=\\slot{hcoef}\\log N+C+o(1),\\qquad\\slot{hcoef}=A,\\qquad C=\\slot{hc}', when: 'harmlog' },
      { m: '\\log H_{\\slot{N}}=\\slot{harm}', when: 'finite' },
      { p: 'In closed form $C=-\\log\\Gamma(1-r_1)-\\log\\Gamma(1-r_2)$, $r_i$ the roots of $z^2+Az+B$. The product is $\\Theta(L)$ only when $\\general{A=1}$; Eq. 50’s $\\Theta(L)$ holds only then.', when: 'harmlog' },
      { p: 'This card judges $H_N$ at $A=\\slot{A}$, $B=\\slot{B}$: the product converges (only $B/k^2$ is left).', when: 'harmconv' },
      { p: 'This judges App. A.2’s displayed derivation, not LayerNorm Scaling or Pre-LN training.' },
    ],
  },
  s41: {
    summary: 'the displayed bound stays finite, and what bounded does not mean',
    blocks: [
      { p: 'The scaled product increases to a finite limit (see the Eqs. 16 / 65 card), so for every depth $\\log Q_N\\le\\log Q_\\infty$, and what is still to come after $N$ is at most the integral-test bound (in the correction’s case $\\general{A=B=c=q=1}$ it is $\\general{2/\\sqrt N+1/(2N^2)}$). For this card’s $Q_N$, with $A=\\slot{A}$, $B=\\slot{B}$, $c=\\slot{c}$, $\\varepsilon=\\slot{eps}$ and $q=2-\\varepsilon=\\slot{q}$:' },
      { m: '\\log Q_{\\slot{N}}=\\slot{qn}\\le\\log Q_\\infty=\\slot{qinf}', when: 'limitN' },
      { m: '\\log Q_\\infty=\\slot{qinf}', when: 'limitInf' },
      { m: '\\log Q_\\infty-\\log Q_N=\\sum_{l>N}\\log\\Bigl(1+\\frac{A}{l\\sigma_l}+\\frac{B}{l^2\\sigma_l^2}\\Bigr)=\\slot{tail}\\le\\frac{A}{\\sqrt c}\\frac{N^{-q/2}}{q/2}+\\frac Bc\\frac{N^{-1-q}}{1+q}\\le\\slot{ztail}', when: 'tailbound' },
      { p: 'A bounded upper product cannot show that the norm must keep growing. Nor does bounded mean convergent: the rotation $R(\\theta/l)$ has norm 1 and $R(\\theta/l)\\to I$, yet' },
      { m: '\\prod_{l=1}^{N}R\\Bigl(\\frac{\\theta}{l}\\Bigr)=R(\\theta h_N),\\qquad\\Bigl\\|R(\\theta h_N)\\Bigr\\|=1,\\qquad\\theta h_N\\to\\infty' },
      { p: `with $h_N=\\sum_{k\\le N}1/k$, so the product never settles (with $\\theta=1$ its angle at $N=\\slot{N}$ is $h_N\\approx\\slot{hn}$ radians, a double-precision sum). ${GRADIENT}`, when: 'finite' },
      { p: `with $h_N=\\sum_{k\\le N}1/k$, so the product never settles. ${GRADIENT}`, when: 'infinite' },
    ],
  },
};

/** The "Why" of a card this file has no derivation for (a card added later). */
export const FALLBACK = {
  summary: 'the derivation',
  blocks: [{ p: 'The derivation of this claim is in docs/MATH.md of the depthprod repository; the numbers above are the core’s for this card.' }],
};
