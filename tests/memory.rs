//! Peak memory of building a 2048x2048 terrain (heights, vertex buffers, texture), measured with a
//! counting allocator, against the bytes the build produces.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

use bevy::mesh::{Indices, VertexAttributeValues};
use bevy_noise_terrain::TerrainPreset;
use bevy_noise_terrain::build_terrain;

/// The system allocator, counting the bytes in use and their peak.
struct Counting;

static IN_USE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let now = IN_USE.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
        PEAK.fetch_max(now, Ordering::Relaxed);
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        IN_USE.fetch_sub(layout.size(), Ordering::Relaxed);
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let now = IN_USE.fetch_add(new_size, Ordering::Relaxed) + new_size;
        PEAK.fetch_max(now, Ordering::Relaxed);
        let moved = unsafe { System.realloc(ptr, layout, new_size) };
        IN_USE.fetch_sub(layout.size(), Ordering::Relaxed);
        moved
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

#[test]
fn building_a_2048_terrain_peaks_below_one_and_a_half_times_its_output() {
    let (params, _) = TerrainPreset { resolution: 2048, ..Default::default() }.validated();
    let baseline = IN_USE.load(Ordering::Relaxed);
    PEAK.store(baseline, Ordering::Relaxed);
    let build = build_terrain(params).unwrap();
    let peak = PEAK.load(Ordering::Relaxed) - baseline;

    let attributes: usize = build
        .mesh
        .attributes()
        .map(|(_, values)| match values {
            VertexAttributeValues::Float32x3(v) => v.len() * 12,
            VertexAttributeValues::Float32x2(v) => v.len() * 8,
            other => panic!("unexpected attribute {other:?}"),
        })
        .sum();
    let indices = match build.mesh.indices() {
        Some(Indices::U32(i)) => i.len() * 4,
        _ => panic!("u32 indices"),
    };
    let texture = build.image.data.as_ref().map_or(0, Vec::len);
    let heights = build.heights.samples().len() * 4;
    let output = attributes + indices + texture + heights;
    let ratio = peak as f64 / output as f64;
    println!("2048x2048: output {} MiB, peak {} MiB, ratio {ratio:.3}", output >> 20, peak >> 20);
    assert!(ratio <= 1.5, "peak {peak} bytes is {ratio:.2}x the output {output} bytes");
}
