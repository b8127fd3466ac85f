//! Which axis reads each axis-bound flag, and the refusal of a flag the run's axis (or
//! every axis a search covers) would ignore: a pool's layout on an axis without that
//! pool, a draft's flags without a speculation, the link where there is one pool.

use disagg_engine::disagg::Axis;

/// Where each axis-bound flag applies (clap ids): a flag given for an axis the run is
/// not on would be ignored, so it is refused instead, naming the flag and its axes.
const AXIS_FLAGS: [(&str, &str); 25] = [
    ("chip", "agg spec"),
    ("chips", "agg spec"),
    ("tp", "agg spec"),
    ("pp", "agg"),
    ("ep", "agg spec"),
    ("prefill_chip", "pd"),
    ("prefill_chips", "pd"),
    ("prefill_tp", "pd"),
    ("prefill_pp", "pd"),
    ("prefill_dp", "pd"),
    ("prefill_ep", "pd"),
    ("decode_chip", "pd"),
    ("decode_chips", "pd"),
    ("decode_tp", "pd"),
    ("decode_pp", "pd"),
    ("decode_dp", "pd"),
    ("decode_ep", "pd"),
    ("no_kv_streaming", "pd"),
    ("speculative_decode", "pd"),
    ("attn_chip", "af"),
    ("attn_chips", "af"),
    ("attn_tp", "af"),
    ("expert_chip", "af"),
    ("expert_chips", "af"),
    ("micro_batches", "af"),
];

/// The flags of a speculation (clap ids): the spec axis's, and the decode pool's where
/// `--axis pd` speculates (`--speculative-decode`). A separate draft pool is the spec
/// axis's alone.
const SPECULATION_FLAGS: [&str; 4] = ["draft_model", "acceptance", "draft_tokens", "eagle_layers"];
const DRAFT_POOL_FLAGS: [&str; 2] = ["draft_chip", "draft_chips"];

/// Why `axis` (speculating in its decode pool or not) would ignore the flag `id`, in
/// words; `None` when it reads it, or the flag is not axis-bound. The links between
/// pools apply to every axis but the aggregated one, which has no second pool.
fn ignored_by(axis: Axis, speculates: bool, id: &str) -> Option<String> {
    let flag = format!("--{}", id.replace('_', "-"));
    let here = axis.id();
    if let Some((_, axes)) = AXIS_FLAGS.iter().find(|(f, _)| *f == id) {
        if !axes.split(' ').any(|a| a == here) {
            return Some(format!(
                "{flag} applies to --axis {}, not to --axis {here}",
                axes.replace(' ', " or --axis ")
            ));
        }
    }
    let speculating = axis == Axis::Speculative || (axis == Axis::PrefillDecode && speculates);
    if SPECULATION_FLAGS.contains(&id) && !speculating {
        return Some(format!(
            "{flag} applies to --axis spec, or to --axis pd with --speculative-decode"
        ));
    }
    if DRAFT_POOL_FLAGS.contains(&id) && axis != Axis::Speculative {
        return Some(format!(
            "{flag} applies to --axis spec (a separate draft pool), not to --axis {here}"
        ));
    }
    if ["link", "link_gbps"].contains(&id) && axis == Axis::Aggregated {
        return Some(format!(
            "{flag} sets the link between pools, which --axis agg does not have"
        ));
    }
    None
}

/// The first of the `given` flags that the run's `axis` would ignore, in words; `None`
/// when every given flag takes part (`predict`, `deploy`).
pub(crate) fn foreign_flag(axis: Axis, speculates: bool, given: &[String]) -> Option<String> {
    given.iter().find_map(|id| ignored_by(axis, speculates, id))
}

/// The first of the `given` flags that every one of the searched `axes` would ignore,
/// in the first axis's words; `None` when each has an axis that reads it, or no axis is
/// named (`sweep` of one axis, `recommend --axis`). `--chips` names the chip kinds a
/// search pairs, which every axis reads.
pub(crate) fn unread_by_every(axes: &[Axis], speculates: bool, given: &[String]) -> Option<String> {
    given.iter().filter(|id| *id != "chips").find_map(|id| {
        let mut why = axes.iter().map(|&axis| ignored_by(axis, speculates, id));
        let first = why.next()??;
        why.all(|w| w.is_some()).then_some(first)
    })
}
