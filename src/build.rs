//! The pure build: validated parameters and one piece of terrain in, heights, mesh and texture
//! out. No ECS here: the plugin runs it in background jobs, and tools and tests call it directly.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::time::{Duration, Instant};

use bevy::prelude::*;
use noise_terrain_core::advanced::{Frame, Stitch, SurfaceLayout, fill_cut_depths, fold_stitched_edges};
use noise_terrain_core::{
    ChunkKey, Drainage, ErosionError, GridPlacement, GridWindow, HeightStats, Heightmap, HeightmapError,
    MapWorld, NoiseSettings, RiverNetwork, RiverSegment, Surface, chunk_window, erode,
};

use crate::mesh::{take_surface, terrain_mesh_from};
use crate::params::{TerrainLayout, TerrainPreset};
use crate::texture::terrain_image_by_rules;

/// Which piece of terrain: the single patch, or one chunk of the endless layout.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PieceKey {
    /// The patch of [`TerrainLayout::Patch`].
    Patch,
    /// A chunk of [`TerrainLayout::Endless`].
    Chunk(ChunkKey),
}

/// A piece and how its edges meet its neighbours: everything a build needs besides the
/// parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PieceSpec {
    /// Which piece.
    pub key: PieceKey,
    /// Its edges that meet a coarser chunk (always none for the patch).
    pub stitch: Stitch,
}

/// Where a piece lies in the terrain entity's space, in world units.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PieceGeometry {
    /// The piece entity's translation `(x, z)` (in `f64`: chunk corners far from the origin).
    pub translation: [f64; 2],
    /// The first vertex `(x, z)`, relative to the translation.
    pub origin: [f32; 2],
    /// Distance from the first vertex to the last, in `x` and in `z`.
    pub size: f32,
    /// Vertices per side.
    pub vertices: u32,
}

impl PieceGeometry {
    /// The square `[min x, min z, max x, max z]` the piece covers.
    pub fn bounds(&self) -> [f64; 4] {
        let x0 = self.translation[0] + f64::from(self.origin[0]);
        let z0 = self.translation[1] + f64::from(self.origin[1]);
        let size = f64::from(self.size);
        [x0, z0, x0 + size, z0 + size]
    }

    /// Distance between neighbouring vertices.
    pub fn step(&self) -> f32 {
        self.size / (self.vertices.max(2) - 1) as f32
    }

    /// Its vertex grid placed in the terrain entity's space, for height queries and ray casts
    /// over its heights (`height_range`: their lowest and highest, noise units).
    pub fn placement(&self, height_scale: f32, height_range: [f32; 2]) -> GridPlacement {
        let step = f64::from(self.step());
        GridPlacement {
            origin: [
                self.translation[0] + f64::from(self.origin[0]),
                self.translation[1] + f64::from(self.origin[1]),
            ],
            step: [step, step],
            height_scale: f64::from(height_scale),
            height_range,
        }
    }
}

impl PieceKey {
    /// Where the piece lies for `params` (validated); a key of the other layout gets that
    /// layout's defaults.
    pub fn geometry(self, params: &TerrainPreset) -> PieceGeometry {
        match self {
            PieceKey::Patch => {
                let half = params.world_size / 2.0;
                PieceGeometry {
                    translation: [0.0; 2],
                    origin: [-half; 2],
                    size: params.world_size,
                    vertices: params.resolution,
                }
            }
            PieceKey::Chunk(key) => {
                let (chunk_size, vertices) = chunk_shape(&params.layout);
                PieceGeometry {
                    translation: key.min_corner(chunk_size),
                    origin: [0.0; 2],
                    size: key.size(chunk_size) as f32,
                    vertices,
                }
            }
        }
    }
}

/// Chunk size and vertices per chunk side of a layout (the endless defaults for the patch).
fn chunk_shape(layout: &TerrainLayout) -> (f64, u32) {
    match layout {
        TerrainLayout::Endless { chunk_size, chunk_vertices, .. } => {
            (f64::from(*chunk_size), *chunk_vertices)
        }
        TerrainLayout::Patch => chunk_shape(&TerrainLayout::ENDLESS),
    }
}

/// What a build hook made for one piece, bound to the hook that gives it to the piece: made in
/// the piece's job (see [`PieceHook::new`](crate::pieces::hooks::PieceHook::new), which keeps the
/// output's type), landed on the main thread in the frame the piece's mesh does.
pub struct HookOutput(Box<Landing>);

/// How a hook's output lands on its piece.
type Landing = dyn FnOnce(&mut Commands, Entity) + Send + Sync;

impl HookOutput {
    /// An output that `land` gives to the piece.
    pub(crate) fn new(land: impl FnOnce(&mut Commands, Entity) + Send + Sync + 'static) -> Self {
        Self(Box::new(land))
    }

    /// Gives the output to `piece`.
    pub(crate) fn land(self, commands: &mut Commands, piece: Entity) {
        (self.0)(commands, piece);
    }
}

