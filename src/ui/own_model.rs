//! The user's own model (a pasted or uploaded `config.json`, carried by the link as
//! `cfg`) and every model's summary, so a config can be checked at a glance.

use super::Page;
use crate::explore::model_of;
use crate::model_summary::{precision, provenance, summary, warnings};
use disagg_engine::catalogue::USER_MODEL_ID;
use disagg_engine::Catalogue;
use leptos::prelude::*;

/// Reads the chosen file's text and hands it to the `cfg` field.
fn upload(page: Page, ev: leptos::ev::Event) {
    let Some(file) = crate::web::chosen_file(&ev) else {
        return;
    };
    leptos::task::spawn_local(async move {
        match crate::web::file_text(file).await {
            Some(text) => page.set_field("cfg", &text),
            None => page
                .notices
                .update(|n| n.push("the chosen file could not be read".into())),
        }
    });
}

/// The config box, shown while the model is the user's own.
#[component]
pub fn OwnModel() -> impl IntoView {
    let page = expect_context::<Page>();
    let own = move || page.scenario.with(|s| s.model == USER_MODEL_ID);
    let text = move || {
        page.scenario
            .with(|s| s.custom_config.clone().unwrap_or_default())
    };
    let error = page.field_error("cfg");
    view! {
        <Show when=own>
            <div class="field own-model">
                <label for="in-cfg">"Your model's config.json (paste it, or choose the file)"</label>
                <textarea
                    id="in-cfg"
                    rows="6"
                    spellcheck="false"
                    aria-describedby="in-cfg-error"
                    aria-invalid=move || error().is_some().to_string()
                    prop:value=text
                    on:change=move |ev| page.set_field("cfg", &event_target_value(&ev))
                ></textarea>
                <label class="file" for="in-cfg-file">"Choose config.json"</label>
                <input
                    type="file"
                    id="in-cfg-file"
                    accept=".json,application/json"
                    on:change=move |ev| upload(page, ev)
                />
                <span class="hint">"It stays in your browser and in the link; nothing is uploaded anywhere."</span>
                <p class="field-error" id="in-cfg-error" role="alert">{error}</p>
            </div>
        </Show>
    }
}

/// The current model in a few lines (open for the user's own model).
#[component]
pub fn ModelSummary() -> impl IntoView {
    let page = expect_context::<Page>();
    // Only the model and the dtypes change the summary.
    let model = Memo::new(move |_| {
        page.scenario.with(|s| {
            (
                s.model.clone(),
                s.custom_config.clone(),
                s.kv_dtype,
                [
                    s.weight_dtype,
                    s.expert_dtype,
                    s.attn_out_dtype,
                    s.lm_head_dtype,
                ],
            )
        })
    });
    let lines = move || {
        // Read (not merely tracked), so that the memo re-evaluates.
        model.with(|_| ());
        page.scenario.with_untracked(|s| {
            model_of(s, Catalogue::builtin())
                .map(|m| {
                    (
                        m.name.clone(),
                        summary(
                            &m,
                            s.kv_dtype,
                            precision(
                                &m,
                                s.weight_dtype,
                                [s.expert_dtype, s.attn_out_dtype, s.lm_head_dtype],
                            ),
                        ),
                        provenance(&m),
                        warnings(&m).to_vec(),
                    )
                })
                .ok()
        })
    };
    view! {
        {move || {
            lines()
                .map(|(name, lines, origins, warnings)| {
                    let own = page.scenario.with_untracked(|s| s.model == USER_MODEL_ID);
                    view! {
                        <details class="model-summary" id="model-summary" open=own>
                            <summary>"About "{name}</summary>
                            <dl>
                                {lines
                                    .into_iter()
                                    .map(|(what, value)| view! { <dt>{what}</dt><dd>{value}</dd> })
                                    .collect_view()}
                            </dl>
                            <ul class="field-error model-warnings" id="model-warnings">
                                {warnings
                                    .into_iter()
                                    .map(|w| view! { <li>"Note: "{w}</li> })
                                    .collect_view()}
                            </ul>
                            <details class="model-provenance" id="model-provenance">
                                <summary>"Where each number comes from"</summary>
                                <ul>
                                    {origins
                                        .into_iter()
                                        .map(|o| view! { <li>{o}</li> })
                                        .collect_view()}
                                </ul>
                            </details>
                        </details>
                    }
                })
        }}
    }
}
