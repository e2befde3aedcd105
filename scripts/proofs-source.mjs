// The "Why" derivations of the claim cards, as TeX and prose: the source that scripts/build-math.mjs
// turns into www/js/explorer/proofs-math.js (MathML trees, no TeX at page load). docs/MATH.md has the full
// proofs; these are their short forms in the paper's notation.
//
// A card's entry: { summary (shown after a bold "Why"), blocks }. A block is
//   { p: 'prose with $inline TeX$' }            a paragraph
//   { m: 'display TeX', chain: [...] }          a displayed formula; `chain` lists, in order, the
//                                               terms of a chain of inequalities (each a slot id, or
//                                               an array of slot ids that are added), so the tests
//                                               can check lower end <= upper end of the next term
//   { terms: true }                             the core's leading terms of the unscaled product
// and may carry `when: 'name'` (shown only when that condition of the view holds; see proofs.js).
// `\slot{id}` marks a live number: an <mn> whose text the page fills in from the core.

export const PROOFS = {
  eq11: {
    summary: 'the unscaled product is not Θ(L)',
    blocks: [
      { p: 'Eq. 9’s product is $P_N=\\prod_{l=1}^{N}\\bigl(1+A/\\sigma_l+B/\\sigma_l^2\\bigr)$. Write $x=1/\\sigma_l$ and factor $1+Ax+Bx^2=(1-r_1x)(1-r_2x)$; then for small $x$' },
      { m: '\\log(1+Ax+Bx^2)=\\sum_{k\\ge1}c_k\\,x^k,\\quad c_k=-\\frac{r_1^k+r_2^k}{k},\\quad c_1=A,\\ c_2=B-\\frac{A^2}{2},' },
      { p: 'with the power sums $s_k=r_1^k+r_2^k$ from Newton’s recurrence $s_k=-A\\,s_{k-1}-B\\,s_{k-2}$. With $\\sigma_l^2=l$ the terms are $c_k\\,l^{-k/2}$: only $k=1,2$ have divergent sums,' },
      { m: '\\sum_{l\\le N}l^{-1/2}=2\\sqrt N+\\zeta(\\tfrac12)+o(1),\\qquad\\sum_{l\\le N}l^{-1}=\\log N+\\gamma+o(1),' },
      { p: 'and the terms with $k\\ge3$ converge. Hence the correction’s expansion, for $\\sigma_l^2=l$ exactly:' },
      { m: '\\log P_N=2A\\sqrt N+\\Bigl(B-\\frac{A^2}{2}\\Bigr)\\log N+C+o(1),' },
      { m: 'C=A\\,\\zeta(\\tfrac12)+\\Bigl(B-\\frac{A^2}{2}\\Bigr)\\gamma+\\sum_{l\\ge1}\\Bigl[\\log\\Bigl(1+\\frac{A}{\\sqrt l}+\\frac{B}{l}\\Bigr)-\\frac{A}{\\sqrt l}-\\Bigl(B-\\frac{A^2}{2}\\Bigr)\\frac1l\\Bigr].' },
      { p: 'A stretched exponential times a power, not the $\\Theta(L)$ behind Eq. 11. For this view ($\\sigma_l^2=c\\,l$, $c=\\slot{c}$) the core finds', when: 'q1' },
      { m: '\\log P_N=\\slot{u1}\\sqrt N+\\slot{u2}\\log N+C+o(1),\\quad C=\\slot{cc},\\quad\\log P_{\\slot{N}}=\\slot{pn}', when: 'q1' },
      { p: 'With $c\\ne1$ read $A/\\sqrt c$ for $A$ and $B/c$ for $B$. For $\\sigma_l^2=c\\,l^q$ in general, $x=\\kappa l^{-q/2}$ with $\\kappa=c^{-1/2}$: every $k$ with $kq/2<1$ adds $c_k\\kappa^kN^{1-kq/2}/(1-kq/2)$ and $kq/2=1$ adds $c_k\\kappa^k\\log N$. So $q<2$ is a stretched exponential and $q>2$ converges; $q=2$ is a power law, exactly' },
      { m: 'P_N=\\frac{\\Gamma(N+1+t_1)\\,\\Gamma(N+1+t_2)}{\\Gamma(1+t_1)\\,\\Gamma(1+t_2)\\,\\Gamma(N+1)^2}\\sim e^C N^{A/\\sqrt c},\\qquad t_1+t_2=\\frac{A}{\\sqrt c},\\ t_1t_2=\\frac Bc.' },
      { terms: true, when: 'power' },
      { p: 'C is certified by the core as the value at infinity of its own route (docs/MATH.md, §4.5 and §6.1), not by summing the series above. The correction states the log N term only for $\\sigma_l^2=l$ exactly; elsewhere these constants are this page’s generalisation. All of this concerns the paper’s displayed upper product: actual Jacobians could still grow or not.' },
    ],
  },
  eq65: {
    summary: 'the scaled product is bounded, and where Eq. 65’s limit comes from',
    blocks: [
      { p: 'Every factor of $Q_N=\\prod_{l\\le N}\\bigl(1+\\frac{A}{l\\sigma_l}+\\frac{B}{l^2\\sigma_l^2}\\bigr)$ is at least 1, so $\\log Q_N$ is non-negative and increases to $\\log Q_\\infty$. With $\\log(1+x)\\le x$ and $\\sigma_l^2\\ge c\\,l^q$, each term is at most $\\frac{A}{\\sqrt c}l^{-1-q/2}+\\frac{B}{c}l^{-2-q}$, and by the integral test $\\sum_l l^{-s}=\\zeta(s)<\\infty$ for $s>1$:' },
      { m: '0\\le\\log Q_{\\slot{N}}=\\slot{qn}\\le\\log Q_\\infty=\\slot{qinf}\\le\\frac{A}{\\sqrt c}\\,\\zeta\\bigl(1+\\tfrac q2\\bigr)+\\frac Bc\\,\\zeta(2+q)=\\slot{z1}+\\slot{z2}=\\slot{zb}', chain: ['qn', 'qinf', 'zb'], when: 'power' },
      { p: 'for this view ($A=\\slot{A}$, $B=\\slot{B}$, $c=\\slot{c}$, $q=\\slot{q}$). Both of the paper’s regimes, $\\sigma_l^2\\propto l$ and $\\sigma_l^2\\propto l^{2-\\varepsilon}$ with $\\tfrac12\\le\\varepsilon<1$, satisfy the hypothesis, so the displayed product is $O(1)$.', when: 'power' },
      { p: 'This view’s variance is not a power law, so the zeta-sum bound does not apply as written; the core still certifies the limit $\\log Q_\\infty$ when it exists.', when: 'notpower' },
      { p: 'App. A.4 writes the exponent of its bound (with $\\sigma_l^2=l^{2-\\varepsilon}$) as' },
      { m: 'E(L)=A\\,\\frac{L^{\\varepsilon/2-1}-1}{\\varepsilon/2-1}+B\\,\\frac{L^{\\varepsilon-3}-1}{\\varepsilon-3}=\\int_1^L\\bigl(A\\,x^{\\varepsilon/2-2}+B\\,x^{\\varepsilon-4}\\bigr)\\,dx,' },
      { p: 'which increases in $L$; both exponents are negative for $\\varepsilon<2$, so it tends to a finite number, not $\\omega(1)$:' },
      { m: 'E(\\slot{N})=\\slot{e65n}\\le E_\\infty=\\frac{A}{1-\\varepsilon/2}+\\frac{B}{3-\\varepsilon}=\\slot{e65lim}\\quad(\\varepsilon=\\slot{eps})', chain: ['e65n', 'e65lim'], when: 'eq65finite' },
      { m: 'E_\\infty=\\frac{A}{1-\\varepsilon/2}+\\frac{B}{3-\\varepsilon}=\\slot{e65lim}\\quad(\\varepsilon=\\slot{eps})', when: 'eq65inf' },
      { p: 'Eq. 65 needs $0<\\varepsilon=2-q<2$; this view has none.', when: 'noeq65' },
      { p: 'The integral starts at 1 and so replaces only the terms $l\\ge2$ of the sum (integral test for a decreasing integrand): it drops the $l=1$ term $A+B$. That is why $E_\\infty$ can sit below the true $\\log Q_\\infty$; with $c=1$ the correct chain keeps the first factor:' },
      { m: '\\log Q_\\infty=\\slot{qinf}\\le\\log Q_1+E_\\infty=\\slot{q1}+\\slot{e65lim}', chain: ['qinf', ['q1', 'e65lim']], when: 'eq65c1' },
      { p: 'Eq. 65 as written has no $c$; with $c=\\slot{c}$ read $A/\\sqrt c$ for $A$ and $B/c$ for $B$ before comparing it with $\\log Q_\\infty=\\slot{qinf}$.', when: 'eq65cnot1' },
      { p: 'This judges the displayed product and its derivation, not LayerNorm Scaling: it is an upper bound (actual Jacobians could still grow or not), and the correction does not refute LNS’s reported pretraining gains.' },
    ],
  },
  eq50: {
    summary: 'A/k gives Θ(N^A), and Θ(L) only when A = 1',
    blocks: [
      { p: 'App. A.2 uses the factor $1+A/k+O(k^{-2})$ where Eq. 9 with $\\sigma_k^2=k$ has $A/\\sqrt k$. Even granting it, by the integral test $H_N-\\log N$ decreases to Euler’s constant:' },
      { m: 'H_N=\\sum_{k\\le N}\\frac1k=\\log N+\\gamma+o(1),\\qquad H_{\\slot{N}}=\\slot{hn}', when: 'finite' },
      { m: 'H_N=\\sum_{k\\le N}\\frac1k=\\log N+\\gamma+o(1)', when: 'infinite' },
      { p: 'Since $\\log(1+A/k+B/k^2)=A/k+O(k^{-2})$ and $\\sum k^{-2}<\\infty$,' },
      { m: '\\log\\prod_{k\\le N}\\Bigl(1+\\frac Ak+\\frac B{k^2}\\Bigr)=A\\log N+C+o(1),\\qquad\\text{so the product is }\\Theta(N^{A}).' },
      { p: 'Here $A=\\slot{A}$, $B=\\slot{B}$: the core finds the coefficient $\\slot{hcoef}$ of $\\log N$ and $C=\\slot{hc}$ (in closed form $C=-\\log\\Gamma(1-r_1)-\\log\\Gamma(1-r_2)$, $r_i$ the roots of $z^2+Az+B$); at $N=\\slot{N}$ the log-product is $\\slot{harm}$. It is $\\Theta(L)$ only when $A=1$; Eq. 50’s $\\Theta(L)$ holds only then.', when: 'harmlog' },
      { p: 'This judges App. A.2’s displayed derivation, not LayerNorm Scaling or Pre-LN training.' },
      { p: 'Here $A=0$: the product converges (only $B/k^2$ is left).', when: 'harmconv' },
    ],
  },
  s41: {
    summary: 'the displayed bound stays finite, and what bounded does not mean',
    blocks: [
      { p: 'The scaled product increases to a finite limit (see the Eqs. 16 / 65 card), so for every depth $\\log Q_N\\le\\log Q_\\infty$. What is still to come after $N$ is at most the integral-test bound (for $q=1$ the correction’s $2/\\sqrt N+1/(2N^2)$ when $A=B=c=1$):' },
      { m: '\\log Q_{\\slot{N}}=\\slot{qn}\\le\\log Q_\\infty=\\slot{qinf}', chain: ['qn', 'qinf'], when: 'scaledlimit' },
      { m: '\\log Q_\\infty-\\log Q_N=\\sum_{l>N}\\log\\Bigl(1+\\frac{A}{l\\sigma_l}+\\frac{B}{l^2\\sigma_l^2}\\Bigr)\\le\\slot{tail}\\le\\frac{A}{\\sqrt c}\\frac{N^{-q/2}}{q/2}+\\frac Bc\\frac{N^{-1-q}}{1+q}=\\slot{ztail}', chain: ['tail', 'ztail'], when: 'powerfinite' },
      { p: 'A bounded upper product cannot show that the norm must keep growing. Nor does bounded mean convergent: the rotation $R(\\theta/l)$ has norm 1 and $R(\\theta/l)\\to I$, yet' },
      { m: '\\prod_{l=1}^{N}R\\Bigl(\\frac{\\theta}{l}\\Bigr)=R(\\theta H_N),\\qquad\\Bigl\\|R(\\theta H_N)\\Bigr\\|=1,\\qquad\\theta H_N\\to\\infty' },
      { p: 'so the product never settles (with $\\theta=1$, its angle at $N=\\slot{N}$ is $H_N=\\slot{hn}$ radians). Finally, a near-identity input Jacobian is not a negligible parameter gradient: the gradient with respect to layer $l$’s weights involves that layer’s activations and the signal sent back to it, and can be large while later layers barely change the input. A bounded product is therefore neither useful depth nor a trainability result; it judges the paper’s displayed bound only, and the correction does not refute LNS’s pretraining gains.', when: 'finite' },
      { p: 'so the product never settles. Finally, a near-identity input Jacobian is not a negligible parameter gradient: the gradient with respect to layer $l$’s weights involves that layer’s activations and the signal sent back to it, and can be large while later layers barely change the input. A bounded product is therefore neither useful depth nor a trainability result; it judges the paper’s displayed bound only, and the correction does not refute LNS’s pretraining gains.', when: 'infinite' },
    ],
  },
};

/** The "Why" of a card this file has no derivation for (a card added later). */
export const FALLBACK = {
  summary: 'the derivation',
  blocks: [{ p: 'The derivation of this claim is in docs/MATH.md of the depthprod repository; the numbers above are the core’s for this view.' }],
};
