//! Collectives: ring and two-level all-reduce, and the expert all-to-all, each a
//! closed form of bytes moved and time taken.

use super::roofline::operator_time;
use crate::catalogue::{Chip, Link};
use crate::serving::AllToAllFloor;
use crate::units::{Bytes, BytesPerSecond, Seconds};

/// Ring all-reduce of `msg` bytes over `n` chips: `2(n-1)/n * msg / bw + 2(n-1) * latency`.
pub fn ring_all_reduce(
    msg: Bytes,
    n: u32,
    bandwidth: BytesPerSecond,
    latency: Seconds,
) -> (Bytes, Seconds) {
    if n <= 1 {
        return (Bytes::ZERO, Seconds::ZERO);
    }
    let n = n as f64;
    let moved = msg * (2.0 * (n - 1.0) / n);
    (moved, moved / bandwidth + latency * (2.0 * (n - 1.0)))
}

/// A framework's own all-reduce inside one node, which reads its peers' buffers
/// directly over the scale-up link instead of NCCL's ring (SGLang's `CustomAllreduce`,
/// adapted from vLLM's: `python/sglang/srt/distributed/device_communicators/
/// custom_all_reduce.py` and `sgl-kernel/csrc/allreduce/custom_all_reduce.cuh`,
/// `audit/MODEL.md` section 3). It takes messages below `max_bytes` over groups of 2, 4,
/// 6 or 8 chips, and runs one of two kernels, each with two flag exchanges between
/// all peers (latency `2 x hop`):
/// - one stage, for 2 chips, below 512 KiB on up to 4 and below 256 KiB on up to 8:
///   every chip reads every peer's whole message and sums it, `(n-1) x msg` in;
/// - two stages otherwise: a reduce-scatter then an all-gather through the peers'
///   buffers, `2(n-1)/n x msg` in, as a ring moves but without its `2(n-1)` hops.
///
/// `None` where the framework would hand the message to NCCL (a group size it does not
/// take, or a message of `max_bytes` or more).
pub fn custom_all_reduce(
    msg: Bytes,
    n: u32,
    bandwidth: BytesPerSecond,
    latency: Seconds,
    max_bytes: Bytes,
) -> Option<(Bytes, Seconds)> {
    if !matches!(n, 2 | 4 | 6 | 8) || msg >= max_bytes {
        return None;
    }
    let kib = |k: f64| Bytes(k * 1024.0);
    let one_stage = n == 2 || (n <= 4 && msg < kib(512.0)) || msg < kib(256.0);
    let nf = n as f64;
    let moved = if one_stage {
        msg * (nf - 1.0)
    } else {
        msg * (2.0 * (nf - 1.0) / nf)
    };
    Some((moved, moved / bandwidth + latency * 2.0))
}

/// Per-direction bandwidth of a PCIe 5.0 x16 slot, 64 GB/s (32 GT/s x 16 lanes, PCI-SIG's
/// PCIe 5.0 specification): a scale-up link no faster than this is the PCIe bus between
/// cards, not a peer-to-peer fabric.
pub const PCIE5_X16: BytesPerSecond = BytesPerSecond(64e9);

/// Whether a group of `n` chips sits inside one scale-up domain whose link is a
/// peer-to-peer fabric (NVLink, xGMI), faster than the PCIe bus between cards. The
/// frameworks' own collectives need one: SGLang's custom all-reduce on more than two
/// chips only over a full NVLink or xGMI mesh (`is_full_nvlink` in
/// `custom_all_reduce.py`), TensorRT-LLM's NVLink all-to-all kernels only where every
/// NVLink is up (`MnnvlMemory.supports_mnnvl` in `tensorrt_llm/_mnnvl_utils.py`, which
/// later versions also refuse outright on the PCIe RTX PRO 6000 Blackwell).
pub fn on_peer_fabric(chip: &Chip, n: u32) -> bool {
    n <= chip.scale_up_domain && chip.scale_up.is_some_and(|l| l.bandwidth > PCIE5_X16)
}

/// All-reduce of `msg` bytes over a group of `n` chips, by the framework's custom
/// all-reduce where it has one (`custom`: the largest message it takes) and the group
/// sits in one scale-up domain on a peer-to-peer fabric ([`custom_all_reduce`]), else as
/// NCCL does. Inside one scale-up domain NCCL's is a ring over the scale-up link. A group spanning `m` domains of `l` chips each is
/// reduced in two levels, as NCCL does across nodes: reduce-scatter and all-gather
/// inside each domain (a ring of `l` over scale-up) around a ring all-reduce of the
/// `msg / l` shards across the `m` domains (over scale-out). A flat ring over the slow
/// link would pay its latency `2(n-1)` times instead of `2(m-1)`.
pub fn group_all_reduce(
    chip: &Chip,
    msg: Bytes,
    n: u32,
    link_eff: f64,
    custom: Option<Bytes>,
) -> (Bytes, Seconds) {
    let Some(domains) = chip.whole_domains(n) else {
        let link = chip.link_for_group(n);
        let bandwidth = link.bandwidth * link_eff;
        // Two cards reach each other's memory over PCIe too; larger groups need the fabric.
        let pair_over_pcie = n == 2 && n <= chip.scale_up_domain && chip.scale_up.is_some();
        let peer_to_peer = pair_over_pcie || on_peer_fabric(chip, n);
        if let Some(max) = custom.filter(|_| peer_to_peer) {
            if let Some(done) = custom_all_reduce(msg, n, bandwidth, link.latency, max) {
                return done;
            }
        }
        return ring_all_reduce(msg, n, bandwidth, link.latency);
    };
    let domain = n / domains;
    let up = chip.link_for_group(domain);
    let out = chip.network_link();
    let (inner, t_inner) = ring_all_reduce(msg, domain, up.bandwidth * link_eff, up.latency);
    let (outer, t_outer) = ring_all_reduce(
        msg / domain as f64,
        domains,
        out.bandwidth * link_eff,
        out.latency,
    );
    (inner + outer, t_inner + t_outer)
}

