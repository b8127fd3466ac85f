//! A deployment as a graph: its pools (chips, replicas, scale-up domains) and the
//! links they use, each with its bandwidth and how busy the deployment keeps it, the
//! busiest one marked (`audit/MODEL.md` section 6.9).
//!
//! Nothing here is a second cost model: the collectives' time comes from the pools'
//! own step costs and the traffic between pools from each axis' transfer (its KV
//! cache, hidden-state exchange or drafted tokens), read at the point's token rates.

use super::place::one_domain;
use super::{
    attention_expert, inter_pool_link, prefill_decode, speculative, Deployment, DeploymentPoint,
    Limiter, PoolConfig, PoolReport, PoolRole, Setup,
};
use crate::catalogue::chip::Link;
use crate::catalogue::Chip;
use crate::kernel::{OpKind, StepCost};
use crate::parallel::Parallelism;
use crate::units::{Bytes, BytesPerSecond, Seconds};
use serde::Serialize;

/// The deployment drawn: pools, links, the busiest link.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Topology {
    pub pools: Vec<PoolNode>,
    pub links: Vec<LinkUse>,
    /// Index into `links` of the link closest to saturation; `None` without links.
    pub busiest: Option<usize>,
    /// What limits the deployment as its axis decided (a pool, or the link between
    /// the pools).
    pub limiter: Limiter,
}

/// One pool: its chips and how they group.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PoolNode {
    pub role: PoolRole,
    pub chip: String,
    pub chip_name: String,
    pub chips: u32,
    #[serde(flatten)]
    pub parallelism: Parallelism,
    /// Chips one scale-up domain (an NVLink or Infinity Fabric island) holds.
    pub scale_up_domain: u32,
    /// Scale-up domains the pool's chips fill, the last one possibly in part.
    pub domains: u32,
}

/// Where a link runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LinkEnds {
    /// Inside one pool: its collectives.
    Within(PoolRole),
    /// Between two pools.
    Between(PoolRole, PoolRole),
}

/// Which of a chip's links carries the traffic.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LinkClass {
    /// Inside one scale-up domain.
    ScaleUp,
    /// Over the network between domains or nodes.
    ScaleOut,
    /// Scale-up inside each domain and scale-out between whole domains (the two-level
    /// collectives of `kernel::collectives`); `bandwidth` is the scale-out link's.
    TwoLevel,
    /// The bandwidth the user gave for the link between pools.
    Stated,
}

/// What crosses a link.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Traffic {
    /// Tensor-parallel all-reduces, expert all-to-alls and pipeline hand-offs.
    Collectives,
    /// Each request's KV cache, prefill pool to decode pool.
    KvCache,
    /// Every MoE layer's hidden states, to the experts and back.
    HiddenStates,
    /// Drafted token ids and the accepted prefix.
    DraftTokens,
}

/// One link and how busy the deployment keeps it.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct LinkUse {
    pub ends: LinkEnds,
    pub class: LinkClass,
    pub carries: Traffic,
    /// Per chip and direction, nominal.
    #[serde(rename = "bandwidth_bytes_s")]
    pub bandwidth: BytesPerSecond,
    #[serde(rename = "latency_s")]
    pub latency: Seconds,
    /// Chips driving the link at once, each over its own port.
    pub lanes: u32,
    /// Bytes per second one lane carries at the point's rates.
    #[serde(rename = "carried_bytes_s")]
    pub carried: BytesPerSecond,
    /// Share of the time the link is busy, 0 to 1 (MODEL 6.9).
    pub busy: f64,
}

impl LinkUse {
    /// "prefill-decode", "decode pool": the link's ends in words.
    pub fn ends_name(&self) -> String {
        match self.ends {
            LinkEnds::Within(r) => format!("inside the {} pool", r.name()),
            LinkEnds::Between(a, b) => format!("{} pool to {} pool", a.name(), b.name()),
        }
    }

    pub fn class_name(&self) -> &'static str {
        match self.class {
            LinkClass::ScaleUp => "scale-up",
            LinkClass::ScaleOut => "scale-out",
            LinkClass::TwoLevel => "scale-up inside domains, scale-out between them",
            LinkClass::Stated => "stated by the user",
        }
    }

    pub fn carries_name(&self) -> &'static str {
        match self.carries {
            Traffic::Collectives => "collectives (all-reduce, all-to-all, pipeline hand-offs)",
            Traffic::KvCache => "KV cache of each request",
            Traffic::HiddenStates => "hidden states of every MoE layer, both ways",
            Traffic::DraftTokens => "drafted and accepted token ids",
        }
    }
}

