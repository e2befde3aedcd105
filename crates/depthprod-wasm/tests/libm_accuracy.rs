//! The accuracy the core assumes of `ln`, `exp`, `exp_m1`, `ln_1p`, `powf` and `sin`
//! ([`depthprod::LIBM_REL`]: one ulp), measured on wasm32, where Rust's port of musl's libm
//! supplies them, over the arguments the core uses, against the double-double reference shared
//! with the native test (`crates/depthprod/tests/libm_check/mod.rs`).
//! `cargo test -p depthprod-wasm --target wasm32-unknown-unknown --test libm_accuracy`
#![cfg(target_arch = "wasm32")]

#[path = "../../depthprod/tests/libm_check/mod.rs"]
mod libm_check;

use wasm_bindgen_test::{console_log, wasm_bindgen_test};

#[wasm_bindgen_test]
fn the_reference_is_right_on_known_values() {
    libm_check::check_reference();
}

#[wasm_bindgen_test]
fn elementary_functions_are_within_the_assumed_accuracy() {
    let worst = libm_check::measure(20_000);
    for (name, w) in &worst {
        console_log!(
            "wasm32 {name:7} worst {:.3} ulp ({:.3e} relative) at {:?}, {} samples",
            w.ulps,
            w.relative,
            w.at,
            w.samples
        );
    }
    for (name, w) in &worst {
        assert!(w.samples >= 20_000, "{name}: only {} samples", w.samples);
        assert!(
            w.relative <= depthprod::LIBM_REL,
            "{name}: {:.3e} relative ({:.3} ulp) at {:?} exceeds LIBM_REL = {:e}",
            w.relative,
            w.ulps,
            w.at,
            depthprod::LIBM_REL
        );
    }
}
