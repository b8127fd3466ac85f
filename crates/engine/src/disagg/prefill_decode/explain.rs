//! The prefill/decode deployment's figures opened into chains: the decode pool's time per
//! token, the three request rates and their minimum, and TTFT's open- and closed-loop forms.

use super::*;

/// The deployment's figures opened: the decode pool's time per token, the three
/// request rates and their minimum, and TTFT's open- and closed-loop forms.
pub(crate) fn explain(
    setup: &Setup,
    prefill: PoolConfig,
    decode: PoolConfig,
    batch: u32,
) -> Result<AxisChains> {
    let p = prefill_side(setup, prefill)
        .map_err(|_| layout_error(setup, setup.model, PoolRole::Prefill, prefill))?;
    let d = decode_side(setup, decode, batch)
        .map_err(|_| layout_error(setup, setup.model, PoolRole::Decode, decode))?;
    let t = kv_transfer(setup, prefill, decode, p.step);
    let w = setup.workload;
    let (osl, isl) = (w.osl as f64, w.isl as f64);
    let dp = &d.placed.placement;
    let pp = &p.placed.placement;
    let (tpot, colocated_draft) = if setup.speculative_decode {
        let draft = speculative::draft_side(setup, decode, None, batch)
            .map_err(|_| layout_error(setup, setup.model, PoolRole::Decode, decode))?;
        (
            speculative::per_token_chain(setup, &draft, dp, &d.cost, d.step),
            Some((PoolRole::Decode, draft.colocated_bytes)),
        )
    } else {
        let step = step_chain(dp, &d.cost, "t_d", "decode step");
        (
            Chain::new("TPOT", "TPOT", "s", "6.3", var("t_d"), d.step.value())
                .derived("decode step", step),
            None,
        )
    };
    let t_pre = step_chain(pp, &p.cost, "t_pre", "prefill step");
    let osl_input = |c: Chain| c.with_osl(osl);
    let flow = ClosedLoop::of(&p, &d, &t, batch, osl);
    let r_dec = osl_input(Chain::new(
        "requests per second the decode pool finishes in the closed loop: its batch over a request's cycle (decode, prefill wait and step, KV transfer)",
        "r_dec",
        "requests/s",
        "6.3",
        quotient(
            var("B"),
            sum([
                product([var("TPOT"), var("OSL")]),
                var("t_pre"),
                var("t_x"),
                var("W_q"),
            ]),
        ),
        flow.decode_rate(&p, &d, &t, batch, osl).value(),
    ))
    .input(
        "B",
        "concurrent requests",
        batch as f64,
        "requests",
        Source::workload("batch"),
    )
    .derived("time per output token", tpot.clone())
    .derived("prefill step", t_pre.clone())
    .input(
        "t_x",
        "KV transfer TTFT waits for",
        t.exposed.value(),
        "s",
        Source::rule("the exposed transfer (its chain under TTFT)"),
    )
    .input(
        "W_q",
        "wait for the prefill steps ahead",
        flow.wait.value(),
        "s",
        Source::rule("M/D/1 at u_a = (r / r_pre)(B - 1) / B, solved together with r (MODEL.md §6.3)"),
    );
    let r_pre = Chain::new(
        "requests per second the prefill pool finishes",
        "r_pre",
        "requests/s",
        "6.3",
        product([
            quotient(product([var("p"), var("PP")]), var("t_pre")),
            var("DP"),
        ]),
        p.request_rate.value(),
    )
    .input(
        "p",
        "prompts per prefill step",
        p.prompts_per_step,
        "prompts",
        Source::rule("chunk budget / uncached prompt tokens, at most what memory holds"),
    )
    .input(
        "PP",
        "pipeline stages of the prefill pool",
        prefill.parallelism.pp as f64,
        "stages",
        Source::deployment("layout"),
    )
    .derived("prefill step", t_pre.clone())
    .input(
        "DP",
        "replicas of the prefill pool",
        prefill.parallelism.dp as f64,
        "replicas",
        Source::deployment("layout"),
    );
    let link = inter_pool_link(
        setup,
        prefill.chip,
        prefill.chips(),
        decode.chip,
        decode.chips(),
    );
    let kv = Chain::new(
        "KV cache of one request",
        "V_kv",
        "B",
        "6.3",
        product([var("V"), var("b_kv")]),
        t.bytes.value(),
    )
    .input(
        "V",
        "KV values of an ISL-token prompt over every layer",
        setup.model.kv_values_for_context(isl),
        "values",
        Source::model("layers, KV heads x head size (or MLA latent), window"),
    )
    .input(
        "b_kv",
        "bytes per KV value",
        setup.kv.bytes(),
        "B",
        Source::workload("kv dtype"),
    );
    let r_link = Chain::new(
        "requests per second the inter-pool link carries",
        "r_link",
        "requests/s",
        "6.3",
        quotient(product([var("lanes"), var("bw"), var("eff")]), max([var("V_kv"), num(1.0)])),
        t.request_rate.value(),
    )
    .input("lanes", "links in parallel: the smaller pool's chips", prefill.chips().min(decode.chips()).max(1) as f64, "links", Source::deployment("chips per pool"))
    .input("bw", "per-chip link bandwidth between the pools", link.bandwidth.value(), "B/s", Source::rule("scale-up inside one domain of one chip kind, else the slower scale-out link, or the user's --link-gbps"))
    .input("eff", "share of link bandwidth reached", setup.assumptions.link_eff, "1", Source::assumption("link_eff"))
    .derived("KV cache of one request", kv);
    let rate = flow.rate;
    let r = Chain::new(
        "request rate the deployment sustains (its slowest part)",
        "r",
        "requests/s",
        "6.3",
        min([var("r_dec"), var("r_pre"), var("r_link")]),
        rate.value(),
    )
    .derived("decode pool", r_dec)
    .derived("prefill pool", r_pre.clone())
    .derived("inter-pool link", r_link);
    let layers = setup.model.num_layers.max(1) as f64;
    let link_time_input = |c: Chain| {
        c.input(
            "t_link",
            "time of one request's KV on the link",
            t.time.value(),
            "s",
            Source::rule("V_kv / (bw x eff x lanes per replica) + latency"),
        )
    };
    let transfer = if setup.kv_streaming {
        link_time_input(Chain::new(
            "KV transfer TTFT waits for (streamed layer by layer)",
            "t_x",
            "s",
            "6.3",
            max([
                quotient(var("t_link"), var("L")),
                diff(
                    var("t_link"),
                    product([var("t_pre"), quotient(diff(var("L"), num(1.0)), var("L"))]),
                ),
            ]),
            t.exposed.value(),
        ))
        .input(
            "L",
            "layers",
            layers,
            "layers",
            Source::model("num_hidden_layers"),
        )
        .derived("prefill step", t_pre.clone())
    } else {
        link_time_input(Chain::new(
            "KV transfer TTFT waits for",
            "t_x",
            "s",
            "6.3",
            var("t_link"),
            t.exposed.value(),
        ))
    };
    let utilisation = Chain::new(
        "prefill pool utilisation",
        "u",
        "1",
        "6.3",
        min([quotient(var("r"), var("r_pre")), num(1.0)]),
        (rate / p.request_rate).min(1.0),
    )
    .derived("request rate", r.clone())
    .derived("prefill pool's rate", r_pre);
    let wait = Chain::new(
        "wait for the prefill steps ahead: an M/D/1 queue at the share of time a request finds them busy",
        "W_q",
        "s",
        "6.3",
        quotient(
            product([var("u_a"), var("t_pre")]),
            product([num(2.0), diff(num(1.0), min([var("u_a"), num(0.999)]))]),
        ),
        flow.wait.value(),
    )
    .derived(
        "share of time a request finds the prefill steps busy",
        Chain::new(
            "share of time a request finds the prefill steps busy: the utilisation the other B - 1 requests leave (the arrival theorem of closed loops)",
            "u_a",
            "1",
            "6.3",
            quotient(
                product([var("u"), diff(var("B"), num(1.0))]),
                var("B"),
            ),
            flow.seen_utilisation,
        )
        .derived("prefill pool utilisation", utilisation)
        .input("B", "concurrent requests", batch as f64, "requests", Source::workload("batch")),
    )
    .derived("prefill step", t_pre.clone());
    let wave = w.first_wave(batch);
    let steady_ttft = flow.ttft(&p, &d, &t, batch, osl, 0.0);
    let steady = osl_input(Chain::new(
        if wave > 0.0 {
            "TTFT of the steady loop: the wait for the prefill steps ahead, one prefill step, the KV transfer, the first decode step; or, where the prefill pool or the link sets the rate, Little's law's B / r - (OSL - 1) TPOT"
        } else {
            "TTFT inside the engine: the wait for the prefill steps ahead, one prefill step, the KV transfer, the first decode step; or, where the prefill pool or the link sets the rate, Little's law's B / r - (OSL - 1) TPOT"
        },
        if wave > 0.0 { "TTFT_ss" } else { "TTFT_engine" },
        "s",
        "6.3",
        max([
            sum([var("W_q"), var("t_pre"), var("t_x"), var("TPOT")]),
            diff(
                quotient(var("B"), var("r")),
                product([var("TPOT"), diff(var("OSL"), num(1.0))]),
            ),
        ]),
        steady_ttft.mean().value(),
    ))
    .derived("wait for the prefill steps ahead", wait)
    .derived("prefill step", t_pre)
    .derived("KV transfer", transfer)
    .derived("time per output token", tpot.clone())
    .input("B", "concurrent requests", batch as f64, "requests", Source::workload("batch"))
    .derived("request rate", r.clone());
    let first_token = if wave > 0.0 {
        let away =
            steady_ttft.parts.prefill + steady_ttft.parts.transfer + steady_ttft.parts.first_step;
        Chain::new(
            "TTFT inside the engine, over the benchmark's prompts (its first wave and the steady loop)",
            "TTFT_engine",
            "s",
            "6.1.2",
            sum([
                var("TTFT_ss"),
                product([var("w"), diff(var("W_1"), var("W_ss"))]),
            ]),
            flow.ttft(&p, &d, &t, batch, osl, wave).mean().value(),
        )
        .derived("TTFT of the steady loop", steady)
        .input(
            "W_1",
            "mean wait of a first-wave prompt for the prompts prefilled before it on its prefill replica: t_step / p * mean over k = 1..s of max(k, p), less t_step, with s = B / prefill replicas and t_step the prefill step over its stages",
            p.wave_wait(batch).value(),
            "s",
            Source::rule("a cohort of s prompts, p to a prefill step"),
        )
        .input(
            "w",
            "share of the requests in the benchmark's first wave",
            wave,
            "1",
            Source::workload("prompts, or prompts per user times the users"),
        )
        .input(
            "W_ss",
            "the steady loop's wait in front of the prefill side: W_q and any queue Little's law leaves",
            (steady_ttft.mean() - away).value(),
            "s",
            Source::rule("TTFT_ss - t_pre - t_x - TPOT"),
        )
    } else {
        steady
    };
    let rate_tokens = |quantity: &str,
                       symbol: &str,
                       length: &str,
                       field: &str,
                       n: f64,
                       value: TokensPerSecond| {
        Chain::new(
            quantity,
            symbol,
            "tok/s",
            "6.3",
            product([var("r"), var(length)]),
            value.value(),
        )
        .derived("request rate", r.clone())
        .input(
            length,
            "tokens per request",
            n,
            "tokens",
            Source::workload(field),
        )
    };
    let operators = vec![
        (
            PoolRole::Prefill,
            vec![operator_table(pp, &p.cost, "prefill step")],
        ),
        (
            PoolRole::Decode,
            vec![operator_table(
                dp,
                &d.cost,
                if setup.speculative_decode {
                    "verify step"
                } else {
                    "decode step"
                },
            )],
        ),
    ];
    Ok(AxisChains {
        ttft: first_token,
        output: rate_tokens("output tok/s", "X_out", "OSL", "osl", osl, rate.tokens(osl)),
        input: rate_tokens("input tok/s", "X_in", "ISL", "isl", isl, rate.tokens(isl)),
        tpot,
        operators,
        colocated_draft,
    })
}
