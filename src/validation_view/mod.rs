//! The validation view: every published measurement of `catalogue/benchmarks.toml` beside
//! the engine's prediction of it, filtered, summarised and plotted. Plain logic: which
//! view the link opens and with which filters, which rows a filter keeps, what each
//! cell reads, and the summary lines (the very ones `disagg validate` prints). The rows
//! come from the page's one validation job; nothing here runs the engine.

pub mod breakdown;
pub mod draw;
pub mod opened;
pub mod scatter;
pub mod sort;

use crate::format::{sig3, MISSING};
use crate::scenario::{decode, encode};
use disagg_engine::disagg::{Axis, PoolRole};
use disagg_engine::validation::{
    mean_set, summarize, BenchmarkPoint, BenchmarkTable, ErrorSummary, Framework, Metric, Role,
    ValidationReport, ValidationRow,
};
use disagg_engine::Catalogue;
use std::sync::OnceLock;

/// The link key of the view, and the value that opens this one.
pub const VIEW_KEY: &str = "view";
pub const VALIDATION: &str = "validation";
/// Link keys of the filters: `vv.vendor`, `vv.axis`, `vv.metric`, `vv.framework`,
/// `vv.role`; and of the table's order, `vv.sort` ([`sort`]).
pub const FILTER_PREFIX: &str = "vv.";

/// Which of the page's two views shows.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum View {
    #[default]
    Explorer,
    Validation,
    /// Deployments that meet the limits at a demand (`crate::recommend_view`).
    Recommend,
}

/// A filter of the table: each narrows the rows to one value, or leaves them all.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FilterKey {
    Vendor,
    Axis,
    Metric,
    Framework,
    Role,
}

impl FilterKey {
    pub const ALL: [FilterKey; 5] = [
        FilterKey::Vendor,
        FilterKey::Axis,
        FilterKey::Metric,
        FilterKey::Framework,
        FilterKey::Role,
    ];

    /// The name after [`FILTER_PREFIX`] in a link, and the control's id suffix.
    pub fn id(self) -> &'static str {
        match self {
            FilterKey::Vendor => "vendor",
            FilterKey::Axis => "axis",
            FilterKey::Metric => "metric",
            FilterKey::Framework => "framework",
            FilterKey::Role => "role",
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            FilterKey::Vendor => "Vendor",
            FilterKey::Axis => "Axis",
            FilterKey::Metric => "Metric",
            FilterKey::Framework => "Framework",
            FilterKey::Role => "Role",
        }
    }
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Filters {
    pub vendor: Option<String>,
    pub axis: Option<Axis>,
    pub metric: Option<Metric>,
    pub framework: Option<Framework>,
    pub role: Option<Role>,
}

/// The view and its filters: what the link carries besides the scenario.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ViewState {
    pub view: View,
    pub filters: Filters,
    /// The table's order; `None` is the published table's own.
    pub sort: Option<sort::Sort>,
    /// The recommend view's demand and chips (its `rec.` keys).
    pub recommend: crate::recommend_view::RecommendInputs,
    /// The validation row opened into its explanation (`vv.point`), by id.
    pub point: Option<String>,
    /// What the breakdown groups the kept rows by (`vv.by`); `None`: no breakdown.
    pub by: Option<disagg_engine::validation::GroupBy>,
}

/// The published table compiled into the engine, read once on the page's thread: the
/// rows a link's `vv.point` names and a row opens, and the desk preset's row (the
/// worker predicts the rows; this thread reads their points only).
pub fn published_table() -> Option<&'static BenchmarkTable> {
    static TABLE: OnceLock<Option<BenchmarkTable>> = OnceLock::new();
    TABLE
        .get_or_init(|| BenchmarkTable::builtin().ok())
        .as_ref()
}

pub fn role_label(r: Role) -> &'static str {
    match r {
        Role::Calibration => "calibration",
        Role::Holdout => "hold-out",
    }
}

fn point_axis(p: &BenchmarkPoint) -> Axis {
    p.axis.unwrap_or(Axis::Aggregated)
}

/// The vendor of the point's chip, as the catalogue names it.
pub fn vendor_of(p: &BenchmarkPoint, catalogue: &Catalogue) -> String {
    catalogue
        .chip(&p.chip)
        .map_or_else(|_| MISSING.to_string(), |c| c.vendor.clone())
}

