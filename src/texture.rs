//! Heightmap to [`Image`]: ramp colours for the terrain, grey for octave tiles.

use bevy::asset::RenderAssetUsages;
use bevy::prelude::*;
use bevy::render::render_resource::{Extent3d, TextureDimension, TextureFormat};
use noise_terrain_core::{ColorRamp, Heightmap};

/// An RGBA8 sRGB image of the heightmap's size from per-sample colours.
fn rgba_image(map: &Heightmap, color: impl Fn(f32) -> [u8; 3]) -> Image {
    let mut pixels = Vec::with_capacity(map.samples().len() * 4);
    for &h in map.samples() {
        let [r, g, b] = color(h);
        pixels.extend_from_slice(&[r, g, b, 255]);
    }
    Image::new(
        Extent3d { width: map.width(), height: map.height(), depth_or_array_layers: 1 },
        TextureDimension::D2,
        pixels,
        TextureFormat::Rgba8UnormSrgb,
        RenderAssetUsages::default(),
    )
}

/// The terrain texture: one texel per vertex, coloured by `ramp` around `water_level`, heights
/// above 1 in orange when `show_overflow` is set.
pub fn terrain_image(map: &Heightmap, ramp: &ColorRamp, water_level: f32, show_overflow: bool) -> Image {
    rgba_image(map, |h| ramp.color_for_height(h, water_level, show_overflow))
}

/// A grey image of a map whose values are in `[0, 1]`: seed 000's octave tiles.
pub fn grey_image(map: &Heightmap) -> Image {
    let grey = ColorRamp::grey();
    rgba_image(map, |h| grey.color_at(h))
}

#[cfg(test)]
mod tests {
    use super::*;
    use noise_terrain_core::OVERFLOW_COLOR;

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
