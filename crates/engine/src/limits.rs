//! Every bound the engine puts on its inputs, in one place. The engine checks them
//! before it does any work; the CLI and the page read the same constants, so a value
//! one of them accepts is a value the engine accepts, and the messages agree.

/// Longest prompt, and longest output, a request may have (tokens). The page's
/// length fields and the CLI's flags stop here; a request's whole context is bounded
/// by [`MAX_CONTEXT`].
pub const MAX_LENGTH: u32 = 1_000_000;
/// Longest context the engine accepts (prompt plus output, tokens).
pub const MAX_CONTEXT: u64 = 2 * MAX_LENGTH as u64;
/// Largest output-length spread (standard deviation over mean).
pub const MAX_OUTPUT_CV: f64 = 10.0;
/// Largest concurrency (sequences in flight) the engine accepts.
pub const MAX_BATCH: u32 = 10_000_000;

/// Most decode steps between a scheduler's polls for new requests
/// (`Assumptions::scheduler_recv_interval`).
pub const MAX_RECV_INTERVAL: u32 = 10_000;
/// Most prompts a benchmark run may send in all (`Workload::prompts`).
pub const MAX_PROMPTS: u32 = 1_000_000_000;
/// Range of prompts a benchmark may send per user (`Workload::prompts_per_user`): at
/// least one each, at most a million.
pub const PROMPTS_PER_USER: std::ops::RangeInclusive<f64> = 1.0..=1e6;
/// Requests per second an open loop may arrive at (`disagg::open_loop::at_rate`).
pub const REQUEST_RATE: std::ops::RangeInclusive<f64> = 1e-6..=1e7;
/// Most chips one pool may hold.
pub const MAX_CHIPS: u32 = 1_000_000;
/// Largest integer a model config's size field may hold (vocabulary, widths, head and
/// expert counts, windows, positions): 2^24, far above any real model, small enough that
/// products of two such fields stay exact and no allocation follows from one.
pub const MAX_CONFIG_VALUE: u32 = 1 << 24;
/// Longest `config.json` text a user may give (a link, a paste, an upload): real configs
/// are a few kilobytes; the largest with per-layer lists stay well under this.
pub const MAX_CONFIG_BYTES: usize = 256 * 1024;
/// Most layers a model config may have, and the longest per-layer list it may carry
/// (`layer_types`, `moe_layers_enum`, `block_configs`, ...).
pub const MAX_LAYERS: u32 = 10_000;
/// Lowest efficiency (share of a peak rate) an assumption may state.
pub const MIN_EFFICIENCY: f64 = 0.01;
/// Slowest and fastest per-chip link between pools a user may state, in bytes per
/// second: a kilobit per second, and a petabyte per second.
pub const LINK_BYTES_PER_S: std::ops::RangeInclusive<f64> = 125.0..=1e15;
/// Bits per weight a weight-format override may state (GGUF-like formats).
pub const BITS_PER_WEIGHT: std::ops::RangeInclusive<f64> = 1.0..=32.0;
/// Tokens a speculation cycle may draft.
pub const MAX_DRAFT_TOKENS: u32 = 16;
/// Most streaming multiprocessors (or compute units) a chip may state.
pub const MAX_SMS: u32 = 100_000;
/// Most decoder layers of an EAGLE draft head (the published heads have one).
pub const MAX_EAGLE_LAYERS: u32 = 8;
/// Most redundant expert slots a deployment adds (DeepSeek's serving adds 32 to 256).
pub const MAX_REDUNDANT_EXPERTS: u32 = 4096;
/// Most stages a pipeline across unlike devices may have (`disagg::pipeline`): one
/// machine per stage, far more than any desk holds.
pub const MAX_PIPELINE_STAGES: usize = 64;
/// Attention/expert ping-pong depth.
pub const MAX_MICRO_BATCHES: u32 = 8;
/// Most chip kinds one sweep pairs: the pairings grow with the square of the kinds,
/// and all ordered pairs of 12 kinds keep the page interactive.
pub const MAX_SWEEP_CHIP_KINDS: usize = 12;
/// Highest prefix-cache hit share the page takes, in percent: some of every prompt is
/// always computed (the engine leaves at least one token to prefill). Benchmarks of a
/// shared prefix reach past 99% (2,032 of 2,048 tokens, 99.2%, in rows VUL02 to 05).
pub const MAX_PREFIX_HIT_PCT: f64 = 99.99;
/// Largest chip budget a sweep accepts.
pub const MAX_SWEEP_CHIPS: u32 = 4096;
/// The chip budget a sweep uses when none is given.
pub const DEFAULT_SWEEP_CHIPS: u32 = 64;
/// Largest bundle a reader takes (bytes): a user's config (at most
/// [`MAX_CONFIG_BYTES`], escaped) twice over for a draft, and a dozen chip records
/// with their provenance, fit with room to spare.
pub const MAX_BUNDLE_BYTES: usize = 2 * 1024 * 1024;
/// Longest name or id a bundle's chip or model may carry (characters).
pub const MAX_NAME_CHARS: usize = 200;
/// Highest interactivity (tok/s per user) a sweep's target may state, and longest
/// latency limit (milliseconds) a bundle may carry: far beyond any deployment, so only
/// a slipped unit meets them.
pub const MAX_TARGET_TOK_S_USER: f64 = 1e9;
pub const MAX_LATENCY_LIMIT_MS: f64 = 1e9;
/// Most chips of a user's own (clones and template chips) one catalogue takes.
pub const MAX_USER_CHIPS: usize = 8;
/// Longest id a user's own chip may have.
pub const MAX_USER_CHIP_ID: usize = 32;
/// Most chip kinds one recommendation searches: one sweep per kind and axis, so the
/// whole catalogue with a user's own chips fits and the page stays responsive.
pub const MAX_RECOMMEND_CHIP_KINDS: usize = 48;
/// Most chips one replica of a recommended deployment holds (the budget of each of
/// its sweeps); replicas of it make up the demand, within the request's chip bound.
pub const RECOMMEND_REPLICA_CHIPS: u32 = 64;
/// The chip bound a recommendation uses when none is given (all replicas together).
pub const DEFAULT_RECOMMEND_CHIPS: u32 = 1024;
/// Electricity price a cost setting may state, USD per kWh (`--electricity-usd-kwh`).
pub const ELECTRICITY_USD_KWH: std::ops::RangeInclusive<f64> = 0.0..=10.0;
/// Power usage effectiveness a cost setting may state (`--pue`): 1 is no overhead.
pub const PUE: std::ops::RangeInclusive<f64> = 1.0..=5.0;
/// Purchase price of one chip a user may state, USD (`--capex-usd-per-chip`).
pub const CAPEX_USD_PER_CHIP: std::ops::RangeInclusive<f64> = 0.0..=1e8;
/// Years an owned chip's purchase may be spread over (`--years`).
pub const OWNERSHIP_YEARS: std::ops::RangeInclusive<f64> = 0.1..=30.0;
/// Share of the hours an owned deployment is in use (`--duty-cycle`).
pub const DUTY_CYCLE: std::ops::RangeInclusive<f64> = 0.01..=1.0;
/// Idle power as a share of TDP for chips with no catalogued idle power (`--idle-share`).
pub const IDLE_SHARE: std::ops::RangeInclusive<f64> = 0.0..=1.0;
/// Monthly token volume a break-even may be asked about, and most replicas it reports.
pub const MAX_MONTHLY_TOKENS: f64 = 1e18;
