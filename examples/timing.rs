//! Measures the plugin in a headless app (no window, no GPU), frames paced at 60 Hz:
//! - the patch: what a slider drag costs for 256x256 and 1024x1024 terrains, from one parameter
//!   change to the new mesh and image in the assets, and during a drag (a new value every frame
//!   for two seconds) how often a new terrain appears;
//! - the endless layout (chunks of 64 units with 65 vertices, 1000 units of view, 4 levels):
//!   the main thread's update time while the focus flies at 200 units/s and while it rests, the
//!   longest a chunk within two chunk sizes of the focus waits, and how long a parameter change
//!   takes to reach every chunk within 250 units and all of them;
//! - the same app without a terrain (what an update costs before any terrain work);
//! - two endless terrains in one app (a second one, of another seed, 200 units below): the
//!   main thread's update time at rest and at 200 units/s;
//! - rivers (`-- rivers` only): the endless example's world (gullies, 7 octaves, 2 km map units)
//!   with its rivers and lakes and without, alternated: the main thread's update time at
//!   200 units/s, the waits of the chunks near the focus, and over a 20 km flight the regions
//!   routed, the most kept at once and their memory, between two runs of the app without a
//!   terrain; then one region's routing against 16 of the world's chunks built without rivers,
//!   on one thread;
//! - scatter (`-- scatter` only): the endless example's world with its three layers (trees,
//!   rocks, reeds) and without them, alternated, at rest and at 200 units/s, with the instance
//!   count and, of the flight's frames, the share that began with a chunk build in flight and
//!   the median update of those and of the others; `-- scatter dense` with the layers ten
//!   times as dense (spacings made room for it), for tens of thousands of instances in view
//!   (`-- scatter 17`: seventeen times, about 50,000); `churn` adds how many instances came and
//!   went in the frames of the flight that moved any (counted in the update, so a little slower).
//!
//! ```text
//! cargo run --example timing             # both
//! cargo run --example timing -- endless  # only the endless layout
//! cargo run --example timing -- two      # only the two endless terrains
//! cargo run --example timing -- rivers   # only the endless rivers on and off
//! cargo run --example timing -- scatter  # only scatter on and off
//! cargo run --example timing -- scatter dense  # the same with ten times the things
//! cargo run --example timing -- scatter dense churn  # and the instances moved per frame
//! cargo run --example timing -- scatter 17  # seventeen times the things
//! ```
//!
//! Any of these with `normal` builds at [`BuildPriority::Normal`] instead of the default
//! background priority.

use std::collections::{HashMap, HashSet};
use std::time::{Duration, Instant};

use bevy::prelude::*;
use bevy_noise_terrain::core::ChunkKey;
use bevy_noise_terrain::prelude::*;
use bevy_noise_terrain::{BuildPriority, DefaultTerrain, PieceKey, TerrainJobs};

/// One frame at 60 Hz.
const FRAME: Duration = Duration::from_micros(16_667);

/// Updates until the terrain generation counter passes `after`; returns the time it took. Sleeps
/// 1 ms between updates, as a frame-paced game's main thread leaves the cores to the job (a busy
/// loop of updates would take one of them).
fn until_generated(app: &mut App, after: u64) -> Duration {
    let start = Instant::now();
    while app.world().resource::<TerrainStats>().generation <= after {
        app.update();
        std::thread::sleep(Duration::from_millis(1));
        assert!(start.elapsed() < Duration::from_secs(120), "no terrain after two minutes");
    }
    start.elapsed()
}

/// Changes the seed every 60 Hz frame for two seconds; returns the mean time between new terrains.
fn drag_interval(app: &mut App) -> Duration {
    let first = app.world().resource::<TerrainStats>().generation;
    let start = Instant::now();
    let mut frame = 0;
    while start.elapsed() < Duration::from_secs(2) {
        frame += 1;
        app.world_mut().resource_mut::<TerrainParams>().noise.seed = 1000 + frame;
        app.update();
        std::thread::sleep((start + FRAME * frame).saturating_duration_since(Instant::now()));
    }
    let terrains = app.world().resource::<TerrainStats>().generation - first;
    start.elapsed() / terrains.max(1) as u32
}

