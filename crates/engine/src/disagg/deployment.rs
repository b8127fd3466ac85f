//! A deployment: its axis, its pools (a chip and a layout each) and its batch; and the
//! same written with chip ids ([`DeploymentSpec`]), what sweep points and links store.

use super::{Axis, PoolRole};
use crate::catalogue::Chip;
use crate::error::{EngineError, Result};
use crate::parallel::Parallelism;
use serde::{Deserialize, Serialize};

/// One pool: a chip and how the model (or its part) is laid out on its chips.
#[derive(Clone, Copy, Debug)]
pub struct PoolConfig<'a> {
    pub chip: &'a Chip,
    pub parallelism: Parallelism,
}

impl PoolConfig<'_> {
    pub fn chips(&self) -> u32 {
        self.parallelism.chips()
    }
}

/// A deployment to evaluate: the axis, its pools and the batch (concurrent sequences).
#[derive(Clone, Copy, Debug)]
pub enum Deployment<'a> {
    Aggregated {
        pool: PoolConfig<'a>,
        batch: u32,
    },
    PrefillDecode {
        prefill: PoolConfig<'a>,
        decode: PoolConfig<'a>,
        batch: u32,
    },
    AttentionExpert {
        attention: PoolConfig<'a>,
        experts: PoolConfig<'a>,
        micro_batches: u32,
        batch: u32,
    },
    Speculative {
        target: PoolConfig<'a>,
        /// `None`: the draft runs on the target's chips.
        draft: Option<PoolConfig<'a>>,
        batch: u32,
    },
}

impl<'a> Deployment<'a> {
    pub fn axis(&self) -> Axis {
        match self {
            Deployment::Aggregated { .. } => Axis::Aggregated,
            Deployment::PrefillDecode { .. } => Axis::PrefillDecode,
            Deployment::AttentionExpert { .. } => Axis::AttentionExpert,
            Deployment::Speculative { .. } => Axis::Speculative,
        }
    }

    /// The same deployment at another batch.
    pub fn with_batch(&self, b: u32) -> Deployment<'a> {
        let mut d = *self;
        match &mut d {
            Deployment::Aggregated { batch, .. }
            | Deployment::PrefillDecode { batch, .. }
            | Deployment::AttentionExpert { batch, .. }
            | Deployment::Speculative { batch, .. } => *batch = b,
        }
        d
    }

    /// The pool that holds the sequences while they generate, whose replicas bound
    /// the batch.
    pub fn generating_pool(&self) -> PoolConfig<'a> {
        match *self {
            Deployment::Aggregated { pool, .. } => pool,
            Deployment::PrefillDecode { decode, .. } => decode,
            Deployment::AttentionExpert { attention, .. } => attention,
            Deployment::Speculative { target, .. } => target,
        }
    }

    pub fn batch(&self) -> u32 {
        match *self {
            Deployment::Aggregated { batch, .. }
            | Deployment::PrefillDecode { batch, .. }
            | Deployment::AttentionExpert { batch, .. }
            | Deployment::Speculative { batch, .. } => batch,
        }
    }

    /// The pools with their roles, first pool first.
    pub fn pools(&self) -> Vec<(PoolRole, PoolConfig<'a>)> {
        match *self {
            Deployment::Aggregated { pool, .. } => vec![(PoolRole::Colocated, pool)],
            Deployment::PrefillDecode {
                prefill, decode, ..
            } => vec![(PoolRole::Prefill, prefill), (PoolRole::Decode, decode)],
            Deployment::AttentionExpert {
                attention, experts, ..
            } => vec![
                (PoolRole::Attention, attention),
                (PoolRole::Experts, experts),
            ],
            Deployment::Speculative { target, draft, .. } => {
                let mut pools = vec![(PoolRole::Target, target)];
                pools.extend(draft.map(|d| (PoolRole::Draft, d)));
                pools
            }
        }
    }

    /// Mixed chips: the pools are not all the same chip.
    pub fn heterogeneous(&self) -> bool {
        let pools = self.pools();
        pools.iter().any(|(_, p)| p.chip.id != pools[0].1.chip.id)
    }

    pub fn chips(&self) -> u32 {
        self.pools().iter().map(|(_, p)| p.chips()).sum()
    }
}

/// A deployment written with chip ids instead of chip references: what a sweep point,
/// a link or a file stores, and what [`DeploymentSpec::resolve`] turns back into a
/// [`Deployment`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DeploymentSpec {
    pub axis: Axis,
    pub pools: Vec<PoolSpec>,
    pub batch: u32,
    /// Attention/expert ping-pong depth (1 elsewhere).
    pub micro_batches: u32,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PoolSpec {
    pub role: PoolRole,
    pub chip: String,
    pub parallelism: Parallelism,
}

impl Deployment<'_> {
    pub fn spec(&self) -> DeploymentSpec {
        DeploymentSpec {
            axis: self.axis(),
            pools: self
                .pools()
                .into_iter()
                .map(|(role, p)| PoolSpec {
                    role,
                    chip: p.chip.id.clone(),
                    parallelism: p.parallelism,
                })
                .collect(),
            batch: self.batch(),
            micro_batches: match self {
                Deployment::AttentionExpert { micro_batches, .. } => *micro_batches,
                _ => 1,
            },
        }
    }

    /// Short description for legends: "prefill on H100 SXM, decode on MI300X".
    pub fn roles_phrase(&self) -> String {
        let pools = self.pools();
        if !self.heterogeneous() {
            return format!("all {}", pools[0].1.chip.name);
        }
        pools
            .iter()
            .map(|(role, p)| format!("{} on {}", role.name(), p.chip.name))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

impl DeploymentSpec {
    /// Looks the chips up; an unknown chip or a missing pool is an error.
    pub fn resolve<'a>(
        &self,
        catalogue: &'a crate::catalogue::Catalogue,
    ) -> Result<Deployment<'a>> {
        self.resolve_with(|id| catalogue.chip(id))
    }

    /// Looks the chips up with `chip` (a catalogue, or a sweep's own chip list).
    pub fn resolve_with<'a>(
        &self,
        chip: impl Fn(&str) -> Result<&'a Chip>,
    ) -> Result<Deployment<'a>> {
        let pool = |role: PoolRole| -> Result<Option<PoolConfig<'a>>> {
            self.pools
                .iter()
                .find(|p| p.role == role)
                .map(|p| {
                    Ok(PoolConfig {
                        chip: chip(&p.chip)?,
                        parallelism: p.parallelism,
                    })
                })
                .transpose()
        };
        let need = |role: PoolRole| -> Result<PoolConfig<'a>> {
            pool(role)?.ok_or_else(|| {
                EngineError::InvalidInput(format!("the {} pool is missing", role.name()))
            })
        };
        let batch = self.batch;
        Ok(match self.axis {
            Axis::Aggregated => Deployment::Aggregated {
                pool: need(PoolRole::Colocated)?,
                batch,
            },
            Axis::PrefillDecode => Deployment::PrefillDecode {
                prefill: need(PoolRole::Prefill)?,
                decode: need(PoolRole::Decode)?,
                batch,
            },
            Axis::AttentionExpert => Deployment::AttentionExpert {
                attention: need(PoolRole::Attention)?,
                experts: need(PoolRole::Experts)?,
                micro_batches: self.micro_batches,
                batch,
            },
            Axis::Speculative => Deployment::Speculative {
                target: need(PoolRole::Target)?,
                draft: pool(PoolRole::Draft)?,
                batch,
            },
        })
    }
}
