//! One link key read into the scenario ([`Scenario::apply`]): the link, the page's
//! inputs and an imported bundle all set the scenario this way, each value checked
//! against its bounds with a sentence that names the setting.

use super::*;

impl Scenario {
    /// Sets one control by its query key, as the link or the page's inputs give it.
    /// An invalid value leaves the scenario as it was and says why; a partly valid
    /// one (a chip list with unknown ids) is applied and returns warnings.
    pub fn apply(
        &mut self,
        key: &str,
        value: &str,
        catalogue: &Catalogue,
    ) -> Result<Vec<String>, String> {
        let value = value.trim();
        match key {
            "model" if value == USER_MODEL_ID => {
                // The user's own model starts as the model in hand, to edit.
                if self.custom_config.is_none() {
                    self.custom_config = catalogue
                        .model(&self.model)
                        .ok()
                        .and_then(|m| serde_json::to_string_pretty(&m.config).ok());
                }
                self.model = USER_MODEL_ID.to_string();
            }
            "model" => {
                self.model = catalogue
                    .model(value)
                    .map_err(|_| format!("not a catalogue model (or {USER_MODEL_ID}, with cfg)"))?
                    .id
                    .clone()
            }
            "cfg" => {
                // Parsed now, so that a bad config is refused with its field named
                // rather than breaking the sweep later.
                ModelPreset::from_user_config(value).map_err(|e| e.to_string())?;
                self.custom_config = Some(value.to_string());
            }
            "isl" | "osl" => {
                let n = parse_in(
                    value,
                    1..=MAX_LENGTH,
                    format!("a length must be a whole number from 1 to {MAX_LENGTH}"),
                )?;
                if key == "isl" {
                    self.isl = n
                } else {
                    self.osl = n
                }
            }
            "hit" => {
                self.prefix_hit_pct = parse_in(
                    value,
                    0.0..=MAX_PREFIX_HIT_PCT,
                    format!("a prefix-cache hit share is a percentage from 0 to {MAX_PREFIX_HIT_PCT}"),
                )?
            }
            "ocv" => {
                self.output_cv = parse_in(
                    value,
                    0.0..=MAX_OUTPUT_CV,
                    format!("an output-length spread is a coefficient of variation from 0 to {MAX_OUTPUT_CV}"),
                )?
            }
            "wd" | "ed" | "ao" | "hd" if value.is_empty() || value == "default" => {
                *self.component_dtype(key) = None
            }
            "wd" | "ed" | "ao" | "hd" | "kv" => {
                let d = value.parse::<DType>().map_err(|_| {
                    format!(
                        "not a dtype ({})",
                        DType::ALL.map(|d| d.name()).join(" ")
                    )
                })?;
                if key == "kv" {
                    if !d.holds_kv() {
                        return Err(d.kv_refusal());
                    }
                    self.kv_dtype = d
                } else {
                    *self.component_dtype(key) = Some(d)
                }
            }
            "axis" => {
                self.axis =
                    Axis::parse(value).map_err(|_| "not an axis (agg pd af spec)".to_string())?
            }
            "chips" => {
                let mut chips = Vec::new();
                let mut warnings = Vec::new();
                let mut unlisted = 0usize;
                for id in value.split(',').map(str::trim).filter(|c| !c.is_empty()) {
                    let warning = match self.known_chip(id, catalogue) {
                        Ok(c) if chips.contains(&c) => continue,
                        Ok(_) if chips.len() >= MAX_CHIP_KINDS => format!(
                            "ignored chip {:?}: the page sweeps at most {MAX_CHIP_KINDS} chip kinds at once",
                            shorten(id)
                        ),
                        Ok(c) => {
                            chips.push(c);
                            continue;
                        }
                        Err(why) => format!("ignored chip {:?}: {why}", shorten(id)),
                    };
                    // A hostile link may name a million chips: a few are listed, the
                    // rest counted.
                    if warnings.len() < MAX_NOTICES_PER_FIELD {
                        warnings.push(warning);
                    } else {
                        unlisted += 1;
                    }
                }
                if unlisted > 0 {
                    warnings.push(format!("and {unlisted} more ignored chips"));
                }
                if chips.is_empty() {
                    warnings.push("no known chip in the link; kept the chips as they were".into());
                } else {
                    self.chips = chips;
                }
                return Ok(warnings);
            }
            "budget" => {
                self.max_chips = parse_in(
                    value,
                    1..=MAX_SWEEP_CHIPS,
                    format!("the chip budget runs from 1 to {MAX_SWEEP_CHIPS}"),
                )?
            }
            "ttft" | "tpot" => {
                let limit = parse_optional_in(
                    value,
                    f64::MIN_POSITIVE..=MAX_LATENCY_MS,
                    format!("a latency limit is a positive number of milliseconds, at most {MAX_LATENCY_MS} (or empty for none)"),
                )?;
                if key == "ttft" {
                    self.ttft_ms = limit
                } else {
                    self.tpot_ms = limit
                }
            }
            "batch" if value.is_empty() || value == "auto" => self.batch = None,
            "batch" => {
                self.batch = Some(parse_in(
                    value,
                    1..=MAX_BATCH,
                    format!("a batch is a whole number of concurrent requests from 1 to {MAX_BATCH} (or empty to sweep batches)"),
                )?)
            }
            "rate" => {
                self.rate = parse_optional_in(
                    value,
                    REQUEST_RATE,
                    format!(
                        "the request rate is a number of requests per second from {} to {} (or empty for a closed loop)",
                        REQUEST_RATE.start(),
                        REQUEST_RATE.end()
                    ),
                )?
            }
            "ppu" => {
                self.prompts_per_user = parse_optional_in(
                    value,
                    PROMPTS_PER_USER,
                    format!(
                        "prompts per user is a number from {} to {} (or empty for the steady loop)",
                        PROMPTS_PER_USER.start(),
                        PROMPTS_PER_USER.end()
                    ),
                )?
            }
            "runn" => {
                self.run_requests = parse_optional_in(
                    value,
                    1..=MAX_PROMPTS,
                    format!("a finite run's requests are a whole number from 1 to {MAX_PROMPTS} (or empty for the steady loop)"),
                )?
            }
            "runk" => {
                self.run_longest_output = parse_optional_in(
                    value,
                    1..=MAX_LENGTH,
                    format!("a finite run's longest output is a whole number of tokens from 1 to {MAX_LENGTH} (or empty)"),
                )?
            }
            "target" if value.is_empty() || value == "auto" => self.target_tok_s_user = None,
            "target" => {
                self.target_tok_s_user = Some(
                    value
                        .parse::<f64>()
                        .ok()
                        .filter(|t| t.is_finite() && *t > 0.0 && *t <= 1e6)
                        .ok_or("the target must be a positive tok/s/user (or empty for auto)")?,
                )
            }
            "draft" => self.set_draft(value, catalogue)?,
            "link" => self.set_link(value)?,
            SHOW_KEY => self.set_show(value)?,
            "re" => {
                self.redundant_experts = parse_in(
                    value,
                    0..=MAX_REDUNDANT_EXPERTS,
                    format!("redundant experts run from 0 to {MAX_REDUNDANT_EXPERTS}"),
                )?
            }
            "acc" => {
                self.acceptance = parse_in(value, 0.0..=1.0, "acceptance must lie between 0 and 1")?
            }
            "k" => {
                self.draft_tokens = parse_in(
                    value,
                    1..=MAX_DRAFT_TOKENS,
                    format!("drafted tokens run from 1 to {MAX_DRAFT_TOKENS}"),
                )?
            }
            "sd" => {
                self.speculative_decode =
                    switch(value).ok_or("sd is 1 (the decode pool speculates) or 0")?
            }
            "adp" => {
                self.aligned_prefill =
                    switch(value).ok_or("adp is 1 (expert-group replicas prefill together) or 0")?
            }
            "xchg" => self.expert_exchange = value.parse()?,
            "fw" => self.framework = value.parse()?,
            "sched" => self.scheduling = value.parse()?,
            "sloat" => {
                self.slo_at = value
                    .parse::<SloAt>()
                    .map_err(|e| e.to_string().replace("invalid input: ", ""))?
            }
            "y" => {
                self.y_axis = match value {
                    "chip" => YAxis::TokSPerChip,
                    "usd" => YAxis::TokSPerUsdHour,
                    _ => return Err("y is chip or usd".into()),
                }
            }
            "colour" => {
                self.colour_by = match value {
                    "price" => ColourBy::Price,
                    "chip" => ColourBy::Chip,
                    _ => return Err("colour is price or chip".into()),
                }
            }
            k if k.starts_with(CHIP_EDIT_PREFIX) => self.edit_chip(k, value, catalogue)?,
            k if k.starts_with(ASSUMPTION_PREFIX) => self.set_assumption(k, value)?,
            k if cost::COST_KEYS.contains(&k) => self.set_cost(k, value)?,
            k if RUN_KEYS.contains(&k) => self.run.set(k, value)?,
            _ => return Err("unknown setting".into()),
        }
        Ok(Vec::new())
    }
}

/// `value` read as a number inside `range`, or `message` (which also covers text that is
/// not a number, NaN included: it lies in no range).
pub(super) fn parse_in<T: FromStr + PartialOrd>(
    value: &str,
    range: RangeInclusive<T>,
    message: impl Into<String>,
) -> Result<T, String> {
    value
        .parse::<T>()
        .ok()
        .filter(|v| range.contains(v))
        .ok_or_else(|| message.into())
}

/// [`parse_in`] for a setting that may be left out: empty is `None`.
pub(super) fn parse_optional_in<T: FromStr + PartialOrd>(
    value: &str,
    range: RangeInclusive<T>,
    message: impl Into<String>,
) -> Result<Option<T>, String> {
    if value.is_empty() {
        return Ok(None);
    }
    parse_in(value, range, message).map(Some)
}

/// An on/off setting as a link spells it.
pub(super) fn switch(value: &str) -> Option<bool> {
    match value {
        "1" | "true" | "on" => Some(true),
        "0" | "false" | "off" | "" => Some(false),
        _ => None,
    }
}