fn main() {
    let mode = std::env::args().nth(1);
    if mode.as_deref() == Some("two") {
        two_terrains();
        return;
    }
    if mode.as_deref() == Some("scatter") {
        let args: Vec<String> = std::env::args().skip(2).collect();
        // `dense`: ten times as dense; a number: that many times.
        let factor = args.iter().find_map(|a| a.parse::<f32>().ok().filter(|f| *f > 0.0));
        let factor = factor.or(args.iter().any(|a| a == "dense").then_some(10.0));
        scatter(factor, args.iter().any(|a| a == "churn"));
        return;
    }
    if mode.as_deref() == Some("rivers") {
        rivers();
        return;
    }
    if mode.as_deref() != Some("endless") {
        patch();
    }
    bare_app();
    endless();
    two_terrains();
}

/// The same headless app with the plugin and a focus but no terrain: what an update costs
/// before any terrain work, on this machine.
fn bare_app() {
    let mut app = streaming_app(TerrainPlugin { spawn_terrain: false }, TerrainPreset::default());
    let mut updates = Vec::new();
    let start = Instant::now();
    for frame in 0..300 {
        let before = Instant::now();
        app.update();
        updates.push(before.elapsed());
        std::thread::sleep((start + FRAME * (frame + 1)).saturating_duration_since(Instant::now()));
    }
    let (median, p99) = percentiles(updates);
    println!(
        "the same app without a terrain: main-thread update median {median:.2} ms, 99th percentile {p99:.2} ms"
    );
}

fn patch() {
    println!(
        "| resolution | change -> mesh and image ready (median of 7) | of which the job | drag: a new terrain every |"
    );
    println!("|---|---|---|---|");
    for resolution in [256, 1024] {
        let mut app = App::new();
        app.add_plugins((MinimalPlugins, AssetPlugin::default()))
            .init_asset::<Mesh>()
            .init_asset::<Image>()
            .insert_resource(TerrainParams(TerrainPreset { resolution, ..default() }))
            .insert_resource(build_priority())
            .add_plugins(TerrainPlugin::default());
        until_generated(&mut app, 0);
        let (mut total, mut job) = (Vec::new(), Vec::new());
        for seed in 1..=7 {
            let generation = app.world().resource::<TerrainStats>().generation;
            app.world_mut().resource_mut::<TerrainParams>().noise.seed = seed;
            total.push(until_generated(&mut app, generation));
            job.push(app.world().resource::<TerrainStats>().generation_time);
        }
        total.sort();
        job.sort();
        let drag = drag_interval(&mut app);
        println!(
            "| {resolution}x{resolution} | {:.1} ms | {:.1} ms | {:.1} ms |",
            total[3].as_secs_f64() * 1e3,
            job[3].as_secs_f64() * 1e3,
            drag.as_secs_f64() * 1e3
        );
    }
}

/// The chunks on screen and the parameter generation each shows.
fn shown_chunks(app: &mut App) -> HashMap<ChunkKey, u64> {
    let mut q = app.world_mut().query::<(&TerrainPiece, &Visibility)>();
    q.iter(app.world())
        .filter(|(_, v)| **v != Visibility::Hidden)
        .filter_map(|(p, _)| match (p.spec.key, p.shown.as_ref()) {
            (PieceKey::Chunk(key), Some(shown)) => Some((key, shown.generation)),
            (PieceKey::Patch, _) | (PieceKey::Chunk(_), None) => None,
        })
        .collect()
}

/// A headless app (transforms, mesh and image assets) with `plugin`, `params` in the resource
/// and a focus at the origin: the streaming measurements' app.
fn streaming_app(plugin: TerrainPlugin, params: TerrainPreset) -> App {
    let mut app = App::new();
    app.add_plugins((MinimalPlugins, TransformPlugin, AssetPlugin::default()))
        .init_asset::<Mesh>()
        .init_asset::<Image>()
        .insert_resource(TerrainParams(params))
        .insert_resource(build_priority())
        .add_plugins((plugin, TerrainScatterPlugin, TerrainSeaPlugin, TerrainRiversPlugin));
    app.world_mut().spawn((TerrainFocus::default(), Transform::default()));
    app
}

/// [`BuildPriority::Normal`] with the `normal` argument, the default otherwise.
fn build_priority() -> BuildPriority {
    if std::env::args().any(|a| a == "normal") { BuildPriority::Normal } else { BuildPriority::default() }
}

