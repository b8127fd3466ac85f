//! The scenario's inputs: model, workload, axis and its settings, budget, chart axis.

use super::Page;
use crate::format::slo_at_label;
use crate::scenario::{ColourBy, Scenario, YAxis, MAX_PREFIX_HIT_PCT};
use disagg_engine::assumptions::ExpertExchange;
use disagg_engine::catalogue::USER_MODEL_ID;
use disagg_engine::disagg::Axis;
use disagg_engine::limits::{
    MAX_BATCH, MAX_DRAFT_TOKENS, MAX_LENGTH, MAX_OUTPUT_CV, MAX_PROMPTS, MAX_REDUNDANT_EXPERTS,
    MAX_SWEEP_CHIPS, PROMPTS_PER_USER, REQUEST_RATE,
};
use disagg_engine::serving::{FrameworkChoice, Scheduling};
use disagg_engine::sweep::SloAt;
use disagg_engine::{Catalogue, DType};
use leptos::prelude::*;

/// A dtype select bound to one dtype link key (`Scenario::dtype_at`): every dtype, and
/// first an `unset` choice (the component follows the weights) where the key has one.
#[component]
fn DtypeSelect(
    key: &'static str,
    label: &'static str,
    #[prop(optional)] unset: Option<&'static str>,
) -> impl IntoView {
    let page = expect_context::<Page>();
    let s = page.scenario;
    let id = format!("in-{key}");
    let unset = unset.map(|text| {
        view! {
            <option value="default" prop:selected=move || s.with(|s| s.dtype_at(key).is_none())>
                {text}
            </option>
        }
    });
    let options = DType::ALL
        .iter()
        .filter(|d| key != "kv" || d.holds_kv())
        .map(move |d| {
            view! {
                <option value=d.name() prop:selected=move || s.with(|s| s.dtype_at(key) == Some(*d))>
                    {d.name()}
                </option>
            }
        })
        .collect_view();
    view! {
        <div class="field">
            <label for=id.clone()>{label}</label>
            <select id=id on:change=move |ev| page.set_field(key, &event_target_value(&ev))>
                {unset}
                {options}
            </select>
        </div>
    }
}

/// A number input bound to one query key: committed on change (Enter or leaving the
/// field), refused values explained under it.
#[component]
pub(super) fn NumberField(
    key: &'static str,
    label: &'static str,
    value: Signal<String>,
    min: String,
    max: String,
    step: &'static str,
    #[prop(optional)] placeholder: &'static str,
    #[prop(optional)] hint: &'static str,
) -> impl IntoView {
    let page = expect_context::<Page>();
    let id = format!("in-{key}");
    let error = page.field_error(key);
    let error_id = format!("in-{key}-error");
    view! {
        <div class="field">
            <label for=id.clone()>{label}</label>
            <input
                type="number"
                id=id
                name=key
                min=min
                max=max
                step=step
                placeholder=placeholder
                aria-describedby=error_id.clone()
                aria-invalid=move || error().is_some().to_string()
                prop:value=value
                on:change=move |ev| page.set_field(key, &event_target_value(&ev))
            />
            <span class="hint">{hint}</span>
            <p class="field-error" id=error_id role="alert">
                {error}
            </p>
        </div>
    }
}

/// One radio button: the value it sets, its label, and whether the scenario has it.
type RadioOption = (&'static str, &'static str, fn(&Scenario) -> bool);

/// Inline radio buttons for one query key; ids are `{key}-{value}`.
fn radio_group<const N: usize>(
    page: Page,
    key: &'static str,
    options: [RadioOption; N],
) -> impl IntoView {
    options
        .into_iter()
        .map(|(value, label, chosen)| {
            let id = format!("{key}-{value}");
            view! {
                <div class="radio inline">
                    <input
                        type="radio"
                        name=key
                        id=id.clone()
                        prop:checked=move || page.scenario.with(chosen)
                        on:change=move |_| page.set_field(key, value)
                    />
                    <label for=id>{label}</label>
                </div>
            }
        })
        .collect_view()
}

/// One choice of a list: the link value it writes, and the words that show it.
pub(super) type Choice = (&'static str, &'static str);