/// Bytes per element of a token's hidden state on the expert all-to-all.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AllToAllWidths {
    /// Dispatch (tokens to their experts): quantised before the expert matmuls when
    /// those run in FP8 or FP4, so it travels at one byte (DeepSeek-V3 report 3.3.2).
    pub dispatch: f64,
    /// Combine (expert outputs back to their tokens), in the activation dtype.
    pub combine: f64,
}

/// What one chip sends on an expert all-to-all: `tokens` tokens that each pick
/// `top_k` of the experts, `hidden` elements per token at `widths` bytes each.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ExpertTraffic {
    pub tokens: f64,
    pub top_k: f64,
    pub hidden: f64,
    pub widths: AllToAllWidths,
}

/// Dispatch and combine of one chip's `traffic` over experts spread evenly across an
/// expert group of `group` chips. Returns the bytes the chip moves and the time both
/// phases take.
///
/// Inside one scale-up domain every pick that lands on another chip crosses the
/// scale-up link. A group spanning `m` domains of `l` chips goes in two levels, as
/// DeepEP's internode kernels do: a token crosses the scale-out link once per remote
/// domain it picks experts in (expected `(m-1)(1-(1-1/m)^k)` domains, not `k`
/// picks), and is forwarded inside that domain over scale-up; every pick that is not
/// on the receiving chip's own position crosses scale-up once, `k(l-1)/l` per token.
/// The two links work at once, so the slower one sets the time.
///
/// Where the serving framework's kernels have a measured fixed time per phase
/// (`floor`) and the group sits on one peer-to-peer fabric ([`on_peer_fabric`]: the
/// kernels it was measured on need one), each phase takes `sqrt(floor^2 + transfer^2)`
/// in place of the transfer plus the link's latency: the kernel's launch and barrier
/// set a small exchange's time, the bytes a large one's.
pub fn expert_all_to_all(
    chip: &Chip,
    group: u32,
    traffic: ExpertTraffic,
    link_eff: f64,
    floor: Option<AllToAllFloor>,
) -> (Bytes, Seconds) {
    let ExpertTraffic {
        tokens,
        top_k,
        hidden,
        widths,
    } = traffic;
    if group <= 1 || tokens <= 0.0 {
        return (Bytes::ZERO, Seconds::ZERO);
    }
    let per_pick = hidden * (widths.dispatch + widths.combine);
    let g = group as f64;
    let Some(domains) = chip.whole_domains(group) else {
        let link = chip.link_for_group(group);
        let picks = tokens * top_k * (g - 1.0) / g;
        let bytes = Bytes(picks * per_pick);
        let bw = link.bandwidth * link_eff;
        let time = match floor.filter(|_| on_peer_fabric(chip, group)) {
            Some(f) => {
                let phase = |width: f64| Bytes(picks * hidden * width) / bw;
                operator_time(f.dispatch, phase(widths.dispatch))
                    + operator_time(f.combine, phase(widths.combine))
            }
            None => bytes / bw + link.latency * 2.0,
        };
        return (bytes, time);
    };
    let m = domains as f64;
    let l = g / m;
    let up = chip.link_for_group(group / domains);
    let out = chip.network_link();
    let remote_domains = (m - 1.0) * (1.0 - (1.0 - 1.0 / m).powf(top_k));
    let out_bytes = Bytes(tokens * remote_domains * per_pick);
    let up_bytes = Bytes(tokens * top_k * (l - 1.0) / l * per_pick);
    (
        out_bytes + up_bytes,
        slower_link((up, up_bytes), (out, out_bytes), link_eff) + (out.latency + up.latency) * 2.0,
    )
}

/// Two links that carry their bytes at once, scale-up inside the domains and scale-out
/// between them: the slower one's transfer sets the time.
fn slower_link(up: (Link, Bytes), out: (Link, Bytes), link_eff: f64) -> Seconds {
    let transfer = |(link, bytes): (Link, Bytes)| bytes / (link.bandwidth * link_eff);
    transfer(up).max(transfer(out))
}

