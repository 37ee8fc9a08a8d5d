use noise_terrain_core::{Basis, Heightmap, NoiseSettings, Worley};
fn main() {
    let basis = match std::env::args().nth(1).as_deref() {
        Some("simplex") => Basis::Simplex,
        Some("gradient") => Basis::Gradient,
        _ => Basis::Worley,
    };
    let s = NoiseSettings {
        basis,
        octaves: 5,
        frequency: 8.0,
        worley: Worley { jitter: 0.6, ..Default::default() },
        ..Default::default()
    };
    let pool = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
    let t = std::time::Instant::now();
    let mut sum = 0.0;
    for _ in 0..10 {
        sum += pool.install(|| Heightmap::generate(&s, 1024, 1024).unwrap().samples()[5]);
    }
    println!("{:?} per map, {sum}", t.elapsed() / 10);
}
