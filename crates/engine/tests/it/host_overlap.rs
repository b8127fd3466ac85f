//! A step's host work in series with its device work, or beside it (`audit/MODEL.md`
//! 3.5): the step's closed form either way, which frameworks overlap and when, and a
//! speculation cycle that overlaps.

use crate::common::*;
use disagg_engine::disagg::Draft;
use disagg_engine::kernel::{step_cost, Placement, StepShape};
use disagg_engine::serving::{Framework, FrameworkChoice, StepWork};

/// Llama 3.1 8B in BF16 on one H100 with `a`.
fn llama_on_h100(a: Assumptions) -> Placement<'static> {
    let h100 = cat().chip("h100-sxm").unwrap();
    placed(
        "llama-3.1-8b",
        h100,
        Parallelism::single(),
        DType::Bf16,
        DType::Bf16,
        a,
    )
}

fn close(a: Seconds, b: Seconds) -> bool {
    (a - b).value().abs() <= 1e-12 * a.value().abs().max(b.value().abs())
}

#[test]
fn an_overlapped_step_takes_the_longer_of_its_device_and_host_parts() {
    let shape = StepShape::decode(64.0, 1000.0);
    let with = |overlap: bool, seq_us: f64| {
        let a = Assumptions {
            host_overlap: Some(overlap),
            ..Assumptions::default()
        }
        .pin("seq_overhead", seq_us * 1e-6);
        step_cost(&llama_on_h100(a), shape)
    };
    for seq_us in [20.0, 1000.0] {
        let (serial, overlapped) = (with(false, seq_us), with(true, seq_us));
        // The same device work and the same host work either way.
        assert_eq!(serial.busy, overlapped.busy);
        assert_eq!(serial.overhead, overlapped.overhead);
        let host = Seconds::from_us(200.0 + 64.0 * seq_us);
        assert!(close(serial.host, host), "{:?}", serial.host);
        let launches = serial.overhead - serial.host;
        let device = serial.busy + serial.exposed_comm + launches;
        assert!(close(serial.without_host_overhead(), device));
        // In series: the sum; beside it: the longer of the two.
        assert!(close(serial.total, device + host));
        assert!(close(overlapped.total, device.max(host)));
        // Either way the parts add up to the step, the overheads at what the step pays.
        for c in [&serial, &overlapped] {
            assert!(close(
                c.busy + c.exposed_comm + c.exposed_overhead(),
                c.total
            ));
        }
        assert!(close(serial.exposed_overhead(), serial.overhead));
    }
    // 200 us + 64 x 20 us hides under a decode step of several milliseconds: the step
    // is its device part, and only the launches remain of the overheads.
    let hidden = with(true, 20.0);
    assert!(close(hidden.total, hidden.without_host_overhead()));
    assert!(close(
        hidden.exposed_overhead(),
        hidden.overhead - hidden.host
    ));
    // 64 ms of host work outlasts the device: the step is the host's, and its time
    // split says so.
    let host_bound = with(true, 1000.0);
    assert!(close(host_bound.total, Seconds::from_us(200.0 + 64_000.0)));
    assert_eq!(
        TimeBreakdown::of(&host_bound).bottleneck(),
        Bottleneck::Overhead
    );
}

#[test]
fn each_framework_overlaps_as_its_engine_loop_does_unless_stated() {
    let h100 = cat().chip("h100-sxm").unwrap();
    let m4 = cat().chip("m4-max").unwrap();
    let on = |f: FrameworkChoice, chip: &Chip| {
        Assumptions {
            framework: f,
            ..Assumptions::default()
        }
        .on_chip(chip)
        .overlaps_host()
    };
    let given = FrameworkChoice::Given;
    assert!(on(given(Framework::Sglang), h100));
    assert!(on(given(Framework::Mlx), m4));
    for f in [Framework::TrtLlm, Framework::Vllm, Framework::LlamaCpp] {
        assert!(!on(given(f), h100), "{f:?}");
    }
    // No framework: the global assumptions, in series.
    assert!(!on(FrameworkChoice::Generic, h100));
    assert_eq!(
        Assumptions {
            framework: FrameworkChoice::Generic,
            ..Assumptions::default()
        }
        .on_chip(h100),
        Assumptions {
            framework: FrameworkChoice::Generic,
            ..Assumptions::default()
        }
    );
    // SGLang turns its overlap scheduler off while it speculates.
    let sglang = Assumptions {
        framework: given(Framework::Sglang),
        ..Assumptions::default()
    };
    assert!(!sglang
        .for_steps(h100, StepWork::Speculating)
        .on_chip(h100)
        .overlaps_host());
    assert!(sglang
        .for_steps(h100, StepWork::Generating)
        .on_chip(h100)
        .overlaps_host());
    // What the user states wins, whatever the steps.
    let stated = |v: bool| Assumptions {
        host_overlap: Some(v),
        ..sglang
    };
    assert!(!stated(false).on_chip(h100).overlaps_host());
    assert!(stated(true)
        .for_steps(h100, StepWork::Speculating)
        .on_chip(h100)
        .overlaps_host());
    // A row states it where its source names the runtime or the setting.
    let row = published_point;
    for id in ["SGL-05", "MLP41-01", "MLP51-01", "MLB09"] {
        let p = row(id);
        assert_eq!(p.host_overlap, Some(false), "{id}");
        assert_eq!(
            p.assumptions(&Assumptions::default()).host_overlap,
            Some(false)
        );
    }
    assert_eq!(row("TRTB17").host_overlap, None);
}