/// A list of one setting's choices bound to one query key (`in-{key}`, its hint and
/// its refusal under it): the scenario's own choice is selected, and picking one writes
/// its link value.
#[component]
pub(super) fn ChoiceSelect(
    key: &'static str,
    label: &'static str,
    choices: Vec<Choice>,
    chosen: fn(&Scenario) -> &'static str,
    #[prop(optional)] hint: &'static str,
) -> impl IntoView {
    let page = expect_context::<Page>();
    let s = page.scenario;
    let id = format!("in-{key}");
    let hint_id = format!("in-{key}-hint");
    let error_id = format!("in-{key}-error");
    let error = page.field_error(key);
    let options = choices
        .into_iter()
        .map(|(value, words)| {
            view! {
                <option value=value prop:selected=move || s.with(|s| chosen(s) == value)>
                    {words}
                </option>
            }
        })
        .collect_view();
    view! {
        <div class="field">
            <label for=id.clone()>{label}</label>
            <select
                id=id
                aria-describedby=format!("{hint_id} {error_id}")
                aria-invalid=move || error().is_some().to_string()
                on:change=move |ev| page.set_field(key, &event_target_value(&ev))
            >
                {options}
            </select>
            <span class="hint" id=hint_id>
                {hint}
            </span>
            <p class="field-error" id=error_id role="alert">
                {error}
            </p>
        </div>
    }
}

/// An on/off setting bound to one query key (`1` or `0`).
#[component]
pub(super) fn CheckField(
    key: &'static str,
    id: &'static str,
    label: &'static str,
    checked: Signal<bool>,
    #[prop(optional)] hint: &'static str,
) -> impl IntoView {
    let page = expect_context::<Page>();
    view! {
        <div class="check">
            <input
                type="checkbox"
                id=id
                prop:checked=checked
                on:change=move |ev| {
                    page.set_field(key, if event_target_checked(&ev) { "1" } else { "0" })
                }
            />
            <label for=id>
                {label}
                <span class="hint">{hint}</span>
            </label>
        </div>
    }
}