impl Topology {
    /// The busiest link, if the deployment has links.
    pub fn busiest_link(&self) -> Option<&LinkUse> {
        self.links.get(self.busiest?)
    }

    /// "The busiest link is ... (34% busy); the deployment is limited by ...".
    pub fn summary(&self) -> String {
        let limiter = self.limiter.name();
        match self.busiest_link() {
            None => format!("No links: one chip per pool. Limited by the {limiter}."),
            Some(l) => {
                let limits = if self.limiter == Limiter::InterPoolLink
                    && matches!(l.ends, LinkEnds::Between(..))
                {
                    "it limits the deployment".to_string()
                } else {
                    format!("the deployment is limited by the {limiter}")
                };
                format!(
                    "Busiest link: {}, {} busy; {limits}.",
                    l.ends_name(),
                    percent(l.busy)
                )
            }
        }
    }
}

impl LinkUse {
    /// One line: where, which link, its bandwidth and lanes, what it carries, how busy.
    pub fn line(&self) -> String {
        format!(
            "{} ({}): {:.1} GB/s per chip x {} chips, carries {}: {:.2} GB/s per chip, {} busy",
            self.ends_name(),
            self.class_name(),
            self.bandwidth.gb_per_s(),
            self.lanes,
            self.carries_name(),
            self.carried.gb_per_s(),
            percent(self.busy)
        )
    }
}

/// A busy share as a whole percent, "<1%" for one that rounds to nothing but is not.
pub fn percent(share: f64) -> String {
    if share > 0.0 && share < 0.005 {
        "<1%".into()
    } else {
        format!("{:.0}%", share * 100.0)
    }
}

/// The topology of `deployment` as evaluated in `point` (the same setup).
pub fn topology(setup: &Setup, deployment: &Deployment, point: &DeploymentPoint) -> Topology {
    // Each pool as it was placed (an expert pool's layout is the axis' own).
    let configs: Vec<(PoolRole, PoolConfig, Option<&PoolReport>)> = deployment
        .pools()
        .into_iter()
        .map(|(role, pool)| {
            let report = point.pool(role);
            let parallelism = report.map_or(pool.parallelism, |r| r.parallelism);
            (
                role,
                PoolConfig {
                    parallelism,
                    ..pool
                },
                report,
            )
        })
        .collect();
    let pools = configs
        .iter()
        .map(|(role, pool, _)| node(*role, *pool))
        .collect();
    let mut links: Vec<LinkUse> = configs
        .iter()
        .filter_map(|(role, pool, report)| fabric(*role, *pool, (*report)?))
        .collect();
    links.extend(between(setup, deployment, point));
    let busiest = links
        .iter()
        .enumerate()
        .fold(None::<(usize, f64)>, |best, (i, l)| match best {
            Some((_, b)) if b >= l.busy => best,
            _ => Some((i, l.busy)),
        })
        .map(|(i, _)| i);
    Topology {
        pools,
        links,
        busiest,
        limiter: point.figures.limiter,
    }
}

fn node(role: PoolRole, pool: PoolConfig) -> PoolNode {
    let domain = pool.chip.scale_up_domain.max(1);
    PoolNode {
        role,
        chip: pool.chip.id.clone(),
        chip_name: pool.chip.name.clone(),
        chips: pool.chips(),
        parallelism: pool.parallelism,
        scale_up_domain: domain,
        domains: pool.chips().div_ceil(domain),
    }
}

/// Chips the pool's widest collective spans: a replica's tensor and pipeline group,
/// or its expert group when experts spread over replicas.
fn collective_group(par: Parallelism) -> u32 {
    par.tp.saturating_mul(par.pp).max(par.expert_group())
}

