//! Which chunks of an endless terrain exist around a focus point, and at which level of detail.
//!
//! The world is covered by a quadtree per root square: a chunk at level `L` is `chunk_size · 2^L`
//! wide, and every chunk has the same number of vertices, so the resolution halves with each
//! level. A chunk is split into its four children while the focus is closer to it than
//! [`SPLIT_DISTANCE`] times its own size, down to level 0. With that factor above √2, two chunks
//! that share an edge differ by at most one level (see [`select_chunks`]), so an edge only ever
//! has to be stitched to a neighbour exactly twice as coarse.
//!
//! Coordinates here are in the terrain's own space: `x` and `z` of the horizontal plane, in
//! world units, `f64` so that keys stay exact far from the origin.

use std::collections::HashSet;
use std::hash::{BuildHasherDefault, Hasher};

use crate::grid::GridWindow;

/// A node is split while the focus is closer to its square than this many times its side.
/// Above √2, so that neighbours differ by at most one level (proof at [`select_chunks`]).
pub const SPLIT_DISTANCE: f64 = 1.5;

/// The most levels of detail: level 15 chunks are 32768 times as wide as level 0 chunks.
pub const MAX_LOD_LEVELS: u8 = 16;

/// One chunk: its level of detail and its index on that level's grid of `chunk_size · 2^level`
/// wide squares (chunk `(x, z)` covers `[x, x + 1) · size` by `[z, z + 1) · size`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ChunkKey {
    /// Level of detail: 0 is the finest.
    pub level: u8,
    /// Column on the level's grid.
    pub x: i64,
    /// Row on the level's grid.
    pub z: i64,
}

impl ChunkKey {
    /// Side length of the chunk in world units.
    pub fn size(self, chunk_size: f64) -> f64 {
        chunk_size * f64::from(1u32 << self.level.min(31))
    }

    /// Its lowest corner `(x, z)` in world units.
    pub fn min_corner(self, chunk_size: f64) -> [f64; 2] {
        let size = self.size(chunk_size);
        [self.x as f64 * size, self.z as f64 * size]
    }

    /// The chunk one level coarser that contains this one.
    pub fn parent(self) -> ChunkKey {
        // An arithmetic shift is a floor division, right for negative indices too.
        ChunkKey { level: self.level + 1, x: self.x >> 1, z: self.z >> 1 }
    }

    /// The four chunks one level finer that make up this one (level 0 has none: empty).
    pub fn children(self) -> impl Iterator<Item = ChunkKey> {
        let level = self.level.checked_sub(1);
        level.into_iter().flat_map(move |level| {
            [(0, 0), (1, 0), (0, 1), (1, 1)].map(|(dx, dz)| ChunkKey {
                level,
                x: self.x * 2 + dx,
                z: self.z * 2 + dz,
            })
        })
    }

    /// The same-level chunk across `side`.
    pub fn neighbour(self, side: Side) -> ChunkKey {
        let [dx, dz] = side.direction();
        ChunkKey { x: self.x + dx, z: self.z + dz, ..self }
    }

    /// Distance from `point` to the chunk's square (0 inside it).
    pub fn distance_to(self, point: [f64; 2], chunk_size: f64) -> f64 {
        let size = self.size(chunk_size);
        let [x0, z0] = self.min_corner(chunk_size);
        let dx = (x0 - point[0]).max(point[0] - (x0 + size)).max(0.0);
        let dz = (z0 - point[1]).max(point[1] - (z0 + size)).max(0.0);
        // `hypot`'s care for overflow cost a tenth of a selection: it is kept for the distances
        // whose squares overflow (the selection's foci stay within ±1e12, see `sane`).
        let squared = dx * dx + dz * dz;
        if squared.is_finite() { squared.sqrt() } else { dx.hypot(dz) }
    }
}

/// One of a chunk's four edges.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Side {
    /// The edge at the lowest `x`.
    West,
    /// The edge at the highest `x`.
    East,
    /// The edge at the lowest `z`.
    North,
    /// The edge at the highest `z`.
    South,
}

impl Side {
    /// All four sides, in the order of [`Stitch`]'s flags.
    pub const ALL: [Side; 4] = [Side::West, Side::East, Side::North, Side::South];

