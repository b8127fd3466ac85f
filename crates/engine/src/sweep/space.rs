//! The sizes a sweep tries: pool sizes, batches and the per-axis choices. The layouts
//! of each pool come from `disagg::layouts` (its sweep search).

use crate::disagg::{Placed, Reject, Setup};
use crate::limits::MAX_BATCH;
use crate::Chip;

/// Micro-batch depths tried on the attention/expert axis.
pub const MICRO_BATCHES: [u32; 3] = [1, 2, 3];
/// Separate draft pools tried on the speculative axis.
pub const DRAFT_POOL_SIZES: [u32; 4] = [1, 2, 4, 8];

/// Pool sizes: powers of two up to `max`.
pub fn pool_sizes(max: u32) -> Vec<u32> {
    std::iter::successors(Some(1u32), |n| n.checked_mul(2))
        .take_while(|&n| n <= max)
        .collect()
}

/// Batches: powers of two up to `max`, and `max` itself.
pub fn batches(max: u64) -> Vec<u32> {
    let max = max.min(MAX_BATCH as u64) as u32;
    let mut out: Vec<u32> = pool_sizes(max);
    if out.last() != Some(&max) && max > 0 {
        out.push(max);
    }
    out
}

/// Which batches a sweep tries: every power of two up to the limit (and the limit),
/// or one batch the user fixed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BatchChoice(pub Option<u32>);

impl BatchChoice {
    /// The batches to try under `limit` (what memory and the engine hold); a fixed
    /// batch over the limit tries nothing, and the pool is rejected as too small.
    pub fn under(self, limit: u64) -> std::result::Result<Vec<u32>, Reject> {
        match self.0 {
            None => Ok(batches(limit)),
            Some(b) if b as u64 <= limit.min(MAX_BATCH as u64) => Ok(vec![b]),
            Some(_) => Err(Reject::BatchDoesNotFit),
        }
    }
}

/// The batches a pool that holds sequences tries, from its placement at one sequence
/// (`probe`): up to what memory holds and the engine's limit. A layout that is invalid,
/// or whose weights leave no room for one sequence, is the reject.
pub(crate) fn pool_batches<T>(
    setup: &Setup<'_>,
    choice: BatchChoice,
    probe: std::result::Result<T, Reject>,
    placed: impl Fn(&T) -> &Placed<'_>,
    dp: u32,
) -> std::result::Result<Vec<u32>, Reject> {
    let probe = probe.map_err(|_| Reject::InvalidLayout)?;
    let placed = placed(&probe);
    if placed.fit.is_some() {
        return Err(Reject::WeightsDoNotFit);
    }
    choice.under(batch_limit(
        setup,
        placed.placement.chip,
        placed.plan.max_seqs(),
        dp,
    ))
}

/// Largest batch a pool of `dp` replicas of `chip` takes: memory, then the engine's
/// limit, then a finite run's requests (it never holds more sequences than it has).
pub fn batch_limit(setup: &Setup<'_>, chip: &Chip, max_seqs_per_replica: u64, dp: u32) -> u64 {
    let run = setup
        .workload
        .finite_run
        .map_or(u64::MAX, |r| r.requests as u64);
    max_seqs_per_replica
        .saturating_mul(dp as u64)
        .min(setup.assumptions.on_chip(chip).engine_batch_limit(dp))
        .min(run)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn batches_are_powers_of_two_and_the_largest() {
        assert_eq!(batches(12), vec![1, 2, 4, 8, 12]);
        assert_eq!(batches(8), vec![1, 2, 4, 8]);
        assert!(batches(0).is_empty());
        assert_eq!(pool_sizes(5), vec![1, 2, 4]);
    }

    #[test]
    fn a_fixed_batch_is_tried_alone_and_only_where_it_fits() {
        assert_eq!(BatchChoice(None).under(12), Ok(vec![1, 2, 4, 8, 12]));
        assert_eq!(BatchChoice(Some(12)).under(12), Ok(vec![12]));
        assert_eq!(BatchChoice(Some(5)).under(12), Ok(vec![5]));
        assert_eq!(
            BatchChoice(Some(13)).under(12),
            Err(Reject::BatchDoesNotFit)
        );
        assert_eq!(
            BatchChoice(Some(MAX_BATCH + 1)).under(u64::MAX),
            Err(Reject::BatchDoesNotFit)
        );
    }
}
