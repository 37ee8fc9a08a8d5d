//! The flags every map-making subcommand shares: the noise field, its fractal, warp and
//! post-processing, and the preset they override.

use std::path::PathBuf;

use clap::builder::{PossibleValuesParser, TypedValueParser};
use clap::{Args, error::ErrorKind};
use glam::DVec2;
use noise_terrain_core::basis::{DistanceMetric, WorleyReturn};
use noise_terrain_core::limits::{
    AREA_EXPONENT_RANGE, CAPACITY_RANGE, DAMPING_RANGE, DIFFUSION_RANGE, ERODIBILITY_RANGE,
    EROSION_RADIUS_RANGE, EROSION_SCALE_RANGE, FILTER_GAIN_RANGE, FILTER_SCALE_RANGE, FILTER_STRENGTH_RANGE,
    FRACTAL_OFFSET_RANGE, FREQUENCY_RANGE, GAIN_RANGE, GRAVITY_RANGE, INERTIA_RANGE, LACUNARITY_RANGE,
    LIFETIME_RANGE, MAX_DROPLETS, MAX_FILTER_OCTAVES, MAX_OCTAVES, MAX_PERIOD, MAX_STREAM_POWER_STEPS,
    MAX_THERMAL_ITERATIONS, MAX_WARP_AMPLITUDE, MAX_WARP_OCTAVES, MIN_OCTAVES, PERSISTENCE_RANGE,
    RIVER_AREA_RANGE, RIVER_WIDTH_RANGE, SLOPE_EXPONENT_RANGE, TALUS_ANGLE_RANGE, TIME_STEP_RANGE,
    UPLIFT_RANGE, WARP_FREQUENCY_RANGE,
};
use noise_terrain_core::{
    Basis, Border, Erosion, ErosionMaps, Fade, Fractal, GradientKernel, Heightmap, Hydraulic, IslandShape,
    MapWorld, NoiseSettings, PostProcess, Thermal,
};

use crate::help::{self, SHARE};
use crate::preset::Preset;
use crate::usage::usage;

/// A parser for one of our enums by the names its `name()` gives, listing them in `--help`.
fn by_name<T>(all: &'static [T], name: fn(&T) -> &'static str) -> impl TypedValueParser<Value = T>
where
    T: Copy + Send + Sync + 'static,
{
    let names: Vec<&'static str> = all.iter().map(name).collect();
    PossibleValuesParser::new(names)
        .map(move |chosen| *all.iter().find(|v| name(v) == chosen).expect("listed"))
}

/// A parser for an `f32` within `[lo, hi]`: out of range is an error that names the range.
pub(crate) fn within(
    (lo, hi): (f32, f32),
) -> impl Fn(&str) -> Result<f32, String> + Clone + Send + Sync + 'static {
    move |text| {
        let value: f32 = text.trim().parse().map_err(|_| format!("`{text}` is not a number"))?;
        if (lo..=hi).contains(&value) {
            Ok(value)
        } else {
            Err(format!("{value} is outside the allowed range [{}, {}]", help::number(lo), help::number(hi)))
        }
    }
}

/// A parser for `X,Y`.
fn pair(text: &str) -> Result<DVec2, String> {
    let (x, y) = text.split_once(',').ok_or_else(|| format!("`{text}` is not X,Y"))?;
    let number = |t: &str| t.trim().parse::<f64>().ok().filter(|v| v.is_finite());
    match (number(x), number(y)) {
        (Some(x), Some(y)) if x.abs() <= 1e9 && y.abs() <= 1e9 => Ok(DVec2::new(x, y)),
        _ => Err(format!("`{text}` is not two finite numbers within ±1e9")),
    }
}

/// The tool's starting settings without `--preset`: the defaults every flag's help names.
fn tool() -> Preset {
    crate::preset::without_file()
}