impl std::fmt::Debug for HookOutput {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("HookOutput")
    }
}

/// Which build hooks a build runs: one bit per hook in [`PieceHooks`](crate::PieceHooks)' order,
/// as many as there are hooks (the first 128 in place, so that the sets a frame compares for
/// every piece cost no allocation).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct HookSet {
    first: [u64; 2],
    more: Vec<u64>,
}

impl HookSet {
    /// Whether the hook at `index` runs.
    pub fn contains(&self, index: usize) -> bool {
        let word = match index / 64 {
            w @ 0..=1 => Some(self.first[w]),
            w => self.more.get(w - 2).copied(),
        };
        word.is_some_and(|word| word >> (index % 64) & 1 == 1)
    }

    /// Adds the hook at `index`.
    pub(crate) fn insert(&mut self, index: usize) {
        let bit = 1 << (index % 64);
        match index / 64 {
            w @ 0..=1 => self.first[w] |= bit,
            w => {
                if self.more.len() <= w - 2 {
                    self.more.resize(w - 1, 0);
                }
                self.more[w - 2] |= bit;
            }
        }
    }
}

/// One piece built from parameters: what a background job produces.
#[derive(Debug)]
pub struct PieceBuild {
    /// The piece.
    pub spec: PieceSpec,
    /// Where it lies.
    pub geometry: PieceGeometry,
    /// The heights of its vertices, in noise units (multiply by `height_scale` for world
    /// units), after post-processing and stitching: the mesh's heights.
    pub heights: Heightmap,
    /// Their lowest, highest and mean value.
    pub stats: HeightStats,
    /// The same of the raw noise, before post-processing and erosion (equal to `stats` when
    /// neither changes anything).
    pub raw_stats: HeightStats,
    /// Their share above 1.
    pub overflow_fraction: f32,
    /// The gradient buffer, emptied, for the next build (see [`TerrainBuffers`]).
    pub gradients: Vec<[f32; 2]>,
    /// The mesh, positions relative to the piece's translation.
    pub mesh: Mesh,
    /// The ramp texture, one texel per vertex.
    pub image: Image,
    /// How long building took.
    pub elapsed: Duration,
    /// What each [`PieceHook`](crate::PieceHook) made for it, in the hooks' order (`None`
    /// where the piece did not want one; empty without hooks).
    pub hook_outputs: Vec<Option<HookOutput>>,
    /// The hooks this build runs (set before they run, so a hook can see which others run on the
    /// same piece; each of them leaves an output).
    pub hooks: HookSet,
    /// Where water goes on the patch after stream power (one cell per vertex): drainage, lakes
    /// and rivers; `None` without stream power and for chunks.
    pub drainage: Option<Drainage>,
    /// The endless rivers' segments that start on this chunk (their upper end in its square,
    /// the square's far edges excluded: every segment on exactly one chunk of a layout), in the
    /// network's order; empty for the patch and without endless rivers.
    pub river_segments: Vec<RiverSegment>,
    /// The endless lakes' drainage cells whose centres lie on this chunk (its square as for
    /// `river_segments`), each with its lake's surface in noise heights; empty for the patch and
    /// without endless lakes.
    pub lake_cells: Vec<([i64; 2], f32)>,
    /// The endless rivers' network this chunk was carved with (`None` for the patch and without
    /// endless rivers): for hooks that ask for the carved ground or the water between the
    /// vertices ([`RiverNetwork::near`]).
    pub rivers: Option<Arc<RiverNetwork>>,
    /// A chunk's samples before stitching, for a build of it with another stitching (`None` for
    /// the patch).
    pub samples: Option<Arc<ChunkSamples>>,
}

/// Why a build produced nothing.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BuildError {
    /// A size out of range (validation prevents it; a bug if it happens).
    #[error(transparent)]
    Heightmap(#[from] HeightmapError),
    /// Cancelled through [`BuildControl::cancel`], mid-erosion: newer parameters wait.
    #[error("the build was cancelled")]
    Cancelled,
    /// The build panicked (a bug); the message it panicked with.
    #[error("the build panicked: {0}")]
    Panicked(String),
}

/// Shared with a running build: a flag that cancels it (erosion stops promptly) and how far
/// its erosion is, for a progress bar.
#[derive(Debug, Default)]
pub struct BuildControl {
    cancel: AtomicBool,
    /// Erosion progress in millionths, `u32::MAX` while no erosion runs.
    progress: AtomicU32,
    /// The endless rivers to carve chunks with, shared between builds (see
    /// [`with_rivers`](Self::with_rivers)).
    rivers: Option<Arc<RiverNetwork>>,
    /// An earlier build's samples of the chunk (see [`with_samples`](Self::with_samples)).
    samples: Option<Arc<ChunkSamples>>,
}

impl BuildControl {
    /// A control with nothing cancelled and no erosion running.
    pub fn new() -> Self {
        Self {
            cancel: AtomicBool::new(false),
            progress: AtomicU32::new(u32::MAX),
            rivers: None,
            samples: None,
        }
    }

