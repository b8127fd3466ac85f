//! The cost flags every command that takes assumptions takes (`predict`, `sweep`,
//! `validate`): electricity, PUE, purchase price, years, duty cycle, idle share and
//! the $ the frontier ranks by. Bounds and messages are the engine's
//! (`CostSettings::validate`, `limits`).

use disagg_engine::cost::{api, CostBasis, CostSettings};
use disagg_engine::disagg::DeploymentPoint;

#[derive(clap::Args, Debug, Default)]
pub(crate) struct CostArgs {
    /// Electricity price in USD per kWh for ownership figures (default 0.146: the U.S.
    /// commercial average of EIA's Electric Power Monthly, table 5.6.A).
    #[arg(long, value_name = "USD")]
    electricity_usd_kwh: Option<f64>,
    /// Power usage effectiveness, facility power over IT power (default 1.58: Uptime
    /// Institute's 2023 industry average).
    #[arg(long, value_name = "RATIO")]
    pue: Option<f64>,
    /// Purchase price of one chip in USD, for every chip of the deployment (default:
    /// the catalogue's purchase_price, where a chip has one; none otherwise).
    #[arg(long, value_name = "USD")]
    capex_usd_per_chip: Option<f64>,
    /// Years a purchase is amortised over, straight line (default 5).
    #[arg(long, value_name = "YEARS")]
    years: Option<f64>,
    /// Share of the hours an owned deployment is in use, in (0, 1] (default 1).
    #[arg(long, value_name = "SHARE")]
    duty_cycle: Option<f64>,
    /// Idle power as a share of TDP for chips whose catalogue file gives none
    /// (default 0.15).
    #[arg(long, value_name = "SHARE")]
    idle_share: Option<f64>,
    /// The dollars the $/Mtok frontier ranks by: rental (the catalogue's hourly prices,
    /// the default) or ownership (purchase amortised plus electricity).
    #[arg(long, value_name = "rental|ownership")]
    cost_basis: Option<String>,
}

impl CostArgs {
    /// `base` with the flags given applied.
    pub(crate) fn apply(&self, base: CostSettings) -> Result<CostSettings, String> {
        let mut s = base;
        if let Some(v) = self.electricity_usd_kwh {
            s.electricity_usd_kwh = v;
        }
        if let Some(v) = self.pue {
            s.pue = v;
        }
        if let Some(v) = self.capex_usd_per_chip {
            s.capex_usd_per_chip = Some(v);
        }
        if let Some(v) = self.years {
            s.years = v;
        }
        if let Some(v) = self.duty_cycle {
            s.duty_cycle = v;
        }
        if let Some(v) = self.idle_share {
            s.idle_share = v;
        }
        if let Some(b) = &self.cost_basis {
            s.basis = CostBasis::parse(b)
                .ok_or_else(|| format!("--cost-basis {b}: say rental or ownership"))?;
        }
        s.validate().map_err(|e| e.to_string())?;
        Ok(s)
    }
}

/// The point against an API's price for its model (`--api`, or the model's cheapest
/// row at the workload's mix); `None` for a model of the user's own or one the table lacks.
pub(crate) fn against_api(
    inputs: &disagg_engine::bundle::Inputs,
    p: &DeploymentPoint,
    provider: Option<&str>,
) -> Result<Option<api::Against<'static>>, String> {
    let Some(model) = inputs.model_id() else {
        return match provider {
            Some(name) => Err(format!(
                "--api {name}: the model is a config of your own; the API price table maps catalogue models"
            )),
            None => Ok(None),
        };
    };
    let w = inputs.setup().workload;
    api::against(
        api::ApiTable::builtin(),
        &p.figures,
        model,
        provider,
        w.isl as f64,
        w.osl as f64,
    )
    .map_err(|e| e.to_string())
}

pub(crate) fn print_against(a: Option<&api::Against>) {
    let Some(a) = a else { return };
    let b = &a.breakeven;
    let verdict = if b.ever_cheaper() {
        format!(
            "self-hosting is cheaper above {:.3e} tokens a month; one deployment carries {:.3e}",
            b.breakeven_tokens_per_month, b.capacity_tokens_per_month
        )
    } else {
        format!(
            "never cheaper: the break-even {:.3e} tokens a month needs {:.0} deployments of {:.3e} each, and each costs more per token than the API",
            b.breakeven_tokens_per_month, b.replicas, b.capacity_tokens_per_month
        )
    };
    out!(
        "  vs API           {} {} ({}) at ${:.3}/Mtok of this mix ({} $/h): {verdict}",
        a.api.provider,
        a.api.api_model,
        a.choice.describe(),
        b.api_usd_per_mtok,
        a.basis
    );
}

/// `disagg list apis`: the API price table, each row with its date, then the sources.
pub(crate) fn list_apis() {
    let t = api::ApiTable::builtin();
    out!(
        "{:11} {:36} {:16} {:>8} {:>8} {}",
        "provider",
        "api model",
        "models",
        "in $/M",
        "out $/M",
        "read"
    );
    for p in &t.prices {
        out!(
            "{:11} {:36} {:16} {:>8.3} {:>8.3} {}",
            p.provider,
            p.api_model,
            p.models.join(","),
            p.input_usd_per_mtok,
            p.output_usd_per_mtok,
            p.read
        );
    }
    out!("");
    out!("USD per million tokens, each read on the provider's own page; with no --api, predict compares against the model's cheapest row at the workload's mix.");
    let mut seen: Vec<&str> = Vec::new();
    for p in &t.prices {
        if !seen.contains(&p.source.as_str()) {
            seen.push(&p.source);
            out!("source: {}", p.source);
        }
    }
}
