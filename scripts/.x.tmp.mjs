import { readFileSync } from 'node:fs';
const w = await import('../www/pkg/depthprod_wasm.js');
await w.default({ module_or_path: readFileSync(new URL('../www/pkg/depthprod_wasm_bg.wasm', import.meta.url)) });
const fam = process.argv[2] || 'scaled';
const t0 = performance.now();
for (let i = 0; i < 30000; i++) {
  const plan = new w.Plan({ family: fam, a: 100 - i * 1e-9, b: 100, variance: { kind: 'power', c: 0.001, q: 0.05 } });
  plan.logProduct(1e6); plan.free();
}
console.log(((performance.now() - t0) / 30000 * 1000).toFixed(1), 'us');