    /// Unit step `(dx, dz)` across the side.
    pub fn direction(self) -> [i64; 2] {
        match self {
            Side::West => [-1, 0],
            Side::East => [1, 0],
            Side::North => [0, -1],
            Side::South => [0, 1],
        }
    }

    /// The side facing this one across an edge: what a neighbour calls the same edge.
    pub fn opposite(self) -> Side {
        match self {
            Side::West => Side::East,
            Side::East => Side::West,
            Side::North => Side::South,
            Side::South => Side::North,
        }
    }

    fn index(self) -> usize {
        match self {
            Side::West => 0,
            Side::East => 1,
            Side::North => 2,
            Side::South => 3,
        }
    }
}

/// Which edges and corners of a chunk meet a neighbour one level coarser. Edges that do are
/// folded onto that neighbour's edge; vertices where a coarser chunk touches (stitched edges,
/// and corners a coarser chunk touches, even only diagonally) take its normals, so that every
/// chunk around a vertex computes the same one (see [`crate::map::surface::SurfaceLayout`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Stitch {
    /// Per side, in the order of [`Side::ALL`]: the neighbour across it is one level coarser.
    pub edges: [bool; 4],
    /// Per corner, in the order of [`Corner::ALL`]: a chunk one level coarser touches it.
    pub corners: [bool; 4],
}

/// One of a chunk's four corners.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Corner {
    /// Lowest `x`, lowest `z`.
    NorthWest,
    /// Highest `x`, lowest `z`.
    NorthEast,
    /// Lowest `x`, highest `z`.
    SouthWest,
    /// Highest `x`, highest `z`.
    SouthEast,
}

impl Corner {
    /// All four corners, in the order of [`Stitch::corners`].
    pub const ALL: [Corner; 4] = [Corner::NorthWest, Corner::NorthEast, Corner::SouthWest, Corner::SouthEast];

    /// The two sides that meet at the corner: `(the x side, the z side)`.
    pub fn sides(self) -> (Side, Side) {
        match self {
            Corner::NorthWest => (Side::West, Side::North),
            Corner::NorthEast => (Side::East, Side::North),
            Corner::SouthWest => (Side::West, Side::South),
            Corner::SouthEast => (Side::East, Side::South),
        }
    }

    fn index(self) -> usize {
        match self {
            Corner::NorthWest => 0,
            Corner::NorthEast => 1,
            Corner::SouthWest => 2,
            Corner::SouthEast => 3,
        }
    }
}

impl Stitch {
    /// Nothing is stitched: the chunk meets only neighbours of its own level or finer ones.
    pub const NONE: Stitch = Stitch { edges: [false; 4], corners: [false; 4] };

    /// Whether `side` is stitched.
    pub fn has(self, side: Side) -> bool {
        self.edges[side.index()]
    }

    /// Whether a coarser chunk touches `corner`.
    pub fn has_corner(self, corner: Corner) -> bool {
        self.corners[corner.index()]
    }

    /// The same flags with `side` set to `on`; the corners at its ends are set too when `on`.
    pub fn with(mut self, side: Side, on: bool) -> Stitch {
        self.edges[side.index()] = on;
        if on {
            for corner in Corner::ALL {
                let (x, z) = corner.sides();
                if x == side || z == side {
                    self.corners[corner.index()] = true;
                }
            }
        }
        self
    }

    /// The same flags with `corner` set to `on`.
    pub fn with_corner(mut self, corner: Corner, on: bool) -> Stitch {
        self.corners[corner.index()] = on;
        self
    }
}

/// The layout of an endless terrain, in world units. Build it with [`LodSettings::clamped`]'s
/// rules in mind: [`select_chunks`] clamps again, so any value is safe.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LodSettings {
    /// Side of a level-0 chunk, `> 0`.
    pub chunk_size: f64,
    /// Chunks whose square is closer than this to the focus exist.
    pub view_distance: f64,
    /// Levels of detail, `1..=MAX_LOD_LEVELS`; level `levels - 1` is the coarsest.
    pub levels: u8,
}

/// The most root chunks across the view's diameter: bounds the chunk count whatever the view
/// distance (a clamp, not an error; see [`LodSettings::clamped`]).
pub const MAX_ROOTS_ACROSS: f64 = 64.0;

