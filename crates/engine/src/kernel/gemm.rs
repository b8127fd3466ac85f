//! Wave quantisation of weight matmuls (`audit/MODEL.md` section 3.4): a GEMM's output
//! is cut into tiles, one thread block each, and the tiles run in waves of one per SM.
//! When the tiles overflow a whole number of waves, the last wave leaves SMs idle and
//! the matmul takes as long as if every wave were full (NVIDIA, "Matrix Multiplication
//! Background User's Guide", section 3.2). Below one wave a library splits the inner
//! dimension over thread blocks (cuBLASLt's split-K) to fill the chip, so no loss is
//! counted there; a matmul of many waves loses little.

use crate::model::{Attention, Ffn};

/// Side of the square output tile counted: 128 x 128, the middle of the tile sizes
/// cuBLAS uses (the guide's section 2.3) and the output tile of one SM's MMA on
/// Hopper (a warpgroup pair of `wgmma` m64) and Blackwell (`tcgen05` m128). FP8 and FP4
/// change the depth of a tile's inner-dimension step, not its output tile, so the
/// count of tiles is the same for every dtype.
pub const GEMM_TILE: f64 = 128.0;

/// The share of the SMs' time a GEMM of `rows` x `cols` outputs keeps busy on `sms`
/// SMs: tiles over the slots of the waves they need, 1 within one wave.
pub fn wave_efficiency(rows: f64, cols: f64, sms: u32) -> f64 {
    let sms = sms.max(1) as f64;
    if !(rows > 0.0 && cols > 0.0) {
        return 1.0;
    }
    let tiles = (rows / GEMM_TILE).ceil() * (cols / GEMM_TILE).ceil();
    if tiles <= sms {
        return 1.0;
    }
    tiles / ((tiles / sms).ceil() * sms)
}

/// How much longer than at full waves an operator made of `gemms` runs on `sms` SMs for
/// `rows` tokens: each GEMM given as (output width `N`, weights `K x N`), its FLOPs in
/// proportion to its weights, its compute time divided by its wave efficiency. 1 when
/// the chip's SM count is unknown or the operator has no weights.
pub fn wave_slowdown(rows: f64, gemms: &[(f64, f64)], sms: Option<u32>) -> f64 {
    let Some(sms) = sms else { return 1.0 };
    let total: f64 = gemms.iter().map(|&(_, w)| w).sum();
    if total.is_nan() || total <= 0.0 {
        return 1.0;
    }
    gemms
        .iter()
        .map(|&(cols, w)| w / wave_efficiency(rows, cols, sms))
        .sum::<f64>()
        / total
}

/// The GEMMs of one layer's attention projections on one of `tp` ranks, as (output
/// width, weights); their weights sum to [`Attention::params_per_rank`]. GQA runs a
/// fused QKV projection (through the query's low-rank bottleneck when it has one) and
/// the output projection. MLA's many small projections are left out (no GEMMs listed:
/// no slowdown), as is a layer without attention.
pub fn attention_gemms(a: &Attention, hidden: u32, tp: u32) -> [(f64, f64); 4] {
    let h = hidden as f64;
    let tp_f = tp as f64;
    let none = [(0.0, 0.0); 4];
    match *a {
        Attention::Gqa {
            heads,
            kv_heads,
            head_dim,
            q_rank,
        } => {
            let q = heads as f64 * head_dim as f64 / tp_f;
            let kv = 2.0 * kv_heads as f64 * head_dim as f64 / tp_f.min(kv_heads as f64);
            let out = (h, h * q);
            match q_rank {
                None => [(q + kv, h * (q + kv)), out, (0.0, 0.0), (0.0, 0.0)],
                Some(r) => {
                    let r = r as f64;
                    [(r, h * r), (q, r * q), (kv, h * kv), out]
                }
            }
        }
        Attention::Linear => [(h, h * h / tp_f), (0.0, 0.0), (0.0, 0.0), (0.0, 0.0)],
        Attention::Mla { .. } | Attention::Skipped => none,
    }
}

/// The GEMMs of a SwiGLU block `intermediate` wide on one of `tp` ranks: the fused
/// gate-and-up projection and the down projection, as (output width, weights).
pub fn swiglu_gemms(intermediate: f64, hidden: u32, tp: u32) -> [(f64, f64); 2] {
    let h = hidden as f64;
    let i = intermediate / tp as f64;
    [(2.0 * i, 2.0 * h * i), (h, h * i)]
}

