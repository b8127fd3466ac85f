//! Which routed experts a step's tokens touch, on the average and the busiest shard.

/// Expected distinct experts touched on one shard holding `local` of `experts` experts,
/// when `tokens` tokens each pick `top_k`: `local * (1 - (1 - k/E)^T)`.
pub fn experts_touched(local: f64, experts: f64, top_k: f64, tokens: f64) -> f64 {
    if tokens <= 0.0 {
        return 0.0;
    }
    local * (1.0 - (1.0 - top_k / experts).powf(tokens))
}

/// Expected experts touched on the busiest of `shards` expert shards. The mean is
/// [`experts_touched`]; the spread across shards is approximated as binomial and the
/// expected maximum of `shards` draws as `mean + sd * sqrt(2 ln shards)`, capped by the
/// shard's experts and the picks. At batch 1 with 8 picks over 8 shards this gives
/// about 3 experts on the busiest shard against a mean of 1; at large batches every
/// shard touches all its experts and the imbalance vanishes.
pub fn busiest_shard_experts(
    local: f64,
    experts: f64,
    top_k: f64,
    tokens: f64,
    shards: u32,
) -> f64 {
    let mean = experts_touched(local, experts, top_k, tokens);
    if shards <= 1 || mean <= 0.0 {
        return mean;
    }
    let p = mean / local;
    let sd = (local * p * (1.0 - p)).sqrt();
    let spread = sd * max_of_normals(shards);
    (mean + spread).min(local).min(tokens * top_k)
}

/// Expected largest of `n` standard normal draws, approximately `sqrt(2 ln n)`: how
/// many spreads above the mean the busiest of `n` shards or ranks sits.
fn max_of_normals(n: u32) -> f64 {
    (2.0 * (n as f64).ln()).sqrt()
}

/// Busiest expert-parallel rank's routed picks over the mean, when `picks` routed
/// picks (tokens x top-k) of one expert group land on `ranks` ranks: the step waits
/// for that rank's expert matmuls and its share of the all-to-all.
///
/// Two causes multiply. Sampling: with routing uniform over the experts, a rank's
/// count is binomial with mean `m = picks / R` and spread `sqrt(m (1 - 1/R))`, and
/// the expected maximum of `R` such counts is about `m + sd sqrt(2 ln R)` (as in
/// [`busiest_shard_experts`]), so the factor is `1 + sqrt(2 ln R (1 - 1/R) / m)`:
/// large at decode batches, about 1 at prefill's thousands of tokens. Skew: experts
/// are not equally popular, and what expert load balancing leaves is `skew`
/// (`Assumptions::expert_skew`). The result never exceeds `R` (every pick on one rank).
/// One rank (`R <= 1`) is balanced by definition: exactly 1.
///
/// Redundant expert slots change `R`'s experts, not this form: a caller that spreads
/// replicas of hot experts passes the skew they leave.
pub fn expert_load_imbalance(picks: f64, ranks: u32, skew: f64) -> f64 {
    if ranks <= 1 || picks.is_nan() || picks <= 0.0 {
        return 1.0;
    }
    let r = ranks as f64;
    let mean = picks / r;
    let sd = (mean * (1.0 - 1.0 / r)).sqrt();
    let sampling = 1.0 + sd * max_of_normals(ranks) / mean;
    (skew.max(1.0) * sampling).min(r)
}

/// Routed picks one chip's expert matmuls take in a step: the expert group's `tokens`
/// times `top_k`, over the `ep` expert-parallel ranks that split the experts, times the
/// busiest rank's `imbalance` ([`expert_load_imbalance`]). The chips of an expert-TP
/// slice (`tp > ep`) each take all of their rank's picks, for their share of each
/// expert's width, so `ep`, not the group's chips, divides. Each pick's activations
/// enter and leave its expert once, so this is what the chip's activation traffic
/// scales with.
pub fn routed_picks_per_chip(tokens: f64, top_k: f64, ep: u32, imbalance: f64) -> f64 {
    tokens * top_k / ep.max(1) as f64 * imbalance
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn load_imbalance_closed_form() {
        // 32 tokens x top-8 on 8 ranks: mean 32 picks, spread sqrt(32 x 7/8) = 5.2915,
        // sqrt(2 ln 8) = 2.0393: 1 + 10.791 / 32 = 1.3372.
        let f = expert_load_imbalance(256.0, 8, 1.0);
        assert!((f - 1.337_22).abs() < 1e-4, "{f}");
        // The skew multiplies.
        assert!((expert_load_imbalance(256.0, 8, 1.18) - 1.18 * f).abs() < 1e-12);
        // A prefill of 8,192 tokens per rank on 32 ranks is nearly balanced by sampling.
        let prefill = expert_load_imbalance(8192.0 * 32.0 * 8.0, 32, 1.0);
        assert!(prefill > 1.0 && prefill < 1.02, "{prefill}");
        // One rank, no picks: exactly 1; never more than every pick on one rank.
        assert_eq!(expert_load_imbalance(256.0, 1, 1.18), 1.0);
        assert_eq!(expert_load_imbalance(0.0, 8, 1.18), 1.0);
        assert_eq!(expert_load_imbalance(1.0, 4, 4.0), 4.0);
        assert_eq!(expert_load_imbalance(f64::NAN, 8, 1.18), 1.0);
    }

    #[test]
    fn each_rank_takes_its_share_of_the_picks() {
        // 2,878 tokens x top-8 over EP8 (TP8 attention: every chip holds them all):
        // 23,024 picks, 2,878 per rank before imbalance.
        assert!((routed_picks_per_chip(2878.0, 8.0, 8, 1.0) - 2878.0).abs() < 1e-9);
        // The busiest rank's factor multiplies.
        assert!((routed_picks_per_chip(2878.0, 8.0, 8, 1.25) - 3597.5).abs() < 1e-9);
        // Without expert parallelism one chip (or every expert-TP slice) takes them all.
        assert_eq!(routed_picks_per_chip(4.0, 8.0, 1, 1.0), 32.0);
        assert_eq!(routed_picks_per_chip(4.0, 8.0, 0, 1.0), 32.0);
    }

    #[test]
    fn one_token_touches_top_k_experts() {
        let touched = experts_touched(256.0, 256.0, 8.0, 1.0);
        assert!((touched - 8.0).abs() < 1e-9);
        // Many tokens touch all of them.
        assert!(experts_touched(256.0, 256.0, 8.0, 4096.0) > 255.99);
        // A shard of 32 experts sees its share.
        assert!((experts_touched(32.0, 256.0, 8.0, 1.0) - 1.0).abs() < 1e-9);
    }

    #[test]
    fn imbalance_matters_at_small_batches_only() {
        let busiest = busiest_shard_experts(32.0, 256.0, 8.0, 1.0, 8);
        assert!(busiest > 2.0 && busiest < 4.0, "{busiest}");
        let saturated = busiest_shard_experts(32.0, 256.0, 8.0, 4096.0, 8);
        assert!((saturated - 32.0).abs() < 1e-6);
        assert_eq!(busiest_shard_experts(256.0, 256.0, 8.0, 1.0, 1), 8.0);
    }
}
