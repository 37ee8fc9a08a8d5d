//! Scatter: things placed on the ground by rules (trees on gentle grass, rocks on steep flanks,
//! reeds at the shore), the same points whatever pieces the world is cut into.
//!
//! - `rule.rs`: [`ScatterRule`], what one layer wants: density, spacing, and the heights,
//!   slopes and erosion cuts it accepts, and [`Ground`], what it sees at a point.
//! - `points.rs`: [`scatter_points`], the points of a rule in a rectangle.
//! - `layer.rs`: [`ScatterLayer`], a rule with its look ([`ScatterShape`]), view distance and
//!   thinning with distance: what a terrain's settings hold.
//! - `ground.rs`: [`WorldGround`], the ground of an endless terrain at any world point (the
//!   field with post-processing in world space, and its exact normal).

pub(crate) mod ground;
pub(crate) mod layer;
pub(crate) mod points;
pub(crate) mod rule;
