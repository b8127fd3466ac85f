use disagg_engine::*;
fn show(
    model: &str,
    chip: &str,
    chips: u32,
    par: Option<Parallelism>,
    dt: DType,
    isl: u32,
    osl: u32,
    batch: Batch,
) {
    let c = Catalogue::builtin();
    let m = c.model(model).unwrap();
    let ch = c.chip(chip).unwrap();
    let s = Scenario {
        model: &m.ir,
        chip: ch,
        parallelism: par.unwrap_or(Parallelism::single()),
        weights: WeightFormat::new(dt),
        kv: DType::Fp8,
        workload: Workload { isl, osl },
        batch,
        assumptions: Default::default(),
    };
    let p = match par {
        Some(_) => predict(&s),
        None => planner::best(&s, chips),
    };
    match p {
        Ok(p) => println!("{model} {chip}x{chips} {} b={} fits={} tpot={:.2}ms step={:.2}ms ttft={:.1}ms user={:.1} out/chip={:.1} in/chip={:.1} bott={} mem={:.1}GB w={:.1} kv={:.1} maxb={} | C{:.2} W{:.2} KV{:.2} comm{:.2} ovh{:.2}",
            p.parallelism, p.batch, p.fits, p.tpot.ms(), p.decode_step.ms(), p.ttft.ms(), p.tok_s_user, p.output_tok_s_per_chip, p.input_tok_s_per_chip, p.bottleneck, p.memory.total.gb(), p.memory.weights.gb(), p.memory.kv.gb(), p.max_batch,
            p.decode_time.compute.ms(), p.decode_time.weight_memory.ms(), p.decode_time.kv_memory.ms(), p.decode_time.communication.ms(), p.decode_time.overhead.ms()),
        Err(e) => println!("{model} {chip}: ERR {e}"),
    }
}
fn main() {
    let tp8 = Some(Parallelism {
        tp: 8,
        pp: 1,
        dp: 1,
        ep: 8,
    });
    show(
        "deepseek-v3",
        "h200",
        8,
        tp8,
        DType::Fp8,
        1024,
        1024,
        Batch::Fixed(1),
    );
    show(
        "deepseek-v3",
        "h200",
        8,
        None,
        DType::Fp8,
        1024,
        1024,
        Batch::Fixed(1),
    );
    show(
        "llama-3.1-8b",
        "h100-sxm",
        1,
        None,
        DType::Bf16,
        128,
        128,
        Batch::Fixed(1),
    );
    show(
        "llama-3.1-8b",
        "h100-sxm",
        1,
        None,
        DType::Fp8,
        2048,
        128,
        Batch::MaxThroughput,
    );
    show(
        "llama-3.3-70b",
        "h100-sxm",
        2,
        None,
        DType::Fp8,
        1000,
        1000,
        Batch::MaxThroughput,
    );
    show(
        "deepseek-r1",
        "mi355x",
        4,
        Some(Parallelism {
            tp: 4,
            pp: 1,
            dp: 1,
            ep: 1,
        }),
        DType::Fp4,
        1024,
        1024,
        Batch::Fixed(4),
    );
    show(
        "deepseek-r1",
        "mi355x",
        4,
        Some(Parallelism {
            tp: 4,
            pp: 1,
            dp: 1,
            ep: 1,
        }),
        DType::Fp4,
        1024,
        1024,
        Batch::Fixed(64),
    );
    show(
        "deepseek-r1",
        "b200",
        8,
        Some(Parallelism {
            tp: 8,
            pp: 1,
            dp: 1,
            ep: 1,
        }),
        DType::Fp4,
        1024,
        1024,
        Batch::Fixed(256),
    );
    show(
        "llama-2-70b",
        "h100-sxm",
        8,
        None,
        DType::Fp8,
        294,
        290,
        Batch::MaxThroughput,
    );
    show(
        "llama-3-70b",
        "m3-max",
        1,
        None,
        DType::Int4,
        1,
        512,
        Batch::Fixed(1),
    );
    show(
        "llama-3.1-405b",
        "h100-sxm",
        2,
        None,
        DType::Fp8,
        1000,
        1000,
        Batch::Fixed(1),
    );
}