impl Filters {
    /// The filter's value as a link spells it; `None` when it is off.
    pub fn value(&self, key: FilterKey) -> Option<String> {
        match key {
            FilterKey::Vendor => self.vendor.clone(),
            FilterKey::Axis => self.axis.map(|a| a.id().to_string()),
            FilterKey::Metric => self.metric.map(Metric::id),
            FilterKey::Framework => self.framework.map(|f| f.id().to_string()),
            FilterKey::Role => self.role.map(|r| r.id().to_string()),
        }
    }

    /// Sets one filter from its text (empty turns it off); a value outside the filter's
    /// set leaves it as it was and says why. The one check links and the selects pass.
    pub fn set(
        &mut self,
        key: FilterKey,
        value: &str,
        catalogue: &Catalogue,
    ) -> Result<(), String> {
        let value = value.trim();
        if value.is_empty() {
            match key {
                FilterKey::Vendor => self.vendor = None,
                FilterKey::Axis => self.axis = None,
                FilterKey::Metric => self.metric = None,
                FilterKey::Framework => self.framework = None,
                FilterKey::Role => self.role = None,
            }
            return Ok(());
        }
        match key {
            FilterKey::Vendor => {
                let vendor = catalogue
                    .chips
                    .iter()
                    .find(|c| c.vendor.eq_ignore_ascii_case(value))
                    .ok_or_else(|| "a vendor is one of the catalogue's chip vendors".to_string())?;
                self.vendor = Some(vendor.vendor.clone());
            }
            FilterKey::Axis => self.axis = Some(Axis::parse(value).map_err(|e| e.to_string())?),
            FilterKey::Metric => self.metric = Some(
                serde_json::from_value(serde_json::Value::String(value.to_string())).map_err(
                    |_| {
                        "a metric is one the published table uses, such as output_tok_s_per_chip"
                            .to_string()
                    },
                )?,
            ),
            FilterKey::Framework => self.framework = Some(Framework::try_from(value.to_string())?),
            FilterKey::Role => {
                self.role = Some(match value {
                    "calibration" => Role::Calibration,
                    "holdout" => Role::Holdout,
                    _ => return Err("a role is calibration or holdout".into()),
                })
            }
        }
        Ok(())
    }

    /// Whether `row` passes every filter that is on.
    pub fn keeps(&self, row: &ValidationRow, catalogue: &Catalogue) -> bool {
        let p = &row.point;
        self.vendor
            .as_ref()
            .is_none_or(|v| *v == vendor_of(p, catalogue))
            && self.axis.is_none_or(|a| a == point_axis(p))
            && self.metric.is_none_or(|m| m == p.metric)
            && self.framework.is_none_or(|f| f == p.framework)
            && self.role.is_none_or(|r| r == p.role)
    }

    pub fn any(&self) -> bool {
        *self != Filters::default()
    }
}

impl ViewState {
    /// The link's part for the view: `view=validation` and the filters that are on;
    /// empty for the explorer without filters.
    pub fn to_query(&self) -> String {
        let mut q = Vec::new();
        if self.view == View::Validation {
            q.push(format!("{VIEW_KEY}={VALIDATION}"));
        }
        if self.view == View::Recommend {
            q.push(format!("{VIEW_KEY}={}", crate::recommend_view::RECOMMEND));
        }
        q.extend(Some(self.recommend.to_query()).filter(|r| !r.is_empty()));
        for key in FilterKey::ALL {
            if let Some(v) = self.filters.value(key) {
                q.push(format!("{FILTER_PREFIX}{}={}", key.id(), encode(&v)));
            }
        }
        if let Some(s) = self.sort {
            q.push(format!("{FILTER_PREFIX}{}={}", sort::SORT_KEY, s.to_link()));
        }
        if let Some(id) = &self.point {
            q.push(format!(
                "{FILTER_PREFIX}{}={}",
                opened::POINT_KEY,
                encode(id)
            ));
        }
        if let Some(by) = self.by {
            q.push(format!("{FILTER_PREFIX}{}={}", breakdown::BY_KEY, by.id()));
        }
        q.join("&")
    }
}

