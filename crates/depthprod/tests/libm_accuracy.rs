//! The accuracy the core assumes of `ln`, `exp`, `exp_m1`, `ln_1p`, `powf` and `sin`
//! ([`depthprod::LIBM_REL`]: one ulp, a relative error of at most 2^-52), measured natively over the
//! arguments the core uses against a double-double reference. The same measurement runs on wasm32
//! in `crates/depthprod-wasm/tests/libm_accuracy.rs` (Rust's libm there, the platform's here).

#[path = "libm_check/mod.rs"]
mod libm_check;

#[test]
fn the_reference_is_right_on_known_values() {
    libm_check::check_reference();
}

#[test]
fn elementary_functions_are_within_the_assumed_accuracy() {
    let worst = libm_check::measure(20_000);
    for (name, w) in &worst {
        println!(
            "{name:7} worst {:.3} ulp ({:.3e} relative) at {:?}, {} samples",
            w.ulps, w.relative, w.at, w.samples
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