impl LodSettings {
    /// The settings with every value in a range [`select_chunks`] can serve: chunk size at
    /// least `1e-3` (NaN becomes 64), levels in `1..=MAX_LOD_LEVELS`, and the view distance
    /// between one chunk and [`MAX_ROOTS_ACROSS`] / 2 coarsest chunks (NaN becomes that
    /// maximum).
    pub fn clamped(&self) -> LodSettings {
        let chunk_size = if self.chunk_size.is_nan() { 64.0 } else { self.chunk_size.clamp(1e-3, 1e9) };
        let levels = self.levels.clamp(1, MAX_LOD_LEVELS);
        let (least, most) = LodSettings { chunk_size, view_distance: 0.0, levels }.view_distance_range();
        let view_distance =
            if self.view_distance.is_nan() { most } else { self.view_distance.clamp(least, most) };
        LodSettings { chunk_size, view_distance, levels }
    }

    /// The view distances [`clamped`](Self::clamped) keeps for this chunk size and level count
    /// (for settings whose other values are in range): from one chunk to [`MAX_ROOTS_ACROSS`] / 2
    /// coarsest chunks.
    pub fn view_distance_range(&self) -> (f64, f64) {
        let root = self.chunk_size * f64::from(1u32 << (self.levels.clamp(1, MAX_LOD_LEVELS) - 1));
        (self.chunk_size, root * MAX_ROOTS_ACROSS / 2.0)
    }
}

/// A chunk chosen by [`select_chunks`]: which one, how far from the focus, and which edges it
/// stitches to coarser neighbours.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SelectedChunk {
    /// The chunk.
    pub key: ChunkKey,
    /// Distance from the focus to its square.
    pub distance: f64,
    /// Its edges that meet a chunk one level coarser.
    pub stitch: Stitch,
}

/// The chunks that cover the view around the foci (the origin when there is none), nearest
/// first, with their stitching. Distances are to the nearest focus.
///
/// Every point closer than the view distance lies in exactly one chunk (the chunks never
/// overlap). Two chunks sharing an edge differ by at most one level: if a leaf `A` of side `s`
/// touched a leaf of side `s/4`, that leaf's parent `P` (side `s/2`, touching `A`) was split, so
/// the focus is closer than `1.5 · s/2` to `P`; every point of `P` is within `P`'s diagonal
/// `0.71 · s` of the nearest one, so the focus is closer than `0.75 s + 0.71 s < 1.5 s` to `A`,
/// and `A` would have been split too. With several foci the same holds for the focus that split
/// `P`.
///
/// ```
/// use noise_terrain_core::{LodSettings, chunk_window, select_chunks};
///
/// let lod = LodSettings { chunk_size: 64.0, view_distance: 1000.0, levels: 4 };
/// let chunks = select_chunks(&[[0.0, 0.0]], &lod);
/// let nearest = chunks.iter().min_by(|a, b| a.distance.total_cmp(&b.distance)).unwrap();
/// assert_eq!(nearest.key.level, 0); // the finest level near the focus
/// // Where that chunk samples the field: 65 vertices a side, 1000 world units a map unit.
/// let window = chunk_window(nearest.key, lod.chunk_size, 65, 1000.0, 0);
/// assert_eq!((window.width, window.height), (65, 65));
/// ```
pub fn select_chunks(foci: &[[f64; 2]], settings: &LodSettings) -> Vec<SelectedChunk> {
    ChunkSelector::default().select(foci, settings).to_vec()
}

/// [`select_chunks`] with its working memory kept from call to call: a streaming terrain selects
/// nearly every frame while its focus moves, and fresh memory each time cost a third of it.
#[derive(Clone, Debug, Default)]
pub struct ChunkSelector {
    foci: Vec<[f64; 2]>,
    stack: Vec<ChunkKey>,
    roots: KeySet<(i64, i64)>,
    present: KeySet<ChunkKey>,
    leaves: Vec<SelectedChunk>,
}

