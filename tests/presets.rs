//! The shipped presets parse, differ from each other and generate terrains in range.

use std::path::Path;

use bevy_noise_terrain::core::Heightmap;
use bevy_noise_terrain::files::{list_presets, load_preset};

#[test]
fn shipped_presets_load_and_look_different() {
    // Read at run time (cargo test sets it): a binary reused from a target directory built in
    // another checkout would otherwise look in that checkout's folder.
    let root = std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_else(|| ".".into());
    let folder = Path::new(&root).join("assets/presets");
    let paths = list_presets(&folder);
    assert!(paths.len() >= 4, "{paths:?}");
    let mut maps = Vec::new();
    for path in &paths {
        let params = load_preset(path).unwrap_or_else(|e| panic!("{e}"));
        let (used, clamped) = params.validated();
        assert!(clamped.is_empty(), "{}: {clamped:?}", path.display());
        let mut map = Heightmap::generate(&used.noise, 64, 64).unwrap();
        used.post.apply(&mut map);
        let stats = map.stats();
        assert!(
            stats.min >= 0.0 && stats.max <= 1.0 && stats.max - stats.min > 0.3,
            "{}: {stats:?}",
            path.display()
        );
        maps.push(map);
    }
    for (i, a) in maps.iter().enumerate() {
        for b in &maps[i + 1..] {
            let diff: f32 = a.samples().iter().zip(b.samples()).map(|(x, y)| (x - y).abs()).sum::<f32>();
            assert!(diff / a.samples().len() as f32 > 0.05, "two presets give nearly the same terrain");
        }
    }
}
