//! The cost figures of an explained point as chains: power from utilisation, energy
//! per token, and owning the chips ($/h and $/Mtok), `audit/MODEL.md` section 6.6.

use super::{idle_power, roofline_share, utilisation, CostSettings, HOURS_PER_YEAR};
use crate::catalogue::Chip;
use crate::disagg::{Figures, PoolReport};
use crate::explain::{diff, num, product, quotient, sum, var, Chain, Source};

fn setting(name: &str, default: f64) -> Source {
    Source::Assumption {
        name: name.to_string(),
        default,
    }
}

fn symbol(prefix: &str, pool: &PoolReport) -> String {
    format!("{prefix}_{}", pool.role.name())
}

/// One pool's power: `n (P_idle + u (TDP - P_idle))`, with `u` its busy share times
/// the roofline-bound share of its step.
fn pool_power(pool: &PoolReport, chip: &Chip, s: &CostSettings) -> Option<Chain> {
    let tdp = chip.tdp?.0;
    let idle = idle_power(chip, s.idle_share)?.0.min(tdp);
    let r = roofline_share(&pool.time);
    let u = utilisation(pool.utilisation, &pool.time);
    let t = &pool.time;
    let share = Chain::new(
        &format!("utilisation of the {} pool's chips", pool.role.name()),
        &symbol("u", pool),
        "share",
        "6.6.1",
        product([
            var("b"),
            quotient(
                sum([var("t_c"), var("t_w"), var("t_kv")]),
                sum([
                    var("t_c"),
                    var("t_w"),
                    var("t_kv"),
                    var("t_comm"),
                    var("t_oh"),
                ]),
            ),
        ]),
        u,
    )
    .input(
        "b",
        "share of the time the pool steps (its share of capacity used)",
        pool.utilisation.clamp(0.0, 1.0),
        "share",
        Source::deployment("the pool's utilisation"),
    );
    let step = |name: &str, meaning: &str, v: f64| (name.to_string(), meaning.to_string(), v);
    let parts = if r < 1.0 || t.compute.0 + t.weight_memory.0 + t.kv_memory.0 > 0.0 {
        vec![
            step("t_c", "compute-bound time of the step", t.compute.0),
            step(
                "t_w",
                "weight-streaming time of the step",
                t.weight_memory.0,
            ),
            step("t_kv", "KV-streaming time of the step", t.kv_memory.0),
            step(
                "t_comm",
                "exposed communication of the step",
                t.communication.0,
            ),
            step(
                "t_oh",
                "host and launch overheads of the step",
                t.overhead.0,
            ),
        ]
    } else {
        // A pool with no time split (a separate draft pool): its busy time counts whole.
        vec![
            step("t_c", "no time split kept: busy time counts whole", 1.0),
            step("t_w", "no time split kept", 0.0),
            step("t_kv", "no time split kept", 0.0),
            step("t_comm", "no time split kept", 0.0),
            step("t_oh", "no time split kept", 0.0),
        ]
    };
    let share = parts.into_iter().fold(share, |c, (n, m, v)| {
        c.input(
            &n,
            &m,
            v,
            "s",
            Source::rule("the step's time split (MODEL.md 3)"),
        )
    });
    let idle_source = if chip.idle_power.is_some() {
        Source::chip(chip, "idle_power")
    } else {
        Source::rule(format!(
            "idle_share {} x TDP: no catalogued idle power",
            s.idle_share
        ))
    };
    let n = pool.chips as f64;
    Some(
        Chain::new(
            &format!("power of the {} pool", pool.role.name()),
            &symbol("P", pool),
            "W",
            "6.6.1",
            product([
                var("n"),
                sum([
                    var("P_idle"),
                    product([var(&share.symbol), diff(var("TDP"), var("P_idle"))]),
                ]),
            ]),
            n * (idle + u * (tdp - idle)),
        )
        .input(
            "n",
            "chips in the pool",
            n,
            "chips",
            Source::deployment("chips per pool"),
        )
        .input("P_idle", "idle power of one chip", idle, "W", idle_source)
        .input(
            "TDP",
            "board power of one chip",
            tdp,
            "W",
            Source::chip(chip, "tdp"),
        )
        .derived("the chips' utilisation", share),
    )
}

