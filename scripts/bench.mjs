#!/usr/bin/env node
// Placeholder: the benchmark of the wasm build (to be written).
console.log('bench: no benchmark yet');
