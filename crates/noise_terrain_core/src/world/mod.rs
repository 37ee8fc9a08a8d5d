//! The endless world: which chunks exist around the foci at which level of detail, how their
//! edges meet, and where each samples the field.

pub(crate) mod chunks;
pub(crate) mod layout;
pub(crate) mod lod;