/// Splits a link's query into the view's part (read here) and the rest (the scenario's,
/// for `Scenario::from_query`), with a notice for each value ignored.
pub fn split_query(query: &str, catalogue: &Catalogue) -> (ViewState, String, Vec<String>) {
    let mut state = ViewState::default();
    let mut rest = Vec::new();
    let mut notices = Vec::new();
    for pair in query
        .trim_start_matches('?')
        .split('&')
        .filter(|p| !p.is_empty())
    {
        let (raw_key, raw) = pair.split_once('=').unwrap_or((pair, ""));
        let key = decode(raw_key);
        let value = decode(raw);
        let shown: String = value.chars().take(40).collect();
        if key == VIEW_KEY {
            match value.as_str() {
                VALIDATION => state.view = View::Validation,
                crate::recommend_view::RECOMMEND => state.view = View::Recommend,
                "" | "explorer" => state.view = View::Explorer,
                _ => notices.push(format!(
                    "ignored {VIEW_KEY}={shown:?}: a view is explorer, {VALIDATION} or {}",
                    crate::recommend_view::RECOMMEND
                )),
            }
        } else if crate::recommend_view::KEYS.contains(&key.as_str()) {
            if let Err(why) = state.recommend.set(&key, &value, catalogue) {
                notices.push(format!("ignored {key}={shown:?}: {why}"));
            }
        } else if key == format!("{FILTER_PREFIX}{}", opened::POINT_KEY) {
            match opened::parse_point(&value) {
                Ok(id) => state.point = Some(id),
                Err(why) => notices.push(format!("ignored {key}={shown:?}: {why}")),
            }
        } else if key == format!("{FILTER_PREFIX}{}", breakdown::BY_KEY) {
            match breakdown::parse(&value) {
                Ok(by) => state.by = Some(by),
                Err(why) => notices.push(format!("ignored {key}={shown:?}: {why}")),
            }
        } else if key == format!("{FILTER_PREFIX}{}", sort::SORT_KEY) {
            match sort::Sort::parse(&value) {
                Ok(s) => state.sort = Some(s),
                Err(why) => notices.push(format!("ignored {key}={shown:?}: {why}")),
            }
        } else if let Some(name) = key.strip_prefix(FILTER_PREFIX) {
            match FilterKey::ALL.into_iter().find(|k| k.id() == name) {
                Some(k) => {
                    if let Err(why) = state.filters.set(k, &value, catalogue) {
                        notices.push(format!("ignored {key}={shown:?}: {why}"));
                    }
                }
                None => notices.push(format!(
                    "ignored {}: no such filter of the validation view",
                    key.chars().take(40).collect::<String>()
                )),
            }
        } else {
            rest.push(pair);
        }
    }
    (state, rest.join("&"), notices)
}

/// The rows the filters keep, in the table's order.
pub fn kept<'a>(
    report: &'a ValidationReport,
    filters: &Filters,
    catalogue: &Catalogue,
) -> Vec<&'a ValidationRow> {
    report
        .rows
        .iter()
        .filter(|r| filters.keeps(r, catalogue))
        .collect()
}

/// The values a filter can take among the report's rows: (link value, label), sorted.
pub fn options(
    report: &ValidationReport,
    key: FilterKey,
    catalogue: &Catalogue,
) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = report
        .rows
        .iter()
        .map(|r| {
            let p = &r.point;
            match key {
                FilterKey::Vendor => {
                    let v = vendor_of(p, catalogue);
                    (v.clone(), v)
                }
                FilterKey::Axis => (point_axis(p).id().into(), point_axis(p).name().into()),
                FilterKey::Metric => (p.metric.id(), p.metric.label().into()),
                FilterKey::Framework => (p.framework.id().into(), p.framework.id().into()),
                FilterKey::Role => (p.role.id().into(), role_label(p.role).into()),
            }
        })
        .collect();
    out.sort_by(|a, b| a.1.cmp(&b.1));
    out.dedup();
    out
}

/// One row of the table as it reads.
#[derive(Clone, Debug, PartialEq)]
pub struct TableRow {
    pub id: String,
    pub model: String,
    /// Chip kind and count, and the layout: one entry per pool.
    pub chips: String,
    pub axis: &'static str,
    pub metric: &'static str,
    pub framework: &'static str,
    pub measured: String,
    pub predicted: String,
    /// Signed, in percent: "+12.3%".
    pub error: String,
    pub role: &'static str,
    pub source: String,
    pub source_url: Option<String>,
    /// Why there is no prediction, or why the deployment does not fit.
    pub problem: Option<String>,
}

fn chip_name(id: &str, catalogue: &Catalogue) -> String {
    catalogue
        .chip(id)
        .map_or(id.to_string(), |c| c.name.clone())
}

