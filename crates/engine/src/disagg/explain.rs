//! One deployment explained: every headline figure as an explain chain (TTFT, TPOT,
//! tok/s per user, tok/s per chip, input and output $/Mtok, memory per chip, J/token,
//! max batch) and every pool's steps as operator tables.
//!
//! Each axis opens its own figures (TTFT, TPOT and the token rates) beside its
//! `combine` (`explain` in each axis file, the round's in `round.rs`); this file adds
//! the queue, chips, money, energy and memory, which are the same on every axis
//! (`audit/MODEL.md` sections 4 and 6.6).

use super::round::queue_wait;
use super::topology::{topology, Topology};
use super::{evaluate, running, Deployment, DeploymentPoint, PoolReport, PoolRole, Setup};
use crate::catalogue::Chip;
use crate::error::Result;
use crate::explain::{diff, floor, num, product, quotient, sum, var, Chain, Expr, Source};
use crate::kernel::OperatorTable;
use crate::memory::{LayerShare, Part};
use crate::units::Bytes;

/// An axis' own figures as chains, and its pools' operator tables.
#[derive(Clone, Debug)]
pub(crate) struct AxisChains {
    /// TTFT inside the engine, before any queue.
    pub ttft: Chain,
    pub tpot: Chain,
    pub output: Chain,
    pub input: Chain,
    pub operators: Vec<(PoolRole, Vec<OperatorTable>)>,
    /// Bytes per chip a draft colocated on a pool's chips holds there.
    pub colocated_draft: Option<(PoolRole, Bytes)>,
}

impl AxisChains {
    /// An axis whose figures are its generating pool's round.
    pub(crate) fn of_round(
        chains: super::round::RoundChains,
        operators: Vec<(PoolRole, Vec<OperatorTable>)>,
    ) -> AxisChains {
        AxisChains {
            ttft: chains.ttft,
            tpot: chains.tpot,
            output: chains.output,
            input: chains.input,
            operators,
            colocated_draft: None,
        }
    }
}

/// A deployment's figures opened; each pool of `point` carries its steps' operator
/// tables (a separate draft pool has none).
#[derive(Clone, Debug, PartialEq)]
pub struct Explained {
    pub point: DeploymentPoint,
    /// TTFT, TPOT, tok/s per user, output and input tok/s per chip, output and input
    /// $/Mtok (where every chip has a price), J/token (where every chip has a TDP),
    /// memory per chip and max batch, in that order, then p90 TTFT, and p90 TPOT where
    /// requests' TPOTs differ; an open-loop point
    /// (`open_loop_explain::explain_at_rate`) opens p50 and p90 TTFT as its own M/D/1
    /// queue instead, and adds the concurrency its arrivals hold.
    pub chains: Vec<Chain>,
    /// The pools and links drawn, at the point's rates.
    pub topology: Topology,
}