/// The default terrain's bookkeeping.
fn default_jobs(app: &mut App) -> &TerrainJobs {
    let mut q = app.world_mut().query_filtered::<&TerrainJobs, With<DefaultTerrain>>();
    q.single(app.world()).expect("one default terrain")
}

/// Median and 99th percentile in milliseconds.
fn percentiles(mut times: Vec<Duration>) -> (f64, f64) {
    times.sort();
    let at = |q: f64| times[((times.len() - 1) as f64 * q).round() as usize].as_secs_f64() * 1e3;
    (at(0.5), at(0.99))
}

/// What [`fly`] measured: each frame's update time and whether a chunk build was in flight
/// when it began, and the longest wait of a chunk within two chunk sizes of the focus.
struct Flight {
    updates: Vec<Duration>,
    building: Vec<bool>,
    longest_wait: Duration,
    /// The wait of each chunk that came within two chunk sizes of the focus, once shown.
    near_waits: Vec<Duration>,
}

impl Flight {
    /// The share of frames that began with a build in flight, the median update of those and
    /// of the others, in milliseconds: a build's thread shares the cores with the frame's.
    fn by_builds(&self) -> (f64, f64, f64) {
        let median = |in_flight: bool| {
            let times: Vec<Duration> = self
                .updates
                .iter()
                .zip(&self.building)
                .filter(|(_, b)| **b == in_flight)
                .map(|(t, _)| *t)
                .collect();
            if times.is_empty() { f64::NAN } else { percentiles(times).0 }
        };
        let share = self.building.iter().filter(|b| **b).count() as f64 / self.building.len().max(1) as f64;
        (share, median(true), median(false))
    }
}

/// Runs `frames` frames at 60 Hz with the focus at `x(frame)`.
fn fly(app: &mut App, frames: u32, x: impl Fn(u32) -> f32) -> Flight {
    let mut flight = Flight {
        updates: Vec::new(),
        building: Vec::new(),
        longest_wait: Duration::ZERO,
        near_waits: Vec::new(),
    };
    // When each wanted chunk was first wanted, first shown, and whether its wait was counted.
    let mut wanted: HashMap<ChunkKey, (Instant, Option<Instant>, bool)> = HashMap::new();
    let start = Instant::now();
    for frame in 0..frames {
        let mut q = app.world_mut().query_filtered::<&mut Transform, With<TerrainFocus>>();
        q.single_mut(app.world_mut()).unwrap().translation.x = x(frame);
        flight.building.push(app.world().resource::<TerrainStats>().pieces_building > 0);
        let before = Instant::now();
        app.update();
        flight.updates.push(before.elapsed());
        // How long each chunk near the focus waited from being wanted to being shown.
        let shown = shown_chunks(app);
        let desired: Vec<_> = default_jobs(app).desired().to_vec();
        let now = Instant::now();
        let mut still_wanted = HashSet::new();
        for d in &desired {
            let PieceKey::Chunk(key) = d.spec.key else { continue };
            still_wanted.insert(key);
            let (since, shown_at, counted) = wanted.entry(key).or_insert((now, None, false));
            if shown.contains_key(&key) && shown_at.is_none() {
                *shown_at = Some(now);
            }
            if d.distance < 128.0 {
                flight.longest_wait = flight.longest_wait.max(shown_at.unwrap_or(now) - *since);
                if let Some(shown_at) = shown_at.filter(|_| !*counted) {
                    flight.near_waits.push(shown_at - *since);
                    *counted = true;
                }
            }
        }
        wanted.retain(|key, _| still_wanted.contains(key));
        std::thread::sleep((start + FRAME * (frame + 1)).saturating_duration_since(Instant::now()));
    }
    flight
}

