//! Launch commands for an evaluated deployment: the same pools, layouts, batch limits,
//! token budgets, KV dtype and speculation, written as vLLM, SGLang, TensorRT-LLM or
//! NVIDIA Dynamo would be started. Plain logic (no I/O), shared by the CLI's
//! `disagg deploy` and the page's "Copy launch command".
//!
//! Every flag is one the framework's own argument parser or documentation defines;
//! their lists and sources are kept in the engine's tests (`tests/it/deploy.rs`) and
//! in `audit/AUDIT.md` ("Launch commands"). What a framework cannot express (an
//! attention/expert split, a draft on chips of its own, an expert-parallel size it
//! derives itself) is said in [`Launch::notes`], never written as an invented flag.

mod command;
mod dynamo;
mod sglang;
mod trtllm;
mod vllm;

pub use command::{Arg, Command, Tool};

use crate::assumptions::ExpertExchange;
use crate::bundle::Inputs;
use crate::catalogue::Chip;
use crate::disagg::{Axis, Deployment, DeploymentPoint, Draft, PoolRole, Setup};
use crate::dtype::DType;
use crate::error::{EngineError, Result};
use crate::parallel::Parallelism;
use crate::serving::{Framework, FrameworkChoice};
use serde::Serialize;
use std::fmt;
use std::str::FromStr;

/// Where a launch runs: three serving frameworks, and NVIDIA Dynamo in front of
/// vLLM workers for prefill/decode.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum LaunchFramework {
    Vllm,
    Sglang,
    Trtllm,
    Dynamo,
}

impl LaunchFramework {
    pub const ALL: [LaunchFramework; 4] = [
        LaunchFramework::Vllm,
        LaunchFramework::Sglang,
        LaunchFramework::Trtllm,
        LaunchFramework::Dynamo,
    ];

    pub fn id(self) -> &'static str {
        match self {
            LaunchFramework::Vllm => "vllm",
            LaunchFramework::Sglang => "sglang",
            LaunchFramework::Trtllm => "trtllm",
            LaunchFramework::Dynamo => "dynamo",
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            LaunchFramework::Vllm => "vLLM",
            LaunchFramework::Sglang => "SGLang",
            LaunchFramework::Trtllm => "TensorRT-LLM",
            LaunchFramework::Dynamo => "NVIDIA Dynamo (vLLM workers)",
        }
    }

    /// The serving framework whose defaults a prediction for this launch takes
    /// (Dynamo's workers run vLLM).
    pub fn serving(self) -> Framework {
        match self {
            LaunchFramework::Vllm | LaunchFramework::Dynamo => Framework::Vllm,
            LaunchFramework::Sglang => Framework::Sglang,
            LaunchFramework::Trtllm => Framework::TrtLlm,
        }
    }

    /// The launch a scenario's framework choice suggests: the same framework where it
    /// is one of the three, vLLM otherwise.
    pub fn for_choice(choice: FrameworkChoice) -> LaunchFramework {
        match choice {
            FrameworkChoice::Given(Framework::Sglang) => LaunchFramework::Sglang,
            FrameworkChoice::Given(Framework::TrtLlm) => LaunchFramework::Trtllm,
            _ => LaunchFramework::Vllm,
        }
    }
}

impl fmt::Display for LaunchFramework {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id())
    }
}

impl FromStr for LaunchFramework {
    type Err = String;
    fn from_str(s: &str) -> std::result::Result<LaunchFramework, String> {
        let lower = s.trim().to_ascii_lowercase();
        LaunchFramework::ALL
            .into_iter()
            .find(|f| f.id() == lower)
            .ok_or_else(|| {
                format!("unknown launch framework '{s}'; valid: vllm, sglang, trtllm, dynamo")
            })
    }
}

/// The model's names a launch needs: its HuggingFace repository, its usual weight
/// format (a checkpoint in another format needs a flag or another checkpoint), and
/// the draft model's repository where a draft model speculates.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LaunchModel {
    pub repo: String,
    pub default_weights: DType,
    pub draft_repo: Option<String>,
}

/// The placeholder for a repository the catalogue does not name (a pasted config).
pub const REPO_PLACEHOLDER: &str = "$MODEL_REPO";

