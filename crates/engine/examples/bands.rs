//! Prints the numbers behind the disaggregation sanity bands in audit/AUDIT.md.
//! `cargo run --release -p disagg-engine --example bands`

use disagg_engine::disagg::{Axis, Setup};
use disagg_engine::frontier::{value_at, Objective};
use disagg_engine::sweep::{sweep, Class, SweepRequest, SweepResult};
use disagg_engine::units::BytesPerSecond;
use disagg_engine::{Catalogue, WeightFormat, Workload};

fn setup<'a>(model: &'a str, isl: u32, osl: u32, link: Option<f64>) -> Setup<'a> {
    let cat = Catalogue::builtin();
    let preset = cat.model(model).unwrap();
    Setup {
        inter_pool_link: link.map(BytesPerSecond::from_gbit_per_s),
        ..Setup::new(
            &preset.ir,
            Workload::new(isl, osl),
            WeightFormat::new(preset.default_weight_dtype),
        )
    }
}

fn class_value(r: &SweepResult, classes: &[Class], target: f64) -> Option<f64> {
    let pts: Vec<(f64, f64)> = {
        let mine: Vec<_> = r
            .cloud
            .iter()
            .filter(|p| classes.contains(&p.class))
            .cloned()
            .collect();
        let xy: Vec<(f64, f64)> = mine
            .iter()
            .map(|p| {
                (
                    p.figures.tok_s_user.value(),
                    Objective::ThroughputPerChip
                        .score(&p.figures)
                        .unwrap_or(f64::NAN),
                )
            })
            .collect();
        disagg_engine::frontier::pareto(&xy)
            .into_iter()
            .map(|i| xy[i])
            .collect()
    };
    value_at(&pts, target)
}

fn main() {
    let cat = Catalogue::builtin();
    for (model, chip, isl, osl) in [
        ("llama-3.3-70b", "h100-sxm", 8192, 256),
        ("llama-3.3-70b", "h100-sxm", 128, 2048),
        ("llama-3.1-8b", "h100-sxm", 8192, 256),
        ("llama-3.1-8b", "h100-sxm", 128, 2048),
        ("qwen3-30b-a3b", "mi300x", 8192, 256),
        ("qwen3-30b-a3b", "mi300x", 128, 2048),
    ] {
        let s = setup(model, isl, osl, None);
        let r = sweep(&SweepRequest {
            setup: s,
            axis: Axis::PrefillDecode,
            chips: vec![cat.chip(chip).unwrap()],
            max_chips: 32,
            target_tok_s_user: None,
            slo: Default::default(),
            batch: None,
        })
        .unwrap();
        print!("pd {model} {chip} {isl}/{osl}:");
        for t in [20.0, 40.0, 60.0, 80.0, 120.0] {
            let agg = class_value(&r, &[Class::Baseline], t);
            let pd = class_value(&r, &[Class::Homogeneous], t);
            print!(
                " @{t}: agg {:?} pd {:?} ratio {:.2};",
                agg.map(|v| v as i64),
                pd.map(|v| v as i64),
                pd.unwrap_or(0.0) / agg.unwrap_or(f64::NAN)
            );
        }
        let max = |c: Class| {
            r.cloud
                .iter()
                .filter(|p| p.class == c)
                .map(|p| p.figures.output_tok_s_per_chip.value())
                .fold(0.0, f64::max)
        };
        println!(
            " max ratio {:.2}",
            max(Class::Homogeneous) / max(Class::Baseline)
        );
    }
    for gbps in [25.0, 100.0, 200.0, 400.0, 800.0, 1600.0, 3200.0, 7200.0] {
        let s = setup("deepseek-v3", 2048, 1024, Some(gbps));
        let r = sweep(&SweepRequest {
            setup: s,
            axis: Axis::AttentionExpert,
            chips: vec![cat.chip("h200").unwrap()],
            max_chips: 64,
            target_tok_s_user: None,
            slo: Default::default(),
            batch: None,
        })
        .unwrap();
        print!("af link {gbps} Gb/s:");
        for t in [10.0, 20.0, 30.0, 50.0] {
            let agg = class_value(&r, &[Class::Baseline], t);
            let af = class_value(&r, &[Class::Homogeneous], t);
            print!(
                " @{t}: ratio {:.2};",
                af.unwrap_or(0.0) / agg.unwrap_or(f64::NAN)
            );
        }
        println!();
    }
}
