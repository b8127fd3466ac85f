//! Bounded-time fuzzing of the command line: random argument vectors built from the
//! real flags with hostile values. Every run must end with success or a message (exit
//! 1 or 2), never a panic, and print no NaN or infinity. `DISAGG_FUZZ_INPUTS` runs
//! longer: `DISAGG_FUZZ_INPUTS=5000 cargo test --release -p disagg-cli --test it fuzz`.

use super::disagg;
use std::time::{Duration, Instant};

const VALUES: [&str; 17] = [
    "0",
    "1",
    "-1",
    "3",
    "8",
    "64",
    "4294967296",
    "1e308",
    "NaN",
    "-0",
    "0.5",
    "",
    "x",
    "h100-sxm",
    "deepseek-v3",
    "1e-320",
    "eagle",
];
const FLAGS: [&str; 27] = [
    "--chip",
    "--chips",
    "--tp",
    "--pp",
    "--ep",
    "--isl",
    "--osl",
    "--batch",
    "--cached",
    "--output-cv",
    "--weight-dtype",
    "--weight-bits",
    "--kv-dtype",
    "--axis",
    "--prefill-chips",
    "--decode-chips",
    "--attn-chips",
    "--expert-chips",
    "--micro-batches",
    "--acceptance",
    "--draft-tokens",
    "--draft-model",
    "--eagle-layers",
    "--redundant-experts",
    "--link-gbps",
    "--max-chips",
    "--target-tok-s-user",
];

#[test]
fn fuzz_argument_vectors() {
    let env = |k: &str| std::env::var(k).ok().and_then(|v| v.parse::<u64>().ok());
    let mut state = env("DISAGG_FUZZ_SEED").unwrap_or(0xc1_1a_57).max(1);
    let inputs = env("DISAGG_FUZZ_INPUTS").unwrap_or(150) as usize;
    let budget = Duration::from_secs(if env("DISAGG_FUZZ_INPUTS").is_some() {
        u64::MAX / 4
    } else {
        4
    });
    let mut next = || {
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        state.wrapping_mul(0x2545_f491_4f6c_dd1d) as usize
    };
    let start = Instant::now();
    let mut tried = 0;
    while tried < inputs && start.elapsed() < budget {
        let mut args: Vec<String> = match next() % 3 {
            // A valid prediction to start from, then hostile edits.
            0 => "predict --model llama-3.1-8b --chip h100-sxm --chips 2 --isl 512 --osl 64 --batch 8",
            1 => "predict --model deepseek-v3 --axis pd --prefill-chip h200 --prefill-chips 8 --decode-chip b200 --decode-chips 8 --isl 512 --osl 64 --batch 16",
            _ => "sweep --model llama-3.1-8b --axis pd --chips h100-sxm,l40s --isl 512 --osl 64 --max-chips 4",
        }
        .split(' ')
        .map(String::from)
        .collect();
        for _ in 0..1 + next() % 4 {
            let flag = FLAGS[next() % FLAGS.len()].to_string();
            let value = VALUES[next() % VALUES.len()].to_string();
            match next() % 4 {
                // A sweep's budget stays small, so that each run is quick.
                _ if flag == "--max-chips" && args[0] == "sweep" => {}
                0 => args.push(flag),
                _ => args.extend([flag, value]),
            }
        }
        let refs: Vec<&str> = args.iter().map(String::as_str).collect();
        let o = disagg(&refs);
        let (out, err) = (
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr),
        );
        let code = o.status.code();
        assert!(
            matches!(code, Some(0..=2)),
            "{args:?}: exit {code:?}\n{err}"
        );
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        for word in out.split(|c: char| c.is_whitespace() || c == ',' || c == '"') {
            assert!(
                !matches!(word, "NaN" | "inf" | "-inf" | "nan"),
                "{args:?} printed {word}"
            );
        }
        tried += 1;
    }
    println!("fuzz argument vectors: {tried} runs");
}
