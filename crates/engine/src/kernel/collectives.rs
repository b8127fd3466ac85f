//! Collectives: ring and two-level all-reduce, and the expert all-to-all, each a
//! closed form of bytes moved and time taken.

use super::roofline::operator_time;
use crate::catalogue::Chip;
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

/// All-reduce of `msg` bytes over a group of `n` chips. Inside one scale-up domain it
/// is a ring over the scale-up link. A group spanning `m` domains of `l` chips each is
/// reduced in two levels, as NCCL does across nodes: reduce-scatter and all-gather
/// inside each domain (a ring of `l` over scale-up) around a ring all-reduce of the
/// `msg / l` shards across the `m` domains (over scale-out). A flat ring over the slow
/// link would pay its latency `2(n-1)` times instead of `2(m-1)`.
pub fn group_all_reduce(chip: &Chip, msg: Bytes, n: u32, link_eff: f64) -> (Bytes, Seconds) {
    let Some(domains) = chip.whole_domains(n) else {
        let link = chip.link_for_group(n);
        return ring_all_reduce(msg, n, link.bandwidth * link_eff, link.latency);
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

/// Dispatch and combine of `tokens` tokens (held by one chip) that each pick `top_k` of
/// the experts spread evenly over an expert group of `group` chips; `hidden` elements
/// per token. Returns the bytes the chip moves and the time both phases take.
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
/// (`floor`) and the group sits inside one scale-up domain, each phase takes
/// `sqrt(floor^2 + transfer^2)` in place of the transfer plus the link's latency: the
/// kernel's launch and barrier set a small exchange's time, the bytes a large one's.
#[allow(clippy::too_many_arguments)]
pub fn expert_all_to_all(
    chip: &Chip,
    group: u32,
    tokens: f64,
    top_k: f64,
    hidden: f64,
    widths: AllToAllWidths,
    link_eff: f64,
    floor: Option<AllToAllFloor>,
) -> (Bytes, Seconds) {
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
        let time = match floor.filter(|_| group <= chip.scale_up_domain.max(1)) {
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
    let out_bytes = tokens * remote_domains * per_pick;
    let up_bytes = tokens * top_k * (l - 1.0) / l * per_pick;
    let time =
        (out_bytes / (out.bandwidth.0 * link_eff)).max(up_bytes / (up.bandwidth.0 * link_eff));
    (
        Bytes(out_bytes + up_bytes),
        Seconds(time) + (out.latency + up.latency) * 2.0,
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
}
