//! Small inputs never make huge allocations, and erosion stays within its memory budget: peak
//! heap use measured with a counting allocator.

use std::alloc::{GlobalAlloc, Layout, System};
use std::mem::MaybeUninit;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use noise_terrain_core::GridWindow;
use noise_terrain_core::advanced::fill_grid_uninit;
use noise_terrain_core::{Erosion, Heightmap, Hydraulic, NoiseSettings, Thermal, erode};

struct Counting;

static CURRENT: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);
/// The tests share the counters: one at a time.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

// SAFETY: every call is forwarded to the system allocator unchanged; the counters only observe.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let now = CURRENT.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
        PEAK.fetch_max(now, Ordering::Relaxed);
        // SAFETY: the caller's contract for `alloc` is passed on as it is.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        CURRENT.fetch_sub(layout.size(), Ordering::Relaxed);
        // SAFETY: `ptr` was allocated by `System` with this layout (see `alloc`).
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// The peak heap use above what was in use before `f` ran.
fn peak_of(f: impl FnOnce()) -> usize {
    let before = CURRENT.load(Ordering::Relaxed);
    PEAK.store(before, Ordering::Relaxed);
    f();
    PEAK.load(Ordering::Relaxed) - before
}

#[test]
fn a_very_wide_map_needs_little_more_than_its_output() {
    let _one = ONE_AT_A_TIME.lock().unwrap();
    let settings = NoiseSettings { octaves: 3, ..Default::default() };
    let width = 1u32 << 24;
    let output = width as usize * 4;
    let mut map = None;
    let peak = peak_of(|| map = Some(Heightmap::generate(&settings, width, 1).unwrap()));
    // Before rows were filled in segments, the x positions and each thread's row buffers came to
    // about 20 times the output here.
    assert!(peak < output + (16 << 20), "peak {} MiB for a {} MiB map", peak >> 20, output >> 20);
    let map = map.unwrap();
    for i in [0, 4095, 4096, 4097, 1 << 20, width - 1] {
        let expected = settings.sample(i as f64 / width as f64, 0.0);
        assert_eq!(map.get(i, 0).unwrap().to_bits(), expected.to_bits(), "pixel {i}");
    }
}

#[test]
fn an_empty_fill_allocates_nothing_whatever_its_width() {
    let _one = ONE_AT_A_TIME.lock().unwrap();
    let sampler = NoiseSettings::default().sampler();
    let window = GridWindow { origin: [0, 0], width: u32::MAX, height: 0, pixels_per_unit: 1.0 };
    let mut out: [MaybeUninit<f32>; 0] = [];
    let peak = peak_of(|| fill_grid_uninit(&sampler, window, &mut out));
    assert!(peak < 1 << 20, "{} bytes for an empty fill", peak);
}

#[test]
fn erosion_needs_at_most_three_times_the_map_including_its_outputs() {
    let _one = ONE_AT_A_TIME.lock().unwrap();
    let mut map = Heightmap::generate(&NoiseSettings { octaves: 6, ..Default::default() }, 512, 512).unwrap();
    let bytes = map.samples().len() * 4;
    let settings = Erosion {
        hydraulic: Hydraulic { droplets: 20_000, ..Default::default() },
        thermal: Thermal { iterations: 3, ..Default::default() },
        ..Default::default()
    };
    let never = std::sync::atomic::AtomicBool::new(false);
    let peak = peak_of(|| {
        let world = noise_terrain_core::MapWorld { cell_size: 1.0, height_scale: 1.0, sea_level: 0.0 };
        let maps = erode(&mut map, &settings, &world, &|_| {}, &never).unwrap();
        assert!(maps.totals.eroded > 0.0);
    });
    // The flow and deposition maps are two of the three; the droplets' tiles and the thermal
    // bands' rows are small.
    assert!(peak <= 3 * bytes, "peak {} KiB for a {} KiB map", peak >> 10, bytes >> 10);
    assert!(peak >= 2 * bytes, "the two output maps are counted: {} KiB", peak >> 10);
}

#[test]
fn stream_power_needs_at_most_six_maps_including_its_outputs() {
    use noise_terrain_core::{MapWorld, StreamPower, StreamPowerMaps, evolve_landscape};
    let _one = ONE_AT_A_TIME.lock().unwrap();
    let noise = NoiseSettings { octaves: 6, frequency: 3.0, ..Default::default() };
    for n in [256u32, 1024] {
        let mut map = Heightmap::generate(&noise, n, n).unwrap();
        let bytes = map.samples().len() * 4;
        let settings = StreamPower { steps: 5, ..Default::default() };
        let world = MapWorld::patch(100.0, n, 24.0, 0.42);
        let never = std::sync::atomic::AtomicBool::new(false);
        let mut rivers = 0;
        let peak = peak_of(|| {
            let drainage =
                evolve_landscape(&mut map, &settings, &world, StreamPowerMaps::default(), &|_| {}, &never)
                    .unwrap();
            rivers = drainage.rivers.len();
        });
        // The routing's 14 bytes a cell (direction, flags, order, areas, spill levels), the uplift,
        // the flood's heap and queue, and the outputs, which keep the areas and spill buffers.
        // Measured: 5.6 maps at 256², 5.5 at 1024².
        println!("stream power: peak {:.1} maps", peak as f64 / bytes as f64);
        assert!(peak <= 6 * bytes, "peak {} KiB for a {} KiB map", peak >> 10, bytes >> 10);
        assert!(peak >= 3 * bytes && rivers > 0, "the routing's arrays are counted: {} KiB", peak >> 10);
    }
}
