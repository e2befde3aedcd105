// Static checks (no browser): the repository stands on its own. No tracked file may point outside it
// (the parent folder's "shared" directory, or any mathematics document but docs/MATH.md), every relative link
// of a Markdown file must reach a file of the repository, and so must every href / src of the page's
// HTML files (build outputs aside: see GENERATED).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, posix, relative, resolve } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const REPO = resolve(fileURLToPath(new URL('../..', import.meta.url)));

// Files the build writes (never tracked): `npm run build` makes www/pkg/, `npm run bundle` the
// offline copy that dist/site/ serves next to index.html.
const GENERATED = [/^www\/pkg\//, /^www\/depthprod\.html$/];

const BINARY = /\.(png|jpe?g|gif|webp|ico|wasm|woff2?|gz|zip|pdf)$/i;

/** Tracked files (git ls-files), or, outside a git checkout, every file but build folders. */
function trackedFiles() {
  const r = spawnSync('git', ['ls-files', '-z'], { cwd: REPO, encoding: 'utf8' });
  if (r.status === 0 && r.stdout) return r.stdout.split('\0').filter(Boolean).filter((f) => existsSync(join(REPO, f)));
  const out = [];
  const walk = (dir) => {
    for (const name of readdirSync(join(REPO, dir))) {
      if (['.git', 'node_modules', 'target', 'dist', 'pkg', 'artifacts'].includes(name)) continue;
      const rel = dir ? `${dir}/${name}` : name;
      if (statSync(join(REPO, rel)).isDirectory()) walk(rel);
      else out.push(rel);
    }
  };
  walk('');
  return out;
}

const FILES = trackedFiles();
const TEXT = FILES.filter((f) => !BINARY.test(f));
const read = (f) => readFileSync(join(REPO, f), 'utf8');

/** Whether a repository-relative path names a file or folder that exists (or a build output). */
function reachable(path) {
  if (GENERATED.some((re) => re.test(path))) return true;
  return existsSync(join(REPO, path));
}

test('the file list is the repository', () => {
  for (const f of ['README.md', 'ARCHITECTURE.md', 'docs/MATH.md', 'www/index.html']) assert.ok(FILES.includes(f), `${f} missing from the file list`);
});

test('no tracked file refers to the parent folder’s shared directory or to any mathematics document but docs/MATH.md', () => {
  const shared = ['..', 'shared'].join('/'); // spelled in two parts so this file does not match itself
  const problems = [];
  for (const f of TEXT) {
    const lines = read(f).split('\n');
    lines.forEach((line, i) => {
      if (line.includes(shared) || /\/work\/shared\b/.test(line)) problems.push(`${f}:${i + 1}: ${line.trim()}`);
      for (const m of line.matchAll(/(\S*?)MATH\.md/g)) {
        const prefix = m[1].replace(/^[`'"([]+/, '');
        const ok = /(^|[^\w.])docs\/$/.test(prefix) || (f.startsWith('docs/') && prefix === '') || (f.startsWith('docs/') && prefix === '#');
        if (!ok) problems.push(`${f}:${i + 1}: “${m[0]}” (write docs/MATH.md)`);
      }
    });
  }
  assert.deepEqual(problems, [], `references outside the repository:\n  ${problems.join('\n  ')}`);
});

/** Relative link targets of a Markdown text: [text](target) and [ref]: target, outside code. */
function markdownLinks(text) {
  const out = [];
  const noCode = text.replace(/```[\s\S]*?```/g, '').replace(/`[^`\n]*`/g, '');
  for (const m of noCode.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) out.push(m[1]);
  for (const m of noCode.matchAll(/^\s*\[[^\]]+\]:\s*(\S+)/gm)) out.push(m[1]);
  return out;
}

const external = (u) => /^([a-z][a-z0-9+.-]*:|\/\/|#)/i.test(u);

test('every relative link in a Markdown file reaches a repository file', () => {
  const broken = [];
  let checked = 0;
  for (const f of TEXT.filter((x) => x.endsWith('.md'))) {
    for (const target of markdownLinks(read(f))) {
      if (external(target)) continue;
      const path = posix.normalize(posix.join(posix.dirname(f), decodeURIComponent(target.split('#')[0])));
      checked++;
      if (path.startsWith('..') || !reachable(path)) broken.push(`${f}: ${target}`);
    }
  }
  assert.ok(checked >= 3, `only ${checked} relative Markdown links found: is the scan working?`);
  assert.deepEqual(broken, [], `broken links:\n  ${broken.join('\n  ')}`);
});

test('every href and src of the page’s HTML files reaches a repository file', () => {
  const broken = [];
  let checked = 0;
  for (const f of TEXT.filter((x) => x.startsWith('www/') && x.endsWith('.html'))) {
    const html = read(f).replace(/<!--[\s\S]*?-->/g, '');
    for (const m of html.matchAll(/\s(?:href|src)="([^"]*)"/g)) {
      const target = m[1];
      if (target === '' || external(target)) continue;
      const path = posix.normalize(posix.join(posix.dirname(f), target.split(/[?#]/)[0]));
      checked++;
      if (path.startsWith('..') || !reachable(path)) broken.push(`${f}: ${target}`);
    }
  }
  assert.ok(checked >= 10, `only ${checked} href/src found: is the scan working?`);
  assert.deepEqual(broken, [], `broken references:\n  ${broken.join('\n  ')}`);
});

test('the checks catch what they should (self-test on made-up input)', () => {
  assert.deepEqual(markdownLinks('see [a](docs/X.md#y) and `[b](c.md)` and\n[r]: ../up.md'), ['docs/X.md#y', '../up.md']);
  assert.ok(!reachable('docs/NO-SUCH-FILE.md') && reachable('docs/MATH.md') && reachable('www/pkg/depthprod_wasm.js'));
  assert.equal(relative(REPO, dirname(join(REPO, 'a/b.md'))), 'a');
});
