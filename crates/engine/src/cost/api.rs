//! Self-hosting against an API: the public API prices of `catalogue/api_prices.toml`
//! and the monthly volume at which a deployment's fixed hourly cost undercuts them
//! (`audit/MODEL.md` section 6.6.4).

use super::CostBasis;
use crate::catalogue::Grade;
use crate::disagg::Figures;
use crate::error::{EngineError, Result};
use crate::explain::{diff, floor, max, num, product, quotient, sum, var, Expr};
use crate::explain::{Chain, Source};
use crate::units::{TokensPerSecond, UsdPerHour};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::sync::OnceLock;

/// Hours in a month: a year's 8760 over 12.
pub const HOURS_PER_MONTH: f64 = super::HOURS_PER_YEAR / 12.0;

/// One API's price for one model, as read on the provider's pricing page.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ApiPrice {
    pub provider: String,
    /// The model's name on the API.
    pub api_model: String,
    /// The catalogue's model ids the API serves.
    pub models: Vec<String>,
    pub input_usd_per_mtok: f64,
    pub output_usd_per_mtok: f64,
    /// When the price was read (ISO date).
    pub read: String,
    pub grade: Grade,
    /// The source's full text (the provider's page and what was read there).
    pub source: String,
    pub note: Option<String>,
}

impl ApiPrice {
    /// The API's price per token of a workload's mix, `(ISL p_in + OSL p_out) /
    /// (ISL + OSL)`, USD per million tokens.
    pub fn mix_usd_per_mtok(&self, isl: f64, osl: f64) -> f64 {
        (isl * self.input_usd_per_mtok + osl * self.output_usd_per_mtok) / (isl + osl).max(1.0)
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    sources: BTreeMap<String, String>,
    price: Vec<Row>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Row {
    provider: String,
    api_model: String,
    models: Vec<String>,
    input_usd_per_mtok: f64,
    output_usd_per_mtok: f64,
    read: String,
    grade: Grade,
    source: String,
    #[serde(default)]
    note: Option<String>,
}

/// The API price table.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct ApiTable {
    pub prices: Vec<ApiPrice>,
}

impl ApiTable {
    /// The table compiled into the engine; every row checked (a source key that
    /// resolves, positive prices, an ISO date).
    pub fn builtin() -> &'static ApiTable {
        static TABLE: OnceLock<ApiTable> = OnceLock::new();
        TABLE.get_or_init(|| {
            ApiTable::from_json(crate::catalogue::embedded_api_prices())
                .expect("catalogue/api_prices.toml is checked by the engine's tests")
        })
    }

    pub fn from_json(json: &str) -> Result<ApiTable> {
        let bad = |problem: String| EngineError::Catalogue {
            file: "api_prices.toml".into(),
            problem,
        };
        let file: File = serde_json::from_str(json).map_err(|e| bad(e.to_string()))?;
        let mut prices = Vec::new();
        for r in file.price {
            let source = file.sources.get(r.source.trim()).ok_or_else(|| {
                bad(format!(
                    "{}: source '{}' is not in [sources]",
                    r.api_model, r.source
                ))
            })?;
            let ok = |v: f64| v.is_finite() && v > 0.0 && v < 1e4;
            if !ok(r.input_usd_per_mtok) || !ok(r.output_usd_per_mtok) {
                return Err(bad(format!("{}: prices must be positive", r.api_model)));
            }
            if !is_iso_date(&r.read) {
                return Err(bad(format!(
                    "{}: read '{}' is not a date YYYY-MM-DD",
                    r.api_model, r.read
                )));
            }
            if r.models.is_empty() {
                return Err(bad(format!("{}: models is empty", r.api_model)));
            }
            // One row per provider and API model: a second one would make `--api`
            // and the cheapest-row choice depend on the file's order.
            if prices.iter().any(|p: &ApiPrice| {
                p.provider.eq_ignore_ascii_case(&r.provider)
                    && p.api_model.eq_ignore_ascii_case(&r.api_model)
            }) {
                return Err(bad(format!(
                    "{} {}: the row appears twice",
                    r.provider, r.api_model
                )));
            }
            prices.push(ApiPrice {
                provider: r.provider,
                api_model: r.api_model,
                models: r.models,
                input_usd_per_mtok: r.input_usd_per_mtok,
                output_usd_per_mtok: r.output_usd_per_mtok,
                read: r.read,
                grade: r.grade,
                source: source.clone(),
                note: r.note,
            });
        }
        Ok(ApiTable { prices })
    }

