// Starts fetching and compiling the wasm core as soon as core.js has arrived, before the rest of
// the page's modules (main.js's graph) have loaded: index.html runs this module script first, and
// main.js's initCore() then gets the same load (the first number sooner).
import { initCore } from '../common/core.js';

initCore();