    /// The control with the samples of an earlier build ([`PieceBuild::samples`]): a build of
    /// the same chunk with the same parameters starts from them (the same bits as sampling
    /// again); of another chunk or other parameters, they are not used.
    pub fn with_samples(self, samples: Option<Arc<ChunkSamples>>) -> Self {
        Self { samples, ..self }
    }

    /// The control with a river network whose solved regions the build shares with others. A
    /// chunk whose parameters have endless rivers takes them from it when it is the network of
    /// those parameters, and from a network of its own otherwise (the same bits, solved again).
    pub fn with_rivers(self, rivers: Option<Arc<RiverNetwork>>) -> Self {
        Self { rivers, ..self }
    }

    /// Asks the build to stop.
    pub fn cancel(&self) {
        self.cancel.store(true, Ordering::Relaxed);
    }

    /// The share of the erosion done, `None` while none runs.
    pub fn erosion_progress(&self) -> Option<f32> {
        let p = self.progress.load(Ordering::Relaxed);
        (p != u32::MAX).then(|| p as f32 / 1e6)
    }
}

/// Memory of an earlier piece for a build to reuse: the mesh arrays, the texels and the
/// gradients.
///
/// Fresh memory is expensive: the kernel faults in and clears every page, which at 1024 × 1024
/// took most of a rebuild. So the plugin builds each piece into the arrays of a piece it
/// replaced a moment ago.
#[derive(Debug, Default)]
pub struct TerrainBuffers {
    /// The mesh arrays (see [`take_surface`]).
    pub surface: Surface,
    /// The RGBA8 texels of a texture.
    pub texels: Vec<u8>,
    /// The field's gradients at the samples, for the normals.
    pub gradients: Vec<[f32; 2]>,
}

impl TerrainBuffers {
    /// Bytes of memory the arrays hold.
    pub fn capacity_bytes(&self) -> usize {
        self.surface.capacity_bytes()
            + self.texels.capacity()
            + size_of::<[f32; 2]>() * self.gradients.capacity()
    }

    /// The memory of a build that was never shown (its mesh and image arrays, its gradients).
    pub fn from_unshown(build: &mut PieceBuild) -> Self {
        TerrainBuffers {
            surface: take_surface(&mut build.mesh),
            texels: build.image.data.take().unwrap_or_default(),
            gradients: std::mem::take(&mut build.gradients),
        }
    }
}

/// The patch of `params`, whatever its layout: for use without an app (tools, servers, tests).
/// Out-of-range parameters are clamped as the plugin clamps them ([`TerrainPreset::validated`]).
pub fn build_terrain(params: TerrainPreset) -> Result<PieceBuild, BuildError> {
    let spec = PieceSpec { key: PieceKey::Patch, stitch: Stitch::NONE };
    build_piece(&params, spec, TerrainBuffers::default(), &BuildControl::new())
}