impl LaunchModel {
    /// The bundle's model and draft, as the launch names them.
    pub fn of(inputs: &Inputs) -> LaunchModel {
        let repo = |r: &str| {
            if r.is_empty() {
                REPO_PLACEHOLDER.to_string()
            } else {
                r.to_string()
            }
        };
        LaunchModel {
            repo: repo(&inputs.model().hf_repo),
            default_weights: inputs.model().default_weight_dtype,
            draft_repo: inputs.draft().map(|d| repo(&d.hf_repo)),
        }
    }
}

/// A pool as one framework starts it: how many servers of how many chips, on how
/// many nodes.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PoolLaunch {
    pub role: PoolRole,
    pub chip: String,
    pub chips: u32,
    pub servers: u32,
    pub chips_per_server: u32,
    pub nodes: u32,
}

/// A file a command reads (TensorRT-LLM's extra options, its disaggregated config).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ConfigFile {
    pub name: String,
    pub text: String,
}

/// A value the user must supply before running: a shell variable and what it is.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Placeholder {
    pub name: String,
    pub meaning: String,
}

/// The launch of one deployment on one framework.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Launch {
    pub framework: LaunchFramework,
    pub model: String,
    /// Chips per node the commands assume.
    pub gpus_per_node: u32,
    pub nodes: u32,
    pub pools: Vec<PoolLaunch>,
    pub placeholders: Vec<Placeholder>,
    pub files: Vec<ConfigFile>,
    pub commands: Vec<Command>,
    /// What the framework cannot express, and what the user must do by hand.
    pub notes: Vec<String>,
}

impl Launch {
    /// Everything as one shell script: the placeholders to fill, the files, then each
    /// command under its title; the notes as comments.
    pub fn script(&self) -> String {
        let mut out = vec![if self.commands.is_empty() {
            format!(
                "# {} cannot launch {} as modelled",
                self.framework.name(),
                self.model
            )
        } else {
            format!(
                "# {} launch of {} on {} node{} ({} chips per node)",
                self.framework.name(),
                self.model,
                self.nodes,
                if self.nodes == 1 { "" } else { "s" },
                self.gpus_per_node
            )
        }];
        for n in &self.notes {
            out.push(format!("# note: {n}"));
        }
        for p in &self.placeholders {
            out.push(format!("export {}=FILL_IN  # {}", p.name, p.meaning));
        }
        for f in &self.files {
            // Unquoted EOF: a placeholder the file names ($EAGLE_HEAD_REPO) expands.
            out.push(format!("cat > {} <<EOF\n{}EOF", f.name, f.text));
        }
        for c in &self.commands {
            out.push(format!("# {}", c.title));
            out.push(c.shell());
        }
        out.join("\n") + "\n"
    }
}

/// What a pool's servers run with: its chip and layout and the deployment's limits
/// per replica (an engine instance of `tp x pp` chips).
#[derive(Clone, Copy, Debug)]
pub(crate) struct PoolPlan<'a> {
    pub role: PoolRole,
    pub chip: &'a Chip,
    pub par: Parallelism,
    /// Sequences one replica runs at once: the deployment's, rounded up.
    pub seqs: u32,
    /// Prompt tokens one replica's step takes (its chunked-prefill budget).
    pub tokens: u32,
    pub gpus_per_node: u32,
    pub speculation: Option<SpecPlan<'a>>,
    /// The pool's side of a prefill/decode split, if any.
    pub side: Option<Side>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Side {
    Prefill,
    Decode,
}

/// How a pool speculates: the draft and the tokens it drafts per cycle.
#[derive(Clone, Copy, Debug)]
pub(crate) struct SpecPlan<'a> {
    pub draft: SpecDraft<'a>,
    pub tokens: u32,
}

#[derive(Clone, Copy, Debug)]
pub(crate) enum SpecDraft<'a> {
    Mtp,
    /// An EAGLE head: its repository is the user's to name.
    Eagle,
    Model(&'a str),
}

/// The placeholder for an EAGLE head's repository, which the catalogue does not hold.
pub(crate) const EAGLE_PLACEHOLDER: &str = "$EAGLE_HEAD_REPO";

impl PoolPlan<'_> {
    pub fn chips(&self) -> u32 {
        self.par.chips()
    }

    /// Nodes `chips` chips take at this pool's chips per node.
    pub fn nodes_for(&self, chips: u32) -> u32 {
        chips.div_ceil(self.gpus_per_node.max(1))
    }
}

