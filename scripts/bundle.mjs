#!/usr/bin/env node
// The offline bundle (`npm run bundle`, after the wasm build that `npm run build` does):
//
//   dist/depthprod.html   ONE self-contained file: every stylesheet inlined, every module script of
//                         www/index.html bundled (esbuild, from npm) into one classic inline script,
//                         and the wasm inlined as base64 of its gzip, inflated in the browser with
//                         DecompressionStream and instantiated from bytes. Chromium refuses module
//                         scripts and fetch() from file://, so nothing may be loaded: its CSP has
//                         default-src 'none', the script and the style allowed by sha256 hash, and
//                         'wasm-unsafe-eval'. It works opened from disk with networking off.
//   dist/site/            the static site for any host: a copy of www/ (pkg/ included), with
//                         dist/site/depthprod.html and a <meta name="depthprod-offline-copy"> that
//                         makes the page show its "Download offline copy" link; its index.html
//                         loads the page's module graph bundled into js/bundle/index-boot.js,
//                         js/bundle/index-main.js and their shared chunk (the modules stay
//                         beside them for the lab, the embeds and <depthprod-plot>).
//
// Prints the single file's size raw and gzipped against the goals of issue 11 (200 KiB, 100 KiB).
//
//   node scripts/bundle.mjs        (needs www/pkg: run `npm run build` first; `npm run bundle` does)

import { build, transform } from 'esbuild';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const REPO = resolve(fileURLToPath(new URL('..', import.meta.url)));
const WWW = join(REPO, 'www');
const PKG = join(WWW, 'pkg');
const GLUE = join(PKG, 'depthprod_wasm.js');
const WASM = join(PKG, 'depthprod_wasm_bg.wasm');
const DIST = join(REPO, 'dist');
const SINGLE = join(DIST, 'depthprod.html');
const SITE = join(DIST, 'site');
const GOAL_RAW = 200 * 1024;
const GOAL_GZ = 100 * 1024;

function fail(msg) {
  console.error(`bundle: ERROR: ${msg}`);
  process.exit(1);
}

for (const f of [GLUE, WASM]) {
  if (!existsSync(f)) fail(`${relative(REPO, f)} is missing: run \`npm run build\` first (\`npm run bundle\` does)`);
}

const sha256 = (text) => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;
const kib = (n) => `${(n / 1024).toFixed(1)} KiB`;

// ───────────── the page's markup ─────────────
const html = readFileSync(join(WWW, 'index.html'), 'utf8');

// Module scripts, in document order: one synthetic entry imports them all.
const modules = [...html.matchAll(/<script\s+type="module"\s+src="([^"]+)"\s*><\/script>\s*\n?/g)];
if (modules.length === 0) fail('www/index.html has no <script type="module" src="…">');
const otherScripts = html.replace(/<script\s+type="module"\s+src="[^"]+"\s*><\/script>/g, '').match(/<script\b[^>]*>/g);
if (otherScripts) fail(`www/index.html has scripts the bundler does not handle: ${otherScripts.join(' ')}`);

// Stylesheets, in document order (a media attribute becomes an @media block).
const links = [...html.matchAll(/<link\s+rel="stylesheet"\s+href="([^"]+)"([^>]*)>\s*\n?/g)];

// ───────────── JavaScript: one classic script ─────────────
const wasmBytes = readFileSync(WASM);
const packed = gzipSync(wasmBytes, { level: 9 }).toString('base64');

/** Replaces `../pkg/depthprod_wasm.js` with the same glue whose init() takes the inlined bytes. */
const inlineWasm = {
  name: 'inline-wasm',
  setup(b) {
    b.onResolve({ filter: /(^|\/)depthprod_wasm\.js$/ }, (args) => {
      if (args.namespace === 'inline-wasm') return { path: GLUE };
      return { path: 'depthprod_wasm', namespace: 'inline-wasm' };
    });
    b.onLoad({ filter: /.*/, namespace: 'inline-wasm' }, () => ({
      resolveDir: PKG,
      loader: 'js',
      contents: `
import init from './depthprod_wasm.js';
export * from './depthprod_wasm.js';
const PACKED = ${JSON.stringify(packed)};
// The wasm, gzipped and base64-encoded into this file: decoded and inflated here, then instantiated
// from bytes (no fetch, no URL).
export default async function initInline() {
  const text = atob(PACKED);
  const gz = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) gz[i] = text.charCodeAt(i);
  const stream = new Blob([gz]).stream().pipeThrough(new DecompressionStream('gzip'));
  const bytes = await new Response(stream).arrayBuffer();
  return init({ module_or_path: bytes });
}
`,
    }));
  },
};

