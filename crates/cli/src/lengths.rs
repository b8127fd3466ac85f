//! The workload's flags, shared by `predict`, `sweep` and `recommend`: request lengths,
//! their spread, the cached prefix, a benchmark's number of prompts and a finite run,
//! each checked under its own flag's name before the engine sees it.

use disagg_engine::limits::{MAX_LENGTH, MAX_OUTPUT_CV, MAX_PROMPTS, PROMPTS_PER_USER};
use disagg_engine::{FiniteRun, Workload};

/// The request lengths, shared by `predict`, `sweep` and `recommend`.
#[derive(clap::Args, Debug)]
pub(crate) struct LengthArgs {
    /// Prompt length in tokens.
    #[arg(long, required_unless_present = "bundle")]
    isl: Option<u32>,
    /// Output length in tokens (the mean, where lengths vary).
    #[arg(long, required_unless_present = "bundle")]
    osl: Option<u32>,
    /// Leading prompt tokens served from a prefix cache (their KV is already resident);
    /// prefill computes the rest.
    #[arg(long, default_value_t = 0)]
    cached: u32,
    /// Spread of the output lengths: standard deviation over mean (0: every request
    /// generates --osl tokens). Long requests stay in the batch longer, so running
    /// sequences hold more KV and attend over more context than the mean request.
    #[arg(long, default_value_t = 0.0)]
    output_cv: f64,
    /// Prompts the benchmark sends in all at --batch users (its --num-prompts): the
    /// first --batch arrive together, and their wait for each other's prefill is mixed
    /// into the mean TTFT (default: the steady loop only).
    #[arg(long, conflicts_with = "prompts_per_user")]
    prompts: Option<u32>,
    /// Prompts the benchmark sends per user, so --prompts at every batch is this times
    /// the batch rounded up (InferenceMAX sends 10; for a sweep over batches, where one
    /// --prompts would not scale).
    #[arg(long)]
    prompts_per_user: Option<f64>,
    /// A run of this many requests, all waiting from its start, whose rates are read to
    /// its last request's end, as MLPerf's Offline scenario and trtllm-bench's
    /// throughput run time them: the batch drains at the end and the run loses that time
    /// (needs --longest-output; default: the steady loop only).
    #[arg(long, requires = "longest_output")]
    run_requests: Option<u32>,
    /// With --run-requests: the longest output a request may have (the dataset's
    /// longest, or the benchmark's cap), which the last sequence of the drain runs to:
    /// from --osl up to what the run's outputs add up to, less a token for each other
    /// request.
    #[arg(long, requires = "run_requests")]
    longest_output: Option<u32>,
}

impl LengthArgs {
    /// The workload, each bound checked against the flag that sets it (the engine's
    /// bounds, from `limits`), so that a refusal names the flag.
    pub(crate) fn workload(&self) -> Result<Workload, String> {
        let (Some(isl), Some(osl)) = (self.isl, self.osl) else {
            return Err("--isl and --osl are required without --bundle".into());
        };
        for (flag, length) in [("--isl", isl), ("--osl", osl)] {
            if !(1..=MAX_LENGTH).contains(&length) {
                return Err(format!(
                    "{flag} {length} must be a whole number of tokens from 1 to {MAX_LENGTH}"
                ));
            }
        }
        if self.cached >= isl {
            return Err(format!(
                "--cached {} must be fewer than --isl {isl}: prefill computes at least one token",
                self.cached
            ));
        }
        if !(0.0..=MAX_OUTPUT_CV).contains(&self.output_cv) {
            return Err(format!(
                "--output-cv {:?} must be a spread (standard deviation over mean) from 0 to {MAX_OUTPUT_CV}",
                self.output_cv
            ));
        }
        if let Some(n) = self.prompts.filter(|n| !(1..=MAX_PROMPTS).contains(n)) {
            return Err(format!(
                "--prompts {n} must lie between 1 and {MAX_PROMPTS}"
            ));
        }
        if let Some(m) = self
            .prompts_per_user
            .filter(|m| !(m.is_finite() && PROMPTS_PER_USER.contains(m)))
        {
            return Err(format!(
                "--prompts-per-user {} must lie between {} and {}",
                disagg_engine::error::echoed(m),
                PROMPTS_PER_USER.start(),
                PROMPTS_PER_USER.end()
            ));
        }
        let finite_run = match (self.run_requests, self.longest_output) {
            (Some(requests), Some(longest_output)) => {
                if !(1..=MAX_PROMPTS).contains(&requests) {
                    return Err(format!(
                        "--run-requests {requests} must lie between 1 and {MAX_PROMPTS}"
                    ));
                }
                let most = FiniteRun::longest_possible(requests, osl);
                if !(osl..=most).contains(&longest_output) {
                    return Err(format!(
                        "--longest-output {longest_output} must lie between --osl {osl} and {most} tokens (--run-requests {requests} outputs of mean --osl add up to {requests} x {osl}, and each other request yields at least one)"
                    ));
                }
                Some(FiniteRun {
                    requests,
                    longest_output,
                })
            }
            _ => None,
        };
        Ok(Workload {
            isl,
            osl,
            cached: self.cached,
            output_cv: self.output_cv,
            rate: None,
            prompts: self.prompts,
            prompts_per_user: self.prompts_per_user,
            finite_run,
        })
    }
}
