//! NVIDIA Dynamo with vLLM workers: a frontend (`python3 -m dynamo.frontend`) and one
//! worker command per pool (`python3 -m dynamo.vllm`, which takes vLLM's engine
//! arguments), the prefill and decode workers marked by `--disaggregation-mode`
//! (Dynamo's `examples/backends/vllm/launch/disagg.sh`).

use super::command::{Command, Tool};
use super::{pool_title, vllm, Builder, LaunchModel, PoolPlan, Side};
use crate::disagg::{PoolRole, Setup};

pub(super) fn build(b: &mut Builder, setup: &Setup, model: &LaunchModel, plans: &[PoolPlan]) {
    let mut f = Command::new("frontend (HTTP, routing)", Tool::DynamoFrontend, None);
    f.arg("--http-port", 8000);
    b.command(f);
    for plan in plans.iter().filter(|p| p.role != PoolRole::Draft) {
        let mut c = Command::new(
            format!("{} worker", pool_title(plan)),
            Tool::DynamoVllm,
            None,
        );
        c.arg("--model", &model.repo);
        vllm::engine_args(b, &mut c, setup, model, plan);
        if let Some(side) = plan.side {
            c.arg(
                "--disaggregation-mode",
                if side == Side::Prefill {
                    "prefill"
                } else {
                    "decode"
                },
            );
        }
        vllm::place(b, c, plan);
    }
    b.note("Dynamo's components find each other through etcd and NATS: start both first (Dynamo's deploy/docker-compose.yml)".into());
}