    /// The rows serving catalogue model `model`.
    pub fn for_model<'a>(&'a self, model: &str) -> impl Iterator<Item = &'a ApiPrice> {
        let model = model.to_string();
        self.prices
            .iter()
            .filter(move |p| p.models.contains(&model))
    }

    /// The row of `provider` (case-insensitive) serving `model`; of several, the
    /// cheapest at the mix.
    pub fn find(&self, provider: &str, model: &str, isl: f64, osl: f64) -> Option<&ApiPrice> {
        cheapest(
            self.for_model(model)
                .filter(|p| p.provider.eq_ignore_ascii_case(provider)),
            isl,
            osl,
        )
    }

    /// The cheapest row for `model` at a workload's mix (`audit/MODEL.md` 6.6.4);
    /// ties go to the row listed first.
    pub fn cheapest(&self, model: &str, isl: f64, osl: f64) -> Option<&ApiPrice> {
        cheapest(self.for_model(model), isl, osl)
    }

    /// The providers with a row for `model`, each once, in the table's order.
    pub fn providers(&self, model: &str) -> Vec<&str> {
        let mut names: Vec<&str> = Vec::new();
        for p in self.for_model(model) {
            if !names.iter().any(|n| n.eq_ignore_ascii_case(&p.provider)) {
                names.push(&p.provider);
            }
        }
        names
    }
}

fn cheapest<'a>(
    rows: impl Iterator<Item = &'a ApiPrice>,
    isl: f64,
    osl: f64,
) -> Option<&'a ApiPrice> {
    // `min_by` keeps the last of equals; folding keeps the first.
    rows.fold(None, |best: Option<&ApiPrice>, p| match best {
        Some(b) if b.mix_usd_per_mtok(isl, osl) <= p.mix_usd_per_mtok(isl, osl) => Some(b),
        _ => Some(p),
    })
}

/// `YYYY-MM-DD` with a month 1 to 12 and a day 1 to 31.
fn is_iso_date(s: &str) -> bool {
    let b = s.as_bytes();
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return false;
    }
    let digits = |r: std::ops::Range<usize>| {
        b[r.clone()]
            .iter()
            .all(u8::is_ascii_digit)
            .then(|| s[r].parse::<u32>().ok())?
    };
    matches!(
        (digits(0..4), digits(5..7), digits(8..10)),
        (Some(_), Some(1..=12), Some(1..=31))
    )
}

/// How the row a deployment is compared with was chosen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Choice {
    /// Named with `--api`.
    Named,
    /// No provider named: the cheapest at the workload's mix of `of` rows.
    Cheapest { of: usize },
}

impl Choice {
    /// Words for the output, after the row's name.
    pub fn describe(self) -> String {
        match self {
            Choice::Named => "as named".into(),
            Choice::Cheapest { of: 1 } => "the only one listed".into(),
            Choice::Cheapest { of } => format!("the cheapest of {of} listed"),
        }
    }
}

/// A deployment's figures against an API: which row, which dollars, the break-even.
#[derive(Clone, Debug, PartialEq)]
pub struct Against<'a> {
    pub api: &'a ApiPrice,
    pub choice: Choice,
    /// "rental" or "ownership": the dollars per hour compared.
    pub basis: &'static str,
    pub breakeven: BreakEven,
}

impl Against<'_> {
    /// [`BreakEven::chains`] for this comparison.
    pub fn chains(&self, isl: f64, osl: f64) -> Vec<Chain> {
        self.breakeven.chains(self.api, self.basis, isl, osl)
    }
}

/// The deployment of `f` against `provider`'s price for catalogue model `model`, or,
/// with no provider named, the model's cheapest row at the workload's mix (the
/// lowest price a buyer could pay, so the hardest break-even). The dollars per hour
/// are the ones the frontier ranks by (`f.cost_basis`), else whichever the point has.
/// `None` when the table has no row for the model or the point has no price; a named
/// provider without a row for the model is an error naming `--api` and the
/// providers that have one.
pub fn against<'a>(
    table: &'a ApiTable,
    f: &Figures,
    model: &str,
    provider: Option<&str>,
    isl: f64,
    osl: f64,
) -> Result<Option<Against<'a>>> {
    let (api, choice) = match provider {
        Some(name) => {
            let api = table.find(name, model, isl, osl).ok_or_else(|| {
                let known = table.providers(model);
                EngineError::InvalidInput(if known.is_empty() {
                    format!("--api {name}: the API price table has no row for {model}")
                } else {
                    format!(
                        "--api {name}: no price for {model} from {name}; the table has {}",
                        known.join(", ")
                    )
                })
            })?;
            (api, Choice::Named)
        }
        None => {
            let Some(api) = table.cheapest(model, isl, osl) else {
                return Ok(None);
            };
            let of = table.for_model(model).count();
            (api, Choice::Cheapest { of })
        }
    };
    let own = f.own_usd_per_hour.map(|u| ("ownership", u));
    let rent = f.usd_per_hour.map(|u| ("rental", u));
    let pick = match f.cost_basis {
        CostBasis::Ownership => own.or(rent),
        CostBasis::Rental => rent.or(own),
    };
    Ok(pick.and_then(|(basis, usd)| {
        BreakEven::of(usd, f.input_tok_s, f.output_tok_s, api, isl, osl).map(|breakeven| Against {
            api,
            choice,
            basis,
            breakeven,
        })
    }))
}

