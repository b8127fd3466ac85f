//! The step's walk: every operator of every layer group a side runs, costed from its two
//! roofline bounds (with wave quantisation, the cold tier and the collectives), summed,
//! then communication overlap, overheads and host work on top (`audit/MODEL.md`
//! section 3). The one place the kernel's arithmetic is written; the operator table
//! walks it again with a sink.

use super::gemm;
use super::row::{Accumulator, Row, RowBytes, RowSink};
use super::{
    attended_context, busiest_shard_experts, expert_all_to_all, expert_gather_scatter,
    expert_load_imbalance, group_all_reduce, mla_core_flops, routed_picks_per_chip,
    two_batch_overlaps, wave_slowdown, AllToAllWidths, ExpertTraffic, MlaDims, OpCost, OpKind,
    Placement, Side, StepCost, StepShape, TwoBatchOverlap,
};
use crate::assumptions::ExpertExchange;
use crate::dtype::{ComputeRate, DType, WeightFormat};
use crate::model::{Attention, Ffn};
use crate::units::{Bytes, Flops, FlopsPerSecond, Seconds};

/// Kernels launched per layer and operator: a typical fused implementation
/// (norm + QKV + rope, attention, output projection; gate-up, activation, down;
/// router, top-k, two grouped GEMMs, activation, combine).
/// MLA adds the low-rank down/up projections, their norms and the absorption matmuls.
const KERNELS_ATTN_PROJ: f64 = 4.0;
const KERNELS_ATTN_PROJ_MLA: f64 = 8.0;
const KERNELS_ATTN_CORE: f64 = 2.0;
const KERNELS_ATTN_CORE_MLA: f64 = 3.0;
const KERNELS_DENSE_FFN: f64 = 3.0;
const KERNELS_SHARED: f64 = 3.0;
const KERNELS_ROUTED: f64 = 6.0;
const KERNELS_LM_HEAD: f64 = 2.0;
/// A single projection standing in for attention or an FFN (DeciLM `replace_with_linear`).
const KERNELS_LINEAR: f64 = 1.0;

/// Costs one step of the whole model on one chip.
pub fn step_cost(p: &Placement, shape: StepShape) -> StepCost {
    step_cost_of(p, shape, Side::Whole)
}

/// Costs one step of `side` of the model on one chip.
pub fn step_cost_of(p: &Placement, shape: StepShape, side: Side) -> StepCost {
    traced_step_cost(p, shape, side, &mut ())
}

/// How many engine-loop iterations' host work one step pays (`audit/MODEL.md` 3.5): a
/// decode step of a pipelined replica is one micro-batch's traversal of the `pp`
/// stages, and where the pool's framework runs a loop iteration per micro-batch on
/// every rank (`Framework::host_work_per_micro_batch`) each rank spends `pp`
/// iterations' host work, one per micro-batch in flight, in that time; else 1.
/// The cheap shape checks come first: this runs in every step cost of a sweep, and
/// most steps are not pipelined decode steps.
pub(super) fn host_passes(p: &Placement, shape: StepShape, side: Side) -> f64 {
    let pipelined_decode = side == Side::Whole && !shape.prompt && p.parallelism.pp > 1;
    let per_micro_batch = || {
        p.assumptions
            .framework
            .for_chip(p.chip)
            .is_some_and(|f| f.host_work_per_micro_batch())
    };
    if pipelined_decode && per_micro_batch() {
        p.parallelism.pp as f64
    } else {
        1.0
    }
}

/// What the pool's fused MoE spends on a chip's `picks` routed picks beyond the expert
/// matmuls' FLOPs: `picks` times the time per pick of the experts' format
/// (`audit/MODEL.md` 3.2.1).
pub(super) fn routed_pick_time(p: &Placement, picks: f64) -> Seconds {
    match pick_time_knob(p.weights.experts.dtype) {
        Some(knob) => Seconds(crate::assumptions::KNOBS[knob].get(&p.assumptions)) * picks,
        None => Seconds::ZERO,
    }
}

/// The knob holding the time per routed pick of experts in `dtype`: the FP4 formats'
/// and block-scaled FP8's; `None` for the formats the operator timings put at the
/// matmul rate alone (per-tensor FP8, 16-bit, and the weight-only integers that
/// dequantise to it).
pub(super) fn pick_time_knob(dtype: DType) -> Option<usize> {
    match (dtype, dtype.compute_rate()) {
        (_, ComputeRate::Fp4) => Some(crate::assumptions::FP4_PICK),
        (DType::Fp8Block, _) => Some(crate::assumptions::FP8_BLOCK_PICK),
        _ => None,
    }
}