/// The speculation a pool runs, if it speculates.
fn speculation_of<'a>(
    setup: &Setup,
    axis: Axis,
    role: PoolRole,
    model: &'a LaunchModel,
) -> Option<SpecPlan<'a>> {
    let speculates = match axis {
        Axis::Speculative => role == PoolRole::Target,
        Axis::PrefillDecode => setup.speculative_decode && role == PoolRole::Decode,
        _ => false,
    };
    speculates.then(|| SpecPlan {
        draft: match setup.speculation.draft {
            Draft::Mtp => SpecDraft::Mtp,
            Draft::Eagle { .. } => SpecDraft::Eagle,
            Draft::Model { .. } => {
                SpecDraft::Model(model.draft_repo.as_deref().unwrap_or("$DRAFT_REPO"))
            }
        },
        tokens: setup.speculation.draft_tokens,
    })
}

/// The chips per node a launch assumes: the user's, or the chip's scale-up domain up
/// to eight (an HGX board; an NVL72 rack's domain spans 18 trays of four).
pub fn default_gpus_per_node(chip: &Chip) -> u32 {
    chip.scale_up_domain.clamp(1, 8)
}

/// The launch of `deployment` (evaluated as `point`) with `framework`. `gpus_per_node`
/// `None` takes [`default_gpus_per_node`] of each pool's chip.
pub fn launch(
    framework: LaunchFramework,
    setup: &Setup,
    deployment: &Deployment,
    point: &DeploymentPoint,
    model: &LaunchModel,
    gpus_per_node: Option<u32>,
) -> Result<Launch> {
    if let Some(g) = gpus_per_node {
        if !(1..=crate::limits::MAX_CHIPS).contains(&g) {
            return Err(EngineError::InvalidInput(format!(
                "chips per node {g} must lie between 1 and {}",
                crate::limits::MAX_CHIPS
            )));
        }
    }
    // A launch of what cannot run would only fail on the machines: say so here.
    if !point.fits {
        return Err(EngineError::InvalidInput(format!(
            "no launch is written for a deployment that cannot run as modelled: {}",
            point
                .reason
                .as_deref()
                .unwrap_or("it does not fit its chips")
        )));
    }
    let axis = deployment.axis();
    let mut plans = Vec::new();
    for (role, pool) in deployment.pools() {
        let report = point.pool(role).ok_or_else(|| {
            EngineError::InvalidInput(format!("the point has no {} pool", role.name()))
        })?;
        let tokens = setup
            .assumptions
            .prefill_chunk_per_replica(pool.chip, pool.parallelism);
        plans.push(PoolPlan {
            role,
            chip: pool.chip,
            par: pool.parallelism,
            seqs: whole(report.seqs_per_replica),
            tokens: whole(tokens),
            gpus_per_node: gpus_per_node.unwrap_or_else(|| default_gpus_per_node(pool.chip)),
            speculation: speculation_of(setup, axis, role, model),
            side: match role {
                PoolRole::Prefill => Some(Side::Prefill),
                PoolRole::Decode => Some(Side::Decode),
                _ => None,
            },
        });
    }
    let mut b = Builder {
        launch: Launch {
            framework,
            model: model.repo.clone(),
            gpus_per_node: plans.first().map_or(1, |p| p.gpus_per_node),
            nodes: 0,
            pools: Vec::new(),
            placeholders: Vec::new(),
            files: Vec::new(),
            commands: Vec::new(),
            notes: Vec::new(),
        },
    };
    shared_notes(&mut b, setup, model, &plans);
    match axis {
        Axis::AttentionExpert => b.note(format!(
            "{} has no flag to run attention and experts on separate pools; this deployment cannot be launched with it as modelled",
            framework.name()
        )),
        _ => match framework {
            LaunchFramework::Vllm => vllm::build(&mut b, setup, model, &plans),
            LaunchFramework::Sglang => sglang::build(&mut b, setup, model, &plans),
            LaunchFramework::Trtllm => trtllm::build(&mut b, setup, model, &plans),
            LaunchFramework::Dynamo => dynamo::build(&mut b, setup, model, &plans),
        },
    }
    if axis == Axis::Speculative && plans.iter().any(|p| p.role == PoolRole::Draft) {
        b.note(format!(
            "{} runs the draft on the target's chips; a draft pool of its own cannot be expressed, so the draft pool's chips go unused",
            framework.name()
        ));
    }
    b.launch.nodes = b.launch.pools.iter().map(|p| p.nodes).sum();
    Ok(b.launch)
}