#[component]
pub fn Controls() -> impl IntoView {
    let page = expect_context::<Page>();
    let cat = Catalogue::builtin();
    let s = page.scenario;
    let text = move |f: fn(&Scenario) -> String| Signal::derive(move || s.with(f));
    let flag = move |f: fn(&Scenario) -> bool| Signal::derive(move || s.with(f));
    // One option per catalogue model, selected when `chosen` names it.
    let model_options = move |chosen: fn(&Scenario) -> Option<&str>| {
        cat.models
            .iter()
            .map(|m| {
                let id = m.id.clone();
                let this = m.id.clone();
                view! {
                    <option
                        value=id
                        prop:selected=move || s.with(|s| chosen(s) == Some(this.as_str()))
                    >
                        {m.name.clone()}
                    </option>
                }
            })
            .collect_view()
    };
    let models = model_options(|s| Some(s.model.as_str()));
    // Settings that only a mixture-of-experts model takes are disabled or hidden
    // for a dense one.
    let moe = Memo::new(move |_| s.with(|s| crate::explore::model_is_moe(s, cat)));
    let axes = [
        (
            Axis::Aggregated,
            "Aggregated",
            "prefill and decode share every chip (the baseline)",
        ),
        (
            Axis::PrefillDecode,
            "Prefill / decode",
            "prompts on one pool, generation on another; KV shipped once",
        ),
        (
            Axis::AttentionExpert,
            "Attention / expert",
            "MoE only: attention and experts on separate pools, per-layer exchange",
        ),
        (
            Axis::Speculative,
            "Speculative",
            "a draft proposes tokens, the target verifies them",
        ),
    ]
    .into_iter()
    .map(|(axis, name, what)| {
        let id = format!("axis-{}", axis.id());
        view! {
            <div class="radio">
                <input
                    type="radio"
                    name="axis"
                    id=id.clone()
                    value=axis.id()
                    prop:checked=move || s.with(|s| s.axis == axis)
                    prop:disabled=move || axis == Axis::AttentionExpert && !moe.get()
                    on:change=move |_| page.set_field("axis", axis.id())
                />
                <label for=id>
                    <strong>{name}</strong>
                    <span class="hint">{what}</span>
                </label>
            </div>
        }
    })
    .collect_view();
    let drafts = model_options(|s| s.draft_model.as_deref());
    let y_axes = radio_group(
        page,
        "y",
        [
            ("chip", "tok/s per chip", |s: &Scenario| {
                s.y_axis == YAxis::TokSPerChip
            }),
            ("usd", "tok/s per $/hour", |s: &Scenario| {
                s.y_axis == YAxis::TokSPerUsdHour
            }),
        ],
    );
    let colours = radio_group(
        page,
        "colour",
        [
            ("price", "colour by $/Mtok", |s: &Scenario| {
                s.colour_by == ColourBy::Price
            }),
            ("chip", "colour by chip", |s: &Scenario| {
                s.colour_by == ColourBy::Chip
            }),
        ],
    );
    let prefs = page.preferences;

    view! {
        <h2 class="visually-hidden">"Scenario"</h2>
        <form class="scenario" on:submit=|ev| ev.prevent_default()>
            <fieldset>
                <legend>"Model and workload"</legend>
                <div class="field">
                    <label for="in-model">"Model"</label>
                    <select id="in-model" on:change=move |ev| page.set_field("model", &event_target_value(&ev))>
                        {models}
                        <option
                            value=USER_MODEL_ID
                            prop:selected=move || s.with(|s| s.model == USER_MODEL_ID)
                        >
                            "Your own config.json…"
                        </option>
                    </select>
                </div>
                <super::OwnModel/>
                <super::ModelSummary/>
                <div class="row">
                    <NumberField
                        key="isl"
                        label="Prompt tokens (ISL)"
                        value=text(|s| s.isl.to_string())
                        min="1".into()
                        max=MAX_LENGTH.to_string()
                        step="1"
                    />
                    <NumberField
                        key="osl"
                        label="Output tokens (OSL)"
                        value=text(|s| s.osl.to_string())
                        min="1".into()
                        max=MAX_LENGTH.to_string()
                        step="1"
                    />
                </div>
                <NumberField
                    key="hit"
                    label="Prefix-cache hits (% of prompt)"
                    value=text(|s| s.prefix_hit_pct.to_string())
                    min="0".into()
                    max=MAX_PREFIX_HIT_PCT.to_string()
                    step="any"
                    hint="cached prompt tokens are attended, not recomputed"
                />
                <NumberField
                    key="ocv"
                    label="Output-length spread (std / mean)"
                    value=text(|s| s.output_cv.to_string())
                    min="0".into()
                    max=MAX_OUTPUT_CV.to_string()
                    step="any"
                    hint="0: every reply is OSL tokens; long replies stay in the batch longer, so running sequences average OSL (1 + spread²) output tokens"
                />
                <div class="row">
                    <DtypeSelect key="wd" label="Weight dtype" unset="model default" />
                    <DtypeSelect key="kv" label="KV-cache dtype" />
                </div>
                // Mixed precision: the experts, the attention output projections and the
                // LM head in their own formats (MXFP4 experts beside BF16 attention, an
                // NVFP4 output projection beside the rest of attention in BF16, a BF16
                // head beside FP4 layers).
                <div class="row">
                    <Show when=move || moe.get()>
                        <DtypeSelect key="ed" label="Expert dtype" unset="as weights" />
                    </Show>
                    <DtypeSelect key="ao" label="Attention output dtype" unset="as weights" />
                    <DtypeSelect key="hd" label="LM head dtype" unset="as weights" />
                </div>
                <ChoiceSelect
                    key="fw"
                    label="Serving framework"
                    choices=FrameworkChoice::all().map(|f| (f.id(), framework_label(f))).collect()
                    chosen=|s| s.framework.id()
                    hint="its default batch limit and prefill token budget, where no assumption states them"
                />
                <ChoiceSelect
                    key="sched"
                    label="Batch scheduling"
                    choices=Scheduling::ALL.map(|m| (m.id(), scheduling_label(m))).to_vec()
                    chosen=|s| s.scheduling.id()
                    hint="static: every prompt prefilled first, then the batch decodes to its end (llama-batched-bench, HF generate); needs an output-length spread of 0"
                />
                <Show when=move || moe.get()>
                    <CheckField
                        key="adp"
                        id="in-aligned-prefill"
                        label="Expert-group replicas prefill together"
                        checked=flag(|s| s.aligned_prefill)
                        hint="MoE with attention data parallelism: TensorRT-LLM's ADP balancing; off, each replica prefills on its own schedule and the group waits for it"
                    />
                    <ChoiceSelect
                        key="xchg"
                        label="Expert exchange"
                        choices=ExpertExchange::ALL.map(|e| (e.id(), exchange_label(e))).to_vec()
                        chosen=|s| s.expert_exchange.id()
                        hint="MoE with attention data parallelism: how replicas reach each other's experts; TensorRT-LLM's CUTLASS MoE gathers every token where its all-to-all is off"
                    />
                    <NumberField
                        key="re"
                        label="Redundant experts"
                        value=text(|s| s.redundant_experts.to_string())
                        min="0".into()
                        max=MAX_REDUNDANT_EXPERTS.to_string()
                        step="1"
                        hint="copies of hot experts over every expert-parallel group (DeepSeek serves 256 + 32): their weights on every chip, and EP may divide the slots rather than the experts"
                    />
                </Show>
                <NumberField
                    key="target"
                    label="Target interactivity (tok/s/user)"
                    value=text(|s| s.target_tok_s_user.map(|t| t.to_string()).unwrap_or_default())
                    min="0.1".into()
                    max="1000000".into()
                    step="any"
                    placeholder="auto"
                    hint="empty: the middle of the range both kinds reach"
                />
                <NumberField
                    key="ttft"
                    label="TTFT limit (ms)"
                    value=text(|s| s.ttft_ms.map(|t| t.to_string()).unwrap_or_default())
                    min="0.001".into()
                    max="86400000".into()
                    step="any"
                    placeholder="none"
                    hint="frontiers and verdict keep to deployments under it; others are grey"
                />
                <NumberField
                    key="tpot"
                    label="TPOT limit (ms)"
                    value=text(|s| s.tpot_ms.map(|t| t.to_string()).unwrap_or_default())
                    min="0.001".into()
                    max="86400000".into()
                    step="any"
                    placeholder="none"
                    hint="time per output token after the first"
                />
                <SloAtSelect id="in-sloat" />
                <NumberField
                    key="batch"
                    label="Batch (concurrent requests)"
                    value=text(|s| s.batch.map(|b| b.to_string()).unwrap_or_default())
                    min="1".into()
                    max=MAX_BATCH.to_string()
                    step="1"
                    placeholder="swept"
                    hint="every point runs this many requests at once; empty sweeps batches"
                />
                <NumberField
                    key="rate"
                    label="Request rate (req/s)"
                    value=text(|s| s.rate.map(|r| r.to_string()).unwrap_or_default())
                    min=REQUEST_RATE.start().to_string()
                    max=REQUEST_RATE.end().to_string()
                    step="any"
                    placeholder="closed loop"
                    hint="open loop: requests arrive at random at this rate; a point opens at the concurrency that keeps up, and only points that carry the rate stay on the frontiers"
                />
                <NumberField
                    key="ppu"
                    label="Benchmark prompts per user"
                    value=text(|s| s.prompts_per_user.map(|m| m.to_string()).unwrap_or_default())
                    min=PROMPTS_PER_USER.start().to_string()
                    max=PROMPTS_PER_USER.end().to_string()
                    step="any"
                    placeholder="steady loop"
                    hint="a benchmark that sends this many prompts per user (InferenceMAX sends 10): each point's first batch of prompts arrives together, and their wait for each other's prefill joins the mean TTFT (a closed loop: with a request rate nothing arrives together); empty: a service that has run for ever"
                />
                <div class="row">
                    <NumberField
                        key="runn"
                        label="Finite run: requests"
                        value=text(|s| s.run_requests.map(|n| n.to_string()).unwrap_or_default())
                        min="1".into()
                        max=MAX_PROMPTS.to_string()
                        step="1"
                        placeholder="steady loop"
                        hint="aggregated axis: a run of this many requests, all waiting from its start, read to its last request's end as MLPerf Offline and trtllm-bench time it; its batch drains at the end"
                    />
                    <NumberField
                        key="runk"
                        label="Finite run: longest output"
                        value=text(|s| s.run_longest_output.map(|k| k.to_string()).unwrap_or_default())
                        min="1".into()
                        max=MAX_LENGTH.to_string()
                        step="1"
                        placeholder="tokens"
                        hint="the longest reply a request may have (the dataset's longest, or the benchmark's cap): the drain runs to it"
                    />
                </div>
            </fieldset>
            <fieldset>
                <legend>"Disaggregation axis"</legend>
                {axes}
                <Show when=move || s.with(|s| s.axis == Axis::PrefillDecode)>
                    <CheckField
                        key="sd"
                        id="in-spec-decode"
                        label="The decode pool speculates (draft on the decode chips)"
                        checked=flag(|s| s.speculative_decode)
                    />
                </Show>
                <Show when=move || {
                    s.with(|s| s.axis == Axis::Speculative || s.decode_pool_speculates())
                }>
                    <div class="axis-settings" id="spec-settings">
                        <div class="field">
                            <label for="in-draft">"Draft"</label>
                            <select id="in-draft" on:change=move |ev| page.set_field("draft", &event_target_value(&ev))>
                                <option value="mtp" prop:selected=move || s.with(|s| s.draft_value() == "mtp")>
                                    "the model's own MTP heads"
                                </option>
                                <option value="eagle" prop:selected=move || s.with(|s| s.eagle_layers.is_some())>
                                    "an EAGLE head on the target's chips"
                                </option>
                                {drafts.clone()}
                            </select>
                        </div>
                        <div class="row">
                            <NumberField
                                key="acc"
                                label="Acceptance rate"
                                value=text(|s| s.acceptance.to_string())
                                min="0".into()
                                max="1".into()
                                step="0.05"
                            />
                            <NumberField
                                key="k"
                                label="Drafted tokens (K)"
                                value=text(|s| s.draft_tokens.to_string())
                                min="1".into()
                                max=MAX_DRAFT_TOKENS.to_string()
                                step="1"
                            />
                        </div>
                    </div>
                </Show>
                <NumberField
                    key="budget"
                    label="Chip budget (all pools)"
                    value=text(|s| s.max_chips.to_string())
                    min="1".into()
                    max=MAX_SWEEP_CHIPS.to_string()
                    step="1"
                />
            </fieldset>
            <fieldset>
                <legend>"Chart"</legend>
                <div class="radios" role="group" aria-label="Up the chart">{y_axes}</div>
                <div class="radios" role="group" aria-label="Colour of the points">{colours}</div>
                <div class="check">
                    <input
                        type="checkbox"
                        id="in-cloud"
                        prop:checked=move || prefs.with(|p| p.show_cloud)
                        on:change=move |ev| page.edit_preferences(|p| p.show_cloud = event_target_checked(&ev))
                    />
                    <label for="in-cloud">"Show every pairing's best points, not only the frontiers"</label>
                </div>
            </fieldset>
        </form>
    }
}

