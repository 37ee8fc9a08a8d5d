//! [`Frame`]: a rectangle of a map's samples.

/// The part of a map that counts as "the map" (the rest is a border, e.g. for normals): the
/// island mask is laid over it and stretch reads its min and max.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Frame {
    /// First column of the frame.
    pub x: u32,
    /// First row of the frame.
    pub y: u32,
    /// Columns in the frame.
    pub width: u32,
    /// Rows in the frame.
    pub height: u32,
}

impl Frame {
    /// The part of the frame inside a `width × height` map (empty where they do not meet): any
    /// frame is safe to walk after this, however large its size or position.
    pub fn clipped_to(self, width: u32, height: u32) -> Frame {
        let x = self.x.min(width);
        let y = self.y.min(height);
        Frame { x, y, width: self.width.min(width - x), height: self.height.min(height - y) }
    }
}