/// The noise field: every flag is optional and overrides the preset (or the default).
#[derive(Args, Debug, Clone, Default)]
pub struct NoiseArgs {
    /// A RON preset (the plugin's and the inspector's format: its `noise` (with the erosion
    /// filter), `post`, `erosion`, `ramp`, `water_level`, `height_scale`, `world_size` and
    /// `resolution` are used, other fields are accepted and ignored). Flags override it.
    #[arg(long, value_name = "FILE.ron", help_heading = "Noise")]
    pub preset: Option<PathBuf>,
    #[arg(long, value_parser = by_name(&Basis::ALL, |b| b.name()), help_heading = "Noise",
        help = help::named("Basis noise", tool().noise.basis.name()))]
    pub basis: Option<Basis>,
    #[arg(long, value_parser = by_name(&Fade::ALL, |f| f.name()), help_heading = "Noise",
        help = help::named("Fade curve of value and gradient noise", tool().noise.fade.name()))]
    pub fade: Option<Fade>,
    #[arg(long, value_parser = by_name(&GradientKernel::ALL, |k| k.name()), help_heading = "Noise",
        help = help::named(
            "Gradient noise's kernel: rounded (little axis bias), or perlin (a --preset that names none \
             keeps perlin, the kernel of the files made before there was a choice)",
            tool().noise.gradient_kernel.name()))]
    pub gradient_kernel: Option<GradientKernel>,
    #[arg(long, help_heading = "Noise", help = help::named("Seed of the hash, any u32", tool().noise.seed))]
    pub seed: Option<u32>,
    #[arg(long, value_name = "F", value_parser = within(FREQUENCY_RANGE), help_heading = "Noise",
        help = help::real("Base frequency: lattice cells across the map's width", FREQUENCY_RANGE, tool().noise.frequency))]
    pub frequency: Option<f32>,
    #[arg(long, value_name = "X,Y", value_parser = pair, allow_hyphen_values = true, help_heading = "Noise",
        help = help::named("Offset of the map in map units, each within ±1e9",
            format!("{},{}", tool().noise.offset.x, tool().noise.offset.y)))]
    pub offset: Option<DVec2>,
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=i64::from(MAX_PERIOD)), help_heading = "Noise",
        help = format!("Tile every N lattice cells of the base frequency, 1..={MAX_PERIOD} (not with simplex \
             noise, which has no square period) [default: no period]"))]
    pub period: Option<u32>,

    #[arg(long, value_parser = by_name(&Fractal::ALL, |f| f.name()), help_heading = "Fractal",
        help = help::named("How octaves combine", tool().noise.fractal.name()))]
    pub fractal: Option<Fractal>,
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(i64::from(MIN_OCTAVES)..=i64::from(MAX_OCTAVES)), help_heading = "Fractal",
        help = help::count("Octaves summed", (MIN_OCTAVES, MAX_OCTAVES), tool().noise.octaves))]
    pub octaves: Option<u32>,
    #[arg(long, value_name = "L", value_parser = within(LACUNARITY_RANGE), help_heading = "Fractal",
        help = help::real("Frequency factor per octave", LACUNARITY_RANGE, tool().noise.lacunarity))]
    pub lacunarity: Option<f32>,
    #[arg(long, value_name = "P", value_parser = within(PERSISTENCE_RANGE), help_heading = "Fractal",
        help = help::real("Amplitude factor per octave", PERSISTENCE_RANGE, tool().noise.persistence))]
    pub persistence: Option<f32>,
    /// Do not divide fBm and billow by the amplitude sum (heights may exceed 1).
    #[arg(long, help_heading = "Fractal")]
    pub no_normalize: bool,
    /// Turn each octave by the golden angle (no grid-aligned ridges; not with --period).
    #[arg(long, help_heading = "Fractal")]
    pub rotate_octaves: bool,
    #[arg(long, value_name = "O", value_parser = within(FRACTAL_OFFSET_RANGE), help_heading = "Fractal",
        help = help::real("Musgrave's offset (ridged, hybrid, hetero)", FRACTAL_OFFSET_RANGE, tool().noise.fractal_offset))]
    pub fractal_offset: Option<f32>,
    #[arg(long, value_name = "G", value_parser = within(GAIN_RANGE), help_heading = "Fractal",
        help = help::real("Musgrave's gain (ridged)", GAIN_RANGE, tool().noise.gain))]
    pub gain: Option<f32>,
    #[arg(long, value_name = "K", value_parser = within(DAMPING_RANGE), help_heading = "Fractal",
        help = help::real("Damped fractal: how strongly the slopes so far damp each octave", DAMPING_RANGE, tool().noise.damping))]
    pub damping: Option<f32>,

    #[arg(long, value_parser = by_name(&WorleyReturn::ALL, |r| r.name()), help_heading = "Worley",
        help = help::named("What Worley noise returns", tool().noise.worley.return_type.name()))]
    pub worley_return: Option<WorleyReturn>,
    #[arg(long, value_parser = by_name(&DistanceMetric::ALL, |m| m.name()), help_heading = "Worley",
        help = help::named("How Worley noise measures distance", tool().noise.worley.metric.name()))]
    pub worley_metric: Option<DistanceMetric>,
    #[arg(long, value_name = "J", value_parser = within(SHARE), help_heading = "Worley",
        help = help::real("How far feature points stray from their cell centres", SHARE, tool().noise.worley.jitter))]
    pub jitter: Option<f32>,

    #[arg(long, value_name = "A", value_parser = within((0.0, MAX_WARP_AMPLITUDE)), help_heading = "Warp",
        help = help::real("Domain warp amount in base lattice cells (0 is off)", (0.0, MAX_WARP_AMPLITUDE), tool().noise.warp.amplitude))]
    pub warp: Option<f32>,
    #[arg(long, value_name = "F", value_parser = within(WARP_FREQUENCY_RANGE), help_heading = "Warp",
        help = help::real("Warp noise frequency relative to the base frequency", WARP_FREQUENCY_RANGE, tool().noise.warp.frequency))]
    pub warp_frequency: Option<f32>,
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=i64::from(MAX_WARP_OCTAVES)), help_heading = "Warp",
        help = help::count("Octaves of warp noise", (1, MAX_WARP_OCTAVES), tool().noise.warp.octaves))]
    pub warp_octaves: Option<u32>,

    /// Cut gullies that run downhill (the erosion filter: point by point, chunk-safe; fbm,
    /// billow or no fractal, without warp).
    #[arg(long, help_heading = "Erosion filter")]
    pub gullies: bool,
    #[arg(long, value_name = "S", value_parser = within(FILTER_STRENGTH_RANGE), help_heading = "Erosion filter",
        help = help::real("Gully depth of the first filter octave as a share of the height range", FILTER_STRENGTH_RANGE, tool().noise.erosion_filter.strength))]
    pub gully_strength: Option<f32>,
    #[arg(long, value_name = "C", value_parser = within(FILTER_SCALE_RANGE), help_heading = "Erosion filter",
        help = help::real("Gully cells per lattice cell of the base frequency", FILTER_SCALE_RANGE, tool().noise.erosion_filter.scale))]
    pub gully_scale: Option<f32>,
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=i64::from(MAX_FILTER_OCTAVES)), help_heading = "Erosion filter",
        help = help::count("Octaves of gullies, each twice as fine", (1, MAX_FILTER_OCTAVES), tool().noise.erosion_filter.octaves))]
    pub gully_octaves: Option<u32>,
    #[arg(long, value_name = "G", value_parser = within(FILTER_GAIN_RANGE), help_heading = "Erosion filter",
        help = help::real("Depth factor per gully octave", FILTER_GAIN_RANGE, tool().noise.erosion_filter.gain))]
    pub gully_gain: Option<f32>,
    #[arg(long, value_name = "B", value_parser = within(SHARE), help_heading = "Erosion filter",
        help = help::real("How much finer gullies follow the slope of the coarser ones (branching)", SHARE, tool().noise.erosion_filter.bend))]
    pub gully_bend: Option<f32>,
    #[arg(long, value_name = "S", value_parser = within(SHARE), help_heading = "Erosion filter",
        help = help::real("Ridge sharpness between gullies: 0 rounded, 1 sharp crests", SHARE, tool().noise.erosion_filter.sharpness))]
    pub gully_sharpness: Option<f32>,
    #[arg(long, value_name = "K", value_parser = within(SHARE), help_heading = "Erosion filter",
        help = help::real("How much the peaks are kept uncut", SHARE, tool().noise.erosion_filter.keep_peaks))]
    pub keep_peaks: Option<f32>,
    #[arg(long, value_name = "K", value_parser = within(SHARE), help_heading = "Erosion filter",
        help = help::real("How much the valley floors are kept smooth", SHARE, tool().noise.erosion_filter.keep_floors))]
    pub keep_floors: Option<f32>,
    #[arg(long, value_name = "S", help_heading = "Erosion filter",
        help = help::named("Seed of the gullies, any u32", tool().noise.erosion_filter.seed))]
    pub gully_seed: Option<u32>,

    /// Map the map's min and max to 0 and 1.
    #[arg(long, help_heading = "Post-processing")]
    pub stretch: bool,
    #[arg(long, value_name = "E", value_parser = within(PostProcess::POWER_RANGE), help_heading = "Post-processing",
        help = help::real("Redistribution h^E", PostProcess::POWER_RANGE, tool().post.power))]
    pub power: Option<f32>,
    #[arg(long, value_name = "S", value_parser = within(SHARE), help_heading = "Post-processing",
        help = help::real("Island mask strength (0 is off)", SHARE, tool().post.island_strength))]
    pub island: Option<f32>,
    #[arg(long, value_parser = by_name(&IslandShape::ALL, |s| s.name()), help_heading = "Post-processing",
        help = help::named("Island shape", tool().post.island_shape.name()))]
    pub island_shape: Option<IslandShape>,
    #[arg(long, value_name = "W", value_parser = within(PostProcess::ISLAND_WIDTH_RANGE), help_heading = "Post-processing",
        help = help::real("Width of the island's falloff as a share of the half-width", PostProcess::ISLAND_WIDTH_RANGE, tool().post.island_width))]
    pub island_width: Option<f32>,
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(0..=i64::from(PostProcess::MAX_TERRACES)), help_heading = "Post-processing",
        help = help::count("Terrace levels (0 or 1 is off)", (0, PostProcess::MAX_TERRACES), tool().post.terraces))]
    pub terraces: Option<u32>,
    #[arg(long, value_name = "S", value_parser = within(SHARE), help_heading = "Post-processing",
        help = help::real("Terrace flatness", SHARE, tool().post.terrace_sharpness))]
    pub terrace_sharpness: Option<f32>,
}

