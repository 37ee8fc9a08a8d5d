//! Maps of heights and what is done with whole maps: the [`Heightmap`](crate::Heightmap) grid
//! and its statistics and encodings, [`Frame`](crate::advanced::Frame)s over it, post-processing, erosion,
//! the vertex arrays of a [`Surface`](crate::Surface) and ray casts against its triangles.

pub(crate) mod erosion;
pub(crate) mod frame;
pub(crate) mod heightmap;
pub(crate) mod postprocess;
pub(crate) mod raycast;
pub(crate) mod surface;