/// A framework choice as the control lists it.
fn scheduling_label(m: Scheduling) -> &'static str {
    match m {
        Scheduling::Continuous => "continuous (refill as requests finish)",
        Scheduling::Static => "static (fixed batch, no refill)",
    }
}

fn exchange_label(e: ExpertExchange) -> &'static str {
    match e {
        ExpertExchange::AllToAll => "all-to-all (each token to its experts)",
        ExpertExchange::GatherScatter => "all-gather and reduce-scatter",
    }
}

fn framework_label(f: FrameworkChoice) -> &'static str {
    match f {
        FrameworkChoice::Auto => "auto (each chip family's usual one)",
        FrameworkChoice::Generic => "generic (the assumptions as set)",
        FrameworkChoice::Given(f) => f.name(),
    }
}

/// "Limits bound": whether the TTFT and TPOT limits hold a deployment's mean over
/// requests or its 90th percentile (link key `sloat`), for the sweep's controls and the
/// recommendation's inputs alike.
#[component]
pub fn SloAtSelect(id: &'static str) -> impl IntoView {
    let page = expect_context::<Page>();
    let hint = format!("{id}-hint");
    view! {
        <div class="field">
            <label for=id>"Limits bound"</label>
            <select
                id=id
                aria-describedby=hint.clone()
                on:change=move |ev| page.set_field("sloat", &event_target_value(&ev))
            >
                {SloAt::ALL
                    .map(|a| {
                        view! {
                            <option value=a.id() prop:selected=move || page.scenario.with(|s| s.slo_at == a)>
                                {slo_at_label(a)}
                            </option>
                        }
                    })
                    .collect_view()}
            </select>
            <span class="hint" id=hint>
                "which of a deployment's TTFT and TPOT the limits hold to"
            </span>
        </div>
    }
}
