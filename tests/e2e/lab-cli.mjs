// `depthprod lab ... --json` for the lab's tests (lab.test.mjs, lab-bits.test.mjs): the debug CLI
// that `cargo test --workspace` (npm test) has built. The same `cargo test --workspace --no-run` is
// run first: a no-op after npm test's Rust tests (a different cargo command would unify features or
// profiles differently and rebuild for minutes), and a build when a test file is run alone.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
let cliPath = null;

/** The parsed JSON of `depthprod lab <args> --json` (progress off). */
export function cli(args) {
  if (!cliPath) {
    const r = spawnSync('cargo', ['test', '-q', '--workspace', '--no-run'], { cwd: REPO, stdio: 'inherit' });
    assert.equal(r.status, 0, 'cargo test --workspace --no-run failed');
    const meta = JSON.parse(execFileSync('cargo', ['metadata', '--format-version', '1', '--no-deps'], { cwd: REPO, encoding: 'utf8', maxBuffer: 64 << 20 }));
    cliPath = `${meta.target_directory}/debug/depthprod`;
  }
  const out = execFileSync(cliPath, ['lab', ...args, '--json'], { cwd: REPO, encoding: 'utf8', env: { ...process.env, NO_PROGRESS: '1' }, stdio: ['ignore', 'pipe', 'ignore'], maxBuffer: 64 << 20 });
  return JSON.parse(out);
}