fn endless() {
    let params = TerrainPreset { layout: TerrainLayout::ENDLESS, world_size: 2000.0, ..default() };
    let mut app = streaming_app(TerrainPlugin::default(), params);
    until_generated(&mut app, 0);
    let idle = fly(&mut app, 300, |_| 0.0).updates;
    // 200 units per second: 200 / 60 per frame, for 30 s (6 km).
    let Flight { updates: flying, longest_wait, .. } =
        fly(&mut app, 1800, |frame| frame as f32 * 200.0 / 60.0);
    let (idle_median, idle_p99) = percentiles(idle);
    let (fly_median, fly_p99) = percentiles(flying);
    println!();
    println!("| endless, 64-unit chunks, 65 vertices, view 1000, 4 levels | median | 99th percentile |");
    println!("|---|---|---|");
    println!("| main-thread update, focus at rest (300 frames) | {idle_median:.2} ms | {idle_p99:.2} ms |");
    println!(
        "| main-thread update, focus at 200 units/s (1800 frames) | {fly_median:.2} ms | {fly_p99:.2} ms |"
    );
    let jobs_run = default_jobs(&mut app).jobs_started();
    println!(
        "longest wait of a chunk within 128 units of the flying focus: {:.0} ms; {} chunks shown, {jobs_run} chunk jobs run",
        longest_wait.as_secs_f64() * 1e3,
        app.world().resource::<TerrainStats>().pieces_shown,
    );

    // A parameter change: the time until every chunk within 250 units shows it, and all do.
    let focus_x = 1799.0 * 200.0 / 60.0;
    fly(&mut app, 120, |_| focus_x);
    let before = shown_chunks(&mut app);
    let old = before.values().copied().max().unwrap_or(0);
    app.world_mut().resource_mut::<TerrainParams>().noise.seed = 4242;
    let start = Instant::now();
    let (mut near_done, mut all_done) = (None, None);
    let mut frame = 0;
    while all_done.is_none() && start.elapsed() < Duration::from_secs(30) {
        app.update();
        frame += 1;
        let shown = shown_chunks(&mut app);
        let desired: Vec<_> = default_jobs(&mut app).desired().to_vec();
        let new_everywhere = |limit: f64| {
            desired.iter().filter(|d| d.distance < limit).all(|d| match d.spec.key {
                PieceKey::Chunk(key) => shown.get(&key).is_some_and(|&g| g > old),
                PieceKey::Patch => true,
            })
        };
        if near_done.is_none() && new_everywhere(250.0) {
            near_done = Some(start.elapsed());
        }
        if new_everywhere(f64::INFINITY) {
            all_done = Some(start.elapsed());
        }
        std::thread::sleep((start + FRAME * frame).saturating_duration_since(Instant::now()));
    }
    let ms =
        |d: Option<Duration>| d.map_or("over 30 s".into(), |d| format!("{:.0} ms", d.as_secs_f64() * 1e3));
    println!(
        "parameter change: every chunk within 250 units replaced after {}, all {} chunks after {}",
        ms(near_done),
        before.len(),
        ms(all_done)
    );
}

/// The endless example's world without its scatter layers, with its rivers or without.
fn river_world(rivers: bool) -> TerrainPreset {
    use bevy_noise_terrain::core::EndlessRivers;
    TerrainPreset { endless_rivers: EndlessRivers { enabled: rivers, ..default() }, ..example_world(false) }
}