/// The field, post-processing and preset extras the flags describe.
#[derive(Debug, Clone)]
pub struct Field {
    /// The noise field.
    pub noise: NoiseSettings,
    /// Its post-processing.
    pub post: PostProcess,
    /// What the preset brought beside them.
    pub preset: Preset,
}

impl NoiseArgs {
    /// The preset (or the defaults) with every given flag applied; a combination that cannot work
    /// is a usage error (exit 2) that says why.
    pub fn field(&self) -> Result<Field, clap::Error> {
        let preset = match &self.preset {
            Some(path) => crate::preset::load(path)
                .map_err(|e| usage(ErrorKind::ValueValidation, format!("--preset: {e}")))?,
            None => crate::preset::without_file(),
        };
        let mut n = preset.noise;
        let mut p = preset.post;
        macro_rules! set {
            ($($flag:ident => $target:expr),* $(,)?) => { $(if let Some(v) = self.$flag { $target = v; })* };
        }
        set! {
            basis => n.basis, fade => n.fade, gradient_kernel => n.gradient_kernel, seed => n.seed, frequency => n.frequency, offset => n.offset,
            fractal => n.fractal, octaves => n.octaves, lacunarity => n.lacunarity, persistence => n.persistence,
            fractal_offset => n.fractal_offset, gain => n.gain, damping => n.damping, worley_return => n.worley.return_type,
            worley_metric => n.worley.metric, jitter => n.worley.jitter, warp => n.warp.amplitude,
            warp_frequency => n.warp.frequency, warp_octaves => n.warp.octaves, power => p.power,
            island => p.island_strength, island_shape => p.island_shape, island_width => p.island_width,
            terraces => p.terraces, terrace_sharpness => p.terrace_sharpness,
            gully_strength => n.erosion_filter.strength, gully_scale => n.erosion_filter.scale,
            gully_octaves => n.erosion_filter.octaves, gully_gain => n.erosion_filter.gain,
            gully_bend => n.erosion_filter.bend, gully_sharpness => n.erosion_filter.sharpness,
            keep_peaks => n.erosion_filter.keep_peaks, keep_floors => n.erosion_filter.keep_floors,
            gully_seed => n.erosion_filter.seed,
        }
        if self.gullies {
            n.erosion_filter.enabled = true;
        }
        if self.period.is_some() {
            n.period = self.period;
        }
        if self.no_normalize {
            n.normalize = false;
        }
        if self.rotate_octaves {
            n.rotate_octaves = true;
        }
        if self.stretch {
            p.stretch = true;
        }
        if n.period.is_some() && !n.basis.supports_period() {
            return Err(usage(
                ErrorKind::ArgumentConflict,
                format!(
                    "--period cannot be used with --basis {}: its triangle lattice has no square period (use value, gradient or worley noise to tile)",
                    n.basis.name()
                ),
            ));
        }
        if n.erosion_filter.enabled && !n.supports_erosion_filter() {
            let given = if n.warp.is_active() {
                format!("--warp {}", n.warp.amplitude)
            } else {
                format!("--fractal {}", n.fractal.name())
            };
            return Err(usage(
                ErrorKind::ArgumentConflict,
                format!(
                    "--gullies needs --fractal fbm, billow or none, without --warp (given: {given}): the erosion filter takes the field's second derivatives"
                ),
            ));
        }
        if n.period.is_some() && n.rotate_octaves {
            return Err(usage(
                ErrorKind::ArgumentConflict,
                "--rotate-octaves cannot be used with --period: a turned lattice does not tile".to_string(),
            ));
        }
        Ok(Field { noise: n, post: p, preset })
    }
}