/// Builds one piece, into the memory of an earlier one. Out-of-range parameters are clamped
/// first ([`TerrainPreset::validated`]: a no-op for the plugin's own jobs, which run on validated
/// parameters), so no size overflows. The patch is eroded after post-processing when
/// `params.erosion` says so (chunks are not: erosion needs the whole map); `control` cancels
/// the erosion and reports its progress.
///
/// The patch samples the field as [`Heightmap::generate`] does at its resolution, with a
/// one-sample border, and post-processes it as one map. A chunk samples its window of the
/// level's pixel lattice (see [`chunk_window`]) with a two-sample border and post-processes in
/// world space. The normals are exact: from the field's gradient, sampled with the heights and
/// carried through post-processing, so every piece computes the same normal at the same point
/// whatever its level of detail (stitched edges' odd vertices take what the coarser neighbour
/// shows there). An eroded patch has no field gradient, and Worley and warped fields no fast one
/// (value, gradient and simplex noise have): their normals come from the heights.
///
/// A chunk starts from `control`'s [samples](BuildControl::with_samples) where they are of this
/// chunk and these parameters, and samples the field otherwise; either way the build keeps them
/// in [`PieceBuild::samples`].
pub fn build_piece(
    params: &TerrainPreset,
    spec: PieceSpec,
    reuse: TerrainBuffers,
    control: &BuildControl,
) -> Result<PieceBuild, BuildError> {
    let start = Instant::now();
    let params = &params.clamped();
    let geometry = spec.key.geometry(params);
    let n = geometry.vertices;
    let mut erosion_maps = None;
    let (mut river_segments, mut lake_cells, mut rivers) = (Vec::new(), Vec::new(), None);
    let mut chunk_samples = None;
    // The erosion filter's cut at each vertex, and the rivers' where deeper, for the colour rules
    // (empty without either).
    let cuts;
    // Each arm also says how many world units one map unit spans (for the normals' slopes).
    let (padded, border, raw, mut gradients, world_per_unit) = match spec.key {
        PieceKey::Patch => {
            let window =
                GridWindow { origin: [-1, -1], width: n + 2, height: n + 2, pixels_per_unit: f64::from(n) };
            let (mut padded, mut gradients) = sample_with_gradients(&params.noise, window, reuse.gradients)?;
            cuts = cut_depths(&params.noise, window, &padded, 1, n);
            let raw = raw_stats(params, &padded, 1, n)?;
            let frame = Frame { x: 1, y: 1, width: n, height: n };
            params.post.apply_in_frame_with_gradients(&mut padded, &mut gradients, frame, f64::from(n));
            if params.erosion.is_active() {
                // The eroded heights have no field gradient.
                gradients.clear();
                control.progress.store(0, Ordering::Relaxed);
                let report = |share: f32| control.progress.store((share * 1e6) as u32, Ordering::Relaxed);
                // The settings describe a map 512 cells across: scaled to this resolution, a patch erodes
                // alike at any resolution.
                let settings = params.erosion.for_map(n);
                let world = MapWorld::patch(params.world_size, n, params.height_scale, params.water_level);
                let eroded = erode(&mut padded, &settings, &world, &report, &control.cancel);
                control.progress.store(u32::MAX, Ordering::Relaxed);
                match eroded {
                    Ok(maps) => erosion_maps = Some(maps.crop(Frame { x: 1, y: 1, width: n, height: n })?),
                    Err(ErosionError::Cancelled) => return Err(BuildError::Cancelled),
                }
            }
            // n samples per map unit, n - 1 vertex steps across the patch's width.
            let world_per_unit = geometry.size * n as f32 / (n - 1).max(1) as f32;
            (padded, 1, raw, gradients, world_per_unit)
        }
        PieceKey::Chunk(key) => {
            let samples =
                match control.samples.as_ref().filter(|kept| kept.key == key && kept.params == *params) {
                    Some(kept) => kept.clone(),
                    None => Arc::new(ChunkSamples::sample(params, key, control)?),
                };
            let mut padded = samples.padded.clone();
            fold_stitched_edges(&mut padded, ChunkSamples::BORDER, spec.stitch);
            let mut gradients = reuse.gradients;
            gradients.clear();
            gradients.extend_from_slice(&samples.gradients);
            cuts = samples.cuts.clone();
            river_segments = samples.river_segments.clone();
            lake_cells = samples.lake_cells.clone();
            rivers = samples.rivers.clone();
            let raw = samples.raw;
            chunk_samples = Some(samples);
            (padded, ChunkSamples::BORDER, raw, gradients, params.world_size)
        }
    };
    let layout = SurfaceLayout {
        border,
        origin: geometry.origin,
        size: [geometry.size; 2],
        height_scale: params.height_scale,
        stitch: spec.stitch,
    };
    let mut surface = reuse.surface;
    surface.rebuild_with(&padded, &layout);
    if !gradients.is_empty() {
        surface.set_normals_from_gradients(&gradients, padded.width(), &layout, world_per_unit);
    }
    gradients.clear();
    let heights = padded.crop(Frame { x: border, y: border, width: n, height: n })?;
    // Freed before the texture is painted: one map less at the peak.
    drop(padded);
    // Coloured by height and by the slope of the mesh's normals, before the mesh takes them.
    let mut image = terrain_image_by_rules(
        &heights,
        (&surface.normals, &cuts),
        (&params.ramp, &params.colors),
        (params.water_level, params.show_overflow),
        reuse.texels,
    );
    let mesh = terrain_mesh_from(surface);
    // Wet channels and sediment fans where the terrain was eroded.
    if let (Some(maps), Some(texels)) = (&erosion_maps, image.data.as_mut()) {
        maps.tint(texels, &heights, params.water_level);
    }
    let (stats, overflow_fraction) = (heights.stats(), heights.overflow_fraction());
    Ok(PieceBuild {
        spec,
        geometry,
        heights,
        stats,
        raw_stats: raw.unwrap_or(stats),
        gradients,
        overflow_fraction,
        mesh,
        image,
        elapsed: start.elapsed(),
        hook_outputs: Vec::new(),
        hooks: HookSet::default(),
        drainage: erosion_maps.and_then(|maps| maps.drainage),
        river_segments,
        lake_cells,
        rivers,
        samples: chunk_samples,
    })
}

/// The figures of the raw noise at the `n × n` vertices inside `border` of `padded`, when
/// `params`' post-processing or erosion will change them.
fn raw_stats(
    params: &TerrainPreset,
    padded: &Heightmap,
    border: u32,
    n: u32,
) -> Result<Option<HeightStats>, BuildError> {
    let changes_heights = params.post.is_active() || params.erosion.is_active();
    let frame = Frame { x: border, y: border, width: n, height: n };
    Ok(if changes_heights { Some(padded.crop(frame)?.stats()) } else { None })
}