/// The endless rivers on and off, alternated (see the module's description), between two
/// measurements of the app without a terrain.
fn rivers() {
    bare_app();
    println!(
        "| endless example's world, 200 units/s | rivers | update median | update p99 | near chunks' wait: median / p99 / longest | regions routed | most kept | their memory | chunks' samples kept |"
    );
    println!("|---|---|---|---|---|---|---|---|---|");
    for round in 0..2 {
        for on in [true, false] {
            let mut app = streaming_app(TerrainPlugin::default(), river_world(on));
            until_generated(&mut app, 0);
            // 200 units per second for 100 s: 20 km.
            let (mut most, mut most_bytes) = (0, 0);
            let mut updates = Vec::new();
            let mut longest = Duration::ZERO;
            let mut near_waits = Vec::new();
            let mut most_samples = 0;
            for leg in 0..10 {
                let x0 = leg as f32 * 2000.0;
                let flight = fly(&mut app, 600, |frame| x0 + frame as f32 * 200.0 / 60.0);
                updates.extend(flight.updates);
                longest = longest.max(flight.longest_wait);
                near_waits.extend(flight.near_waits);
                let mut pieces = app.world_mut().query::<&TerrainPiece>();
                most_samples = most_samples.max(
                    pieces
                        .iter(app.world())
                        .filter_map(|p| p.kept_samples())
                        .map(|s| s.capacity_bytes())
                        .sum(),
                );
                if let Some(network) = default_jobs(&mut app).rivers() {
                    most = most.max(network.kept_regions());
                    most_bytes = most_bytes.max(network.kept_bytes());
                }
            }
            let routed = default_jobs(&mut app).rivers().map_or(0, |n| n.solves());
            let (near_median, near_p99) = percentiles(near_waits);
            let (median, p99) = percentiles(updates);
            println!(
                "| round {round} | {} | {median:.2} ms | {p99:.2} ms | {near_median:.0} / {near_p99:.0} / {:.0} ms | {routed} | {most} | {:.1} MiB | {:.1} MiB |",
                if on { "on" } else { "off" },
                longest.as_secs_f64() * 1e3,
                most_bytes as f64 / (1 << 20) as f64,
                most_samples as f64 / (1 << 20) as f64
            );
        }
    }
    bare_app();
    // One region's routing against 16 chunks' builds, on this thread, alternated.
    use bevy_noise_terrain::build::{BuildControl, PieceSpec, build_piece};
    use bevy_noise_terrain::core::{RegionKey, RiverNetwork};
    let dry = river_world(false);
    let (mut regions, mut chunks) = (Vec::new(), Vec::new());
    let one = rayon::ThreadPoolBuilder::new().num_threads(1).build().expect("a thread pool");
    for k in 0..5i64 {
        let network = RiverNetwork::new(river_world(true).river_world());
        let start = Instant::now();
        one.install(|| network.region(RegionKey { x: 7 + k, y: -3 }));
        regions.push(start.elapsed());
        let start = Instant::now();
        one.install(|| {
            for c in 0..16 {
                let key = ChunkKey { level: 0, x: 100 * k + c % 4, z: c / 4 };
                let spec = PieceSpec { key: PieceKey::Chunk(key), stitch: default() };
                build_piece(&dry, spec, default(), &BuildControl::new()).expect("a chunk");
            }
        });
        chunks.push(start.elapsed());
    }
    let (region, _) = percentiles(regions);
    let (sixteen, _) = percentiles(chunks);
    println!(
        "one region's routing: median {region:.1} ms; 16 chunks built without rivers: median {sixteen:.1} ms (one thread, 5 alternated)"
    );
}

/// Two endless terrains around one focus: the main thread's update time.
fn two_terrains() {
    let params = TerrainPreset { layout: TerrainLayout::ENDLESS, world_size: 2000.0, ..default() };
    let mut second = params.clone();
    second.noise.seed += 1;
    let mut app = streaming_app(TerrainPlugin::default(), params);
    app.world_mut().spawn((Terrain, TerrainSettings(second), Transform::from_xyz(0.0, -200.0, 0.0)));
    let start = Instant::now();
    let complete = |app: &mut App| {
        let mut q = app.world_mut().query::<&TerrainStatus>();
        let all: Vec<_> = q.iter(app.world()).map(|s| s.stats.generation).collect();
        all.len() == 2 && all.iter().all(|&g| g > 0)
    };
    while !complete(&mut app) {
        app.update();
        std::thread::sleep(Duration::from_millis(1));
        assert!(start.elapsed() < Duration::from_secs(120), "no terrains after two minutes");
    }
    let idle = fly(&mut app, 300, |_| 0.0).updates;
    let flying = fly(&mut app, 1800, |frame| frame as f32 * 200.0 / 60.0).updates;
    let (idle_median, idle_p99) = percentiles(idle);
    let (fly_median, fly_p99) = percentiles(flying);
    let mut q = app.world_mut().query::<&TerrainStatus>();
    let shown: Vec<usize> = q.iter(app.world()).map(|s| s.stats.pieces_shown).collect();
    println!();
    println!("| two endless terrains ({shown:?} chunks shown) | median | 99th percentile |");
    println!("|---|---|---|");
    println!("| main-thread update, focus at rest (300 frames) | {idle_median:.2} ms | {idle_p99:.2} ms |");
    println!(
        "| main-thread update, focus at 200 units/s (1800 frames) | {fly_median:.2} ms | {fly_p99:.2} ms |"
    );
}

/// The endless example's layers with `factor` times their density, each spacing narrowed to
/// leave room for it (a rule's density is clamped to one point per spacing²).
fn denser(factor: f32) -> Vec<ScatterLayer> {
    let mut layers = ScatterLayer::landscape();
    for layer in &mut layers {
        layer.rule.density *= factor;
        layer.rule.spacing = layer.rule.spacing.min(layer.rule.density.recip().sqrt());
    }
    layers
}

