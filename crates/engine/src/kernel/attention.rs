//! The attention core's closed forms: how much context new tokens attend to, and
//! what a multi-head latent attention core costs in its cheaper form.

/// Sum over new tokens of the context each attends to, for a window `w` (`audit/MODEL.md`
/// section 3): `S(c+n) - S(c)` where `S(m) = sum_{j<=m} min(j, w)`.
pub fn attended_context(context_before: f64, new_tokens: f64, window: Option<u32>) -> f64 {
    let s = |m: f64| match window {
        Some(w) if m > w as f64 => {
            let w = w as f64;
            w * (w + 1.0) / 2.0 + (m - w) * w
        }
        _ => m * (m + 1.0) / 2.0,
    };
    s(context_before + new_tokens) - s(context_before)
}

/// The widths of a multi-head latent attention layer that set its core's cost.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MlaDims {
    pub kv_rank: u32,
    pub qk_nope: u32,
    pub qk_rope: u32,
    pub v_head: u32,
}

/// FLOPs of an MLA core over `attended` (query, context) pairs on `heads` heads, when
/// the sequences hold `cached_tokens` latents from earlier steps. Two forms compute the
/// same thing, and engines run the cheaper one:
/// - absorbed: scores and values over the latent, `2 * heads * (2 * kv_rank + rope)` per
///   pair, nothing per cached token. Decode and speculative verify (a few queries per
///   sequence over a long cache) run this way: FlashMLA, TensorRT-LLM's generation
///   kernels and SGLang's target-verify all take the latent path.
/// - decompressed: `2 * heads * (nope + rope + v)` per pair, but every cached latent
///   must first be expanded to per-head K and V, `2 * kv_rank * heads * (nope + v)` per
///   cached token. A fresh prompt has nothing cached, so prefill runs this way.
///
/// The break-even is near `kv_rank * (nope + v) / (2 * kv_rank - nope - v)`
/// queries per sequence, about 170 for DeepSeek-V3: below it the latent path wins.
pub fn mla_core_flops(heads: f64, d: MlaDims, attended: f64, cached_tokens: f64) -> f64 {
    let absorbed = 2.0 * heads * (2 * d.kv_rank + d.qk_rope) as f64 * attended;
    let decompressed = 2.0 * heads * (d.qk_nope + d.qk_rope + d.v_head) as f64 * attended
        + 2.0 * d.kv_rank as f64 * heads * (d.qk_nope + d.v_head) as f64 * cached_tokens;
    absorbed.min(decompressed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn causal_prefill_attends_half_the_square() {
        // sum_{j=1..s} j = s(s+1)/2, so FLOPs 4*n_h*d*s(s+1)/2 ~ 2*n_h*d*s^2.
        assert_eq!(attended_context(0.0, 1000.0, None), 500_500.0);
        assert_eq!(attended_context(4095.0, 1.0, None), 4096.0);
    }

    #[test]
    fn sliding_window_caps_context() {
        assert_eq!(attended_context(10_000.0, 1.0, Some(128)), 128.0);
        // First 128 tokens attend 1..128, the remaining 872 attend 128 each.
        assert_eq!(
            attended_context(0.0, 1000.0, Some(128)),
            128.0 * 129.0 / 2.0 + 872.0 * 128.0
        );
    }

    #[test]
    fn mla_core_takes_the_cheaper_of_its_two_forms() {
        // DeepSeek-V3's widths on all 128 heads.
        let d = MlaDims {
            kv_rank: 512,
            qk_nope: 128,
            qk_rope: 64,
            v_head: 128,
        };
        let heads = 128.0;
        let absorbed_per_pair = 2.0 * 128.0 * (2.0 * 512.0 + 64.0);
        let decompressed_per_pair = 2.0 * 128.0 * (128.0 + 64.0 + 128.0);
        let expand_per_cached = 2.0 * 512.0 * 128.0 * (128.0 + 128.0);
        // A fresh prompt has nothing to expand: the decompressed form, per pair.
        let s = 4096.0;
        let pairs = attended_context(0.0, s, None);
        assert_eq!(
            mla_core_flops(heads, d, pairs, 0.0),
            decompressed_per_pair * pairs
        );
        // Decode and a speculative verify of 5 tokens over a 4096-token cache: the latent
        // path, whose cost grows with the queries.
        for queries in [1.0, 5.0] {
            let pairs = attended_context(s, queries, None);
            assert_eq!(
                mla_core_flops(heads, d, pairs, s),
                absorbed_per_pair * pairs,
                "{queries} queries"
            );
        }
        // A long chunk after a cached prefix: expanding the prefix once is cheaper.
        let pairs = attended_context(s, 2048.0, None);
        assert_eq!(
            mla_core_flops(heads, d, pairs, s),
            decompressed_per_pair * pairs + expand_per_cached * s
        );
        // Either way the cost never falls as queries are added over the same cache.
        let mut last = 0.0;
        for q in 1..400 {
            let f = mla_core_flops(heads, d, attended_context(s, q as f64, None), s);
            assert!(f >= last, "{q} queries: {f:e} < {last:e}");
            last = f;
        }
    }
}
