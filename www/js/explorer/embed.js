// Embed mode and the page's embed / offline tools.
//
//   #…&embed=1   a compact layout for an <iframe> (the main plot, A, B, q and N, the key numbers and
//                an "Open full explorer" link to the same state without embed=1, in a new tab).
//                The layout is www/embed.css under `html.embed`. An embedded page never writes its
//                URL (an iframe's history entries would land in the embedding page's back button).
//   #…&embed=1&why=eq65  the embed also shows that claim card with its "Why" open, below the plot
//                (class `embed-why`; proofs.js opens it), so an embed in a forum reply can carry
//                the argument with the view's numbers.
//   "Copy embed code"  an <iframe> snippet for the current state (full page only, not from file:);
//                an open "Why" on the page goes into the snippet as `why=<card>`.
//   "Download offline copy"  shown only where `npm run bundle` placed depthprod.html next to the page:
//                the bundler marks such a site with <meta name="depthprod-offline-copy">, so the page
//                asks the server nothing (a HEAD request would 404, with a console error, on www/).
//
// Nothing here computes: fragments are the page's own serialization (state.js), text is DOM text.

const KEY = 'embed';

function segments(hash) {
  return String(hash || '').replace(/^#/, '').split('&').filter(Boolean);
}

function keyOf(segment) {
  const raw = segment.split('=', 1)[0];
  try {
    return decodeURIComponent(raw.replace(/\+/g, ' '));
  } catch {
    return raw;
  }
}

/** The card a `why` key names (an id such as eq65), or null. */
function whyKey(hash) {
  const seg = segments(hash).find((s) => keyOf(s) === 'why');
  const id = seg ? seg.slice(seg.indexOf('=') + 1) : '';
  return /^[a-z0-9-]{1,20}$/i.test(id) ? id : null;
}

/** Whether a fragment asks for embed mode (`embed=1`, or `embed` alone). */
export function isEmbed(hash) {
  return segments(hash).some((s) => keyOf(s) === KEY && /^[^=]*(=(1|true|yes|on)?)?$/i.test(s));
}

/** The fragment without its `embed` key, every other part kept as written. */
export function stripEmbed(hash) {
  const kept = segments(hash).filter((s) => keyOf(s) !== KEY);
  return kept.length ? `#${kept.join('&')}` : '';
}

/** Decided once, at load: the layout does not switch under a user's hands. */
export const embedded = isEmbed(typeof location === 'undefined' ? '' : location.hash);

let fragment = '';
let openLink = null;

/** The page URL with another fragment (works for http(s) and file: alike). */
function pageUrl(frag) {
  const u = new URL(location.href);
  u.hash = frag.replace(/^#/, '');
  return u.href;
}

/** Text safe inside a double-quoted HTML attribute. */
function attr(s) {
  return String(s).replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** A short human description of a fragment's parameters, for the iframe's title. */
function describe(frag) {
  const p = new URLSearchParams(frag.replace(/^#/, ''));
  const parts = [];
  for (const k of ['a', 'b', 'c', 'q', 'eps', 'lambda', 'n']) {
    if (p.has(k)) parts.push(`${k === 'a' || k === 'b' ? k.toUpperCase() : k === 'n' ? 'N' : k} = ${p.get(k)}`);
  }
  if (p.has('variance')) parts.push(`${p.get('variance')} variance`);
  return parts.join(', ');
}

/** The <iframe> snippet for a fragment (the page's own serialization of its state). */
export function embedCode(frag) {
  const body = frag.replace(/^#/, '');
  const src = pageUrl(`${body}${body ? '&' : ''}embed=1`);
  const what = describe(frag);
  const title = `depthprod: certified depth products of “The Curse of Depth”${what ? ` (${what})` : ''}`;
  return `<iframe src="${attr(src)}" title="${attr(title)}" width="600" height="400" loading="lazy" class="depthprod-embed"></iframe>`;
}

/** Keeps the links that carry the state current; main.js calls it after every update. */
export function syncEmbed(frag) {
  fragment = frag;
  if (openLink) openLink.href = pageUrl(frag);
}

/** Sets up embed mode or, on the full page, the embed and offline tools. */
export function initEmbed() {
  if (embedded) {
    document.documentElement.classList.add('embed');
    const showWhy = () => document.documentElement.classList.toggle('embed-why', !!whyKey(location.hash));
    showWhy();
    window.addEventListener('hashchange', showWhy);
    const bar = document.createElement('div');
    bar.className = 'embed-bar';
    const title = document.createElement('span');
    title.className = 'embed-title';
    const name = document.createElement('b');
    name.textContent = 'depthprod';
    title.append(name, ' · certified log P', sub('N'), ', log Q', sub('N'), ' against depth N');
    openLink = document.createElement('a');
    openLink.className = 'embed-open';
    openLink.target = '_blank';
    openLink.rel = 'noopener';
    openLink.dataset.testid = 'embed-open';
    openLink.textContent = 'Open full explorer ↗';
    openLink.href = pageUrl(stripEmbed(location.hash));
    bar.append(title, openLink);
    document.body.prepend(bar);
    return;
  }

  const offline = document.getElementById('offline-link');
  const marker = document.querySelector('meta[name="depthprod-offline-copy"]');
  if (offline && marker) {
    offline.href = marker.content || 'depthprod.html';
    offline.hidden = false;
  }

  const button = document.getElementById('copy-embed');
  const box = document.getElementById('embed-code');
  const status = document.getElementById('embed-status');
  if (!button || !box) return;
  // A snippet pointing at a file on this computer would help nobody.
  if (location.protocol === 'file:') {
    button.hidden = true;
    return;
  }
  button.hidden = false;
  button.addEventListener('click', async () => {
    const open = document.querySelector('details.why[open][data-card]')?.dataset.card;
    const frag = fragment || stripEmbed(location.hash);
    const code = embedCode(open ? `${frag || '#'}${frag.length > 1 ? '&' : ''}why=${encodeURIComponent(open)}` : frag);
    box.value = code;
    box.hidden = false;
    box.focus();
    box.select();
    let copied = false;
    try {
      if (navigator.clipboard && window.isSecureContext) {
        await navigator.clipboard.writeText(code);
        copied = true;
      }
    } catch {
      copied = false;
    }
    if (status) status.textContent = copied ? 'Embed code copied to the clipboard.' : 'Select the code above and copy it (Ctrl+C / ⌘C).';
  });
}

function sub(text) {
  const el = document.createElement('sub');
  el.textContent = text;
  return el;
}