/// A deployment against an API at a workload's mix (`audit/MODEL.md` section 6.6.4).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct BreakEven {
    /// The deployment's dollars per hour in use (rental or ownership).
    pub usd_per_hour: f64,
    /// Tokens of both kinds per second the deployment carries at its point.
    pub tok_s: f64,
    /// The API's price at the workload's mix, USD per million tokens.
    pub api_usd_per_mtok: f64,
    /// The deployment's cost per month: `C_h x 730 h`.
    pub usd_per_month: f64,
    /// Tokens per month at which the API costs as much as the deployment.
    pub breakeven_tokens_per_month: f64,
    /// Tokens per month one deployment carries: `X x 3600 x 730`.
    pub capacity_tokens_per_month: f64,
    /// Deployments needed to carry the break-even volume.
    pub replicas: f64,
}

impl BreakEven {
    /// `None` when the deployment produces nothing or the API is free.
    pub fn of(
        usd_per_hour: UsdPerHour,
        input: TokensPerSecond,
        output: TokensPerSecond,
        api: &ApiPrice,
        isl: f64,
        osl: f64,
    ) -> Option<BreakEven> {
        let tok_s = input.0 + output.0;
        let p = api.mix_usd_per_mtok(isl, osl);
        if !(tok_s > 0.0 && p > 0.0 && usd_per_hour.0.is_finite()) {
            return None;
        }
        let usd_per_month = usd_per_hour.0 * HOURS_PER_MONTH;
        let breakeven = usd_per_month / p * 1e6;
        let capacity = tok_s * 3600.0 * HOURS_PER_MONTH;
        Some(BreakEven {
            usd_per_hour: usd_per_hour.0,
            tok_s,
            api_usd_per_mtok: p,
            usd_per_month,
            breakeven_tokens_per_month: breakeven,
            capacity_tokens_per_month: capacity,
            replicas: (breakeven / capacity).ceil().max(1.0),
        })
    }

    /// Whether one deployment at full load is cheaper per token than the API: only
    /// then does a volume exist at which self-hosting wins (replicas cost the same
    /// per token as one).
    pub fn ever_cheaper(&self) -> bool {
        self.breakeven_tokens_per_month <= self.capacity_tokens_per_month
    }

    /// The chains: the API's price at the mix, the break-even volume, one
    /// deployment's monthly capacity and the replicas that volume needs.
    pub fn chains(&self, api: &ApiPrice, basis: &str, isl: f64, osl: f64) -> Vec<Chain> {
        let api_source = Source::rule(format!(
            "{} {} price, read {} ({})",
            api.provider, api.api_model, api.read, api.source
        ));
        let price = Chain::new(
            "API price at the workload's mix",
            "p_api",
            "USD/Mtok",
            "6.6.4",
            quotient(
                sum([
                    product([var("ISL"), var("p_in")]),
                    product([var("OSL"), var("p_out")]),
                ]),
                sum([var("ISL"), var("OSL")]),
            ),
            self.api_usd_per_mtok,
        )
        .with_isl(isl)
        .with_osl(osl)
        .input(
            "p_in",
            "API input price",
            api.input_usd_per_mtok,
            "USD/Mtok",
            api_source.clone(),
        )
        .input(
            "p_out",
            "API output price",
            api.output_usd_per_mtok,
            "USD/Mtok",
            api_source,
        );
        let hourly = Source::deployment(format!("the deployment's {basis} $/h"));
        let volume = Chain::new(
            "break-even volume against the API",
            "V*",
            "tokens/month",
            "6.6.4",
            quotient(
                product([var("C_h"), num(HOURS_PER_MONTH), num(1e6)]),
                var("p_api"),
            ),
            self.breakeven_tokens_per_month,
        )
        .input(
            "C_h",
            "the deployment's cost per hour",
            self.usd_per_hour,
            "USD/h",
            hourly,
        )
        .derived("API price at the workload's mix", price);
        let capacity = Chain::new(
            "one deployment's monthly capacity",
            "V_1",
            "tokens/month",
            "6.6.4",
            product([var("X"), num(3600.0), num(HOURS_PER_MONTH)]),
            self.capacity_tokens_per_month,
        )
        .input(
            "X",
            "input and output tokens per second",
            self.tok_s,
            "tok/s",
            Source::deployment("input tok/s + output tok/s"),
        );
        let replicas = Chain::new(
            "deployments to carry the break-even volume",
            "R",
            "deployments",
            "6.6.4",
            max([num(1.0), ceil_ratio("V*", "V_1")]),
            self.replicas,
        )
        .derived("break-even volume against the API", volume.clone())
        .derived("one deployment's monthly capacity", capacity.clone());
        vec![volume, capacity, replicas]
    }
}

/// `ceil(a / b)` as the expression language writes it: `-floor(-a / b)`.
fn ceil_ratio(a: &str, b: &str) -> Expr {
    diff(num(0.0), floor(diff(num(0.0), quotient(var(a), var(b)))))
}