/// Evaluates `deployment` and opens its figures.
pub fn explain(setup: &Setup, deployment: &Deployment) -> Result<Explained> {
    let mut point = evaluate(setup, deployment)?;
    let concurrency = deployment.batch();
    let running = running(setup, deployment);
    let d = deployment.with_batch(running);
    let axis = match d {
        Deployment::Aggregated { pool, batch } => super::aggregated::explain(setup, pool, batch)?,
        Deployment::PrefillDecode {
            prefill,
            decode,
            batch,
        } => super::prefill_decode::explain(setup, prefill, decode, batch)?,
        Deployment::AttentionExpert {
            attention,
            experts,
            micro_batches,
            batch,
        } => super::attention_expert::explain(setup, attention, experts, micro_batches, batch)?,
        Deployment::Speculative {
            target,
            draft,
            batch,
        } => super::speculative::explain(setup, target, draft, batch)?,
    };
    let f = &point.figures;
    let osl = setup.workload.osl as f64;
    let ttft = if running < concurrency {
        let rate = f.output_tok_s.per_request(osl);
        let wait = Chain::new(
            "time queued for a slot (Little's law)",
            "W_q",
            "s",
            "6.1",
            quotient(diff(var("C"), var("B")), quotient(var("X_out"), var("OSL"))),
            queue_wait(concurrency, running, rate).value(),
        )
        .input(
            "C",
            "concurrent requests",
            concurrency as f64,
            "requests",
            Source::workload("batch"),
        )
        .input(
            "B",
            "requests the engine runs at once",
            running as f64,
            "requests",
            Source::pool_knob(
                &setup.assumptions,
                deployment.generating_pool().chip,
                "max_seqs_per_replica",
            ),
        )
        .derived("output tok/s", axis.output.clone())
        .with_osl(osl);
        Chain::new(
            "TTFT",
            "TTFT",
            "s",
            "6.1",
            sum([var("TTFT_engine"), var("W_q")]),
            f.ttft.value(),
        )
        .derived("TTFT inside the engine", axis.ttft)
        .derived("time queued for a slot", wait)
    } else {
        Chain {
            quantity: "TTFT".into(),
            symbol: "TTFT".into(),
            value: f.ttft.value(),
            ..axis.ttft
        }
    };
    let pools: Vec<(PoolRole, &Chip, u32)> = deployment
        .pools()
        .into_iter()
        .map(|(role, p)| (role, p.chip, p.chips()))
        .collect();
    let chips = chips_chain(&pools, f.chips);
    let per_user = Chain::new(
        "tok/s per user",
        "x_user",
        "tok/s",
        "6.1",
        quotient(num(1.0), var("TPOT")),
        f.tok_s_user.value(),
    )
    .derived("time per output token", axis.tpot.clone());
    let per_chip = |quantity: &str, symbol: &str, rate: &Chain, value: f64| {
        Chain::new(
            quantity,
            symbol,
            "tok/s",
            "6.6",
            quotient(var(&rate.symbol), var("N")),
            value,
        )
        .derived(&rate.quantity, rate.clone())
        .derived("chips of every pool", chips.clone())
    };
    // Where requests' TPOTs differ, their p90 over the mean's chain (last of all).
    let tpot_p90 = point.tpot.p90_chain(axis.tpot.clone());
    let mut chains = vec![
        ttft,
        axis.tpot,
        per_user,
        per_chip(
            "output tok/s per chip",
            "x_out",
            &axis.output,
            f.output_tok_s_per_chip.value(),
        ),
        per_chip(
            "input tok/s per chip",
            "x_in",
            &axis.input,
            f.input_tok_s_per_chip.value(),
        ),
    ];
    if let Some(hourly) = pool_sum(
        &pools,
        "c",
        "USD/h",
        "the chips' rental price",
        "price",
        |c| c.price.map(|p| p.value()),
    ) {
        let money = |quantity: &str, symbol: &str, rate: &Chain, value: f64| {
            Chain::new(
                quantity,
                symbol,
                "USD/Mtok",
                "6.6",
                product([
                    quotient(var("C_h"), product([var(&rate.symbol), num(3600.0)])),
                    num(1e6),
                ]),
                value,
            )
            .derived("the deployment's price per hour", hourly.clone())
            .derived(&rate.quantity, rate.clone())
        };
        if let Some(v) = f.usd_per_mtok_output {
            chains.push(money("output $/Mtok", "$_out", &axis.output, v.value()));
        }
        if let Some(v) = f.usd_per_mtok_input {
            chains.push(money("input $/Mtok", "$_in", &axis.input, v.value()));
        }
    }
    let costed: Vec<(&PoolReport, &Chip)> = point
        .pools
        .iter()
        .filter_map(|r| {
            pools
                .iter()
                .find(|(role, _, _)| *role == r.role)
                .map(|(_, chip, _)| (r, *chip))
        })
        .collect();
    chains.extend(crate::cost::explain::chains(
        &costed,
        f,
        &setup.assumptions.cost,
        &axis.input,
        &axis.output,
    ));
    if let Some(fullest) = point
        .pools
        .iter()
        .max_by(|a, b| a.memory.total.total_cmp(&b.memory.total))
    {
        let draft = axis
            .colocated_draft
            .filter(|(role, _)| *role == fullest.role)
            .map(|(_, bytes)| bytes);
        chains.push(memory_chain(
            setup,
            fullest,
            chip_of(&pools, fullest.role),
            draft,
        ));
    }
    if let Some(g) = point.generating_pool() {
        chains.extend(max_batch_chain(
            g,
            chip_of(&pools, g.role),
            point.max_batch(),
        ));
    }
    chains.push(point.ttft.p90_chain());
    chains.extend(tpot_p90);
    for (role, tables) in axis.operators {
        if let Some(pool) = point.pools.iter_mut().find(|p| p.role == role) {
            pool.operators = tables;
        }
    }
    let topology = topology(setup, deployment, &point);
    Ok(Explained {
        point,
        chains,
        topology,
    })
}

/// The symbol of a pool in per-pool inputs: `n_decode`, `c_prefill`.
fn pool_symbol(prefix: &str, role: PoolRole) -> String {
    match role {
        PoolRole::Colocated => prefix.to_string(),
        r => format!("{prefix}_{}", r.name()),
    }
}

