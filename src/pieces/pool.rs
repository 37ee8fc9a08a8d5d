//! Memory and assets kept between pieces: the buffers of replaced builds for the next jobs, and
//! the mesh, image and material of despawned pieces for new ones. Shared by every terrain.

use std::time::{Duration, Instant};

use bevy::prelude::*;

use crate::build::TerrainBuffers;
use crate::pieces::jobs::MAX_JOBS_IN_FLIGHT;

/// Most unused piece assets (mesh, image, material) kept for new pieces.
pub const ASSET_POOL_SIZE: usize = 16;
/// How long the replaced pieces' memory is kept for next jobs.
pub const SPARE_BUFFERS_KEPT_FOR: Duration = Duration::from_secs(1);

/// A piece's assets, kept in the pool between pieces.
#[derive(Debug, Clone)]
pub(crate) struct PieceAssets {
    pub mesh: Handle<Mesh>,
    pub image: Handle<Image>,
    pub material: Option<Handle<StandardMaterial>>,
}

/// The memory and assets kept for reuse.
#[derive(Resource, Debug, Default)]
pub struct PiecePool {
    spare: Vec<TerrainBuffers>,
    spare_used: Option<Instant>,
    /// The app's real-time clock at the frame's job step ([`Time<Real>`]), which the kept
    /// memory's age is read on (the system clock where the app has no time).
    clock: Option<Instant>,
    assets: Vec<PieceAssets>,
}

impl PiecePool {
    /// Bytes of earlier pieces' memory held for next jobs (0 when none is held).
    pub fn spare_bytes(&self) -> usize {
        self.spare.iter().map(TerrainBuffers::capacity_bytes).sum()
    }

    /// Keeps a replaced build's memory for a next job (at most one per job slot).
    pub(crate) fn keep_buffers(&mut self, buffers: TerrainBuffers) {
        if self.spare.len() < MAX_JOBS_IN_FLIGHT {
            self.spare.push(buffers);
            self.spare_used = Some(self.now());
        }
    }

    /// Memory for a new job: kept memory, or none.
    pub(crate) fn take_buffers(&mut self) -> TerrainBuffers {
        match self.spare.pop() {
            Some(buffers) => {
                self.spare_used = Some(self.now());
                buffers
            }
            None => TerrainBuffers::default(),
        }
    }

    /// Sets the clock the kept memory's age is read on: the app's real time this frame.
    pub(crate) fn set_clock(&mut self, now: Instant) {
        self.clock = Some(now);
    }

    /// The pool's clock, or the system's before it was set.
    fn now(&self) -> Instant {
        self.clock.unwrap_or_else(Instant::now)
    }

    /// Lets the kept memory go when no job took or left any for [`SPARE_BUFFERS_KEPT_FOR`].
    pub(crate) fn expire_buffers(&mut self, now: Instant) {
        if self.spare_used.is_some_and(|t| now.duration_since(t) > SPARE_BUFFERS_KEPT_FOR) {
            self.spare.clear();
            self.spare_used = None;
        }
    }

    /// Keeps a despawned piece's assets for a new piece (at most [`ASSET_POOL_SIZE`]).
    pub(crate) fn keep_assets(&mut self, assets: PieceAssets) {
        if self.assets.len() < ASSET_POOL_SIZE {
            self.assets.push(assets);
        }
    }

    /// Assets for a new piece: kept ones, or none.
    pub(crate) fn take_assets(&mut self) -> Option<PieceAssets> {
        self.assets.pop()
    }
}

/// The assets a system needs to make new pieces.
#[derive(bevy::ecs::system::SystemParam)]
pub(crate) struct PieceAssetStores<'w> {
    pub meshes: ResMut<'w, Assets<Mesh>>,
    pub images: ResMut<'w, Assets<Image>>,
    pub materials: Option<ResMut<'w, Assets<StandardMaterial>>>,
}

impl PieceAssetStores<'_> {
    /// Fresh assets for a piece.
    pub(crate) fn make(&mut self) -> PieceAssets {
        PieceAssets {
            mesh: self.meshes.add(Mesh::from(Plane3d::default())),
            image: self.images.add(Image::default()),
            material: self.materials.as_mut().map(|m| m.add(piece_material(None))),
        }
    }
}

/// The material of a piece showing `image`.
pub(crate) fn piece_material(image: Option<Handle<Image>>) -> StandardMaterial {
    StandardMaterial { base_color_texture: image, perceptual_roughness: 0.92, reflectance: 0.2, ..default() }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn buffers(n: usize) -> TerrainBuffers {
        TerrainBuffers { gradients: Vec::with_capacity(n), ..default() }
    }

    #[test]
    fn kept_memory_is_reused_then_let_go_after_a_second_without_use() {
        let mut pool = PiecePool::default();
        for _ in 0..MAX_JOBS_IN_FLIGHT + 5 {
            pool.keep_buffers(buffers(100));
        }
        assert_eq!(pool.spare.len(), MAX_JOBS_IN_FLIGHT, "at most one per job slot");
        assert!(pool.spare_bytes() >= MAX_JOBS_IN_FLIGHT * 100 * 8);
        assert!(pool.take_buffers().gradients.capacity() >= 100);
        let used = pool.spare_used.unwrap();
        pool.expire_buffers(used + SPARE_BUFFERS_KEPT_FOR / 2);
        assert!(pool.spare_bytes() > 0, "kept within the time");
        pool.expire_buffers(used + SPARE_BUFFERS_KEPT_FOR * 2);
        assert_eq!(pool.spare_bytes(), 0, "let go after it");
        assert_eq!(pool.take_buffers().capacity_bytes(), 0, "an empty pool gives fresh memory");
    }

    #[test]
    fn the_asset_pool_is_bounded() {
        let mut pool = PiecePool::default();
        for _ in 0..ASSET_POOL_SIZE * 2 {
            pool.keep_assets(PieceAssets {
                mesh: Handle::default(),
                image: Handle::default(),
                material: None,
            });
        }
        let mut taken = 0;
        while pool.take_assets().is_some() {
            taken += 1;
        }
        assert_eq!(taken, ASSET_POOL_SIZE);
    }
}
