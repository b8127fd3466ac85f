//! How the replicas of one expert group share their prefill steps (`audit/MODEL.md` 6.1).

/// The prefill steps of one generation round as a replica's expert group lives them.
///
/// Replicas that share an expert group (attention data parallelism over expert
/// parallelism) meet at every MoE layer, so a step lasts as long as its busiest
/// replica. Aligned, the group's replicas prefill their chunks in the same steps: `c`
/// steps per round, each carrying every replica's chunk. Unaligned, each replica places
/// its `c` chunk steps on its own schedule; taking the places as independent and
/// uniform over the round's `iterations + c` steps, the group sees a chunk in
/// `(iterations + c) * (1 - (1 - c / (iterations + c))^n)` of them, each carrying the
/// chunks of `n * c / steps` replicas on average, and every other replica waits for them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GroupPrefill {
    /// Steps per round that carry a prefill chunk.
    pub steps: f64,
    /// Replicas whose chunks each of those steps carries, on average.
    pub replicas: f64,
}

impl GroupPrefill {
    /// `chunks` prefill chunks per replica and round, `iterations` generation steps
    /// per round, `group` replicas per expert group.
    pub fn of_round(chunks: f64, iterations: f64, group: u32, aligned: bool) -> GroupPrefill {
        let n = group.max(1) as f64;
        let steps = iterations.max(0.0) + chunks;
        if n <= 1.0 || aligned || chunks <= 0.0 || steps <= 0.0 {
            return GroupPrefill {
                steps: chunks.max(0.0),
                replicas: n,
            };
        }
        let share = chunks / steps;
        let with_chunk = steps * (1.0 - (1.0 - share).powf(n));
        GroupPrefill {
            steps: with_chunk,
            replicas: (n * chunks / with_chunk).clamp(1.0, n),
        }
    }
}