fn chips_chain(pools: &[(PoolRole, &Chip, u32)], total: u32) -> Chain {
    let terms = pools.iter().map(|(r, _, _)| var(&pool_symbol("n", *r)));
    let mut chain = Chain::new(
        "chips of every pool",
        "N",
        "chips",
        "6.6",
        sum(terms),
        total as f64,
    );
    for (role, chip, n) in pools {
        chain = chain.input(
            &pool_symbol("n", *role),
            &format!("{} chips in the {} pool", chip.name, role.name()),
            *n as f64,
            "chips",
            Source::deployment("chips per pool"),
        );
    }
    chain
}

/// `Σ n_i × value_i` over the pools, `None` when a chip lacks the value.
fn pool_sum(
    pools: &[(PoolRole, &Chip, u32)],
    prefix: &str,
    unit: &'static str,
    meaning: &str,
    field: &str,
    value: impl Fn(&Chip) -> Option<f64>,
) -> Option<Chain> {
    let (symbol, quantity) = match prefix {
        "c" => ("C_h", "price of every chip per hour"),
        _ => ("W", "power of every chip"),
    };
    let terms: Vec<Expr> = pools
        .iter()
        .map(|(r, _, _)| product([var(&pool_symbol("n", *r)), var(&pool_symbol(prefix, *r))]))
        .collect();
    let mut total = 0.0;
    let mut chain = Chain::new(quantity, symbol, unit, "6.6", sum(terms), 0.0);
    for (role, chip, n) in pools {
        let v = value(chip)?;
        total += *n as f64 * v;
        chain = chain
            .input(
                &pool_symbol("n", *role),
                &format!("chips in the {} pool", role.name()),
                *n as f64,
                "chips",
                Source::deployment("chips per pool"),
            )
            .input(
                &pool_symbol(prefix, *role),
                &format!("{meaning}, {}", chip.name),
                v,
                unit,
                Source::chip(chip, field),
            );
    }
    chain.value = total;
    Some(chain)
}

/// The part of the model a pool of `role` holds.
fn part_of(role: PoolRole) -> Option<Part> {
    match role {
        PoolRole::Colocated | PoolRole::Prefill | PoolRole::Decode | PoolRole::Target => {
            Some(Part::Whole)
        }
        PoolRole::Attention => Some(Part::AttentionAndDense),
        PoolRole::Experts => Some(Part::Experts),
        PoolRole::Draft => None,
    }
}

/// The workspace of one chip of `pool`: the runtime's reserve plus one prefill
/// chunk's activations, `r × C + chunk × (4h + 2F) × b`.
fn workspace_chain(
    setup: &Setup,
    pool: &PoolReport,
    chip: &Chip,
    draft: Option<Bytes>,
) -> Option<Chain> {
    let a = &setup.assumptions.on_chip(chip);
    let part = part_of(pool.role)?;
    let widest = LayerShare::of(setup.model, pool.parallelism, part, 0.0, 0).widest_ffn;
    let h = setup.model.hidden as f64;
    let mut terms = vec![
        product([var("r"), var("C_fast")]),
        product([
            var("chunk"),
            sum([product([num(4.0), var("h")]), product([num(2.0), var("F")])]),
            var("b_act"),
        ]),
    ];
    if draft.is_some() {
        terms.push(var("M_draft"));
    }
    let chain = Chain::new(
        "workspace per chip",
        "M_ws",
        "B",
        "4",
        sum(terms),
        pool.memory.workspace.value(),
    )
    .input(
        "r",
        "memory the runtime holds back",
        a.runtime_reserve,
        "1",
        Source::pool_knob(&setup.assumptions, chip, "runtime_reserve"),
    )
    .input(
        "C_fast",
        "fast memory per chip",
        chip.fast.capacity.value(),
        "B",
        Source::chip(chip, "memory"),
    )
    .input(
        "chunk",
        "tokens of one prefill chunk",
        a.prefill_chunk_tokens,
        "tokens",
        Source::pool_knob(&setup.assumptions, chip, "prefill_chunk_tokens"),
    )
    .input(
        "h",
        "hidden size",
        h,
        "values",
        Source::model("hidden_size"),
    )
    .input(
        "F",
        "widest FFN activation per token on one chip",
        widest,
        "values",
        Source::model("intermediate_size (or the experts') / TP"),
    )
    .input(
        "b_act",
        "bytes per activation",
        a.activation_bytes,
        "B",
        Source::assumption("activation_bytes"),
    );
    Some(match draft {
        Some(bytes) => chain.input(
            "M_draft",
            "weights and KV cache of the draft on the same chips",
            bytes.value(),
            "B",
            Source::rule("the draft model (or MTP layers) placed on these chips at the same batch"),
        ),
        None => chain,
    })
}