const entry = modules.map((m) => `import ${JSON.stringify(`./${m[1].replace(/^\.\//, '')}`)};`).join('\n');
const result = await build({
  stdin: { contents: entry, resolveDir: WWW, sourcefile: 'index-entry.js', loader: 'js' },
  bundle: true,
  format: 'iife',
  platform: 'browser',
  minify: true,
  charset: 'utf8',
  legalComments: 'none',
  write: false,
  // The glue's default path (new URL('…_bg.wasm', import.meta.url)) is never taken here.
  define: { 'import.meta.url': '"about:invalid"' },
  plugins: [inlineWasm],
  logLevel: 'silent',
});
for (const w of result.warnings) console.warn(`bundle: warning: ${w.text}${w.location ? ` (${w.location.file}:${w.location.line})` : ''}`);
let js = result.outputFiles[0].text.trimEnd();
// Inline script text must not end the element or open an HTML comment.
if (/<\/script|<!--|<script/i.test(js)) fail('the bundled script contains </script, <script or <!--; it cannot be inlined safely');

// ───────────── CSS ─────────────
let css = '';
for (const [, href, rest] of links) {
  const file = resolve(WWW, href);
  if (!file.startsWith(WWW) || !existsSync(file)) fail(`stylesheet ${href} not found under www/`);
  let text = readFileSync(file, 'utf8');
  if (/url\(\s*['"]?(?!data:)/i.test(text)) fail(`${href} references a url() that is not data: (the single file must load nothing)`);
  const media = /\bmedia="([^"]+)"/.exec(rest)?.[1];
  if (media && media !== 'all') text = `@media ${media} {\n${text}\n}`;
  css += `${text}\n`;
}
css = (await transform(css, { loader: 'css', minify: true, charset: 'utf8', legalComments: 'none' })).code.trimEnd();
if (/<\/style/i.test(css)) fail('the CSS contains </style');

// ───────────── the single file ─────────────
const csp = [
  "default-src 'none'",
  `script-src ${sha256(js)} 'wasm-unsafe-eval'`,
  `style-src ${sha256(css)}`,
  'img-src data: blob:',
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');

let single = html;
const cspMeta = /<meta\s+http-equiv="Content-Security-Policy"\s+content="[^"]*">/;
if (!cspMeta.test(single)) fail('www/index.html has no CSP meta to replace');
single = single.replace(cspMeta, `<meta http-equiv="Content-Security-Policy" content="${csp}">`);
links.forEach(([tag], i) => {
  single = single.replace(tag, i === 0 ? `<style>${css}</style>\n` : '');
});
for (const [tag] of modules) single = single.replace(tag, '');
// The icon is inlined as a data: URL (img-src allows data:), so the file requests no favicon.
const iconTag = /<link\s+rel="icon"\s+href="favicon\.svg"[^>]*>/;
if (!iconTag.test(single)) fail('www/index.html has no <link rel="icon" href="favicon.svg">');
const iconData = `data:image/svg+xml;base64,${readFileSync(join(WWW, 'favicon.svg')).toString('base64')}`;
single = single.replace(iconTag, `<link rel="icon" href="${iconData}" type="image/svg+xml">`);
// Preload hints name files that are now inside this one.
single = single.replace(/<link\s+rel="(?:modulepreload|preload|prefetch)"[^>]*>\s*\n?/g, '');
// No markup may point outside the file (the hidden offline link is removed: this is the copy).
single = single.replace(/\s*<a id="offline-link"[^>]*>[\s\S]*?<\/a>/, '');
// The lab (lab.html, its worker and wasm) is not in the single file: its link goes too.
single = single.replace(/\s*<span id="lab-link">[\s\S]*?<\/span>/, '');
const refs = [...single.matchAll(/\s(?:src|href)="([^"]*)"/g)].map((m) => m[1]).filter((u) => !/^(data:|#)/.test(u));
if (refs.length) fail(`the single file's markup still references: ${refs.join(', ')}`);

// At the end of <body>, like a deferred module script: the DOM is there when it runs.
if (!single.includes('</body>')) fail('www/index.html has no </body>');
single = single.replace('</body>', () => `<script>${js}</script>\n</body>`);

mkdirSync(DIST, { recursive: true });
writeFileSync(SINGLE, single);

// ───────────── the static site ─────────────
rmSync(SITE, { recursive: true, force: true });
cpSync(WWW, SITE, { recursive: true, filter: (src) => !/(^|[\\/])\.[^\\/]+$/.test(relative(WWW, src)) });
const siteIndex = join(SITE, 'index.html');
const marked = readFileSync(siteIndex, 'utf8').replace(
  /<meta charset="utf-8">\n?/,
  (m) => `${m}${m.endsWith('\n') ? '' : '\n'}<meta name="depthprod-offline-copy" content="depthprod.html">\n`,
);
if (!marked.includes('depthprod-offline-copy')) fail('could not mark dist/site/index.html');
// The page's module graph (about 20 files) as two small bundles: js/bundle/index-boot.js (the
// core's loader, so the wasm starts compiling as soon as it arrives, as www/'s boot.js does) and
// js/bundle/index-main.js (the rest), with what they share in one chunk (one copy of core.js's
// state). A host answers four requests instead of 20. import.meta.url is the chunk's, two folders
// below the site like js/common/core.js, so ../../pkg/ resolves the same. The site's other pages (the lab, the embed
// examples, <depthprod-plot>) keep their modules.
const app = await build({
  entryPoints: modules.map((m) => join(SITE, m[1])),
  outdir: join(SITE, 'js', 'bundle'),
  entryNames: 'index-[name]',
  chunkNames: 'index-chunk-[hash]',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'browser',
  minify: true,
  charset: 'utf8',
  legalComments: 'none',
  metafile: true,
  write: true,
  logLevel: 'silent',
});
for (const w of app.warnings) console.warn(`bundle: warning (dist/site/js/index-*.js): ${w.text}`);
const outputs = Object.entries(app.metafile.outputs).map(([file, o]) => ({ rel: relative(SITE, resolve(REPO, file)).split('\\').join('/'), entry: o.entryPoint, bytes: o.bytes }));
let bundled = marked;
for (const [tag, src] of modules) {
  const out = outputs.find((o) => o.entry && resolve(REPO, o.entry) === join(SITE, src));
  if (!out) fail(`no bundle for ${src}`);
  bundled = bundled.replace(tag, `<script type="module" src="${out.rel}"></script>\n`);
}
// The per-module preload hints would fetch the 25 files anyway: they name the bundles instead.
bundled = bundled.replace(/<link\s+rel="modulepreload"[^>]*>\s*\n?/g, '');
const preloads = outputs.map((o) => `<link rel="modulepreload" href="${o.rel}">\n`).join('');
bundled = bundled.replace(/(<script type="module" src="js\/bundle\/index-[^"]+"><\/script>\n)(?![\s\S]*<script type="module" src="js\/bundle\/index-)/, (m) => `${m}${preloads}`);
if (!bundled.includes('rel="modulepreload" href="js/bundle/index-') || /type="module"\s+src="js\/(?!bundle\/index-)/.test(bundled)) fail('could not point dist/site/index.html at its bundles');
writeFileSync(siteIndex, bundled);
const appBytes = outputs.reduce((n, o) => n + o.bytes, 0);
cpSync(SINGLE, join(SITE, 'depthprod.html'));

// ───────────── sizes ─────────────
const raw = Buffer.byteLength(single);
const gz = gzipSync(single, { level: 9 }).length;
const verdict = (n, goal) => (n <= goal ? `within the ${kib(goal)} goal` : `OVER the ${kib(goal)} goal`);
console.log(`bundle: wasm ${kib(wasmBytes.length)} → gzip + base64 ${kib(packed.length)}; script ${kib(Buffer.byteLength(js))} (wasm included); css ${kib(Buffer.byteLength(css))}`);
console.log(`bundle: ${relative(REPO, SINGLE)}: ${kib(raw)} raw (${verdict(raw, GOAL_RAW)}), ${kib(gz)} gzipped (${verdict(gz, GOAL_GZ)})`);
console.log(`bundle: ${relative(REPO, SITE)}/: www/ with pkg/ and depthprod.html (${dirname(relative(REPO, siteIndex))}/index.html shows the download link and loads its modules as ${outputs.length} bundles, js/bundle/index-*.js, ${kib(appBytes)})`);