/// Erosion of the map after post-processing (`heightmap`, `normals`, `color`). Lengths and
/// counts describe a map 512 samples wide; a map of another width gets them scaled to match
/// (at 1024: 4x the droplets, twice the radius, lifetime, relief and thermal iterations).
#[derive(Args, Debug, Clone, Default)]
pub struct ErosionArgs {
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(0..=i64::from(MAX_DROPLETS)), help_heading = "Erosion",
        help = help::count_or_preset("Droplets of hydraulic erosion for a map 512 wide (scaled by area; 0 is off)", (0, MAX_DROPLETS), tool().erosion.hydraulic.droplets))]
    pub droplets: Option<u32>,
    #[arg(long, value_name = "R", value_parser = within(EROSION_RADIUS_RANGE), help_heading = "Erosion",
        help = help::real("Erosion brush radius in cells", EROSION_RADIUS_RANGE, tool().erosion.hydraulic.radius))]
    pub erosion_radius: Option<f32>,
    #[arg(long, value_name = "I", value_parser = within(INERTIA_RANGE), help_heading = "Erosion",
        help = help::real("How much a droplet keeps its direction", INERTIA_RANGE, tool().erosion.hydraulic.inertia))]
    pub inertia: Option<f32>,
    #[arg(long, value_name = "C", value_parser = within(CAPACITY_RANGE), help_heading = "Erosion",
        help = help::real("Sediment capacity factor", CAPACITY_RANGE, tool().erosion.hydraulic.capacity))]
    pub capacity: Option<f32>,
    #[arg(long, value_name = "S", value_parser = within(SHARE), help_heading = "Erosion",
        help = help::real("Slope used for capacity on flat ground", SHARE, tool().erosion.hydraulic.min_slope))]
    pub min_slope: Option<f32>,
    #[arg(long, value_name = "D", value_parser = within(SHARE), help_heading = "Erosion",
        help = help::real("Share of excess sediment deposited per step", SHARE, tool().erosion.hydraulic.deposit))]
    pub deposit: Option<f32>,
    #[arg(long, value_name = "E", value_parser = within(SHARE), help_heading = "Erosion",
        help = help::real("Share of free capacity eroded per step", SHARE, tool().erosion.hydraulic.erode))]
    pub erode: Option<f32>,
    #[arg(long, value_name = "V", value_parser = within(SHARE), help_heading = "Erosion",
        help = help::real("Share of water evaporated per step", SHARE, tool().erosion.hydraulic.evaporation))]
    pub evaporation: Option<f32>,
    #[arg(long, value_name = "G", value_parser = within(GRAVITY_RANGE), help_heading = "Erosion",
        help = help::real("How fast droplets speed up downhill", GRAVITY_RANGE, tool().erosion.hydraulic.gravity))]
    pub gravity: Option<f32>,
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(i64::from(LIFETIME_RANGE.0)..=i64::from(LIFETIME_RANGE.1)), help_heading = "Erosion",
        help = help::count("Steps a droplet lives", LIFETIME_RANGE, tool().erosion.hydraulic.lifetime))]
    pub lifetime: Option<u32>,
    #[arg(long, value_name = "S", help_heading = "Erosion",
        help = help::named("Seed of the droplets' start points, any u32", tool().erosion.hydraulic.seed))]
    pub erosion_seed: Option<u32>,
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(0..=i64::from(MAX_THERMAL_ITERATIONS)), help_heading = "Erosion",
        help = help::count("Thermal erosion iterations (0 is off)", (0, MAX_THERMAL_ITERATIONS), tool().erosion.thermal.iterations))]
    pub thermal_iterations: Option<u32>,
    #[arg(long, value_name = "DEG", value_parser = within(TALUS_ANGLE_RANGE), help_heading = "Erosion",
        help = help::real("Steepest stable slope for thermal erosion, degrees", TALUS_ANGLE_RANGE, tool().erosion.thermal.talus_angle))]
    pub talus_angle: Option<f32>,
    #[arg(long, value_name = "A", value_parser = within(SHARE), help_heading = "Erosion",
        help = help::real("Share of the excess moved per thermal iteration", SHARE, tool().erosion.thermal.amount))]
    pub thermal_amount: Option<f32>,
    #[arg(long, value_name = "CELLS", value_parser = within(EROSION_SCALE_RANGE), help_heading = "Erosion",
        help = help::real("Relief: how many cells of a map 512 wide a height of 1 is (the classic droplet \
             parameters suit gentle slopes, 1 to 3)", EROSION_SCALE_RANGE, tool().erosion.scale))]
    pub erosion_scale: Option<f32>,
    #[arg(long, value_name = "STEPS", value_parser = clap::value_parser!(u32).range(0..=i64::from(MAX_STREAM_POWER_STEPS)), help_heading = "Rivers",
        help = help::count_or_preset("Time steps of stream-power landscape evolution (rivers, before the \
             droplets; 0 is off). Its rates are in world units (--world-size and --height-scale)",
            (0, MAX_STREAM_POWER_STEPS), tool().erosion.stream_power.steps))]
    pub stream_power: Option<u32>,
    #[arg(long, value_name = "T", value_parser = within(TIME_STEP_RANGE), help_heading = "Rivers",
        help = help::real("Length of a stream-power step, in the time unit of the rates", TIME_STEP_RANGE, tool().erosion.stream_power.time_step))]
    pub time_step: Option<f32>,
    #[arg(long, value_name = "K", value_parser = within(ERODIBILITY_RANGE), help_heading = "Rivers",
        help = help::real("Erodibility K: how fast a river cuts, world units^(1-2m) per time unit", ERODIBILITY_RANGE, tool().erosion.stream_power.erodibility))]
    pub erodibility: Option<f32>,
    #[arg(long, value_name = "M", value_parser = within(AREA_EXPONENT_RANGE), help_heading = "Rivers",
        help = help::real("Drainage area exponent m", AREA_EXPONENT_RANGE, tool().erosion.stream_power.area_exponent))]
    pub area_exponent: Option<f32>,
    #[arg(long, value_name = "N", value_parser = within(SLOPE_EXPONENT_RANGE), help_heading = "Rivers",
        help = help::real("Slope exponent n (1 is exact in one division, others by Newton)", SLOPE_EXPONENT_RANGE, tool().erosion.stream_power.slope_exponent))]
    pub slope_exponent: Option<f32>,
    #[arg(long, value_name = "D", value_parser = within(DIFFUSION_RANGE), help_heading = "Rivers",
        help = help::real("Hillslope diffusion D, world units^2 per time unit", DIFFUSION_RANGE, tool().erosion.stream_power.diffusion))]
    pub diffusion: Option<f32>,
    #[arg(long, value_name = "U", value_parser = within(UPLIFT_RANGE), help_heading = "Rivers",
        help = help::real("Uplift rate where the uplift share is 1, world units per time unit (the share \
             is the noise height above the water level over the height from the water level to 1: 0 \
             at the coast, 1 at noise height 1)", UPLIFT_RANGE, tool().erosion.stream_power.uplift))]
    pub uplift: Option<f32>,
    /// No water leaves through the map's edge: everything drains to the sea (without sea, to
    /// the lowest cell) [default: an open edge at base level].
    #[arg(long, help_heading = "Rivers")]
    pub closed_border: bool,
    #[arg(long, value_name = "A", value_parser = within(RIVER_AREA_RANGE), help_heading = "Rivers",
        help = help::real("Drainage area where a river starts, world units^2", RIVER_AREA_RANGE, tool().erosion.stream_power.rivers.min_area))]
    pub river_area: Option<f32>,
    #[arg(long, value_name = "W", value_parser = within(RIVER_WIDTH_RANGE), help_heading = "Rivers",
        help = help::real("River width = W x sqrt(drainage area)", RIVER_WIDTH_RANGE, tool().erosion.stream_power.rivers.width))]
    pub river_width: Option<f32>,
    /// Write the river network as GeoJSON (needs --stream-power): one LineString per river,
    /// coordinates [x, y, height] in world units (x east, y south from the map's first sample),
    /// with per-vertex drainage areas and widths in its properties.
    #[arg(long, value_name = "FILE.geojson", help_heading = "Rivers")]
    pub rivers: Option<PathBuf>,
    /// Write the drainage area as a 16-bit greyscale PNG (needs --stream-power): the logarithm of
    /// the area from one cell (black) to the map's largest (white).
    #[arg(long, value_name = "FILE.png", help_heading = "Rivers")]
    pub drainage: Option<PathBuf>,
}

