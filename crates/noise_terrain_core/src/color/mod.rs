//! Colours: the height ramp and the rules that paint layers over it by height, slope and the
//! erosion filter's cut.

pub(crate) mod erosion_tint;
pub(crate) mod ramp;
pub(crate) mod rules;