/// A count the deployment holds as a mean, rounded up to whole sequences or tokens
/// (at least one).
fn whole(v: f64) -> u32 {
    if v.is_finite() && v >= 1.0 {
        v.ceil().min(u32::MAX as f64) as u32
    } else {
        1
    }
}

/// What every framework shares: weights in a format the checkpoint does not ship.
fn shared_notes(b: &mut Builder, setup: &Setup, model: &LaunchModel, plans: &[PoolPlan]) {
    if model.repo == REPO_PLACEHOLDER {
        b.placeholder(
            &REPO_PLACEHOLDER[1..],
            "the HuggingFace repository of your model",
        );
    }
    if plans.iter().any(|p| {
        matches!(
            p.speculation,
            Some(SpecPlan {
                draft: SpecDraft::Eagle,
                ..
            })
        )
    }) {
        b.placeholder(
            &EAGLE_PLACEHOLDER[1..],
            "the HuggingFace repository of an EAGLE-3 head trained for this model",
        );
    }
    let w = setup.weights.dtype;
    if w != model.default_weights && w != DType::Fp8 {
        b.note(format!(
            "the weights are modelled as {w} but {} ships {}: serve a checkpoint already quantised to {w} (the frameworks read its quantisation from its config)",
            model.repo, model.default_weights
        ));
    }
    // Component formats come with the checkpoint, never from a flag.
    for (part, d) in [
        ("the experts", setup.expert_dtype),
        ("the attention output projections", setup.attn_out_dtype),
        ("the LM head and embedding", setup.lm_head_dtype),
    ] {
        if let Some(d) = d.filter(|&d| d != w) {
            b.note(format!(
                "{part} are modelled as {d} beside {w} elsewhere: serve a checkpoint quantised that way; no launch flag sets their format apart"
            ));
        }
    }
    if setup.weights.bits_override.is_some() {
        b.note("a bits-per-weight override (a GGUF-like format) has no launch flag in these frameworks".into());
    }
    serving_setting_notes(b, setup);
    expert_exchange_note(b, setup, plans);
}

/// The serving settings the model runs with that the launch's framework has no flag
/// for (each framework's file writes the ones it has): the scheduler's poll interval
/// and the prefill's two-batch overlap (SGLang's alone), weights offloaded on purpose
/// (SGLang's layer groups, where a group of at most 64 layers gives the share).
fn serving_setting_notes(b: &mut Builder, setup: &Setup) {
    let a = &setup.assumptions;
    let name = b.launch.framework.name();
    let sglang = b.launch.framework == LaunchFramework::Sglang;
    if a.scheduler_recv_interval > 1 && !sglang {
        b.note(format!(
            "the scheduler is modelled polling for new requests every {} decode steps (SGLang's --scheduler-recv-interval); {name} has no such flag and polls every step",
            a.scheduler_recv_interval
        ));
    }
    if a.prefill_two_batch_overlap && !sglang {
        b.note(format!(
            "the prefill is modelled as two overlapped micro-batches (SGLang's --enable-two-batch-overlap); {name} has no such flag"
        ));
    }
    if a.weight_offload > 0.0 && (!sglang || offload_groups(a.weight_offload).is_none()) {
        b.note(format!(
            "{:.3} of the weights are modelled offloaded on purpose; {}",
            a.weight_offload,
            if sglang {
                "no SGLang layer group of at most 64 layers gives that share (--offload-group-size, --offload-num-in-group)".to_string()
            } else {
                format!("{name} has no flag for layer-group offload as modelled")
            }
        ));
    }
}

/// The expert exchange as modelled, where a pool's experts span its attention replicas
/// and the model gathers rather than sends each token to its experts (`MODEL.md` 3.7.1):
/// how each framework is set to run it. No framework takes it as a flag these launches
/// write, so it is said.
fn expert_exchange_note(b: &mut Builder, setup: &Setup, plans: &[PoolPlan]) {
    let gathers = setup.assumptions.expert_exchange == ExpertExchange::GatherScatter;
    if !gathers || plans.iter().all(|p| p.par.replicas_per_expert_group() <= 1) {
        return;
    }
    let how = match b.launch.framework {
        LaunchFramework::Trtllm => "set TRTLLM_FORCE_COMM_METHOD=ALLGATHER in every server's environment (TensorRT-LLM's MoE communication factory, which otherwise picks an all-to-all where the machine runs one)",
        LaunchFramework::Vllm | LaunchFramework::Dynamo => "set vLLM's all2all_backend to allgather_reducescatter (vllm/config/parallel.py, All2AllBackend)",
        LaunchFramework::Sglang => "leave --moe-a2a-backend unset: SGLang's data-parallel attention then gathers its ranks' tokens for the experts (dp_gather in python/sglang/srt/layers/dp_attention.py), by an all-reduce of a zero-filled buffer or a padded all-gather, which the model does not tell apart",
    };
    b.note(format!(
        "the expert exchange is modelled as an all-gather of every replica's tokens and a reduce-scatter of the outputs: {how}"
    ));
}