/// A chunk's samples before its edges are stitched: its post-processed and carved heights with
/// a border of two samples, their gradients, the cut depths, its rivers, and
/// the parameters they are of. A build of the same chunk with the same parameters and another
/// stitching starts from them instead of sampling again (given with
/// [`BuildControl::with_samples`]): as a focus flies, the levels around a chunk change and most
/// chunks are stitched anew two or three times, and sampling is most of a build.
#[derive(Debug)]
pub struct ChunkSamples {
    key: ChunkKey,
    /// The validated parameters they were sampled with.
    params: TerrainPreset,
    padded: Heightmap,
    gradients: Vec<[f32; 2]>,
    cuts: Vec<f32>,
    raw: Option<HeightStats>,
    river_segments: Vec<RiverSegment>,
    lake_cells: Vec<([i64; 2], f32)>,
    rivers: Option<Arc<RiverNetwork>>,
}

impl ChunkSamples {
    /// Samples around a chunk's vertices: the normals at its edges and the folding of stitched
    /// edges need two.
    const BORDER: u32 = 2;

    /// Samples chunk `key` of `params` (validated), with the rivers of `control`.
    fn sample(params: &TerrainPreset, key: ChunkKey, control: &BuildControl) -> Result<Self, BuildError> {
        let (chunk_size, n) = chunk_shape(&params.layout);
        let border = Self::BORDER;
        let window = chunk_window(key, chunk_size, n, f64::from(params.world_size), border);
        let (mut padded, mut gradients) = sample_with_gradients(&params.noise, window, Vec::new())?;
        let mut cuts = cut_depths(&params.noise, window, &padded, border, n);
        let raw = raw_stats(params, &padded, border, n)?;
        params.post.apply_in_world_with_gradients(
            &mut padded,
            &mut gradients,
            window,
            params.noise.value_bounds(),
        );
        let (mut river_segments, mut lake_cells, mut rivers) = (Vec::new(), Vec::new(), None);
        if params.has_endless_rivers() {
            let carved = ChunkToCarve { window, border, n };
            let network = river_network(params, control);
            (river_segments, lake_cells) =
                carve_rivers(&network, carved, (&mut padded, &mut gradients), &mut cuts);
            rivers = Some(network);
        }
        Ok(Self {
            key,
            params: params.clone(),
            padded,
            gradients,
            cuts,
            raw,
            river_segments,
            lake_cells,
            rivers,
        })
    }

    /// The chunk they are of.
    pub fn key(&self) -> ChunkKey {
        self.key
    }

    /// Bytes of memory their arrays hold.
    pub fn capacity_bytes(&self) -> usize {
        size_of::<f32>() * (self.padded.samples().len() + self.cuts.capacity())
            + size_of::<[f32; 2]>() * self.gradients.capacity()
            + size_of::<RiverSegment>() * self.river_segments.capacity()
            + size_of::<([i64; 2], f32)>() * self.lake_cells.capacity()
    }
}

/// A chunk's samples: its window, the border of samples around its `n × n` vertices.
#[derive(Clone, Copy)]
struct ChunkToCarve {
    window: GridWindow,
    border: u32,
    n: u32,
}

/// The endless rivers' network of `params`: `control`'s where it is these parameters', else one
/// of its own.
fn river_network(params: &TerrainPreset, control: &BuildControl) -> Arc<RiverNetwork> {
    let world = params.river_world();
    match &control.rivers {
        Some(shared) if *shared.world() == world.clamped() => shared.clone(),
        _ => Arc::new(RiverNetwork::new(world)),
    }
}

/// Carves the rivers of `network` into a chunk's post-processed samples and their gradients,
/// adds the rivers' cut to `cuts`, and returns the segments that start on the chunk and its lake
/// cells (the segments placed once for all three).
fn carve_rivers(
    network: &RiverNetwork,
    chunk: ChunkToCarve,
    (padded, gradients): (&mut Heightmap, &mut Vec<[f32; 2]>),
    cuts: &mut Vec<f32>,
) -> (Vec<RiverSegment>, Vec<([i64; 2], f32)>) {
    let ChunkToCarve { window, border, n } = chunk;
    let near = network.near(window_square(window));
    let uncarved = padded.samples().to_vec();
    near.carve(window, padded.samples_mut(), gradients);
    add_river_cuts(cuts, &uncarved, padded, border, n);
    let square = chunk_square(window, border, n);
    (near.segments_starting_in(square), near.lakes_in(square))
}

/// The rivers' cut (how far the carving lowered each of the `n × n` vertices inside `border` of
/// `padded`, from its `uncarved` samples) into `cuts` where deeper than the erosion filter's, so
/// that colour rules by cut depth paint river valleys as they paint gullies.
fn add_river_cuts(cuts: &mut Vec<f32>, uncarved: &[f32], padded: &Heightmap, border: u32, n: u32) {
    let (width, border, n) = (padded.width() as usize, border as usize, n as usize);
    cuts.resize(n * n, 0.0);
    for (j, row) in cuts.chunks_exact_mut(n).enumerate() {
        let start = (j + border) * width + border;
        let carved = padded.samples()[start..start + n].iter().zip(&uncarved[start..start + n]);
        for (cut, (after, before)) in row.iter_mut().zip(carved) {
            *cut = cut.max(before - after);
        }
    }
}