/// [`step_cost_of`], handing every row of the roofline table to `sink` as it goes.
pub(super) fn traced_step_cost<S: RowSink>(
    p: &Placement,
    shape: StepShape,
    side: Side,
    sink: &mut S,
) -> StepCost {
    let m = p.model;
    let par = p.parallelism;
    let a = &p.assumptions;
    let chip = p.chip;
    let tp = par.tp as f64;
    let h = m.hidden as f64;
    let ab = a.activation_bytes;
    // Each component's bytes per weight and matmul rate (MODEL.md section 4.1): the
    // dense format for attention, dense FFNs and routers, its own for the experts and
    // the LM head.
    let wb = p.weights.dense.bytes_per_weight();
    let expert_wb = p.weights.experts.bytes_per_weight();
    let head_wb = p.weights.lm_head.bytes_per_weight();
    let kvb = p.kv.bytes();

    let rate_of = |w: WeightFormat| {
        let rate = w.dtype.compute_rate();
        chip.peak(rate) * p.rates.mfu(rate)
    };
    let mm_flops = rate_of(p.weights.dense);
    // Attention projections' bytes and rate, `out` of their `all` weights the output
    // projection at its own format: bytes summed, and the one rate that takes their
    // FLOPs as long as the two parts at their own rates take. With the output
    // projection at the dense format this is the dense bytes and rate as they are.
    let out_rate = rate_of(p.weights.attn_out);
    let attention_weights = |all: f64, out: f64| {
        if p.weights.attn_out == p.weights.dense {
            return (Bytes(all * wb), mm_flops);
        }
        let seconds_per_flop = (all - out) / all / mm_flops.0 + out / all / out_rate.0;
        (
            Bytes((all - out) * wb + out * p.weights.attn_out.bytes_per_weight()),
            FlopsPerSecond(1.0 / seconds_per_flop),
        )
    };
    let expert_flops = rate_of(p.weights.experts);
    let head_flops = rate_of(p.weights.lm_head);
    let attn_flops = chip.peak(ComputeRate::Bf16) * p.rates.mfu(ComputeRate::Bf16);
    let fast_bw = chip.fast.bandwidth * p.rates.bw_eff;
    // Reading weights: the cold share at the cold tier's rate. Seconds per weight byte,
    // the two tiers' reciprocal rates weighted by their shares.
    let weight_s_per_byte = match chip.cold {
        Some(cold) if p.cold_weight_fraction > 0.0 => {
            (1.0 - p.cold_weight_fraction) / fast_bw.0
                + p.cold_weight_fraction / (cold.bandwidth * p.rates.bw_eff).0
        }
        _ => 1.0 / fast_bw.0,
    };
    // Weights the serving engine offloads on purpose it copies ahead of use on a stream
    // of their own (SGLang's offloader prefetches the next offloaded layers while the
    // current ones compute): the matmuls read them from the fast tier, and their stream
    // from the cold tier runs beside the whole step.
    let prefetched = a.weight_offload > 0.0 && chip.cold.is_some() && p.cold_weight_fraction > 0.0;
    let weight_s_per_byte = if prefetched {
        1.0 / fast_bw.0
    } else {
        weight_s_per_byte
    };
    let read_weights = |b: Bytes| Seconds(b.0 * weight_s_per_byte);
    // A weight matmul at `rate`: FLOPs and the weight bytes it streams, plus activation
    // traffic.
    let matmul = |kind: OpKind,
                  count: f64,
                  flops: Flops,
                  (wbytes, rate): (Bytes, FlopsPerSecond),
                  act: Bytes,
                  kernels: f64| Row {
        kind,
        count,
        flops,
        bytes: RowBytes {
            weights: wbytes,
            activations: act,
            ..RowBytes::default()
        },
        compute: flops / rate,
        memory: read_weights(wbytes) + act / fast_bw,
        kernels,
    };

    // Dense weight GEMMs run in waves of tiles over the chip's SMs (MODEL.md section
    // 3.2): their compute time grows by the idle slots of a last, partial wave.
    let waves = |rows: f64, gemms: &[(f64, f64)]| wave_slowdown(rows, gemms, chip.sm_count);
    let waved = |slowdown: f64, row: Row| Row {
        compute: row.compute * slowdown,
        ..row
    };

    let tokens = shape.seqs * shape.new_tokens;
    let act_io = Bytes(2.0 * tokens * h * ab);
    let mut acc = Accumulator {
        ops: [OpCost::default(); OpKind::COUNT],
        weights: Bytes::ZERO,
        sink,
        group: None,
    };

    let group = par.expert_group();
    // Tokens are quantised for the experts' matmuls where those run at a low rate.
    let a2a_widths = AllToAllWidths {
        dispatch: match p.weights.experts.dtype.compute_rate() {
            ComputeRate::Fp8 | ComputeRate::Fp4 => 1.0,
            ComputeRate::Bf16 => ab,
        },
        combine: ab,
    };
    // Every TP all-reduce of the step moves the same message: cost it once.
    let tp_all_reduce = group_all_reduce(
        chip,
        Bytes(tokens * h * ab),
        par.tp,
        a.link_eff,
        p.rates.custom_all_reduce,
    );

    // The MoE layers' operators, for a prefill step whose two micro-batches overlap
    // their all-to-all (MODEL.md 6.3.1).
    let mut two_batch = TwoBatchOverlap::default();

    for (index, g) in m.groups.iter().enumerate() {
        acc.group = Some(index);
        let count = g.count as f64;
        // This group's attention per layer (projections and core).
        let mut layer_attention = Seconds::ZERO;
        let is_moe = matches!(g.ffn, Ffn::Moe { .. });
        let (attention_here, ffn_here) = match side {
            Side::Whole | Side::Layers => (true, true),
            Side::MoeAttention => (is_moe, false),
            Side::DenseAndHead => (!is_moe, !is_moe),
            Side::MoeExperts => (false, is_moe),
        };

        if attention_here && g.attention.has_weights() {
            // Attention projections (or the one linear map standing in for attention).
            let attn_params = g.attention.params_per_rank(m.hidden, par.tp);
            let slow = waves(
                tokens,
                &gemm::attention_gemms(&g.attention, m.hidden, par.tp),
            );
            let row = waved(
                slow,
                matmul(
                    OpKind::AttnProj,
                    count,
                    Flops(2.0 * tokens * attn_params),
                    attention_weights(
                        attn_params,
                        g.attention.out_params_per_rank(m.hidden, par.tp),
                    ),
                    act_io,
                    match g.attention {
                        Attention::Mla { .. } => KERNELS_ATTN_PROJ_MLA,
                        Attention::Linear => KERNELS_LINEAR,
                        _ => KERNELS_ATTN_PROJ,
                    },
                ),
            );
            layer_attention += row.time();
            acc.add(row);
        }
        // Attention core over the KV cache, in the layers that keep one.
        if attention_here && g.attention.kv_values_per_token() > 0.0 {
            let is_mla = matches!(g.attention, Attention::Mla { .. });
            let attended =
                shape.seqs * attended_context(shape.context_before, shape.new_tokens, g.window);
            let heads = g.attention.heads() as f64 / tp;
            let cached = g
                .window
                .map_or(shape.context_before, |w| shape.context_before.min(w as f64));
            let flops = Flops(match g.attention {
                Attention::Gqa { head_dim, .. } => 4.0 * heads * head_dim as f64 * attended,
                Attention::Mla {
                    kv_rank,
                    qk_nope,
                    qk_rope,
                    v_head,
                    ..
                } => mla_core_flops(
                    heads,
                    MlaDims {
                        kv_rank,
                        qk_nope,
                        qk_rope,
                        v_head,
                    },
                    attended,
                    shape.seqs * cached,
                ),
                Attention::Linear | Attention::Skipped => 0.0,
            });
            let kv_shard = (g.attention.kv_shardable_heads() as f64).min(tp);
            let kv_per_token = g.attention.kv_values_per_token() * kvb / kv_shard;
            let kept = g
                .window
                .map_or(shape.context_before + shape.new_tokens, |w| {
                    (shape.context_before + shape.new_tokens).min(w as f64)
                });
            let kv_bytes = Bytes(shape.seqs * (kept + shape.new_tokens) * kv_per_token);
            let row = Row {
                kind: OpKind::AttnCore,
                count,
                flops,
                bytes: RowBytes {
                    kv: kv_bytes,
                    ..RowBytes::default()
                },
                compute: flops / attn_flops,
                memory: kv_bytes / fast_bw,
                kernels: if is_mla {
                    KERNELS_ATTN_CORE_MLA
                } else {
                    KERNELS_ATTN_CORE
                },
            };
            layer_attention += row.time();
            acc.add(row);
        }

        // Feed-forward.
        match g.ffn {
            Ffn::Dense { .. } | Ffn::Linear if ffn_here => {
                let params = g.ffn.dense_params_per_rank(m.hidden, par.tp).unwrap_or(0.0);
                let slow = waves(tokens, &gemm::dense_ffn_gemms(&g.ffn, m.hidden, par.tp));
                acc.add(waved(
                    slow,
                    matmul(
                        OpKind::DenseFfn,
                        count,
                        Flops(2.0 * tokens * params),
                        (Bytes(params * wb), mm_flops),
                        act_io,
                        if g.ffn == Ffn::Linear {
                            KERNELS_LINEAR
                        } else {
                            KERNELS_DENSE_FFN
                        },
                    ),
                ));
            }
            Ffn::Moe {
                experts,
                top_k,
                shared_intermediate,
                ..
            } if ffn_here => {
                let mut layer_shared = Seconds::ZERO;
                if shared_intermediate > 0 {
                    let params = g.ffn.shared_and_router_params(m.hidden).0 / tp;
                    let shared = gemm::swiglu_gemms(shared_intermediate as f64, m.hidden, par.tp);
                    let row = waved(
                        waves(tokens, &shared),
                        matmul(
                            OpKind::SharedExperts,
                            count,
                            Flops(2.0 * tokens * params),
                            (Bytes(params * expert_wb), expert_flops),
                            Bytes::ZERO,
                            KERNELS_SHARED,
                        ),
                    );
                    layer_shared = row.time();
                    acc.add(row);
                }
                let e = experts as f64;
                let k = top_k as f64;
                let expert_params = g.ffn.expert_params(m.hidden);
                // Tokens of the replicas that share this expert group and bring
                // tokens to this step (all of them in lockstep decode).
                let group_tokens = tokens * shape.expert_group_replicas(par);
                // Redundant slots hold copies of hot experts; the picks spread over
                // every slot, as expert-parallel load balancing intends.
                let slots = par.expert_slots(experts, a.redundant_experts) as f64;
                let local = slots / par.ep as f64;
                // The step waits for the busiest shard, not the average one.
                let touched = busiest_shard_experts(local, slots, k, group_tokens, par.ep);
                let wbytes = touched * expert_params / par.expert_tp() as f64 * expert_wb;
                let router_flops = 2.0 * tokens * h * e / tp;
                // The busiest rank's picks over the mean: its matmuls and its share
                // of the all-to-all set the layer's time (1 without expert parallelism).
                let imbalance = expert_load_imbalance(group_tokens * k, par.ep, a.expert_skew);
                let flops = 2.0 * group_tokens * k * expert_params / group as f64 * imbalance
                    + router_flops;
                // Each pick's activations go in and out of its expert once, on the
                // expert-parallel rank holding it: a chip sees its rank's share of the
                // group's picks (every one of them, for its slice, under expert TP).
                let picks = routed_picks_per_chip(group_tokens, k, par.ep, imbalance);
                let row = matmul(
                    OpKind::RoutedExperts,
                    count,
                    Flops(flops),
                    (Bytes(wbytes), expert_flops),
                    Bytes(h * e * wb) + Bytes(2.0 * picks * h * ab),
                    KERNELS_ROUTED,
                );
                // The fused MoE's device time per pick beyond the matmuls (MODEL.md
                // 3.2.1), on the compute side.
                let row = Row {
                    compute: row.compute + routed_pick_time(p, picks),
                    ..row
                };
                let layer_routed = row.time();
                acc.add(row);
                if matches!(side, Side::Whole | Side::Layers) && par.replicas_per_expert_group() > 1
                {
                    // Dispatch and combine: each chip sends its tokens' picks to the
                    // experts elsewhere in the group, and receives them back; or the
                    // group gathers every token and scatters the summed outputs back.
                    let traffic = ExpertTraffic {
                        tokens: tokens / tp * imbalance,
                        top_k: k,
                        hidden: h,
                        widths: a2a_widths,
                    };
                    let (bytes, time) = match a.expert_exchange {
                        ExpertExchange::AllToAll => expert_all_to_all(
                            chip,
                            group,
                            traffic,
                            a.link_eff,
                            p.rates.all_to_all_floor,
                        ),
                        // Every chip receives every token, not a share of the
                        // busiest rank's picks.
                        ExpertExchange::GatherScatter => expert_gather_scatter(
                            chip,
                            group,
                            ExpertTraffic {
                                tokens: tokens / tp,
                                ..traffic
                            },
                            a.link_eff,
                        ),
                    };
                    acc.add(Row::transfer(OpKind::EpComm, count, bytes, time));
                    two_batch.add_layers(
                        count,
                        layer_attention,
                        layer_shared,
                        layer_routed,
                        time,
                        (a2a_widths.dispatch, a2a_widths.combine),
                    );
                }
            }
            _ => {}
        }

        // One all-reduce after attention and one after the FFN, where this side runs them.
        // Layers without attention or without an FFN (DeciLM's no-ops) have none there.
        let all_reduces = (attention_here && g.attention.has_weights()) as u32
            + (ffn_here && side != Side::MoeExperts && g.ffn.has_weights()) as u32;
        if par.tp > 1 && all_reduces > 0 {
            let (moved, time) = tp_all_reduce;
            let n = all_reduces as f64;
            acc.add(Row::transfer(OpKind::TpComm, count, moved * n, time * n));
        }
    }

    acc.group = None;
    if matches!(side, Side::Whole | Side::DenseAndHead) {
        // Logits for the last position of each sequence, or for every new token of a
        // verify step.
        let head_params = m.vocab as f64 * h / tp;
        let logit_rows = if shape.logits_every_token {
            tokens
        } else {
            shape.seqs
        };
        acc.add(waved(
            waves(logit_rows, &[(m.vocab as f64 / tp, head_params)]),
            matmul(
                OpKind::LmHead,
                1.0,
                Flops(2.0 * logit_rows * head_params),
                (Bytes(head_params * head_wb), head_flops),
                Bytes::ZERO,
                KERNELS_LM_HEAD,
            ),
        ));
    }

    if side == Side::Whole && par.pp > 1 {
        let link = chip.link_for_group(par.tp * par.pp);
        let msg = Bytes(tokens * h * ab);
        acc.add(Row::transfer(
            OpKind::PpComm,
            (par.pp - 1) as f64,
            msg,
            msg / (link.bandwidth * a.link_eff) + link.latency,
        ));
    }

    let kernels: f64 = acc.ops.iter().map(|o| o.kernels).sum();
    let host = a.host_overhead(shape.seqs) * host_passes(p, shape, side);
    let launches = p.rates.kernel_overhead * kernels;
    let eager_launches = eager_launches(a, shape, kernels);
    let mut busy = Seconds::ZERO;
    let mut comm = Seconds::ZERO;
    for kind in OpKind::ALL {
        let op = &acc.ops[kind as usize];
        if kind.is_communication() {
            comm += op.time;
        } else {
            busy += op.time;
        }
    }
    let overlapped = two_batch_overlaps(a) && two_batch.layers > 0.0;
    let exposed_comm = if overlapped {
        // The MoE layers take their four windows each; any other communication (a
        // tensor-parallel all-reduce, a pipeline hand-off) hides under the rest of the
        // computation, as a whole overlap would (MODEL.md 6.3.1).
        let moe = two_batch.time() - two_batch.busy();
        let other = comm - two_batch.communication();
        let rest = busy - two_batch.busy();
        moe + (other - other.min(rest))
    } else {
        // Overlap can hide communication only under work that exists.
        comm - (comm * a.comm_overlap).min(busy)
    };
    // The offloaded weights' stream: their share of the weights the step reads, at the
    // cold tier's rate; the step lasts at least as long.
    let prefetch = match chip.cold {
        Some(cold) if prefetched => {
            acc.weights * p.cold_weight_fraction / (cold.bandwidth * p.rates.bw_eff)
        }
        _ => Seconds::ZERO,
    };
    // An eager prompt step's device waits for the launches it outruns (MODEL.md 3.6);
    // what the launches add beyond the device's own work counts as overhead.
    let launches_paid = if eager_launches > busy + exposed_comm + launches {
        eager_launches - busy - exposed_comm
    } else {
        launches
    };
    let device = busy + exposed_comm + launches_paid;
    let overhead = launches_paid + host;
    // Host work in series with the device's, or beside it (MODEL.md 3.5).
    let work = a.step_time(device, host);
    let prefetch_stall = (prefetch - work).max(Seconds::ZERO);
    StepCost {
        ops: acc.ops,
        kernels,
        busy,
        overhead,
        host,
        eager_launches,
        exposed_comm,
        total: work + prefetch_stall,
        shape,
        side,
        two_batch: overlapped.then_some(two_batch),
        prefetch,
        prefetch_stall,
    }
}

/// The host time a step's Python model code takes to launch its `kernels`, where the
/// step carries prompt tokens and the pool's framework runs such steps eagerly, without
/// CUDA graphs (`eager_kernel_overhead` > 0); zero otherwise (MODEL.md 3.6).
pub fn eager_launches(a: &crate::Assumptions, shape: StepShape, kernels: f64) -> Seconds {
    if shape.prompt {
        a.eager_kernel_overhead * kernels
    } else {
        Seconds::ZERO
    }
}