/// The endless example's world (gradient fBm with the erosion filter, 2 km map units, 420 units
/// high) without its rivers, with or without its scatter layers and sea.
fn example_world(things: bool) -> TerrainPreset {
    let world = TerrainPreset::river_mountains();
    TerrainPreset {
        scatter: if things { world.scatter.clone() } else { Vec::new() },
        sea: things,
        endless_rivers: default(),
        ..world
    }
}

/// Instances spawned plus despawned in each frame (the `churn` option of the scatter mode).
#[derive(Resource, Default)]
struct Churn(Vec<usize>);

/// Counts the instances that came and went this frame.
fn count_churn(
    added: Query<(), Added<bevy_noise_terrain::ScatterInstance>>,
    mut removed: RemovedComponents<bevy_noise_terrain::ScatterInstance>,
    mut churn: ResMut<Churn>,
) {
    churn.0.push(added.iter().count() + removed.read().count());
}

/// Scatter on and off, alternated twice: update times at rest and flying, instances in view;
/// with a `factor`, the layers that many times as dense ([`denser`]).
fn scatter(factor: Option<f32>, churn: bool) {
    println!();
    let churn_column = if churn { " frames moving things: median / most things moved |" } else { "" };
    println!(
        "| endless example's world | instances | at rest median / p99 | 200 units/s median / p99 | flying frames that began with a chunk build in flight: share, median / the others' median |{churn_column}"
    );
    println!("|---|---|---|---|---|{}", if churn { "---|" } else { "" });
    for round in 0..4 {
        let things = round % 2 == 0;
        let mut params = example_world(things);
        if let (true, Some(factor)) = (things, factor) {
            params.scatter = denser(factor);
        }
        let mut app = streaming_app(TerrainPlugin::default(), params);
        // Instances carry the shared mesh and material handles, as in a game.
        app.init_asset::<StandardMaterial>();
        if churn {
            // In the update, so it costs the timed frames a pass over the instances' ticks.
            app.init_resource::<Churn>().add_systems(Last, count_churn);
        }
        until_generated(&mut app, 0);
        // And until the first things have all been spawned (streaming spreads them over frames).
        while default_jobs(&mut app).is_busy() {
            app.update();
            std::thread::sleep(Duration::from_millis(1));
        }
        let idle = fly(&mut app, 300, |_| 0.0).updates;
        if let Some(mut counted) = app.world_mut().get_resource_mut::<Churn>() {
            counted.0.clear();
        }
        let flight = fly(&mut app, 1800, |frame| frame as f32 * 200.0 / 60.0);
        let (building, with_build, without) = flight.by_builds();
        let churn_cell = app.world().get_resource::<Churn>().map_or(String::new(), |c| {
            let mut moving: Vec<usize> = c.0.iter().copied().filter(|&n| n > 0).collect();
            moving.sort_unstable();
            let median = moving.get(moving.len() / 2).copied().unwrap_or(0);
            format!(
                " {} of {}: {median} / {} |",
                moving.len(),
                c.0.len(),
                moving.last().copied().unwrap_or(0)
            )
        });
        let mut q = app.world_mut().query::<&bevy_noise_terrain::ScatterInstance>();
        let entities = q.iter(app.world()).count();
        let mut q = app.world_mut().query::<&bevy_noise_terrain::ScatterBatch>();
        let batched: u32 = q.iter(app.world()).map(|b| b.instances).sum();
        let instances = format!("{} ({entities} entities)", entities + batched as usize);
        let (idle_median, idle_p99) = percentiles(idle);
        let (fly_median, fly_p99) = percentiles(flight.updates);
        let name = match (things, factor) {
            (false, _) => "no scatter".to_string(),
            (true, None) => "three layers".to_string(),
            (true, Some(factor)) => format!("three layers, {factor} times as dense"),
        };
        println!(
            "| {name} | {instances} | {idle_median:.2} / {idle_p99:.2} ms | {fly_median:.2} / {fly_p99:.2} ms | {:.0}%: {with_build:.2} / {without:.2} ms |{churn_cell}",
            building * 100.0
        );
    }
}