/// "4 × AMD MI355X, TP4 PP1 DP1 EP1" (the layout evaluated), or one such per pool.
fn chips_text(row: &ValidationRow, catalogue: &Catalogue) -> String {
    let p = &row.point;
    if p.pool.is_empty() {
        let layout = row.parallelism.map_or(String::new(), |l| format!(", {l}"));
        return format!("{} × {}{layout}", p.chips, chip_name(&p.chip, catalogue));
    }
    p.pool
        .iter()
        .map(|x| {
            let chips = x.tp * x.pp * x.dp;
            let role = match x.role {
                PoolRole::Colocated => String::new(),
                r => format!("{}: ", r.name()),
            };
            format!(
                "{role}{chips} × {}, TP{} PP{} DP{} EP{}",
                chip_name(&x.chip, catalogue),
                x.tp,
                x.pp,
                x.dp,
                x.ep
            )
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// A signed error in percent, one decimal as `disagg validate` prints it.
pub fn signed_percent(e: Option<f64>) -> String {
    match e.filter(|e| e.is_finite()) {
        Some(e) => format!("{:+.1}%", e * 100.0),
        None => MISSING.into(),
    }
}

/// The address a source names, where it names one: a token that is a web address
/// (`https://...`, or a host with a dot followed by a path, `github.com/owner/repo`).
pub fn source_url(source: &str) -> Option<String> {
    source
        .split_whitespace()
        .map(|t| t.trim_matches(|c: char| "()[],;'\"".contains(c)))
        .find_map(|t| {
            if t.starts_with("https://") || t.starts_with("http://") {
                return Some(t.to_string());
            }
            let (host, path) = t.split_once('/')?;
            let labels: Vec<&str> = host.split('.').collect();
            let hostlike = labels.len() >= 2
                && labels.iter().all(|l| {
                    !l.is_empty() && l.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
                })
                && labels
                    .last()
                    .is_some_and(|tld| tld.chars().all(|c| c.is_ascii_alphabetic()));
            (hostlike && !path.is_empty()).then(|| format!("https://{t}"))
        })
}

impl TableRow {
    pub fn of(row: &ValidationRow, catalogue: &Catalogue) -> TableRow {
        let p = &row.point;
        TableRow {
            id: p.id.clone(),
            model: catalogue
                .model(&p.model)
                .map_or(p.model.clone(), |m| m.name.clone()),
            chips: chips_text(row, catalogue),
            axis: point_axis(p).name(),
            metric: p.metric.label(),
            framework: p.framework.id(),
            measured: sig3(p.measured),
            predicted: row.predicted.map_or(MISSING.into(), sig3),
            error: signed_percent(row.error),
            role: role_label(p.role),
            source: p.source.clone(),
            source_url: source_url(&p.source),
            problem: row.problem.clone(),
        }
    }
}

/// Median and p90 |error| of `rows` by role: (calibration, hold-out), counted as the
/// engine's report counts its sets (`validation::mean_set`).
pub fn by_role(rows: &[&ValidationRow]) -> (Option<ErrorSummary>, Option<ErrorSummary>) {
    let of = |role: Role| mean_set(rows.iter().copied(), role, |_| true);
    (of(Role::Calibration), of(Role::Holdout))
}

fn summary_line(name: &str, s: Option<ErrorSummary>) -> String {
    match s {
        Some(s) => format!("{name}: {}", s.line()),
        None => format!("{name}: no points"),
    }
}

/// The lines above the table: the whole table's errors by role and the two hold-out
/// subsets issue 22 sets targets for (TTFT rows, disaggregated rows), as `disagg
/// validate` prints them (the engine's report, in its one wording), then those of the
/// rows shown when a filter is on.
pub fn summary_lines(
    report: &ValidationReport,
    shown: &[&ValidationRow],
    filtered: bool,
) -> Vec<String> {
    let mut lines = vec![
        summary_line(
            "Calibration (constants may be fitted to these)",
            report.calibration,
        ),
        summary_line("Hold-out (never used to fit)", report.holdout),
        summary_line("Hold-out TTFT rows", report.holdout_ttft),
        summary_line("Hold-out disaggregated rows", report.holdout_disaggregated),
        summary_line(
            "Hold-out median TTFT rows (p50)",
            report.holdout_median_ttft,
        ),
    ];
    if filtered {
        let (c, h) = by_role(shown);
        let mut line = format!(
            "Rows shown ({}): {}; {}",
            shown.len(),
            summary_line("calibration", c),
            summary_line("hold-out", h)
        );
        // Median TTFT rows shown are scored as the report scores them, on their own.
        let medians = summarize(
            shown
                .iter()
                .filter(|r| r.point.metric == Metric::TtftP50Ms)
                .filter_map(|r| r.error),
        );
        if medians.is_some() {
            line.push_str(&format!("; {}", summary_line("median TTFT rows", medians)));
        }
        lines.push(line);
    }
    lines
}

#[cfg(test)]
mod tests;
