//! Presets: reading a preset file with a bound, shared by the plugin and the tool.

pub(crate) mod file;