/// A share of the layers offloaded on purpose as SGLang's layer groups: `n` of every
/// `g` layers (`--offload-group-size g --offload-num-in-group n`), the smallest group of
/// at most 64 layers that gives the share exactly; `None` for no share or one no such
/// group gives.
pub(crate) fn offload_groups(share: f64) -> Option<(u32, u32)> {
    if !(share > 0.0 && share < 1.0) {
        return None;
    }
    (1..=64u32).find_map(|g| {
        let n = (share * g as f64).round();
        ((share * g as f64 - n).abs() < 1e-9 && n >= 1.0).then_some((g, n as u32))
    })
}

/// Whether the weights need an online FP8 quantisation flag: FP8 weights from a
/// checkpoint that ships 16-bit ones.
pub(crate) fn online_fp8(setup: &Setup, model: &LaunchModel) -> bool {
    setup.weights.dtype == DType::Fp8 && matches!(model.default_weights, DType::Bf16 | DType::Fp16)
}

/// The launch under construction.
pub(crate) struct Builder {
    pub launch: Launch,
}

impl Builder {
    pub fn note(&mut self, text: String) {
        if !self.launch.notes.contains(&text) {
            self.launch.notes.push(text);
        }
    }

    pub fn placeholder(&mut self, name: &str, meaning: &str) {
        if !self.launch.placeholders.iter().any(|p| p.name == name) {
            self.launch.placeholders.push(Placeholder {
                name: name.to_string(),
                meaning: meaning.to_string(),
            });
        }
    }

    /// Records a pool as `servers` servers of `chips_per_server` chips on `nodes` nodes.
    pub fn pool(&mut self, plan: &PoolPlan, servers: u32, chips_per_server: u32, nodes: u32) {
        self.launch.pools.push(PoolLaunch {
            role: plan.role,
            chip: plan.chip.name.clone(),
            chips: plan.chips(),
            servers,
            chips_per_server,
            nodes,
        });
    }

    pub fn command(&mut self, c: Command) {
        self.launch.commands.push(c);
    }

    pub fn file(&mut self, name: &str, text: String) {
        self.launch.files.push(ConfigFile {
            name: name.to_string(),
            text,
        });
    }
}

/// "prefill pool", "decode pool" or "the deployment" for a colocated pool.
pub(crate) fn pool_title(plan: &PoolPlan) -> String {
    match plan.role {
        PoolRole::Colocated => format!("{}x {}", plan.chips(), plan.chip.name),
        r => format!("{} pool, {}x {}", r.name(), plan.chips(), plan.chip.name),
    }
}

/// The variable holding the address of a pool's first node: each pool's servers
/// rendezvous on their own head.
pub(crate) fn head_var(plan: &PoolPlan) -> &'static str {
    match plan.side {
        Some(Side::Prefill) => "PREFILL_HEAD_IP",
        Some(Side::Decode) => "DECODE_HEAD_IP",
        None => "HEAD_IP",
    }
}

/// "2 servers" where a command runs more than once.
pub(crate) fn times(n: u32, what: &str) -> String {
    if n == 1 {
        format!("1 {what}")
    } else {
        format!("{n} {what}s, each the same")
    }
}

#[cfg(test)]
mod tests {
    use super::offload_groups;

    #[test]
    fn offload_shares_become_the_smallest_layer_group() {
        for (share, groups) in [
            (0.25, Some((4, 1))),
            (0.6, Some((5, 3))),
            (1.0 / 3.0, Some((3, 1))),
            (0.5, Some((2, 1))),
            (1.0 / 64.0, Some((64, 1))),
            (0.123_456, None),
            (0.0, None),
            (1.0, None),
            (f64::NAN, None),
        ] {
            assert_eq!(offload_groups(share), groups, "{share}");
        }
    }
}