/// The GEMMs of an FFN without experts on one of `tp` ranks (a linear map stands in
/// for the FFN as one `h x h/tp` GEMM); their weights sum to
/// [`Ffn::dense_params_per_rank`].
pub fn dense_ffn_gemms(ffn: &Ffn, hidden: u32, tp: u32) -> [(f64, f64); 2] {
    let h = hidden as f64;
    match *ffn {
        Ffn::Dense { intermediate } => swiglu_gemms(intermediate as f64, hidden, tp),
        Ffn::Linear => [(h, h * h / tp as f64), (0.0, 0.0)],
        Ffn::Moe { .. } | Ffn::Skipped => [(0.0, 0.0); 2],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn within_one_wave_nothing_is_lost() {
        // 132 SMs: 2 x 66 tiles fill exactly one wave; one row of tiles is half of it,
        // and split-K fills the rest.
        assert_eq!(wave_efficiency(256.0, 66.0 * 128.0, 132), 1.0);
        assert_eq!(wave_efficiency(16.0, 64.0 * 128.0, 132), 1.0);
    }

    #[test]
    fn a_tile_over_the_wave_costs_a_whole_wave() {
        // 133 tiles on 132 SMs need two waves: 133 / 264 of the slots busy.
        let e = wave_efficiency(128.0, 133.0 * 128.0, 132);
        assert!((e - 133.0 / 264.0).abs() < 1e-12);
        // One token past a tile boundary adds a row of tiles, as a whole tile row:
        // 129 tokens cost as 256 do.
        assert_eq!(
            wave_efficiency(129.0, 100.0 * 128.0, 132),
            wave_efficiency(256.0, 100.0 * 128.0, 132)
        );
        assert!((wave_efficiency(129.0, 100.0 * 128.0, 132) - 200.0 / 264.0).abs() < 1e-12);
    }

    #[test]
    fn whole_waves_are_unchanged_and_many_waves_lose_little() {
        // M and N multiples of the tile, tiles a multiple of the SMs: no loss.
        assert_eq!(wave_efficiency(3.0 * 128.0, 148.0 * 128.0, 148), 1.0);
        // A prefill's 3,584 tokens through a 57,344-wide FFN on 148 SMs: 85 waves,
        // 12,544 of 12,580 slots busy.
        let e = wave_efficiency(3584.0, 57344.0, 148);
        assert!((e - 12544.0 / (85.0 * 148.0)).abs() < 1e-12 && e > 0.99);
    }

    #[test]
    fn an_operator_slows_by_its_gemms_weighted_by_flops() {
        // Two GEMMs of equal weights: one in whole waves, one at half efficiency.
        let gemms = [(132.0 * 128.0, 1.0), (133.0 * 128.0, 1.0)];
        let s = wave_slowdown(128.0, &gemms, Some(132));
        assert!((s - (1.0 + 264.0 / 133.0) / 2.0).abs() < 1e-12);
        // An unknown SM count keeps the roofline as it was.
        assert_eq!(wave_slowdown(128.0, &gemms, None), 1.0);
        assert_eq!(wave_slowdown(128.0, &[], Some(132)), 1.0);
    }

    #[test]
    fn the_gemms_hold_the_operators_weights() {
        let gqa = Attention::Gqa {
            heads: 64,
            kv_heads: 8,
            head_dim: 128,
            q_rank: None,
        };
        let factorised = Attention::Gqa {
            heads: 64,
            kv_heads: 8,
            head_dim: 128,
            q_rank: Some(2048),
        };
        for a in [gqa, factorised, Attention::Linear] {
            for tp in [1, 4, 16] {
                let sum: f64 = attention_gemms(&a, 8192, tp).iter().map(|g| g.1).sum();
                assert!(
                    (sum - a.params_per_rank(8192, tp)).abs() < 1.0,
                    "{a:?} tp {tp}"
                );
            }
        }
        // Llama-2-70B at TP1: QKV 10,240 wide, the output projection 8,192.
        assert_eq!(attention_gemms(&gqa, 8192, 1)[0].0, 10240.0);
        for ffn in [
            Ffn::Dense {
                intermediate: 28672,
            },
            Ffn::Linear,
        ] {
            let sum: f64 = dense_ffn_gemms(&ffn, 8192, 2).iter().map(|g| g.1).sum();
            assert_eq!(Some(sum), ffn.dense_params_per_rank(8192, 2));
        }
    }
}