impl ChunkSelector {
    /// The chunks around `foci`, exactly as [`select_chunks`] returns them.
    pub fn select(&mut self, foci: &[[f64; 2]], settings: &LodSettings) -> &[SelectedChunk] {
        let s = settings.clamped();
        self.foci.clear();
        if foci.is_empty() {
            self.foci.push([0.0; 2]);
        } else {
            self.foci.extend(foci.iter().map(|f| [sane(f[0]), sane(f[1])]));
        }
        let foci = &self.foci;
        // Distance to the nearest focus.
        let distance_to = |key: ChunkKey| {
            foci.iter().map(|&f| key.distance_to(f, s.chunk_size)).fold(f64::INFINITY, f64::min)
        };
        let root_level = s.levels - 1;
        let root_size = s.chunk_size * f64::from(1u32 << root_level);
        let range = |c: f64| {
            let lo = ((c - s.view_distance) / root_size).floor() as i64;
            let hi = ((c + s.view_distance) / root_size).floor() as i64;
            lo..=hi
        };
        let (leaves, stack, roots, present) =
            (&mut self.leaves, &mut self.stack, &mut self.roots, &mut self.present);
        leaves.clear();
        stack.clear();
        roots.clear();
        present.clear();
        for focus in foci {
            for z in range(focus[1]) {
                for x in range(focus[0]) {
                    if roots.insert((x, z)) {
                        stack.push(ChunkKey { level: root_level, x, z });
                    }
                }
            }
        }
        while let Some(key) = stack.pop() {
            let distance = distance_to(key);
            if distance >= s.view_distance {
                continue;
            }
            if key.level > 0 && distance < SPLIT_DISTANCE * key.size(s.chunk_size) {
                stack.extend(key.children());
            } else {
                leaves.push(SelectedChunk { key, distance, stitch: Stitch::NONE });
            }
        }
        present.extend(leaves.iter().map(|c| c.key));
        // The chunk at `key`'s place is one level coarser than `key`.
        let coarser = |key: ChunkKey| !present.contains(&key) && present.contains(&key.parent());
        for chunk in leaves.iter_mut() {
            for side in Side::ALL {
                chunk.stitch = chunk.stitch.with(side, coarser(chunk.key.neighbour(side)));
            }
            for corner in Corner::ALL {
                let (x, z) = corner.sides();
                let diagonal = chunk.key.neighbour(x).neighbour(z);
                if coarser(diagonal) {
                    chunk.stitch = chunk.stitch.with_corner(corner, true);
                }
            }
        }
        // Keys are unique, so the order is total and an unstable sort gives the same one.
        leaves.sort_unstable_by(|a, b| a.distance.total_cmp(&b.distance).then(a.key.cmp(&b.key)));
        leaves
    }
}

/// A fast hasher for the small integer keys of the selection's own sets (FxHash's step, with a
/// final rotation so that the table's low bits see every input bit). Nothing here needs
/// protection against chosen keys, and std's SipHash took a tenth of a frame's selection.
#[derive(Default, Clone, Copy)]
struct KeyHasher(u64);

impl KeyHasher {
    fn add(&mut self, v: u64) {
        self.0 = (self.0 ^ v).wrapping_mul(0xf135_7aea_2e62_a9c5);
    }
}

impl Hasher for KeyHasher {
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.add(u64::from(b));
        }
    }

    fn write_u8(&mut self, i: u8) {
        self.add(u64::from(i));
    }

    fn write_i64(&mut self, i: i64) {
        self.add(i as u64);
    }

    fn finish(&self) -> u64 {
        self.0.rotate_left(26)
    }
}

/// A set of keys hashed with [`KeyHasher`].
type KeySet<T> = HashSet<T, BuildHasherDefault<KeyHasher>>;

/// A focus coordinate the chunk grid can hold: NaN becomes 0, and it stays within ±1e12 (with
/// chunks at least 1e-3 wide, chunk indices times vertices stay far inside `i64`).
fn sane(c: f64) -> f64 {
    if c.is_nan() { 0.0 } else { c.clamp(-1e12, 1e12) }
}

