//! Joining the reports of a run's shares ([`Share`]) into the whole run's report, bit for bit.

use crate::error::LabError;
use crate::report::{derive_products_of_norms, LayerReport, Report};
use crate::spec::Share;

/// The report of a whole run from the reports of its shares ([`Share`]), one per share in any
/// order: each layer's norms and gradients from the share that measured them, the loss and the
/// angular distances from the last share, and the derived columns computed afresh by the code a
/// whole run uses. Equal, bit for bit, to the report of the same spec run whole (tested).
/// Reports of different runs (configuration, seed, tolerance, digests or layer count differ), or
/// a count of reports that is not the shares' count, are an error.
pub fn merge_shares(parts: Vec<Report>) -> Result<Report, LabError> {
    let bad = |why: &str| LabError::OutOfRange {
        name: "shares",
        value: format!("{} reports", parts.len()),
        range: format!("the reports of every share of one run ({why})"),
    };
    let Some(first) = parts.first() else {
        return Err(bad("none given"));
    };
    let same_run = |r: &Report| {
        r.config == first.config
            && r.seed == first.seed
            && r.lanczos_tol.to_bits() == first.lanczos_tol.to_bits()
            && r.digest == first.digest
            && r.layers.len() == first.layers.len()
    };
    if !parts.iter().all(same_run) {
        return Err(bad("they are of different runs"));
    }
    let mut shares: Vec<Share> = parts.iter().map(|r| r.share).collect();
    shares.sort_by_key(|s| s.index);
    let count = parts.len();
    if !shares
        .iter()
        .enumerate()
        .all(|(i, s)| s.count == count && s.index == i)
    {
        return Err(bad(
            "one report for each share index, all of the same count",
        ));
    }
    let mut merged = first.clone();
    merged.share = Share::WHOLE;
    for part in &parts {
        if part.share.has_extras() {
            merged.loss = part.loss;
            merged.angular_distance = part.angular_distance.clone();
        }
        if part.share.has_end_to_end() {
            merged.upper_bound = part.upper_bound;
        }
        for (m, p) in merged.layers.iter_mut().zip(&part.layers) {
            if part.share.has_extras() {
                m.grad_norms = p.grad_norms.clone();
            }
            m.jacobian = m.jacobian.or(p.jacobian);
            m.jacobian_minus_identity = m.jacobian_minus_identity.or(p.jacobian_minus_identity);
            m.end_to_end = m.end_to_end.or(p.end_to_end);
            m.end_to_end_upper = m.end_to_end_upper.or(p.end_to_end_upper);
        }
    }
    merged
        .layers
        .iter_mut()
        .for_each(LayerReport::derive_own_columns);
    derive_products_of_norms(&mut merged.layers);
    Ok(merged)
}