/// The map rectangle chunk `key` of `params` (validated) samples, its border included: what
/// its build carves rivers into (so the regions it needs, see
/// [`RiverNetwork::regions_ready`](noise_terrain_core::RiverNetwork::regions_ready)).
pub(crate) fn chunk_samples_rect(params: &TerrainPreset, key: ChunkKey) -> [f64; 4] {
    let (chunk_size, n) = chunk_shape(&params.layout);
    let window = chunk_window(key, chunk_size, n, f64::from(params.world_size), 2);
    window_square(window)
}

/// The map square `window` samples: its first sample's position to one past its last.
fn window_square(window: GridWindow) -> [f64; 4] {
    chunk_square(window, 0, window.width + 1)
}

/// The map square of the `n × n` vertices inside `border` of `window`, `[x_min, y_min, x_max,
/// y_max]`: the chunk's own ground, whose far edges (the next chunk's) are left out of it.
fn chunk_square(window: GridWindow, border: u32, n: u32) -> [f64; 4] {
    let at = |o: i64, k: u32| (o as f64 + f64::from(k)) / window.pixels_per_unit;
    let far = border + n - 1;
    [
        at(window.origin[0], border),
        at(window.origin[1], border),
        at(window.origin[0], far),
        at(window.origin[1], far),
    ]
}

/// The erosion filter's cut depth at the `n × n` vertices inside `border` of the samples `padded`
/// of `window` (the field's heights before post-processing); empty where the filter is off.
fn cut_depths(
    noise: &NoiseSettings,
    window: GridWindow,
    padded: &Heightmap,
    border: u32,
    n: u32,
) -> Vec<f32> {
    let sampler = noise.sampler();
    if !sampler.has_erosion_filter() {
        return Vec::new();
    }
    let mut all = vec![0.0; padded.samples().len()];
    fill_cut_depths(&sampler, window, padded.samples(), &mut all);
    let width = padded.width() as usize;
    let (border, n) = (border as usize, n as usize);
    (0..n).flat_map(|j| all[(j + border) * width + border..][..n].iter().copied()).collect()
}

/// The samples of `window` and the field's gradients at them, the gradients in `reused`'s
/// memory; without gradients (an empty array) where the field has no fast gradient path (see
/// [`NoiseSettings::gradients_on_the_row_path`](noise_terrain_core::NoiseSettings::gradients_on_the_row_path)):
/// such pieces take their normals from the heights, as fast as before.
fn sample_with_gradients(
    noise: &NoiseSettings,
    window: GridWindow,
    mut reused: Vec<[f32; 2]>,
) -> Result<(Heightmap, Vec<[f32; 2]>), BuildError> {
    if noise.gradients_on_the_row_path() {
        let map = Heightmap::generate_region_with_gradients(noise, window, &mut reused)?;
        return Ok((map, reused));
    }
    reused.clear();
    let GridWindow { origin, width, height, pixels_per_unit } = window;
    Ok((Heightmap::generate_region(noise, origin, width, height, pixels_per_unit)?, reused))
}

#[cfg(test)]
mod tests {
    use super::*;
    use bevy::mesh::VertexAttributeValues;

    fn positions(mesh: &Mesh) -> Vec<[f32; 3]> {
        match mesh.attribute(Mesh::ATTRIBUTE_POSITION) {
            Some(VertexAttributeValues::Float32x3(p)) => p.clone(),
            other => panic!("positions: {other:?}"),
        }
    }

    #[test]
    fn heights_are_post_processed_as_before_whether_or_not_the_field_has_a_fast_gradient_path() {
        let worley = NoiseSettings { basis: noise_terrain_core::Basis::Worley, ..default() };
        let warped =
            NoiseSettings { warp: noise_terrain_core::Warp { amplitude: 0.5, ..default() }, ..default() };
        let simplex = NoiseSettings { basis: noise_terrain_core::Basis::Simplex, ..default() };
        for (noise, fast) in [(worley, false), (warped, false), (simplex, true)] {
            assert_eq!(noise.gradients_on_the_row_path(), fast, "{noise:?}");
            let post = noise_terrain_core::PostProcess { stretch: true, power: 1.5, ..default() };
            let params = TerrainPreset { noise, post, resolution: 48, ..default() };
            let build = build_terrain(params.clone()).unwrap();
            let mut expected = Heightmap::generate(&params.noise, 48, 48).unwrap();
            params.post.apply(&mut expected);
            // The same heights either way; gradients sampled (their memory kept for the next
            // build) only where the field has the fast path.
            assert_eq!(build.heights, expected, "{noise:?}");
            assert_eq!(build.gradients.capacity() > 0, fast, "{noise:?}");
        }
    }

