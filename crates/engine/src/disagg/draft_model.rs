//! A draft as a model the kernel costs: the target's MTP layers, an EAGLE head
//! (`MODEL.md` 6.7), or a separate draft model. `draft_model` is the one place a
//! setup's draft becomes a [`ModelIr`]; the speculative axis re-exports these.

use super::{Draft, Setup};
use crate::model::{Ffn, ModelIr};

/// The MTP layers as a model of their own: the target's last layer shape, repeated
/// `mtp_layers` times, sharing the target's embedding and LM head.
pub fn mtp_model(target: &ModelIr) -> Option<ModelIr> {
    if target.mtp_layers == 0 {
        return None;
    }
    let mut last = *target.groups.last()?;
    last.count = target.mtp_layers;
    Some(ModelIr {
        architecture: format!("{} MTP", target.architecture),
        num_layers: target.mtp_layers,
        groups: vec![last],
        ..target.clone()
    })
}

/// An EAGLE draft head as a model of its own: `layers` decoder layers of the target's
/// width with the attention of its first layer without experts (its last layer when
/// every layer has experts), sharing the target's embedding and LM head. The head's
/// FFN is dense: the target's dense FFN when it has one (DeepSeek-V3's first layers),
/// else one as wide as a token's active experts (`top_k * i_e + i_s`), since the
/// published heads are dense layers even for MoE targets. The head attends over the
/// whole context (no sliding window). Left out (`audit/AUDIT.md`): EAGLE-3's fusion of
/// three feature vectors (one `3h x h` matrix) and its smaller draft vocabulary.
pub fn eagle_model(target: &ModelIr, layers: u32) -> Option<ModelIr> {
    let mut layer = *target
        .groups
        .iter()
        .find(|g| !g.ffn.is_moe() && g.attention.has_weights())
        .or(target.groups.last())?;
    layer.count = layers;
    layer.window = None;
    if let Ffn::Moe {
        top_k,
        expert_intermediate,
        shared_intermediate,
        ..
    } = layer.ffn
    {
        layer.ffn = Ffn::Dense {
            intermediate: top_k * expert_intermediate + shared_intermediate,
        };
    }
    Some(ModelIr {
        architecture: format!("{} EAGLE head", target.architecture),
        num_layers: layers,
        groups: vec![layer],
        mtp_layers: 0,
        ..target.clone()
    })
}

/// The draft as a model: the MTP layers, the EAGLE head or the draft model.
pub fn draft_model<'m>(setup: &Setup<'m>) -> Option<std::borrow::Cow<'m, ModelIr>> {
    use std::borrow::Cow;
    match setup.speculation.draft {
        Draft::Mtp => mtp_model(setup.model).map(Cow::Owned),
        Draft::Eagle { layers } => eagle_model(setup.model, layers).map(Cow::Owned),
        Draft::Model { ir, .. } => Some(Cow::Borrowed(ir)),
    }
}
