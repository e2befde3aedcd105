// Which dropped or chosen files the lab can take, decided at the drop from their names and first
// bytes, before anything is read whole: a safetensors file starts with its header's length (8 bytes,
// little-endian) followed by the header, a JSON object; a config.json is a .json file. Anything else
// (notes.txt, a picture, a .bin checkpoint) is refused with the reason, and the page's state does not
// change. The lab reads the weights themselves (crates/depthlab/src/load.rs) and has the last word.

/**
 * Largest checkpoint the tab takes. wasm32 memory ends at 4 GiB; the file's bytes are copied into it
 * and its weights widened to f64 (4x for f16/bf16), so 128 MiB of file is up to ~0.6 GiB before the
 * run's own buffers. Larger files go to the CLI (the message names the command).
 */
export const MAX_CHECKPOINT_BYTES = 128 * 1024 * 1024;

/** n bytes as "12 KiB" / "3.4 MiB". */
export function sizeText(n) {
  if (n < 1048576) return `${Math.max(1, Math.round(n / 1024))} KiB`;
  return `${(n / 1048576).toFixed(1)} MiB`;
}

/**
 * Why `file` (a File or Blob with a name) is not a safetensors file, from its first 9 bytes, or null
 * when it looks like one: a header length n with 2 ≤ n ≤ size − 8, then '{'.
 */
export async function notSafetensors(file) {
  if (file.size < 10) return `${file.name} is ${file.size} bytes long, too short for a safetensors file (an 8-byte header length, then a JSON header)`;
  const head = new Uint8Array(await file.slice(0, 9).arrayBuffer());
  const n = new DataView(head.buffer).getBigUint64(0, true);
  if (n < 2n || n > BigInt(file.size - 8) || head[8] !== 0x7b) {
    return `${file.name} is not a safetensors file: it does not start with a header length and a JSON header${/\.safetensors$/i.test(file.name) ? '' : ` (the lab reads .safetensors checkpoints, with an optional config.json)`}`;
  }
  return null;
}

/**
 * Sorts the files of one drop or choice: { weights: File | null, config: File | null, refused: [reasons] }.
 * A .json file is the config; any other file must be a safetensors file of at most
 * MAX_CHECKPOINT_BYTES (one: a second is refused).
 */
export async function sortFiles(files) {
  const refused = [];
  let weights = null;
  let config = null;
  for (const f of files) {
    if (/\.json$/i.test(f.name)) {
      if (config) refused.push(`${f.name}: one config.json at a time (${config.name} is taken)`);
      else config = f;
      continue;
    }
    if (f.size > MAX_CHECKPOINT_BYTES) {
      refused.push(`${f.name} is ${sizeText(f.size)}; this tab takes files up to ${sizeText(MAX_CHECKPOINT_BYTES)}. For larger checkpoints use the command line: depthprod lab --weights ${f.name}`);
      continue;
    }
    const why = await notSafetensors(f);
    if (why) refused.push(why);
    else if (weights) refused.push(`${f.name}: one checkpoint at a time (${weights.name} is taken)`);
    else weights = f;
  }
  return { weights, config, refused };
}
