//! Presets: the settings every front end shares ([`TerrainPreset`](crate::TerrainPreset)),
//! reading a preset file with a bound and writing files so that a failure keeps the old one.

pub(crate) mod file;
pub(crate) mod terrain;
