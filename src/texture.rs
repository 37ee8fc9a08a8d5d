//! Heightmap to [`Image`]: ramp colours for the terrain, grey for octave tiles.

use bevy::asset::RenderAssetUsages;
use bevy::prelude::*;
use bevy::render::render_resource::{Extent3d, TextureDimension, TextureFormat};
use noise_terrain_core::{ColorRamp, ColorRules, Heightmap};

/// An RGBA8 sRGB image of the heightmap's size from its texels.
fn rgba_image(map: &Heightmap, texels: Vec<u8>) -> Image {
    Image::new(
        Extent3d { width: map.width(), height: map.height(), depth_or_array_layers: 1 },
        TextureDimension::D2,
        texels,
        TextureFormat::Rgba8UnormSrgb,
        RenderAssetUsages::default(),
    )
}

/// The terrain texture: one texel per vertex, coloured by `ramp` around `water_level`, heights
/// above 1 in orange when `show_overflow` is set.
pub fn terrain_image(map: &Heightmap, ramp: &ColorRamp, water_level: f32, show_overflow: bool) -> Image {
    rgba_image(map, ramp.paint_heights(map, water_level, show_overflow))
}

/// The terrain texture coloured by `rules` over `ramp`: the slope of each texel from `normals`
/// (the mesh's, one per vertex) and the erosion filter's cut from `cuts` (one per vertex, or
/// none), painted into `texels` (an earlier image's `data`).
pub fn terrain_image_by_rules(
    map: &Heightmap,
    (normals, cuts): (&[[f32; 3]], &[f32]),
    (ramp, rules): (&ColorRamp, &ColorRules),
    (water_level, show_overflow): (f32, bool),
    mut texels: Vec<u8>,
) -> Image {
    rules.paint_into(ramp, map, (normals, cuts), (water_level, show_overflow), &mut texels);
    rgba_image(map, texels)
}

/// A grey image of a map whose values are in `[0, 1]`: the inspector's octave tiles.
pub fn grey_image(map: &Heightmap) -> Image {
    rgba_image(map, ColorRamp::grey().paint(map))
}

#[cfg(test)]
mod tests {
    use super::*;
    use noise_terrain_core::advanced::OVERFLOW_COLOR;

    #[test]
    fn texels_follow_the_ramp_and_overflow_is_orange() {
        let map = Heightmap::from_samples(3, 1, vec![0.0, 1.0, 1.5]).unwrap();
        let ramp = ColorRamp::terrain();
        let image = terrain_image(&map, &ramp, 0.4, true);
        let data = image.data.as_ref().unwrap();
        assert_eq!(image.size(), UVec2::new(3, 1));
        assert_eq!(data[0..3], ramp.color_at(0.0));
        assert_eq!(data[4..7], ramp.color_at(1.0));
        assert_eq!(data[8..11], OVERFLOW_COLOR);
        assert!(data.chunks(4).all(|p| p[3] == 255));
    }
}
