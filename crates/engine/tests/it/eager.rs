//! Prompt steps run without CUDA graphs (`audit/MODEL.md` 3.6): where a serving framework
//! launches a prompt step's kernels from Python, the device waits for the launches it
//! outruns. The step's closed form, which steps and frameworks pay it, and the constant
//! against the measurement it comes from.

use crate::common::*;
use disagg_engine::kernel::{step_cost, Placement, StepShape};
use disagg_engine::serving::{Framework, FrameworkChoice, EAGER_PYTHON_KERNEL};

/// DeepSeek-V3 in FP8 at TP8 on H200 with `a`.
fn deepseek_tp8(a: Assumptions) -> Placement<'static> {
    let h200 = cat().chip("h200").unwrap();
    placed("deepseek-v3", h200, tp(8), DType::Fp8, DType::Fp8, a)
}

fn close(a: Seconds, b: Seconds) -> bool {
    (a - b).value().abs() <= 1e-12 * a.value().abs().max(b.value().abs())
}

/// The constant is SGLang's measured eager forward of a one-token prompt step of
/// DeepSeek-V3, 82.6 ms (sgl-project/sglang pull request 12160), over the kernels the
/// engine counts in that step: it must move if the kernel count does.
#[test]
fn the_python_launch_cost_is_the_measured_eager_step_over_its_kernels() {
    let a = Assumptions::default();
    let step = step_cost(&deepseek_tp8(a), StepShape::prefill(1.0, 1.0, 1.0));
    let per_kernel = 82.6e-3 / step.kernels;
    assert!(
        (EAGER_PYTHON_KERNEL.value() - per_kernel).abs() <= 0.05e-6,
        "{} kernels: {per_kernel} s a kernel",
        step.kernels
    );
    for f in [Framework::Sglang, Framework::TrtLlm] {
        let on = Assumptions {
            framework: FrameworkChoice::Given(f),
            ..a
        }
        .on_chip(cat().chip("h200").unwrap());
        assert_eq!(on.eager_kernel_overhead, EAGER_PYTHON_KERNEL, "{f}");
    }
    // vLLM captures piecewise CUDA graphs for prompt steps by default; llama.cpp and MLX
    // launch natively; the generic assumptions take no framework's.
    for f in [Framework::Vllm, Framework::LlamaCpp, Framework::Mlx] {
        let on = Assumptions {
            framework: FrameworkChoice::Given(f),
            ..a
        }
        .on_chip(cat().chip("h200").unwrap());
        assert_eq!(on.eager_kernel_overhead, Seconds::ZERO, "{f}");
    }
    assert_eq!(a.eager_kernel_overhead, Seconds::ZERO);
}

#[test]
fn an_eager_prompt_step_lasts_at_least_its_python_launches() {
    let with = |eager_us: f64, overlap: bool| {
        Assumptions {
            host_overlap: Some(overlap),
            ..Assumptions::default()
        }
        .pin("eager_kernel_overhead", eager_us * 1e-6)
    };
    for overlap in [false, true] {
        for shape in [
            StepShape::prefill(1.0, 1.0, 0.0),
            StepShape::prefill(1.0, 1024.0, 0.0),
            StepShape::prefill(4.0, 8192.0, 0.0),
        ] {
            let graphed = step_cost(&deepseek_tp8(with(0.0, overlap)), shape);
            let eager = step_cost(&deepseek_tp8(with(68.6, overlap)), shape);
            assert_eq!(graphed.eager_launches, Seconds::ZERO);
            // The same operators, communication, kernels and host work.
            assert_eq!(graphed.busy, eager.busy);
            assert_eq!(graphed.exposed_comm, eager.exposed_comm);
            assert_eq!(graphed.kernels, eager.kernels);
            assert_eq!(graphed.host, eager.host);
            let floor = Seconds::from_us(68.6) * eager.kernels;
            assert!(close(eager.eager_launches, floor));
            // The device part is the longer of its own work and the launches.
            let device = graphed.without_host_overhead().max(floor);
            assert!(close(eager.without_host_overhead(), device));
            let step = if overlap {
                device.max(eager.host)
            } else {
                device + eager.host
            };
            assert!(close(eager.total, step));
            // The parts still add up to the step.
            assert!(close(
                eager.busy + eager.exposed_comm + eager.exposed_overhead(),
                eager.total
            ));
        }
    }
    // A one-token prompt is launch-bound; a batch of 8,192-token prompts hides its
    // launches under its own work.
    let tiny = step_cost(
        &deepseek_tp8(with(68.6, false)),
        StepShape::prefill(1.0, 1.0, 0.0),
    );
    assert!(close(tiny.without_host_overhead(), tiny.eager_launches));
    let big_shape = StepShape::prefill(4.0, 8192.0, 0.0);
    let big = step_cost(&deepseek_tp8(with(68.6, false)), big_shape);
    let big_graphed = step_cost(&deepseek_tp8(with(0.0, false)), big_shape);
    assert_eq!(big.total, big_graphed.total);
}

#[test]
fn generation_and_verify_steps_replay_graphs_whatever_the_launch_cost() {
    let eager = Assumptions::default().pin("eager_kernel_overhead", 1e-3);
    let graphed = Assumptions::default();
    let decode = StepShape::decode(32.0, 2000.0);
    let verify = StepShape {
        new_tokens: 4.0,
        logits_every_token: true,
        ..decode
    };
    for shape in [decode, verify] {
        let a = step_cost(&deepseek_tp8(eager), shape);
        let b = step_cost(&deepseek_tp8(graphed), shape);
        assert_eq!(a.eager_launches, Seconds::ZERO);
        assert_eq!(a.total, b.total);
    }
}