/// The chip of the pool with `role`.
fn chip_of<'a>(pools: &[(PoolRole, &'a Chip, u32)], role: PoolRole) -> Option<&'a Chip> {
    pools
        .iter()
        .find(|(r, _, _)| *r == role)
        .map(|(_, c, _)| *c)
}

/// Memory of the fullest chip: weights, KV cache and workspace.
fn memory_chain(
    setup: &Setup,
    pool: &PoolReport,
    chip: Option<&Chip>,
    draft: Option<Bytes>,
) -> Chain {
    let m = &pool.memory;
    let kv_per_seq = m.kv_per_seq.value();
    let kv = Chain::new("KV cache per chip", "M_kv", "B", "4", product([var("s"), var("m_kv")]), m.kv.value())
        .input("s", "whole sequences each replica holds memory for", pool.seqs_per_replica.ceil(), "sequences", Source::deployment("batch over replicas, rounded up"))
        .input(
            "m_kv",
            "KV cache of one sequence at full context on one chip",
            kv_per_seq,
            "B",
            Source::rule("KV values per token of the chip's layers x (ISL + OSL) x KV bytes / TP shards (MODEL.md §4)"),
        );
    let chain = Chain::new(
        &format!("memory per chip ({} pool, the fullest)", pool.role.name()),
        "M",
        "B",
        "4",
        sum([var("M_w"), var("M_kv"), var("M_ws")]),
        m.total.value(),
    )
    .input(
        "M_w",
        "weights on one chip",
        m.weights.value(),
        "B",
        Source::rule(format!(
            "parameters of the chip's layers / PP + its share of the embedding and head, x bytes per weight of each one's format: {} (MODEL.md §4, §4.1)",
            setup.precision().describe()
        )),
    )
    .derived("KV cache per chip", kv);
    match chip.and_then(|c| workspace_chain(setup, pool, c, draft)) {
        Some(ws) => chain.derived("workspace per chip", ws),
        None => chain.input(
            "M_ws",
            "workspace per chip",
            m.workspace.value(),
            "B",
            Source::rule("runtime reserve + one prefill chunk's activations (MODEL.md §4)"),
        ),
    }
}

/// The largest batch the generating pool's memory holds:
/// `DP × floor((C_fast - M_ws - (M_w - M_cold) + 1 B) / m_kv)`.
fn max_batch_chain(g: &PoolReport, chip: Option<&Chip>, value: u64) -> Option<Chain> {
    let m = &g.memory;
    let kv_per_seq = m.kv_per_seq.value();
    if kv_per_seq <= 0.0 || value == 0 {
        return None;
    }
    Some(
        Chain::new(
            "max batch (sequences the generating pool's memory holds)",
            "B_max",
            "sequences",
            "4",
            product([
                var("DP"),
                floor(quotient(
                    sum([
                        diff(
                            diff(var("C_fast"), var("M_ws")),
                            diff(var("M_w"), var("M_cold")),
                        ),
                        num(1.0),
                    ]),
                    var("m_kv"),
                )),
            ]),
            value as f64,
        )
        .input(
            "DP",
            "replicas of the pool",
            g.parallelism.dp as f64,
            "replicas",
            Source::deployment("layout"),
        )
        .input(
            "C_fast",
            "fast memory per chip",
            m.fast_capacity.value(),
            "B",
            chip.map_or(Source::rule("the chip's fast tier"), |c| {
                Source::chip(c, "memory")
            }),
        )
        .input(
            "M_ws",
            "workspace per chip",
            m.workspace.value(),
            "B",
            Source::rule("see memory per chip"),
        )
        .input(
            "M_w",
            "weights on one chip",
            m.weights.value(),
            "B",
            Source::rule("see memory per chip"),
        )
        .input(
            "M_cold",
            "weights spilled to the cold tier",
            m.cold_weights.value(),
            "B",
            Source::rule("what does not fit beside the workspace and one sequence (MODEL.md §4)"),
        )
        .input(
            "m_kv",
            "KV cache of one sequence on one chip",
            kv_per_seq,
            "B",
            Source::rule("see memory per chip"),
        ),
    )
}