    #[test]
    fn extreme_resolutions_are_clamped_not_overflowed() {
        for resolution in [u32::MAX, u32::MAX - 1, 0] {
            let build = build_terrain(TerrainPreset { resolution, ..default() }).unwrap();
            let n = build.heights.width();
            assert!((crate::params::MIN_RESOLUTION..=crate::params::MAX_RESOLUTION).contains(&n), "{n}");
        }
    }

    #[test]
    fn the_patch_is_todays_map_and_chunks_sample_the_same_field() {
        patch_and_chunk_sample_the_field(TerrainPreset { resolution: 33, ..default() });
    }

    #[test]
    fn with_the_erosion_filter_the_patch_and_chunks_sample_the_same_field() {
        let mut params = TerrainPreset { resolution: 33, ..default() };
        params.noise.erosion_filter = noise_terrain_core::ErosionFilter { enabled: true, ..default() };
        patch_and_chunk_sample_the_field(params);
    }

    fn patch_and_chunk_sample_the_field(params: TerrainPreset) {
        let patch = build_terrain(params.clone()).unwrap();
        let map = Heightmap::generate(&params.noise, 33, 33).unwrap();
        assert_eq!(patch.heights, map);
        assert_eq!(positions(&patch.mesh)[0], [-50.0, map.samples()[0] * params.height_scale, -50.0]);

        // A chunk's vertex heights are the field at its world position / world_size.
        let endless = TerrainPreset { layout: TerrainLayout::ENDLESS, ..params };
        let key = ChunkKey { level: 2, x: -3, z: 1 };
        let spec = PieceSpec { key: PieceKey::Chunk(key), stitch: Stitch::NONE };
        let chunk = build_piece(&endless, spec, default(), &BuildControl::new()).unwrap();
        assert_eq!(chunk.geometry.translation, [-768.0, 256.0]);
        assert_eq!(chunk.geometry.size, 256.0);
        let s: &NoiseSettings = &endless.noise;
        for (i, j) in [(0u32, 0u32), (64, 0), (17, 40), (64, 64)] {
            let (x, z) = (-768.0 + 4.0 * i as f64, 256.0 + 4.0 * j as f64);
            let expected = s.sample(x / 100.0, z / 100.0);
            assert!((chunk.heights.get(i, j).unwrap() - expected).abs() < 1e-6, "({i}, {j})");
        }
    }

    /// The endless example's world with rivers (no things, no sea), chunks of `chunk_size` units
    /// with `vertices`.
    fn river_world(chunk_size: f32, vertices: u32) -> TerrainPreset {
        TerrainPreset {
            layout: TerrainLayout::Endless {
                chunk_size,
                chunk_vertices: vertices,
                view_distance: 1000.0,
                lod_levels: 4,
            },
            scatter: Vec::new(),
            sea: false,
            ..TerrainPreset::river_mountains()
        }
    }

    /// Everything a piece shows of a build, bit for bit.
    #[derive(Debug, PartialEq)]
    struct ShownBits {
        /// Mesh positions and normals, then the heights.
        floats: Vec<u32>,
        /// The figures and the raw noise's.
        stats: Vec<u32>,
        texels: Vec<u8>,
        river_segments: Vec<RiverSegment>,
        lake_cells: Vec<([i64; 2], f32)>,
    }

    fn shown_bits(build: &PieceBuild) -> ShownBits {
        let normals = match build.mesh.attribute(Mesh::ATTRIBUTE_NORMAL) {
            Some(VertexAttributeValues::Float32x3(n)) => n.clone(),
            other => panic!("normals: {other:?}"),
        };
        let floats = positions(&build.mesh).into_iter().chain(normals).flatten();
        let stats = [build.stats, build.raw_stats].into_iter().flat_map(|s| [s.min, s.max, s.mean]);
        ShownBits {
            floats: floats.chain(build.heights.samples().iter().copied()).map(f32::to_bits).collect(),
            stats: stats.map(f32::to_bits).collect(),
            texels: build.image.data.clone().unwrap_or_default(),
            river_segments: build.river_segments.clone(),
            lake_cells: build.lake_cells.clone(),
        }
    }