/// The chains of power, energy per token and ownership for `point`'s pools, each with
/// its chip; empty where a chip has no TDP.
pub fn chains(
    pools: &[(&PoolReport, &Chip)],
    f: &Figures,
    s: &CostSettings,
    input: &Chain,
    output: &Chain,
) -> Vec<Chain> {
    let Some(per_pool) = pools
        .iter()
        .map(|(p, c)| pool_power(p, c, s))
        .collect::<Option<Vec<Chain>>>()
    else {
        return Vec::new();
    };
    let total: f64 = per_pool.iter().map(|c| c.value).sum();
    let power = per_pool.into_iter().fold(
        Chain::new(
            "power of every chip at its utilisation",
            "P",
            "W",
            "6.6.1",
            sum(pools.iter().map(|(p, _)| var(&symbol("P", p)))),
            total,
        ),
        |c, pool| {
            let q = pool.quantity.clone();
            c.derived(&q, pool)
        },
    );
    let mut out = Vec::new();
    let x_out = output.value;
    let x_in = input.value;
    if x_out > 0.0 {
        out.push(
            Chain::new(
                "energy per output token",
                "J_out",
                "J/token",
                "6.6.1",
                quotient(var("P"), var(&output.symbol)),
                total / x_out,
            )
            .derived("power of every chip at its utilisation", power.clone())
            .derived(&output.quantity, output.clone()),
        );
        out.push(
            Chain::new(
                "energy per token (input and output)",
                "J_tok",
                "J/token",
                "6.6.1",
                quotient(var("P"), sum([var(&input.symbol), var(&output.symbol)])),
                total / (x_in + x_out),
            )
            .derived("power of every chip at its utilisation", power.clone())
            .derived(&input.quantity, input.clone())
            .derived(&output.quantity, output.clone()),
        );
    }
    let Some(hourly) = f.own_usd_per_hour else {
        return out;
    };
    let capex: f64 = pools
        .iter()
        .map(|(p, c)| s.capex(c).unwrap_or(0.0) * p.chips as f64)
        .sum();
    let idle: f64 = pools
        .iter()
        .filter_map(|(p, c)| {
            let tdp = c.tdp?;
            Some(idle_power(c, s.idle_share)?.min(tdp).0 * p.chips as f64)
        })
        .sum();
    let d = CostSettings::default();
    let capex_source = if s.capex_usd_per_chip.is_some() {
        Source::rule("--capex-usd-per-chip x chips")
    } else {
        Source::rule("the chips' catalogue purchase_price x chips")
    };
    let own = Chain::new(
        "owning the deployment, per hour in use",
        "C_own",
        "USD/h",
        "6.6.2",
        sum([
            quotient(var("K"), product([var("Y"), num(HOURS_PER_YEAR), var("d")])),
            product([
                quotient(
                    sum([
                        var("P"),
                        quotient(product([var("P_0"), diff(num(1.0), var("d"))]), var("d")),
                    ]),
                    num(1e3),
                ),
                var("PUE"),
                var("e"),
            ]),
        ]),
        hourly.0,
    )
    .input(
        "K",
        "purchase price of every chip",
        capex,
        "USD",
        capex_source,
    )
    .input(
        "Y",
        "years of amortisation",
        s.years,
        "years",
        setting("years", d.years),
    )
    .input(
        "d",
        "share of the hours in use (duty cycle)",
        s.duty_cycle,
        "share",
        setting("duty_cycle", d.duty_cycle),
    )
    .input(
        "P_0",
        "power of every chip idle (the hours out of use)",
        idle,
        "W",
        Source::rule("sum of n x P_idle over the pools"),
    )
    .input(
        "PUE",
        "facility power over IT power",
        s.pue,
        "ratio",
        setting("pue", d.pue),
    )
    .input(
        "e",
        "electricity price",
        s.electricity_usd_kwh,
        "USD/kWh",
        setting("electricity_usd_kwh", d.electricity_usd_kwh),
    )
    .derived("power of every chip at its utilisation", power);
    let money = |quantity: &str, symbol: &str, rate: &Chain, value: Option<f64>| {
        value.map(|v| {
            Chain::new(
                quantity,
                symbol,
                "USD/Mtok",
                "6.6.3",
                product([
                    quotient(var("C_own"), product([var(&rate.symbol), num(3600.0)])),
                    num(1e6),
                ]),
                v,
            )
            .derived("owning the deployment, per hour in use", own.clone())
            .derived(&rate.quantity, rate.clone())
        })
    };
    let o = money(
        "ownership output $/Mtok",
        "$own_out",
        output,
        f.own_usd_per_mtok_output.map(|v| v.0),
    );
    let i = money(
        "ownership input $/Mtok",
        "$own_in",
        input,
        f.own_usd_per_mtok_input.map(|v| v.0),
    );
    out.push(own);
    out.extend(o);
    out.extend(i);
    out
}
