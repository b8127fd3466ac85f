//! The settings a published run states beyond the main controls
//! (`crate::scenario::RunSettings`): a prompt count fixed across batches, a mean bits
//! per weight, and four of the serving engine's own settings. Collapsed, with the
//! count set away from the defaults in its summary so a shared link never hides them.

use super::controls::{CheckField, Choice, ChoiceSelect, NumberField};
use super::Page;
use crate::scenario::{Scenario, RUN_KEYS};
use disagg_engine::limits::{BITS_PER_WEIGHT, MAX_PROMPTS, MAX_RECV_INTERVAL};
use leptos::prelude::*;

/// The choices of the host-overlap setting: its link value and label.
const HOST_OVERLAP: [Choice; 3] = [
    (
        "auto",
        "the framework's (SGLang and MLX: beside, but not when speculating; others: in series)",
    ),
    (
        "on",
        "beside the device's work: a step takes the longer of the two",
    ),
    ("off", "in series: a step takes both"),
];

#[component]
pub fn RunSettingsPanel() -> impl IntoView {
    let page = expect_context::<Page>();
    let s = page.scenario;
    let text = move |f: fn(&Scenario) -> String| Signal::derive(move || s.with(f));
    let set_count =
        move || s.with(|s| RUN_KEYS.iter().filter(|k| s.run.value(k).is_some()).count());
    view! {
        <details class="run-settings" id="run-settings">
            <summary>
                "Run settings"
                {move || match set_count() {
                    0 => String::new(),
                    n => format!(" ({n} set)"),
                }}
            </summary>
            <p class="hint">
                "What a published run states beyond the controls above; a validation row or a bundle you open fills them in. Empty: the engine's default."
            </p>
            <NumberField
                key="np"
                label="Benchmark prompts in all"
                value=text(|s| s.run.prompts.map(|n| n.to_string()).unwrap_or_default())
                min="1".into()
                max=MAX_PROMPTS.to_string()
                step="1"
                placeholder="as per user"
                hint="a benchmark that sends this many prompts whatever the batch (vLLM's benchmark_serving --num-prompts): the first batch of them arrives together; not with prompts per user"
            />
            <NumberField
                key="bpw"
                label="Bits per weight"
                value=text(|s| s.run.bits_per_weight.map(|b| b.to_string()).unwrap_or_default())
                min=BITS_PER_WEIGHT.start().to_string()
                max=BITS_PER_WEIGHT.end().to_string()
                step="any"
                placeholder="the dtypes'"
                hint="every weight at this mean size, block scales included (a GGUF file's: Q4_K_M about 4.85, Q4_0 4.5)"
            />
            <ChoiceSelect
                key="hov"
                label="Host work of a step"
                choices=HOST_OVERLAP.to_vec()
                chosen=|s| match s.run.host_overlap {
                    None => "auto",
                    Some(true) => "on",
                    Some(false) => "off",
                }
            />
            <NumberField
                key="rcv"
                label="Scheduler polls every (decode steps)"
                value=text(|s| s.run.value("rcv").unwrap_or_default())
                min="1".into()
                max=MAX_RECV_INTERVAL.to_string()
                step="1"
                placeholder="1"
                hint="SGLang --scheduler-recv-interval: a new request waits for the next poll"
            />
            <CheckField
                key="tbo"
                id="in-tbo"
                label="Prefill as two overlapped micro-batches"
                checked=Signal::derive(move || s.with(|s| s.run.prefill_two_batch_overlap))
                hint="expert parallelism: one micro-batch's all-to-all under the other's compute (SGLang --enable-two-batch-overlap)"
            />
            <NumberField
                key="offload"
                label="Weights offloaded on purpose (share)"
                value=text(|s| s.run.value("offload").unwrap_or_default())
                min="0".into()
                max="0.999".into()
                step="any"
                placeholder="0"
                hint="kept in the chip's cold tier and prefetched layer by layer (SGLang --offload-mode cpu: n of every G layers, n / G)"
            />
        </details>
    }
}