/// A speculation cycle whose engine overlaps its host work takes the longer of its
/// draft steps plus the verify step's device part and the cycle's one host step: the
/// cycle's chain, as `predict --explain` opens it, in series and beside the device.
#[test]
fn an_overlapped_speculation_cycle_hides_its_host_work_under_drafting_and_verification() {
    use disagg_engine::disagg::explain::explain;
    let target = cat().model("llama-3.3-70b").unwrap();
    let draft = cat().model("llama-3.2-1b").unwrap();
    let h100 = cat().chip("h100-sxm").unwrap();
    let cycle = |overlap: bool, step_s: f64| {
        let mut s = Setup::new(
            &target.ir,
            Workload::new(2048, 256),
            WeightFormat::new(DType::Fp8),
        );
        s.speculation.draft = Draft::Model {
            id: "llama-3.2-1b",
            ir: &draft.ir,
        };
        s.speculation.draft_tokens = 3;
        s.assumptions = Assumptions {
            framework: FrameworkChoice::Given(Framework::Sglang),
            host_overlap: Some(overlap),
            ..Assumptions::default()
        }
        .pin("step_overhead", step_s);
        let d = Deployment::Speculative {
            target: PoolConfig {
                chip: h100,
                parallelism: Parallelism {
                    tp: 4,
                    ..Parallelism::single()
                },
            },
            draft: None,
            batch: 8,
        };
        let e = explain(&s, &d).unwrap();
        let c = e
            .chains
            .iter()
            .flat_map(|c| c.walk())
            .find(|c| c.symbol == "t_it")
            .unwrap()
            .clone();
        let input = |name: &str| c.inputs.iter().find(|i| i.name == name).map(|i| i.value);
        (
            c.value,
            input("K").unwrap(),
            input("t_draft").unwrap(),
            input("t_dev"),
            input("t_host"),
            input("t_verify"),
        )
    };
    // In series: K drafts and the whole verify step, its host work included.
    let (t, k, draft_step, dev, host, verify) = cycle(false, 200e-6);
    assert!((dev, host) == (None, None));
    assert!((t - (k * draft_step + verify.unwrap())).abs() < 1e-12 * t);
    // Beside the device: 200 us of host work hides under the drafts and verification.
    let (t, k, draft_step, dev, host, verify) = cycle(true, 200e-6);
    let (dev, host) = (dev.unwrap(), host.unwrap());
    assert!(verify.is_none() && host < k * draft_step + dev);
    assert!((t - (k * draft_step + dev)).abs() < 1e-12 * t);
    // Half a second of host work outlasts them: the cycle is the host's step.
    let (t, _, _, _, host, _) = cycle(true, 0.5);
    assert!((t - host.unwrap()).abs() < 1e-12 * t && t > 0.5);
}

#[test]
fn a_pipelined_tensorrt_llm_decode_step_pays_the_host_work_of_every_micro_batch() {
    let h100 = cat().chip("h100-sxm").unwrap();
    let resolved = |f: Framework| {
        Assumptions {
            framework: FrameworkChoice::Given(f),
            host_overlap: Some(false),
            ..Assumptions::default()
        }
        .on_chip(h100)
    };
    let cost = |f: Framework, pp: u32, shape: StepShape| {
        let par = Parallelism {
            pp,
            ..Parallelism::single()
        };
        let placement = placed(
            "llama-3.1-8b",
            h100,
            par,
            DType::Bf16,
            DType::Bf16,
            resolved(f),
        );
        step_cost(&placement, shape)
    };
    // One micro-batch of 64 sequences crossing the stages.
    let decode = StepShape::decode(64.0, 1000.0);
    for pp in [1, 2, 4, 8] {
        // TensorRT-LLM's pipeline loop runs an iteration per micro-batch on every
        // rank: `pp` steps' fixed work and every micro-batch's sequences.
        let trt = cost(Framework::TrtLlm, pp, decode);
        let once = resolved(Framework::TrtLlm).host_overhead(64.0);
        assert!(close(trt.host, once * pp as f64), "pp {pp}: {:?}", trt.host);
        // The step is its device part plus that host work, in series.
        assert!(close(trt.total, trt.without_host_overhead() + trt.host));
        // A framework whose pipeline loop was not read pays one step's.
        let vllm = cost(Framework::Vllm, pp, decode);
        let once = resolved(Framework::Vllm).host_overhead(64.0);
        assert!(close(vllm.host, once), "pp {pp}: {:?}", vllm.host);
    }
    // A prompt step pays its own host work once (its chunks in flight are the
    // round's, MODEL.md 6.1).
    let prompt = StepShape::prefill(4.0, 1024.0, 0.0);
    let trt = cost(Framework::TrtLlm, 4, prompt);
    assert!(close(
        trt.host,
        resolved(Framework::TrtLlm).host_overhead(4.0)
    ));
}