    /// A chunk stitched anew from the samples of its build with another stitching is the chunk
    /// built afresh with the new stitching, bit for bit (heights, mesh, normals, texture, figures,
    /// rivers and lakes), with the erosion filter's gullies and rivers on; samples of another
    /// chunk or of other parameters are not used.
    #[test]
    fn a_chunk_stitched_anew_from_kept_samples_is_the_chunk_built_afresh() {
        let params = river_world(64.0, 65);
        let build = |params: &TerrainPreset, key: ChunkKey, stitch: Stitch, control: &BuildControl| {
            build_piece(params, PieceSpec { key: PieceKey::Chunk(key), stitch }, default(), control).unwrap()
        };
        let fresh = |params: &TerrainPreset, key: ChunkKey, stitch: Stitch| {
            build(params, key, stitch, &BuildControl::new())
        };
        // A chunk with a river on it, and its neighbour.
        let network = RiverNetwork::new(params.river_world());
        let river = network.region(noise_terrain_core::RegionKey { x: 1, y: 1 }).segments[20];
        let [at, _] = river.positions();
        let key = ChunkKey {
            level: 0,
            x: (at[0] * 2000.0 / 64.0).floor() as i64,
            z: (at[1] * 2000.0 / 64.0).floor() as i64,
        };
        let first = fresh(&params, key, Stitch::NONE);
        assert!(!first.river_segments.is_empty(), "a river on the chunk");
        let kept = first.samples.clone().expect("a chunk keeps its samples");
        use noise_terrain_core::advanced::{Corner, Side};
        let west = Stitch::NONE.with(Side::ALL[0], true);
        let two = west.with(Side::ALL[3], true).with_corner(Corner::ALL[1], true);
        for stitch in [west, two, Stitch::NONE] {
            let again = build(&params, key, stitch, &BuildControl::new().with_samples(Some(kept.clone())));
            assert!(Arc::ptr_eq(again.samples.as_ref().unwrap(), &kept), "started from the kept samples");
            let afresh = fresh(&params, key, stitch);
            assert_eq!(shown_bits(&again), shown_bits(&afresh), "{stitch:?}");
            if stitch != Stitch::NONE {
                assert_ne!(shown_bits(&again).floats, shown_bits(&first).floats, "the stitching shows");
            }
        }
        let neighbour = ChunkKey { x: key.x + 1, ..key };
        let other_seed = TerrainPreset {
            noise: NoiseSettings { seed: params.noise.seed + 1, ..params.noise },
            ..params.clone()
        };
        for (params, key) in [(&params, neighbour), (&other_seed, key)] {
            let built = build(params, key, west, &BuildControl::new().with_samples(Some(kept.clone())));
            assert!(!Arc::ptr_eq(built.samples.as_ref().unwrap(), &kept), "not another chunk's samples");
            assert_eq!(shown_bits(&built), shown_bits(&fresh(params, key, west)));
        }
    }

    #[test]
    fn rivers_carve_chunks_of_every_size_and_level_the_same() {
        let build = |params: &TerrainPreset, level: u8, x: i64, z: i64| {
            let spec = PieceSpec { key: PieceKey::Chunk(ChunkKey { level, x, z }), stitch: Stitch::NONE };
            build_piece(params, spec, default(), &BuildControl::new()).unwrap()
        };
        // A square of 128 units with a river in it: the segment 20 of region (1, 1), whose
        // 128-unit chunk is at (a, b).
        let network = RiverNetwork::new(river_world(64.0, 65).river_world());
        let river = network.region(noise_terrain_core::RegionKey { x: 1, y: 1 }).segments[20];
        let [at, _] = river.positions();
        let (a, b) = ((at[0] * 2000.0 / 128.0).floor() as i64, (at[1] * 2000.0 / 128.0).floor() as i64);
        let (small, large) = (river_world(64.0, 65), river_world(128.0, 129));
        let whole = build(&large, 0, a, b);
        let dry = build(&TerrainPreset { endless_rivers: default(), ..large.clone() }, 0, a, b);
        let carved = whole.heights.samples().iter().zip(dry.heights.samples()).filter(|(w, d)| w < d).count();
        assert!(carved > 100, "the river carves the chunk ({carved} vertices)");
        assert!(!whole.river_segments.is_empty());
        // Four chunks of half the size: the same heights where they meet the large one's vertices,
        // and together the same segments and lakes.
        let mut segments = Vec::new();
        let mut lakes = Vec::new();
        for (dx, dz) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
            let quarter = build(&small, 0, 2 * a + dx, 2 * b + dz);
            for j in 0..65 {
                for i in 0..65 {
                    let (wi, wj) = (i + 64 * dx as u32, j + 64 * dz as u32);
                    assert_eq!(
                        quarter.heights.get(i, j).unwrap().to_bits(),
                        whole.heights.get(wi, wj).unwrap().to_bits()
                    );
                }
            }
            segments.extend(quarter.river_segments);
            lakes.extend(quarter.lake_cells);
        }
        let key = |s: &RiverSegment| s.cells;
        segments.sort_by_key(key);
        let mut expected = whole.river_segments.clone();
        expected.sort_by_key(key);
        assert_eq!(segments, expected);
        lakes.sort_by_key(|l| l.0);
        let mut expected_lakes = whole.lake_cells.clone();
        expected_lakes.sort_by_key(|l| l.0);
        assert_eq!(lakes, expected_lakes);
        // The small layout's level-1 chunk there has every other vertex of the large one.
        let coarse = build(&small, 1, a, b);
        for j in 0..65 {
            for i in 0..65 {
                let (c, w) = (coarse.heights.get(i, j).unwrap(), whole.heights.get(2 * i, 2 * j).unwrap());
                assert_eq!(c.to_bits(), w.to_bits(), "({i}, {j})");
            }
        }
    }
}
