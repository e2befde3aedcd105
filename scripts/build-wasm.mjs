#!/usr/bin/env node
// Release build of crates/depthprod-wasm (the explorer's module, ./pkg/depthprod_wasm.js) and
// crates/depthlab-wasm (the lab page's module, ./pkg/depthlab_wasm.js, loaded only by lab.html's
// worker) into www/pkg/. Run scripts/setup.mjs first (npm run build does both).
//
//   node scripts/build-wasm.mjs               (function names stripped: smaller download)
//   node scripts/build-wasm.mjs --keep-names  (keeps them, for readable panic stack traces)

import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { delimiter, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { homedir } from 'node:os';
import { gzipSync } from 'node:zlib';

const REPO = resolve(fileURLToPath(new URL('..', import.meta.url)));
const OUT_DIR = join(REPO, 'www', 'pkg');
const TARGET = 'wasm32-unknown-unknown';

const cargoBin = join(process.env.CARGO_HOME || join(homedir(), '.cargo'), 'bin');
if (!(process.env.PATH || '').split(delimiter).includes(cargoBin)) {
  process.env.PATH = `${cargoBin}${delimiter}${process.env.PATH || ''}`;
}

function run(cmd, args, opts = {}) {
  console.log(`build-wasm: $ ${[cmd, ...args].join(' ')}`);
  const r = spawnSync(cmd, args, { stdio: 'inherit', cwd: REPO, ...opts });
  if (r.error || r.status !== 0) {
    console.error(`build-wasm: ERROR: ${cmd} failed (${r.error?.message ?? `status ${r.status ?? r.signal}`})`);
    process.exit(1);
  }
}

/** rename, or copy and delete when the two paths are on different file systems. */
function move(from, to) {
  try {
    renameSync(from, to);
  } catch (err) {
    if (err.code !== 'EXDEV') throw err;
    cpSync(from, to, { recursive: true });
    rmSync(from, { recursive: true, force: true });
  }
}

const started = Date.now();
const CRATES = ['depthprod_wasm', 'depthlab_wasm'];
// One cargo invocation per crate: built together, cargo would unify the features of their shared
// dependencies, and the explorer's module must come out exactly as it does alone.
// The explorer's module builds the core at opt-level "s": the gzipped module must stay under the
// explorer's 100 KiB goal (docs/PERFORMANCE.md, "Sizes", has today's figure). At 3 it would not,
// and "s" is faster in node than "z" (ARCHITECTURE.md, "Size decisions"). The rest of the module
// keeps the workspace's opt-level. Native builds (CLI, benches) keep 3.
const EXTRA = { depthprod_wasm: ['--config', 'profile.release.package.depthprod.opt-level="s"'], depthlab_wasm: [] };
for (const crate of CRATES) run('cargo', ['build', '-p', crate.replace('_', '-'), '--release', '--target', TARGET, ...EXTRA[crate]]);

const meta = spawnSync('cargo', ['metadata', '--format-version', '1', '--no-deps'], { cwd: REPO, encoding: 'utf8', maxBuffer: 64 << 20 });
if (meta.status !== 0) {
  console.error(`build-wasm: ERROR: cargo metadata failed:\n${meta.stderr}`);
  process.exit(1);
}
const targetDir = JSON.parse(meta.stdout).target_directory;

// Generate next to www/pkg, then swap it in, so that a page being served meanwhile never sees
// a half-written or missing pkg/.
// (The scratch folders live in cargo's target dir, which git ignores.)
const fresh = join(targetDir, 'www-pkg.new');
const old = join(targetDir, 'www-pkg.old');
rmSync(fresh, { recursive: true, force: true });
const strip = process.argv.includes('--keep-names') ? [] : ['--remove-name-section', '--remove-producers-section'];
for (const crate of CRATES) {
  const input = join(targetDir, TARGET, 'release', `${crate}.wasm`);
  run('wasm-bindgen', ['--target', 'web', '--out-dir', fresh, '--no-typescript', ...strip, input]);
}
rmSync(old, { recursive: true, force: true });
if (existsSync(OUT_DIR)) move(OUT_DIR, old);
move(fresh, OUT_DIR);
rmSync(old, { recursive: true, force: true });

const kib = (n) => `${(n / 1024).toFixed(1)} KiB`;
for (const name of CRATES.flatMap((crate) => [`${crate}_bg.wasm`, `${crate}.js`])) {
  const file = join(OUT_DIR, name);
  const raw = statSync(file).size;
  const gz = gzipSync(readFileSync(file), { level: 9 }).length;
  console.log(`build-wasm: ${relative(REPO, file)}: ${kib(raw)} raw, ${kib(gz)} gzipped`);
}
console.log(`build-wasm: done in ${((Date.now() - started) / 1000).toFixed(1)} s`);
