//! `info`: what the tool will use, after validation.

use clap::Args;

use crate::Failure;
use crate::args::NoiseArgs;

/// `info`'s flags: the noise flags alone.
#[derive(Args, Debug, Clone)]
pub struct InfoArgs {
    #[command(flatten)]
    pub(crate) noise: NoiseArgs,
}

/// `info`: the settings after validation, each value that had to be clamped, and the computed
/// bounds of the field's values.
pub fn run(a: &InfoArgs) -> Result<(), Failure> {
    let field = a.noise.field()?;
    let clamped = field.noise.validate();
    println!("noise: {:#?}", field.noise.clamped());
    println!("post-processing: {:#?}", field.post.clamped());
    let (lo, hi) = field.noise.value_bounds();
    println!("value bounds: [{lo}, {hi}] (before post-processing)");
    println!("octaves summed: {}", field.noise.octave_count());
    if clamped.is_empty() && field.post.clamped() == field.post {
        println!("clamped: nothing");
    }
    for c in &clamped {
        println!("clamped: {c}");
    }
    if field.post.clamped() != field.post {
        println!(
            "clamped: post-processing {:?} is out of range, using {:?}",
            field.post,
            field.post.clamped()
        );
    }
    Ok(())
}