/// Where chunk `key` samples the field: the window of the pixel lattice whose pixels are its
/// `vertices × vertices` vertices, plus `border` pixels on every side. A chunk `chunk_size · 2^L`
/// wide has `vertices - 1` pixels per side, and `world_per_unit` world units make one map unit.
///
/// Level `L + 1`'s lattice is every other pixel of level `L`'s (its pixels per unit are exactly
/// half), so a coarse chunk's vertex and the fine chunk's vertex at the same point sample the
/// same map coordinate, bit for bit: their heights are equal.
pub fn chunk_window(
    key: ChunkKey,
    chunk_size: f64,
    vertices: u32,
    world_per_unit: f64,
    border: u32,
) -> GridWindow {
    let cells = i64::from(vertices.max(2) - 1);
    let border_i = i64::from(border);
    GridWindow {
        origin: [
            key.x.saturating_mul(cells).saturating_sub(border_i),
            key.z.saturating_mul(cells).saturating_sub(border_i),
        ],
        width: vertices.max(2) + 2 * border,
        height: vertices.max(2) + 2 * border,
        pixels_per_unit: world_per_unit * cells as f64 / key.size(chunk_size),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn settings() -> LodSettings {
        LodSettings { chunk_size: 64.0, view_distance: 1000.0, levels: 4 }
    }

    /// The level-0 cells of a chunk, for coverage checks.
    fn cells(key: ChunkKey) -> impl Iterator<Item = (i64, i64)> {
        let n = 1i64 << key.level;
        (0..n).flat_map(move |dz| (0..n).map(move |dx| (key.x * n + dx, key.z * n + dz)))
    }

    #[test]
    fn chunks_near_the_focus_are_finest_and_far_ones_coarse() {
        let chunks = select_chunks(&[[10.0, -20.0]], &settings());
        assert_eq!(chunks[0].key, ChunkKey { level: 0, x: 0, z: -1 });
        assert!(chunks.windows(2).all(|w| w[0].distance <= w[1].distance), "nearest first");
        for c in &chunks {
            assert!(c.distance < 1000.0);
            if c.distance < 128.0 {
                assert_eq!(c.key.level, 0, "{c:?}");
            }
        }
        assert!(chunks.iter().any(|c| c.key.level >= 2));
        assert!(chunks.len() < 200, "{} chunks", chunks.len());
    }

    #[test]
    fn one_level_gives_a_plain_grid() {
        let s = LodSettings { chunk_size: 10.0, view_distance: 20.0, levels: 1 };
        let chunks = select_chunks(&[[5.0, 5.0]], &s);
        assert!(chunks.iter().all(|c| c.key.level == 0 && c.stitch == Stitch::NONE));
        // The 5 x 5 block around the focus chunk, without the four corners (21.2 away).
        assert_eq!(chunks.len(), 21);
    }

    #[test]
    fn bad_settings_are_clamped_into_a_bounded_layout() {
        for s in [
            LodSettings { chunk_size: 0.0, view_distance: 1e9, levels: 100 },
            LodSettings { chunk_size: f64::NAN, view_distance: f64::NAN, levels: 0 },
            LodSettings { chunk_size: 1e12, view_distance: -5.0, levels: 1 },
        ] {
            let clamped = s.clamped();
            assert!(clamped.chunk_size > 0.0 && clamped.view_distance > 0.0);
            assert!((1..=MAX_LOD_LEVELS).contains(&clamped.levels));
            let chunks = select_chunks(&[], &s);
            assert!(!chunks.is_empty() && chunks.len() < 20_000, "{s:?}: {}", chunks.len());
        }
        assert!(!select_chunks(&[[f64::NAN, f64::INFINITY]], &settings()).is_empty());
    }

    #[test]
    fn a_kept_selector_selects_what_a_fresh_one_does() {
        let mut selector = ChunkSelector::default();
        let wide = LodSettings { chunk_size: 16.0, view_distance: 700.0, levels: 5 };
        for (i, s) in [settings(), wide, settings()].iter().enumerate() {
            for focus in [[0.0, 0.0], [5000.0, -317.5], [-20.0, 9.0]] {
                let foci = [focus, [focus[0] + 100.0 * i as f64, focus[1]]];
                let foci = &foci[..1 + i % 2];
                assert_eq!(selector.select(foci, s), select_chunks(foci, s).as_slice(), "{s:?} at {foci:?}");
            }
        }
    }

    #[test]
    fn keys_convert_between_levels() {
        let key = ChunkKey { level: 2, x: -3, z: 5 };
        assert_eq!(key.parent(), ChunkKey { level: 3, x: -2, z: 2 });
        assert!(key.children().all(|c| c.parent() == key));
        assert_eq!(key.children().count(), 4);
        assert_eq!(ChunkKey { level: 0, x: 0, z: 0 }.children().count(), 0);
        assert_eq!(key.min_corner(10.0), [-120.0, 200.0]);
        assert_eq!(key.distance_to([-100.0, 210.0], 10.0), 0.0);
        assert_eq!(key.distance_to([-130.0, 210.0], 10.0), 10.0);
        assert_eq!(key.distance_to([-1e300, 210.0], 10.0), 1e300, "no overflow far away");
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// The chunks tile the view once, neighbours are at most one level apart, and an edge is
        /// stitched exactly where the neighbour across it is one level coarser.
        #[test]
        fn chunks_tile_the_view_and_neighbours_differ_by_one_level_at_most(
            fx in -1e5f64..1e5, fz in -1e5f64..1e5, levels in 1u8..6, view in 50.0f64..700.0,
            second in proptest::option::of((-300.0f64..300.0, -300.0f64..300.0)),
        ) {
            let s = LodSettings { chunk_size: 16.0, view_distance: view, levels };
            let mut foci = vec![[fx, fz]];
            foci.extend(second.map(|(dx, dz)| [fx + dx, fz + dz]));
            let chunks = select_chunks(&foci, &s);
            let mut owner = std::collections::HashMap::new();
            for c in &chunks {
                for cell in cells(c.key) {
                    prop_assert!(owner.insert(cell, c.key).is_none(), "{:?} overlaps", c.key);
                }
            }
            // The level-0 cell under the focus and its neighbours within the view are covered.
            let (cx, cz) = ((fx / 16.0).floor() as i64, (fz / 16.0).floor() as i64);
            for (dx, dz) in [(0, 0), (1, 0), (-1, 0), (0, 1), (0, -1)] {
                prop_assert!(owner.contains_key(&(cx + dx, cz + dz)));
            }
            for c in &chunks {
                for side in Side::ALL {
                    let n = 1i64 << c.key.level;
                    // Every level-0 cell just across this side.
                    let across: Vec<_> = (0..n)
                        .map(|k| match side {
                            Side::West => (c.key.x * n - 1, c.key.z * n + k),
                            Side::East => (c.key.x * n + n, c.key.z * n + k),
                            Side::North => (c.key.x * n + k, c.key.z * n - 1),
                            Side::South => (c.key.x * n + k, c.key.z * n + n),
                        })
                        .filter_map(|cell| owner.get(&cell))
                        .collect();
                    for other in &across {
                        prop_assert!(other.level.abs_diff(c.key.level) <= 1, "{:?} next to {:?}", c.key, other);
                    }
                    let coarser = across.iter().any(|o| o.level == c.key.level + 1);
                    prop_assert_eq!(c.stitch.has(side), coarser, "{:?} {:?}", c.key, side);
                }
                for corner in Corner::ALL {
                    // The level-0 cells around the corner point.
                    let n = 1i64 << c.key.level;
                    let (cx, cz) = match corner {
                        Corner::NorthWest => (c.key.x * n, c.key.z * n),
                        Corner::NorthEast => (c.key.x * n + n, c.key.z * n),
                        Corner::SouthWest => (c.key.x * n, c.key.z * n + n),
                        Corner::SouthEast => (c.key.x * n + n, c.key.z * n + n),
                    };
                    let around = [(cx - 1, cz - 1), (cx, cz - 1), (cx - 1, cz), (cx, cz)];
                    let levels: Vec<u8> = around.iter().filter_map(|cell| owner.get(cell)).map(|k| k.level).collect();
                    prop_assert!(levels.iter().all(|&l| l.abs_diff(c.key.level) <= 1), "{:?} at {:?}: {:?}", c.key, corner, levels);
                    prop_assert_eq!(c.stitch.has_corner(corner), levels.contains(&(c.key.level + 1)), "{:?} {:?}", c.key, corner);
                }
            }
        }
    }
}