/// Dispatch and combine of one chip's `traffic` as an all-gather and a reduce-scatter
/// over an expert group of `group` chips (`audit/MODEL.md` 3.7.1): the chip gathers
/// every other replica's tokens (quantised, at the dispatch width) so that its experts
/// see every token of the group, and after them the group's partial outputs (at the
/// combine width) are summed back to the chips whose tokens they are. Each phase brings
/// `(g - 1)` tokens' hidden states to every chip per token of its own, however many
/// experts a token picks, as NCCL's ring collectives do: `(g - 1)` hops each. A group
/// spanning `m` scale-up domains of `l` chips brings `(g - l)` of them over scale-out
/// and `(l - 1)` over scale-up, the slower link setting the time.
pub fn expert_gather_scatter(
    chip: &Chip,
    group: u32,
    traffic: ExpertTraffic,
    link_eff: f64,
) -> (Bytes, Seconds) {
    let ExpertTraffic {
        tokens,
        hidden,
        widths,
        ..
    } = traffic;
    if group <= 1 || tokens <= 0.0 {
        return (Bytes::ZERO, Seconds::ZERO);
    }
    let per_token = hidden * (widths.dispatch + widths.combine);
    let g = group as f64;
    let hops = 2.0 * (g - 1.0);
    let Some(domains) = chip.whole_domains(group) else {
        let link = chip.link_for_group(group);
        let bytes = Bytes(tokens * (g - 1.0) * per_token);
        return (
            bytes,
            bytes / (link.bandwidth * link_eff) + link.latency * hops,
        );
    };
    let l = (group / domains) as f64;
    let up = chip.link_for_group(group / domains);
    let out = chip.network_link();
    let up_bytes = Bytes(tokens * (l - 1.0) * per_token);
    let out_bytes = Bytes(tokens * (g - l) * per_token);
    (
        out_bytes + up_bytes,
        slower_link((up, up_bytes), (out, out_bytes), link_eff)
            + out.latency.max(up.latency) * hops,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ring_all_reduce_closed_form() {
        let (moved, t) =
            ring_all_reduce(Bytes(8e6), 8, BytesPerSecond(100e9), Seconds::from_us(1.0));
        assert_eq!(moved.0, 14e6);
        assert!((t.us() - (140.0 + 14.0)).abs() < 1e-9);
    }

    /// SGLang's one-stage kernel: every chip reads its 7 peers' whole message, two flag
    /// exchanges of one hop each, whatever the group's size.
    #[test]
    fn custom_all_reduce_one_stage_closed_form() {
        let (bw, hop, max) = (BytesPerSecond(100e9), Seconds::from_us(1.0), Bytes(8e6));
        // A decode step's message: 16 tokens of 7,168 BF16 values, 224 KiB < 256 KiB.
        let msg = Bytes(16.0 * 7168.0 * 2.0);
        let (moved, t) = custom_all_reduce(msg, 8, bw, hop, max).unwrap();
        assert_eq!(moved.0, 7.0 * msg.0);
        assert!((t.us() - (7.0 * msg.0 / 100e9 * 1e6 + 2.0)).abs() < 1e-9);
        // Two chips take one stage at any size the buffer holds.
        let big = Bytes(4e6);
        let (moved2, _) = custom_all_reduce(big, 2, bw, hop, max).unwrap();
        assert_eq!(moved2.0, big.0);
    }

    /// Past the one-stage sizes (256 KiB on 8 chips, 512 KiB on 4) the two-stage kernel
    /// moves a ring's bytes, `2(n-1)/n x msg`, but pays two hops, not `2(n-1)`.
    #[test]
    fn custom_all_reduce_two_stages_past_the_one_stage_sizes() {
        let (bw, hop, max) = (BytesPerSecond(100e9), Seconds::from_us(1.0), Bytes(8e6));
        let msg = Bytes(300.0 * 1024.0);
        let (moved8, t8) = custom_all_reduce(msg, 8, bw, hop, max).unwrap();
        let (ring, t_ring) = ring_all_reduce(msg, 8, bw, hop);
        assert_eq!(moved8.0, ring.0);
        assert!((t8.us() - (t_ring.us() - 12.0)).abs() < 1e-9);
        // The same message on 4 chips is still under 512 KiB: one stage, 3 x msg.
        let (moved4, _) = custom_all_reduce(msg, 4, bw, hop, max).unwrap();
        assert_eq!(moved4.0, 3.0 * msg.0);
    }

    /// The sizes SGLang hands to NCCL: a group of 3 or 16, a message at the buffer's size.
    #[test]
    fn custom_all_reduce_declines_what_nccl_takes() {
        let (bw, hop, max) = (BytesPerSecond(100e9), Seconds::from_us(1.0), Bytes(8e6));
        assert!(custom_all_reduce(Bytes(1e5), 3, bw, hop, max).is_none());
        assert!(custom_all_reduce(Bytes(1e5), 16, bw, hop, max).is_none());
        assert!(custom_all_reduce(max, 8, bw, hop, max).is_none());
        assert!(custom_all_reduce(Bytes(1e5), 1, bw, hop, max).is_none());
    }
}
