//! The expert all-to-all's fixed time per phase (`audit/MODEL.md` 3.7): the closed form,
//! its two limits, where it applies and which frameworks carry one.

use super::common::*;
use disagg_engine::assumptions::ChipRates;
use disagg_engine::catalogue::Chip;
use disagg_engine::kernel::{expert_all_to_all, AllToAllWidths, ExpertTraffic};
use disagg_engine::serving::{AllToAllFloor, Framework};
use disagg_engine::units::{Bytes, Seconds};

const WIDTHS: AllToAllWidths = AllToAllWidths {
    dispatch: 1.0,
    combine: 2.0,
};
const FLOOR: AllToAllFloor = AllToAllFloor::TRTLLM_NVLINK;
const K: f64 = 8.0;
const H: f64 = 7168.0;
const EFF: f64 = 0.75;

/// The exchange of `tokens` tokens at this file's top-k, width and efficiency.
fn exchange(
    chip: &Chip,
    group: u32,
    tokens: f64,
    floor: Option<AllToAllFloor>,
) -> (Bytes, Seconds) {
    let traffic = ExpertTraffic {
        tokens,
        top_k: K,
        hidden: H,
        widths: WIDTHS,
    };
    expert_all_to_all(chip, group, traffic, EFF, floor)
}

#[test]
fn each_phase_is_its_fixed_time_against_its_transfer() {
    let chip = cat().chip("gb200").unwrap();
    let bw = chip.link_for_group(16).bandwidth.value() * EFF;
    for tokens in [1.0, 64.0, 256.0, 4096.0] {
        let picks = tokens * K * 15.0 / 16.0;
        let x_d = picks * H * 1.0 / bw;
        let x_c = picks * H * 2.0 / bw;
        let (f_d, f_c) = (FLOOR.dispatch.value(), FLOOR.combine.value());
        let by_hand = (f_d * f_d + x_d * x_d).sqrt() + (f_c * f_c + x_c * x_c).sqrt();
        let (moved, time) = exchange(chip, 16, tokens, Some(FLOOR));
        assert!((time.value() - by_hand).abs() < 1e-15, "{tokens} tokens");
        // The floor changes the time, never the bytes.
        let (plain, _) = exchange(chip, 16, tokens, None);
        assert_eq!(moved, plain);
    }
}

#[test]
fn few_tokens_pay_the_floor_and_many_pay_their_bytes() {
    let chip = cat().chip("gb200").unwrap();
    let floor = (FLOOR.dispatch + FLOOR.combine).value();
    // One token per chip: within a percent of the two fixed times.
    let (_, one) = exchange(chip, 16, 1.0, Some(FLOOR));
    assert!(
        one.value() >= floor && one.value() < floor * 1.01,
        "{}",
        one.us()
    );
    // A prefill's 16k tokens: within a percent of the transfer alone.
    let (bytes, many) = exchange(chip, 16, 16384.0, Some(FLOOR));
    let transfer = bytes / (chip.link_for_group(16).bandwidth * EFF);
    assert!(many.value() >= transfer.value());
    assert!(many.value() < transfer.value() * 1.01);
    // At every size the floored time is at least each bound, and never more than
    // their sum.
    for tokens in [2.0, 32.0, 128.0, 512.0, 2048.0] {
        let (bytes, t) = exchange(chip, 16, tokens, Some(FLOOR));
        let transfer = bytes / (chip.link_for_group(16).bandwidth * EFF);
        assert!(t.value() >= floor.max(transfer.value()) - 1e-15);
        assert!(t.value() <= floor + transfer.value() + 1e-15);
    }
}

#[test]
fn groups_across_domains_keep_their_link_latencies() {
    // EP32 over four H100 nodes: the two-level exchange as before, the floor unread.
    let chip = cat().chip("h100-sxm").unwrap();
    let with = exchange(chip, 32, 64.0, Some(FLOOR));
    let without = exchange(chip, 32, 64.0, None);
    assert_eq!(with, without);
    // Inside one H100 node (EP8) it applies.
    let (_, inside) = exchange(chip, 8, 1.0, Some(FLOOR));
    assert!(inside.value() >= (FLOOR.dispatch + FLOOR.combine).value());
}

#[test]
fn cards_on_pcie_pay_no_nvlink_kernel_floor() {
    // Eight RTX PRO 6000 cards share one PCIe server: TensorRT-LLM's NVLink all-to-all
    // does not run there, so the measured floor does not apply and the exchange is the
    // bytes over the bus plus its latency, as without a floor.
    let chip = cat().chip("rtx-pro-6000").unwrap();
    for group in [2, 4, 8] {
        assert_eq!(
            exchange(chip, group, 1.0, Some(FLOOR)),
            exchange(chip, group, 1.0, None)
        );
    }
    let (bytes, time) = exchange(chip, 8, 64.0, Some(FLOOR));
    let link = chip.link_for_group(8);
    let by_hand = bytes / (link.bandwidth * EFF) + link.latency * 2.0;
    assert!((time - by_hand).value().abs() < 1e-15);
}

#[test]
fn tensorrt_llm_carries_the_floor_and_the_others_do_not() {
    let gb200 = cat().chip("gb200").unwrap();
    assert_eq!(
        Framework::TrtLlm.defaults(gb200).all_to_all_floor,
        Some(FLOOR)
    );
    for f in [
        Framework::Sglang,
        Framework::Vllm,
        Framework::LlamaCpp,
        Framework::Mlx,
    ] {
        assert_eq!(f.defaults(gb200).all_to_all_floor, None, "{f}");
    }
    // The pool's rates take it from the framework; generic assumptions have none.
    let trt = disagg_engine::Assumptions {
        framework: disagg_engine::serving::FrameworkChoice::Given(Framework::TrtLlm),
        ..Default::default()
    };
    assert_eq!(
        ChipRates::for_chip(gb200, &trt).all_to_all_floor,
        Some(FLOOR)
    );
    let generic = disagg_engine::Assumptions {
        framework: disagg_engine::serving::FrameworkChoice::Generic,
        ..Default::default()
    };
    assert_eq!(ChipRates::for_chip(gb200, &generic).all_to_all_floor, None);
    // The source's figures: 18.9 us and 31.4 us.
    assert!((FLOOR.dispatch - Seconds::from_us(18.9)).value().abs() < 1e-15);
    assert!((FLOOR.combine - Seconds::from_us(31.4)).value().abs() < 1e-15);
}