impl ErosionArgs {
    /// The preset's erosion with every given flag applied.
    pub fn settings(&self, preset: &Erosion) -> Erosion {
        let (mut h, mut t): (Hydraulic, Thermal) = (preset.hydraulic, preset.thermal);
        macro_rules! set {
            ($($flag:ident => $target:expr),* $(,)?) => { $(if let Some(v) = self.$flag { $target = v; })* };
        }
        set! {
            droplets => h.droplets, erosion_radius => h.radius, inertia => h.inertia, capacity => h.capacity,
            min_slope => h.min_slope, deposit => h.deposit, erode => h.erode, evaporation => h.evaporation,
            gravity => h.gravity, lifetime => h.lifetime, erosion_seed => h.seed,
            thermal_iterations => t.iterations, talus_angle => t.talus_angle, thermal_amount => t.amount,
        }
        let mut sp = preset.stream_power;
        set! {
            stream_power => sp.steps, time_step => sp.time_step, erodibility => sp.erodibility,
            area_exponent => sp.area_exponent, slope_exponent => sp.slope_exponent,
            diffusion => sp.diffusion, uplift => sp.uplift, river_area => sp.rivers.min_area,
            river_width => sp.rivers.width,
        }
        if self.closed_border {
            sp.border = Border::Closed;
        }
        Erosion {
            stream_power: sp,
            hydraulic: h,
            thermal: t,
            scale: self.erosion_scale.unwrap_or(preset.scale),
        }
    }

    /// Erodes `map`, which lies in the world as `world` says, with these settings (droplets
    /// given for a map 512 cells wide and scaled to `map`'s width, see [`Erosion::for_map`]);
    /// the erosion's maps, or `None` when nothing erodes.
    pub fn apply(&self, preset: &Erosion, map: &mut Heightmap, world: &MapWorld) -> Option<ErosionMaps> {
        let settings = self.settings(preset).for_map(map.width());
        let never = std::sync::atomic::AtomicBool::new(false);
        // Never cancelled, so it cannot fail.
        settings
            .is_active()
            .then(|| noise_terrain_core::erode(map, &settings, world, &|_| {}, &never).ok())
            .flatten()
    }
}