/// The link a pool's collectives use, busy for their share of its step.
fn fabric(role: PoolRole, pool: PoolConfig, report: &PoolReport) -> Option<LinkUse> {
    let group = collective_group(pool.parallelism);
    if group <= 1 {
        return None;
    }
    let step = match role {
        PoolRole::Prefill => report.costs.prefill,
        _ => report.costs.generation,
    }?;
    let chip = pool.chip;
    let (class, link) = fabric_link(chip, group);
    let (bytes, time) = collectives(&step);
    let per_second = |x: f64| {
        if step.total.0 > 0.0 {
            x / step.total.0
        } else {
            0.0
        }
    };
    Some(LinkUse {
        ends: LinkEnds::Within(role),
        class,
        carries: Traffic::Collectives,
        bandwidth: link.bandwidth,
        latency: link.latency,
        lanes: pool.chips(),
        carried: BytesPerSecond(per_second(bytes.0)),
        busy: per_second(time.0).clamp(0.0, 1.0),
    })
}

/// The link a collective over `group` chips runs on, as `kernel::collectives` picks it.
fn fabric_link(chip: &Chip, group: u32) -> (LinkClass, Link) {
    if chip.whole_domains(group).is_some() {
        (LinkClass::TwoLevel, chip.network_link())
    } else if group <= chip.scale_up_domain && chip.scale_up.is_some() {
        (LinkClass::ScaleUp, chip.link_for_group(group))
    } else {
        (LinkClass::ScaleOut, chip.link_for_group(group))
    }
}

/// Bytes one chip moves and the time it spends in a step's collectives.
fn collectives(step: &StepCost) -> (Bytes, Seconds) {
    OpKind::ALL
        .into_iter()
        .filter(|k| k.is_communication())
        .map(|k| step.op(k))
        .fold((Bytes::ZERO, Seconds::ZERO), |(b, t), op| {
            (b + op.bytes, t + op.time)
        })
}

/// The link between the pools, if the axis has two: bytes per second over all its
/// lanes from the axis' own transfer sizes at the point's rates.
fn between(setup: &Setup, deployment: &Deployment, point: &DeploymentPoint) -> Option<LinkUse> {
    let f = &point.figures;
    let w = setup.workload;
    let requests = f.output_tok_s.per_request(w.osl as f64).0;
    let (a, b, carries, bytes_per_s) = match *deployment {
        Deployment::Aggregated { .. } => return None,
        Deployment::PrefillDecode {
            prefill, decode, ..
        } => {
            let kv = prefill_decode::kv_transfer(setup, prefill, decode, Seconds::ZERO).bytes;
            (
                (PoolRole::Prefill, prefill),
                (PoolRole::Decode, decode),
                Traffic::KvCache,
                requests * kv.0,
            )
        }
        Deployment::AttentionExpert {
            attention, experts, ..
        } => {
            // Every decoded token and every computed prompt token crosses each MoE
            // layer twice: to the experts and back.
            let tokens = f.output_tok_s.0 + requests * w.computed_prompt();
            let layer = attention_expert::exchange_bytes(setup, experts, tokens).0;
            let layers = attention_expert::moe_layers(setup.model);
            (
                (PoolRole::Attention, attention),
                (PoolRole::Experts, experts),
                Traffic::HiddenStates,
                2.0 * layers * layer,
            )
        }
        Deployment::Speculative { target, draft, .. } => {
            let draft = draft?;
            // One cycle per `expected_tokens` accepted tokens of each sequence.
            let cycles = f.output_tok_s.0 / setup.speculation.expected_tokens().max(1.0);
            let per_token = speculative::crossing_bytes(setup, 1).0;
            (
                (PoolRole::Draft, draft),
                (PoolRole::Target, target),
                Traffic::DraftTokens,
                2.0 * cycles * per_token,
            )
        }
    };
    let ((ra, pa), (rb, pb)) = (a, b);
    let link = inter_pool_link(setup, pa.chip, pa.chips(), pb.chip, pb.chips());
    let class = match setup.inter_pool_link {
        Some(_) => LinkClass::Stated,
        None if one_domain(pa.chip, pa.chips(), pb.chip, pb.chips()) => LinkClass::ScaleUp,
        None => LinkClass::ScaleOut,
    };
    let lanes = pa.chips().min(pb.chips()).max(1);
    let per_lane = bytes_per_s / lanes as f64;
    let usable = link.bandwidth.0 * setup.assumptions.link_eff;
    Some(LinkUse {
        ends: LinkEnds::Between(ra, rb),
        class,
        carries,
        bandwidth: link.bandwidth,
        latency: link.latency,
        lanes,
        carried: BytesPerSecond(per_lane),
        busy: if usable > 0.0 {
            (per_lane / usable).clamp(0.0, 1.0)
        } else {
            0.0
        },
    })
}
