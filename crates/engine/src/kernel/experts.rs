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
    let spread = sd * (2.0 * (shards as f64).ln()).sqrt();
    (mean + spread).min(local).min(tokens * top_k)
}

#[cfg(test)]
mod tests {
    use super::*;

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
