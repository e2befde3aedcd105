#!/usr/bin/env node
// Installs what building and testing depthprod needs, and only what is missing. Idempotent, and
// quick when everything is present. Needs rustup/cargo and node/npm; everything else it installs:
//
//   - the Rust target wasm32-unknown-unknown        (rustup target add)
//   - wasm-bindgen-cli at exactly the wasm-bindgen  (cargo install; wasm-bindgen refuses to
//     version in Cargo.lock                          process a module built by another version)
//   - node_modules as locked in package-lock.json    (npm ci)
//   - with --test: Debian's chromium, firefox-esr,  (apt-get, when root, only what is missing;
//     hugo (the blog-engine test) and a font          else says what to install)
//
//   node scripts/setup.mjs          for building
//   node scripts/setup.mjs --test   for testing too

import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { delimiter, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { homedir } from 'node:os';

const REPO = resolve(fileURLToPath(new URL('..', import.meta.url)));
const args = new Set(process.argv.slice(2));
const forTests = args.has('--test');
const WASM_TARGET = 'wasm32-unknown-unknown';
const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const FIREFOX = process.env.FIREFOX_PATH || '/usr/bin/firefox-esr';
const HUGO = process.env.HUGO_PATH || '/usr/bin/hugo';
const FONT_DIR = '/usr/share/fonts/truetype/dejavu';

// cargo install puts binaries in $CARGO_HOME/bin; make sure this process (and its children) see them.
const cargoBin = join(process.env.CARGO_HOME || join(homedir(), '.cargo'), 'bin');
if (!(process.env.PATH || '').split(delimiter).includes(cargoBin)) {
  process.env.PATH = `${cargoBin}${delimiter}${process.env.PATH || ''}`;
}

const say = (msg) => console.log(`setup: ${msg}`);
function fail(msg) {
  console.error(`setup: ERROR: ${msg}`);
  process.exit(1);
}

/** Runs a command, inheriting stdio; exits on failure. */
function run(cmd, cmdArgs, opts = {}) {
  say(`$ ${[cmd, ...cmdArgs].join(' ')}`);
  const started = Date.now();
  const r = spawnSync(cmd, cmdArgs, { stdio: 'inherit', cwd: REPO, ...opts });
  if (r.error) fail(`could not run ${cmd}: ${r.error.message}`);
  if (r.status !== 0) fail(`${cmd} ${cmdArgs[0] ?? ''} exited with status ${r.status ?? r.signal}`);
  say(`  done in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

/** Runs a command quietly; returns its trimmed stdout, or null when it is missing or fails. */
function output(cmd, cmdArgs) {
  const r = spawnSync(cmd, cmdArgs, { encoding: 'utf8', cwd: REPO });
  return r.status === 0 ? r.stdout.trim() : null;
}

function rustTarget() {
  const installed = output('rustup', ['target', 'list', '--installed']);
  if (installed === null) {
    // No rustup (a distribution's Rust): check that the target's standard library exists at all.
    const sysroot = output('rustc', ['--print', 'sysroot']);
    if (sysroot && existsSync(join(sysroot, 'lib', 'rustlib', WASM_TARGET))) return say(`${WASM_TARGET} target: present`);
    fail(`the Rust target ${WASM_TARGET} is missing and rustup is not available to add it (install Rust with rustup)`);
  }
  if (installed.split('\n').includes(WASM_TARGET)) return say(`${WASM_TARGET} target: present`);
  run('rustup', ['target', 'add', WASM_TARGET]);
}

/** The version of the `wasm-bindgen` package in Cargo.lock. */
function lockedWasmBindgen() {
  const lock = readFileSync(join(REPO, 'Cargo.lock'), 'utf8');
  const m = lock.match(/\[\[package\]\]\s*\nname = "wasm-bindgen"\s*\nversion = "([^"]+)"/);
  if (!m) fail('Cargo.lock has no wasm-bindgen package (is crates/depthprod-wasm in the workspace?)');
  return m[1];
}

function wasmBindgenCli() {
  const want = lockedWasmBindgen();
  const have = output('wasm-bindgen', ['--version']);
  const runner = output('wasm-bindgen-test-runner', ['--version']);
  if (have === `wasm-bindgen ${want}` && runner?.endsWith(want)) {
    return say(`wasm-bindgen CLI ${want}: present`);
  }
  say(`wasm-bindgen CLI: need ${want}, found ${have ?? 'none'}; building it from crates.io (several minutes, once)`);
  // Not --locked: its own lock file does not build here; --no-default-features drops the
  // browser-driver download support, which is not needed (tests run in node and in playwright).
  run('cargo', ['install', 'wasm-bindgen-cli', '--version', want, '--no-default-features', '--force']);
  const now = output('wasm-bindgen', ['--version']);
  if (now !== `wasm-bindgen ${want}`) fail(`after installing, wasm-bindgen --version says ${now}; is ${cargoBin} first on PATH?`);
  if (!output('wasm-bindgen-test-runner', ['--version'])?.endsWith(want)) fail('wasm-bindgen-test-runner was not installed');
}

/** True when every package in package-lock.json is installed at its locked version. */
function nodeModulesCurrent() {
  const lockPath = join(REPO, 'package-lock.json');
  if (!existsSync(lockPath)) return false;
  const lock = JSON.parse(readFileSync(lockPath, 'utf8'));
  for (const [path, entry] of Object.entries(lock.packages ?? {})) {
    if (!path.startsWith('node_modules/') || entry.optional) continue;
    const manifest = join(REPO, path, 'package.json');
    if (!existsSync(manifest)) return false;
    if (JSON.parse(readFileSync(manifest, 'utf8')).version !== entry.version) return false;
  }
  return true;
}

function nodeModules() {
  if (nodeModulesCurrent()) return say('node_modules: up to date with package-lock.json');
  if (existsSync(join(REPO, 'package-lock.json'))) {
    run('npm', ['ci', '--no-audit', '--no-fund']);
  } else {
    run('npm', ['install', '--no-audit', '--no-fund']);
  }
}

function aptInstall(packages, why) {
  const isRoot = process.getuid?.() === 0;
  if (!isRoot || output('apt-get', ['--version']) === null) {
    fail(`${why}. Install it, e.g. \`sudo apt-get install ${packages.join(' ')}\` on Debian/Ubuntu, ` +
      'or set CHROMIUM_PATH / FIREFOX_PATH / HUGO_PATH to where they are.');
  }
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  run('apt-get', ['update'], { env });
  run('apt-get', ['install', '-y', '--no-install-recommends', ...packages], { env });
}

/** The browsers (the e2e suites run in Chromium and Firefox ESR), Hugo and a font. */
function browsers() {
  const wanted = [
    ['chromium', CHROMIUM],
    ['firefox-esr', FIREFOX],
    ['hugo', HUGO],
    ['fonts-dejavu-core', FONT_DIR],
  ];
  const missing = wanted.filter(([, path]) => !existsSync(path));
  if (missing.length === 0) return say(`chromium, firefox-esr, hugo and fonts: present (${wanted.map(([, p]) => p).join(', ')})`);
  aptInstall(missing.map(([pkg]) => pkg), `the browser tests need ${missing.map(([pkg, path]) => `${pkg} (${path})`).join(', ')}`);
  for (const [pkg, path] of missing) {
    if (!existsSync(path)) fail(`${path} is still missing after installing ${pkg}`);
  }
}

const started = Date.now();
rustTarget();
wasmBindgenCli();
nodeModules();
if (forTests) browsers();
say(`ready (${((Date.now() - started) / 1000).toFixed(1)} s)`);
