//! The stages of a run as its caller sees them: their names and step counts ([`stages`]), the
//! progress and per-layer callbacks and the stop flag ([`Hooks`]), and the workers' side of them
//! ([`Ctx`]: events out through a channel with `parallel`, direct calls without).

use crate::report::LayerUpdate;
use crate::spec::{LabSpec, Share};
use serde::Serialize;

/// Progress: (phase, done, total).
pub type Progress<'a> = &'a (dyn Fn(&str, usize, usize) + Sync);

/// Stage names, as passed to the progress callback, in the order a run goes through them.
pub const STAGE_FORWARD: &str = "forward";
pub const STAGE_END_TO_END: &str = "end-to-end Jacobians";
pub const STAGE_LAYER_JACOBIANS: &str = "layer Jacobians";
pub const STAGE_GRADIENTS: &str = "gradients";

/// One stage of a run: its name (the progress callback's `phase`) and its step count (`total`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Stage {
    pub name: &'static str,
    pub total: usize,
}

/// The stages `spec` will go through, in order (unselected measurements, and those with no step
/// in the spec's share, have none).
pub fn stages(spec: &LabSpec) -> Vec<Stage> {
    let big_l = spec.cfg.layers;
    let mut v = vec![Stage {
        name: STAGE_FORWARD,
        total: 1,
    }];
    let share = spec.select.share;
    // The end-to-end norms first: the whole network's norm (suffix 1) is the first they give.
    if spec.select.end_to_end && share.has_end_to_end() {
        v.push(Stage {
            name: STAGE_END_TO_END,
            total: big_l,
        });
    }
    // A share may have no layer of its own (more shares than layers).
    if spec.select.layer_norms && share_layers(share, big_l) > 0 {
        v.push(Stage {
            name: STAGE_LAYER_JACOBIANS,
            total: share_layers(share, big_l),
        });
    }
    if spec.select.gradients && share.has_extras() {
        v.push(Stage {
            name: STAGE_GRADIENTS,
            total: 1,
        });
    }
    v
}

/// How many layers' per-layer norms `share` measures.
pub(crate) fn share_layers(share: Share, layers: usize) -> usize {
    (1..=layers).filter(|&l| share.has_layer(l)).count()
}

/// the caller's thread only (natively the work runs on other threads and reports back through a
/// channel), so they need not be `Sync` (a wasm-bindgen `js_sys::Function` is fine).
pub struct Hooks<'a> {
    /// (stage name, steps done, stage total); see [`stages`].
    pub progress: &'a dyn Fn(&str, usize, usize),
    /// Each layer's measurements as they finish.
    pub on_layer: &'a dyn Fn(&LayerUpdate),
    /// Polled between units of work of at most one layer JVP or VJP (natively every 5 ms on the
    /// caller's thread, the workers checking a flag between layer operations); once it returns
    /// true the run ends with [`LabError::Cancelled`].
    pub should_stop: &'a dyn Fn() -> bool,
}

impl std::fmt::Debug for Hooks<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Hooks").finish_non_exhaustive()
    }
}

pub(crate) enum Event {
    Progress(&'static str, usize, usize),
    Layer(Box<LayerUpdate>),
}

/// The workers' view of the hooks: events out, a stop flag in.
#[cfg(feature = "parallel")]
pub(crate) struct Ctx<'a> {
    tx: std::sync::mpsc::Sender<Event>,
    stop: &'a std::sync::atomic::AtomicBool,
}

#[cfg(feature = "parallel")]
impl Ctx<'_> {
    pub(crate) fn emit(&self, e: Event) {
        // The receiver lives until the worker returns; a send error cannot happen.
        let _ = self.tx.send(e);
    }
    pub(crate) fn stopped(&self) -> bool {
        self.stop.load(std::sync::atomic::Ordering::Relaxed)
    }
}

#[cfg(not(feature = "parallel"))]
pub(crate) struct Ctx<'a> {
    hooks: &'a Hooks<'a>,
    stop: std::cell::Cell<bool>,
}

#[cfg(not(feature = "parallel"))]
impl Ctx<'_> {
    pub(crate) fn emit(&self, e: Event) {
        match e {
            Event::Progress(p, d, t) => (self.hooks.progress)(p, d, t),
            Event::Layer(u) => (self.hooks.on_layer)(&u),
        }
    }
    pub(crate) fn stopped(&self) -> bool {
        if !self.stop.get() && (self.hooks.should_stop)() {
            self.stop.set(true);
        }
        self.stop.get()
    }
}

/// Runs `work` with the workers' view of `hooks` and returns what it returns. With `parallel` the
/// work runs on a scoped thread while this (the caller's) thread relays its events to the hooks
/// and polls `should_stop` every 5 ms; without, the work runs here and calls the hooks directly.
pub(crate) fn with_hooks<T: Send>(hooks: &Hooks, work: impl FnOnce(&Ctx) -> T + Send) -> T {
    #[cfg(feature = "parallel")]
    {
        use std::sync::atomic::{AtomicBool, Ordering};
        use std::sync::mpsc::{channel, RecvTimeoutError};
        let (tx, rx) = channel();
        let stop = AtomicBool::new(false);
        let stop_ref = &stop;
        std::thread::scope(|s| {
            let worker = s.spawn(move || work(&Ctx { tx, stop: stop_ref }));
            loop {
                if !stop.load(Ordering::Relaxed) && (hooks.should_stop)() {
                    stop.store(true, Ordering::Relaxed);
                }
                match rx.recv_timeout(std::time::Duration::from_millis(5)) {
                    Ok(Event::Progress(p, d, t)) => (hooks.progress)(p, d, t),
                    Ok(Event::Layer(u)) => (hooks.on_layer)(&u),
                    Err(RecvTimeoutError::Timeout) => {}
                    Err(RecvTimeoutError::Disconnected) => break,
                }
            }
            match worker.join() {
                Ok(r) => r,
                Err(panic) => std::panic::resume_unwind(panic),
            }
        })
    }
    #[cfg(not(feature = "parallel"))]
    {
        work(&Ctx {
            hooks,
            stop: std::cell::Cell::new(false),
        })
    }
}
