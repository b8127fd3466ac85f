//! `disagg predict --pipeline ID,ID[,ID...] [--layers N,N,...]`: a model's layers split
//! over unlike machines, one chip per stage (`audit/MODEL.md` 6.10). Argument handling
//! and output only: the setup comes from the same bundle path as every prediction, the
//! modelling is `disagg_engine::disagg::pipeline`.

use crate::axes::{print_costs, print_head, to_json};
use crate::bundle::{self, Flags};
use crate::PredictArgs;
use disagg_engine::disagg::pipeline::{self, PipelinePoint};
use disagg_engine::disagg::Axis;
use disagg_engine::limits::MAX_BATCH;
use disagg_engine::{Catalogue, Chip};

/// Evaluates the pipeline `ids` names with `predict`'s other flags.
pub(crate) fn run(args: &PredictArgs, ids: &[String]) -> Result<(), String> {
    let cat = Catalogue::builtin();
    let chips = ids
        .iter()
        .map(|id| cat.chip(id.trim()).map_err(|e| format!("--pipeline: {e}")))
        .collect::<Result<Vec<&Chip>, String>>()?;
    let batch = args.batch.ok_or("--pipeline needs --batch")?;
    if !(1..=MAX_BATCH).contains(&batch) {
        return Err(format!(
            "--batch {batch} must lie between 1 and {MAX_BATCH}"
        ));
    }
    let flags = Flags {
        model: args.model.as_deref(),
        lengths: &args.lengths,
        precision: &args.precision,
        spec: &args.pools.spec,
        link: &args.pools.link,
        assumptions: &args.assumptions,
    };
    let b = bundle::from_flags(
        &flags,
        bundle::chips(ids.iter().map(String::as_str))?,
        Axis::Aggregated,
    )?;
    let inputs = b.inputs(cat).map_err(|e| e.to_string())?;
    let setup = inputs.setup();
    let stages = pipeline::stages(setup.model, &chips, args.layers.as_deref())
        .map_err(|e| format!("--pipeline: {e}"))?;
    let p = pipeline::evaluate(&setup, &stages, batch).map_err(|e| e.to_string())?;
    if args.json {
        out!("{}", to_json(&p)?);
    } else {
        print(inputs.model_name(), &p);
    }
    Ok(())
}

fn print(model: &str, p: &PipelinePoint) {
    let d = &p.point;
    let f = &d.figures;
    print_head(model, d);
    out!(
        "  TPOT             {:.2} ms (p50 {:.2}, p90 {:.2}; decode step {:.2} ms: {} micro-batch{} over a traversal of {:.2} ms)",
        f.tpot.ms(),
        d.tpot.quantile(0.5).ms(),
        d.tpot.quantile(0.9).ms(),
        p.decode_step.ms(),
        p.micro_batches,
        if p.micro_batches == 1.0 { "" } else { "es" },
        p.decode_traversal.ms()
    );
    out!(
        "  prefill step     {:.1} ms ({:.2} chunks in flight)",
        p.prefill_step.ms(),
        p.prefill_overlap
    );
    out!("  tok/s/user       {:.1}", f.tok_s_user);
    out!(
        "  output tok/s     {:.0} ({:.1} per chip over {} chips)",
        f.output_tok_s,
        f.output_tok_s_per_chip,
        f.chips
    );
    out!(
        "  input tok/s      {:.0} ({:.1} per chip)",
        f.input_tok_s,
        f.input_tok_s_per_chip
    );
    print_costs(f);
    for (i, s) in p.stages.iter().enumerate() {
        let m = &s.memory;
        out!(
            "  stage {}          {}, layers {}-{} ({}): decode {:.2} ms, prefill {:.1} ms, memory {:.1} of {:.1} GB (weights {:.1}, KV {:.2}, workspace {:.1})",
            i + 1,
            s.chip_name,
            s.first_layer,
            s.first_layer + s.layers - 1,
            s.layers,
            s.decode.ms(),
            s.prefill.ms(),
            m.total.gb(),
            (m.fast_capacity + m.cold_capacity).gb(),
            m.weights.gb(),
            m.kv.gb(),
            m.workspace.gb()
        );
        if let Some(h) = &s.hop {
            out!(
                "    hop to {}       {:.1} Gb/s, {:.0} us: decode {:.3} ms, prefill {:.2} ms",
                i + 2,
                h.bandwidth.value() * 8.0 / 1e9,
                h.latency.value() * 1e6,
                h.decode.ms(),
                h.prefill.ms()
            );
        }
    }
}
