//! The parallel helpers at the bottom of the module graph: what the measurements spread over
//! threads with the `parallel` feature (rayon), and run one after another without it (the wasm
//! build). Nothing here knows what is measured.

/// `Sync` when the work is spread over threads (feature `parallel`), nothing otherwise (the
/// single-threaded build's hooks hold a `Cell`).
#[cfg(feature = "parallel")]
pub(crate) trait MaybeSync: Sync {}
#[cfg(feature = "parallel")]
impl<T: Sync + ?Sized> MaybeSync for T {}
#[cfg(not(feature = "parallel"))]
pub(crate) trait MaybeSync {}
#[cfg(not(feature = "parallel"))]
impl<T: ?Sized> MaybeSync for T {}

#[cfg(feature = "parallel")]
pub(crate) fn map_indices<T: Send>(n: usize, f: impl Fn(usize) -> T + Sync + Send) -> Vec<T> {
    use rayon::prelude::*;
    (0..n).into_par_iter().map(f).collect()
}

#[cfg(not(feature = "parallel"))]
pub(crate) fn map_indices<T>(n: usize, f: impl Fn(usize) -> T) -> Vec<T> {
    (0..n).map(f).collect()
}

/// Both closures, on two threads when there are (feature `parallel`), else one after the other.
#[cfg(feature = "parallel")]
pub(crate) fn join(a: impl FnOnce() + Send, b: impl FnOnce() + Send) {
    rayon::join(a, b);
}

#[cfg(not(feature = "parallel"))]
pub(crate) fn join(a: impl FnOnce(), b: impl FnOnce()) {
    a();
    b();
}

/// Threads the measurements run on at once: rayon's pool with `parallel`, else one. The memory
/// estimate counts one Lanczos basis per thread.
pub fn worker_threads() -> usize {
    #[cfg(feature = "parallel")]
    {
        rayon::current_num_threads().max(1)
    }
    #[cfg(not(feature = "parallel"))]
    {
        1
    }
}
