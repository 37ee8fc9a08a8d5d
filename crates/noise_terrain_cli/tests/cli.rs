//! The `noise-terrain` binary as a user runs it.

use std::path::{Path, PathBuf};

use assert_cmd::Command;

fn tool() -> Command {
    Command::cargo_bin("noise-terrain").unwrap()
}

/// A fresh folder for one test's files.
fn folder(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("noise_terrain_cli_{name}_{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Runs the tool and returns its stdout; panics with its stderr if it failed.
fn run(args: &[&str]) -> String {
    let output = tool().args(args).output().unwrap();
    assert!(output.status.success(), "{args:?}: {}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8(output.stdout).unwrap()
}

/// Width, height, colour type and bit depth of a PNG, and its pixel bytes.
fn read_png(path: &Path) -> (u32, u32, png::ColorType, png::BitDepth, Vec<u8>) {
    let mut reader = png::Decoder::new(std::fs::File::open(path).unwrap()).read_info().unwrap();
    let mut pixels = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut pixels).unwrap();
    (info.width, info.height, info.color_type, info.bit_depth, pixels)
}

fn s(path: &Path) -> &str {
    path.to_str().unwrap()
}

fn floats(path: &Path) -> Vec<f32> {
    std::fs::read(path).unwrap().chunks(4).map(|c| f32::from_le_bytes(c.try_into().unwrap())).collect()
}

#[test]
fn every_subcommand_writes_files_of_the_right_kind_and_size() {
    let dir = folder("kinds");
    let summary = run(&["heightmap", "--size", "40x30", "--out", s(&dir.join("h.png"))]);
    assert!(
        summary.starts_with("{\"width\":40,\"height\":30,\"min\":") && summary.contains("\"ms\":"),
        "{summary}"
    );
    let (w, h, color, depth, _) = read_png(&dir.join("h.png"));
    assert_eq!((w, h, color, depth), (40, 30, png::ColorType::Grayscale, png::BitDepth::Sixteen));
    run(&["heightmap", "--size", "40x30", "--out", s(&dir.join("h.r16"))]);
    assert_eq!(std::fs::metadata(dir.join("h.r16")).unwrap().len(), 40 * 30 * 2);
    run(&["heightmap", "--size", "40x30", "--out", s(&dir.join("h.r32"))]);
    assert_eq!(floats(&dir.join("h.r32")).len(), 40 * 30);
    for command in ["normals", "color"] {
        let out = dir.join(format!("{command}.png"));
        run(&[command, "--size", "33", "--out", s(&out)]);
        let (w, h, color, depth, pixels) = read_png(&out);
        assert_eq!((w, h, color, depth), (33, 33, png::ColorType::Rgb, png::BitDepth::Eight), "{command}");
        assert!(pixels.chunks(3).any(|p| p != &pixels[..3]), "{command}: one flat colour");
    }
    run(&["color", "--size", "33", "--hillshade", "--out", s(&dir.join("shaded.png"))]);
    assert_ne!(read_png(&dir.join("shaded.png")).4, read_png(&dir.join("color.png")).4, "hillshading shades");
    // Normals of a map point up on average: blue, the z channel, dominates.
    let normals = read_png(&dir.join("normals.png")).4;
    assert!(normals.chunks(3).all(|p| p[2] >= 128), "a normal points into the surface");
    run(&["curve", "--samples", "50", "--out", s(&dir.join("c.csv"))]);
    let csv = std::fs::read_to_string(dir.join("c.csv")).unwrap();
    assert_eq!(csv.lines().count(), 51);
    assert_eq!(csv.lines().next(), Some("x,height"));
    run(&["curve", "--plot-size", "300x100", "--out", s(&dir.join("c.png"))]);
    let plot = read_png(&dir.join("c.png"));
    assert_eq!((plot.0, plot.1), (300, 100));
    run(&[
        "tiles",
        "--size",
        "100",
        "--tile",
        "32",
        "--overlap",
        "1",
        "--format",
        "r16",
        "--out-dir",
        s(&dir.join("t")),
    ]);
    let tiles: Vec<_> = std::fs::read_dir(dir.join("t")).unwrap().map(|e| e.unwrap().path()).collect();
    assert_eq!(tiles.len(), 16, "4 x 4 tiles of 32 cover 100");
    assert!(tiles.iter().all(|t| std::fs::metadata(t).unwrap().len() == 33 * 33 * 2));
    let info = run(&["info", "--fractal", "ridged"]);
    assert!(info.contains("value bounds: [0, 1]") && info.contains("clamped: nothing"), "{info}");
}

#[test]
fn help_names_every_flag() {
    let noise = [
        "--preset",
        "--basis",
        "--fade",
        "--seed",
        "--frequency",
        "--offset",
        "--period",
        "--fractal",
        "--octaves",
        "--lacunarity",
        "--persistence",
        "--no-normalize",
        "--fractal-offset",
        "--gain",
        "--worley-return",
        "--worley-metric",
        "--jitter",
        "--warp",
        "--warp-frequency",
        "--warp-octaves",
        "--stretch",
        "--power",
        "--island",
        "--island-shape",
        "--island-width",
        "--terraces",
        "--terrace-sharpness",
    ];
    let own: [(&str, &[&str]); 7] = [
        ("heightmap", &["--size", "--out", "--octave", "--height-scale", "--world-size", "--water-level"]),
        ("normals", &["--size", "--out", "--height-scale", "--world-size", "--water-level", "--directx"]),
        (
            "color",
            &[
                "--size",
                "--out",
                "--height-scale",
                "--world-size",
                "--water-level",
                "--hillshade",
                "--no-overflow-color",
            ],
        ),
        ("curve", &["--interpolation", "--samples", "--length", "--plot-size", "--out"]),
        ("tiles", &["--size", "--tile", "--overlap", "--format", "--out-dir", "--quiet"]),
        ("info", &[]),
        ("endless-rivers", &["--from", "--to", "--river-area", "--river-width", "--out"]),
    ];
    let erosion = [
        "--droplets",
        "--erosion-radius",
        "--inertia",
        "--capacity",
        "--min-slope",
        "--deposit",
        "--erode",
        "--evaporation",
        "--gravity",
        "--lifetime",
        "--erosion-seed",
        "--thermal-iterations",
        "--talus-angle",
        "--thermal-amount",
        "--erosion-scale",
    ];
    for (command, flags) in own {
        let help = run(&[command, "--help"]);
        for flag in noise.iter().chain(flags) {
            assert!(help.contains(flag), "`{command} --help` does not name {flag}");
        }
        if matches!(command, "heightmap" | "normals" | "color") {
            for flag in erosion {
                assert!(help.contains(flag), "`{command} --help` does not name {flag}");
            }
        }
        // Ranges and defaults are part of each line.
        assert!(help.contains("1..=12 [default: 5]") && help.contains("[1, 8] [default: 2]"), "{command}");
    }
}

#[test]
fn bad_values_exit_2_naming_the_flag_and_the_range() {
    let dir = folder("bad");
    let out = dir.join("x.png");
    for (args, expected) in [
        (vec!["heightmap", "--octaves", "0"], "--octaves"),
        (vec!["heightmap", "--lacunarity", "9"], "[1, 8]"),
        (vec!["heightmap", "--frequency", "nan"], "--frequency"),
        (vec!["heightmap", "--size", "100000"], "--size"),
        (vec!["heightmap", "--basis", "perlin"], "--basis"),
        (
            vec!["heightmap", "--basis", "simplex", "--period", "4"],
            "--period cannot be used with --basis simplex",
        ),
        (
            vec!["heightmap", "--rotate-octaves", "--period", "4"],
            "--rotate-octaves cannot be used with --period",
        ),
        (vec!["heightmap", "--damping", "17"], "--damping"),
        (
            vec!["heightmap", "--gullies", "--fractal", "ridged"],
            "--gullies needs --fractal fbm, billow or none",
        ),
        (vec!["heightmap", "--gullies", "--warp", "1"], "without --warp (given: --warp 1)"),
        (vec!["heightmap", "--gully-strength", "5"], "--gully-strength"),
        (vec!["heightmap", "--gully-octaves", "9"], "--gully-octaves"),
        (vec!["heightmap", "--gradient-kernel", "round"], "--gradient-kernel"),
        (vec!["heightmap", "--offset", "1"], "--offset"),
        (vec!["tiles", "--size", "64", "--tile", "8190", "--overlap", "16"], "--overlap"),
        (vec!["heightmap", "--preset", "/no/such/preset.ron"], "--preset"),
    ] {
        let mut all = args.clone();
        if all[0] == "tiles" {
            all.extend(["--out-dir", s(&dir)]);
        } else {
            all.extend(["--out", s(&out)]);
        }
        let output = tool().args(&all).output().unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(expected), "{args:?}: `{stderr}` does not say {expected}");
    }
    let wrong_extension = tool().args(["heightmap", "--out", s(&dir.join("x.tif"))]).output().unwrap();
    assert_eq!(wrong_extension.status.code(), Some(2));
    assert!(!out.exists(), "nothing was written");
}

/// A river landscape from flags alone: the world's size, height and sea come from `heightmap`'s
/// own flags, and each of them changes the rivers.
#[test]
fn heightmap_takes_the_world_of_its_rivers_as_flags() {
    let dir = folder("world_flags");
    let rivers = |extra: &[&str], name: &str| {
        let (out, geojson) = (dir.join(format!("{name}.png")), dir.join(format!("{name}.geojson")));
        let mut args = vec!["heightmap", "--size", "64", "--stream-power", "20", "--out", s(&out)];
        args.extend(["--rivers", s(&geojson)]);
        args.extend(extra);
        let output = tool().args(&args).output().unwrap();
        assert_eq!(output.status.code(), Some(0), "{args:?}: {}", String::from_utf8_lossy(&output.stderr));
        std::fs::read_to_string(geojson).unwrap()
    };
    let plain = rivers(&[], "plain");
    for (flag, value) in [("--world-size", "800"), ("--height-scale", "90"), ("--water-level", "0.3")] {
        assert_ne!(rivers(&[flag, value], &flag[2..]), plain, "{flag} {value} changed nothing");
    }
    // The flags and a preset with the same values make the same rivers.
    let preset = dir.join("world.ron");
    std::fs::write(&preset, "(world_size: 800.0, height_scale: 90.0, water_level: 0.3)").unwrap();
    let preset_flag = ["--preset", s(&preset)];
    let by_flags = rivers(&["--world-size", "800", "--height-scale", "90", "--water-level", "0.3"], "flags");
    let same_field = ["--octaves", "5", "--frequency", "4", "--gradient-kernel", "rounded"];
    let preset_args = [preset_flag.as_slice(), &same_field].concat();
    assert_eq!(rivers(&preset_args, "preset"), by_flags);
}

#[test]
fn erosion_flags_take_the_ranges_the_core_clamps_to() {
    use noise_terrain_core::limits::{EROSION_RADIUS_RANGE, EROSION_SCALE_RANGE, LIFETIME_RANGE};
    let dir = folder("ranges");
    let out = dir.join("x.png");
    let ends = [
        ("--erosion-radius", EROSION_RADIUS_RANGE.0.to_string(), (EROSION_RADIUS_RANGE.0 * 0.9).to_string()),
        ("--erosion-radius", EROSION_RADIUS_RANGE.1.to_string(), (EROSION_RADIUS_RANGE.1 * 1.01).to_string()),
        ("--lifetime", LIFETIME_RANGE.1.to_string(), (LIFETIME_RANGE.1 + 1).to_string()),
        ("--erosion-scale", EROSION_SCALE_RANGE.1.to_string(), (EROSION_SCALE_RANGE.1 * 1.01).to_string()),
    ];
    for (flag, inside, outside) in ends {
        let base = ["heightmap", "--size", "16", "--droplets", "10", "--out", s(&out)];
        let ok = tool().args(base).args([flag, inside.as_str()]).output().unwrap();
        assert_eq!(ok.status.code(), Some(0), "{flag} {inside}: {}", String::from_utf8_lossy(&ok.stderr));
        let refused = tool().args(base).args([flag, outside.as_str()]).output().unwrap();
        assert_eq!(refused.status.code(), Some(2), "{flag} {outside}");
        assert!(String::from_utf8_lossy(&refused.stderr).contains(flag));
    }
}

#[test]
fn tiles_side_by_side_equal_one_export_bit_for_bit() {
    let dir = folder("mosaic");
    let post = ["--stretch", "--island", "0.8", "--power", "1.3", "--terraces", "6", "--octaves", "6"];
    let whole = dir.join("whole.r32");
    let mut args = vec!["heightmap", "--size", "90x70", "--out", s(&whole)];
    args.extend(post);
    run(&args);
    let whole = floats(&whole);
    let tiles = dir.join("tiles");
    for overlap in ["0", "1"] {
        let mut args = vec![
            "tiles",
            "--size",
            "90x70",
            "--tile",
            "32",
            "--overlap",
            overlap,
            "--format",
            "r32",
            "--out-dir",
            s(&tiles),
        ];
        args.extend(post);
        run(&args);
        let k: usize = overlap.parse().unwrap();
        let side = 32 + k;
        for row in 0..3usize {
            for column in 0..3usize {
                let tile = floats(&tiles.join(format!("tile_r{row:03}_c{column:03}.r32")));
                assert_eq!(tile.len(), side * side);
                for y in 0..side {
                    for x in 0..side {
                        let (gx, gy) = (column * 32 + x, row * 32 + y);
                        if gx < 90 && gy < 70 {
                            assert_eq!(
                                tile[y * side + x].to_bits(),
                                whole[gy * 90 + gx].to_bits(),
                                "tile {row},{column} at {x},{y}"
                            );
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn a_preset_and_the_same_flags_give_the_same_bytes() {
    let dir = folder("preset");
    let preset = dir.join("p.ron");
    std::fs::write(
        &preset,
        "(noise: (basis: Worley, fractal: Ridged, octaves: 4, seed: 99, worley: (return_type: F2MinusF1, jitter: 0.6)), \
         post: (power: 1.5), resolution: 48, layout: Endless(chunk_size: 32.0, chunk_vertices: 33, view_distance: 500.0, lod_levels: 3))",
    )
    .unwrap();
    let from_preset = dir.join("a.r32");
    let from_flags = dir.join("b.r32");
    run(&["heightmap", "--preset", s(&preset), "--out", s(&from_preset)]);
    // Noise fields the preset's `noise` leaves out take the core's defaults, as the flags do.
    run(&[
        "heightmap",
        "--size",
        "48",
        "--basis",
        "worley",
        "--fractal",
        "ridged",
        "--octaves",
        "4",
        "--seed",
        "99",
        "--worley-return",
        "f2-f1",
        "--jitter",
        "0.6",
        "--power",
        "1.5",
        "--out",
        s(&from_flags),
    ]);
    assert!(std::fs::read(&from_preset).unwrap() == std::fs::read(&from_flags).unwrap(), "the files differ");
    // Flags override the preset.
    let overridden = dir.join("c.r32");
    run(&["heightmap", "--preset", s(&preset), "--seed", "100", "--out", s(&overridden)]);
    assert!(
        std::fs::read(&overridden).unwrap() != std::fs::read(&from_preset).unwrap(),
        "--seed had no effect"
    );
    // Every shipped preset loads.
    // Cargo names the manifest's folder when it runs the test, too: a binary reused from a build
    // cache made in another checkout still reads this checkout's presets.
    let manifest = std::env::var("CARGO_MANIFEST_DIR").unwrap_or_else(|_| env!("CARGO_MANIFEST_DIR").into());
    let presets = Path::new(&manifest).join("../../assets/presets");
    for entry in std::fs::read_dir(presets).unwrap() {
        run(&["info", "--preset", s(&entry.unwrap().path())]);
    }
}

#[test]
fn a_failed_write_keeps_the_file_that_was_there() {
    let dir = folder("keep");
    let out = dir.join("h.r32");
    std::fs::write(&out, b"precious").unwrap();
    // A folder where the temporary file would go makes the write fail.
    std::fs::create_dir(dir.join("h.r32.tmp")).unwrap();
    let output = tool().args(["heightmap", "--size", "8", "--out", s(&out)]).output().unwrap();
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(std::fs::read(&out).unwrap(), b"precious");
}

#[test]
fn erosion_changes_the_map_and_gives_the_same_bytes_every_run() {
    let dir = folder("erosion");
    let (plain, a, b) = (dir.join("plain.r32"), dir.join("a.r32"), dir.join("b.r32"));
    run(&["heightmap", "--size", "96", "--out", s(&plain)]);
    for out in [&a, &b] {
        run(&[
            "heightmap",
            "--size",
            "96",
            "--droplets",
            "20000",
            "--thermal-iterations",
            "5",
            "--out",
            s(out),
        ]);
    }
    let (plain, a, b) = (floats(&plain), floats(&a), floats(&b));
    assert!(a == b, "two runs differ");
    assert!(a != plain, "nothing eroded");
    assert!(a.iter().all(|h| h.is_finite()));
    // Erosion is for whole maps: tiles do not take it.
    let output = tool()
        .args(["tiles", "--size", "64", "--tile", "32", "--droplets", "10", "--out-dir", s(&dir)])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
}

#[test]
fn stream_power_writes_rivers_as_geojson_and_drainage_as_16_bit_png_the_same_every_run() {
    let dir = folder("rivers");
    let args = |n: &str| {
        let (out, rivers, drainage) = (
            dir.join(format!("{n}.png")),
            dir.join(format!("{n}.geojson")),
            dir.join(format!("{n}_area.png")),
        );
        let outputs = [s(&out).to_owned(), s(&rivers).to_owned(), s(&drainage).to_owned()];
        (outputs, [out, rivers, drainage])
    };
    let (a, a_paths) = args("a");
    let (b, b_paths) = args("b");
    for o in [&a, &b] {
        run(&[
            "color",
            "--size",
            "80",
            "--hillshade",
            "--stream-power",
            "40",
            "--uplift",
            "0.05",
            "--rivers",
            &o[1],
            "--drainage",
            &o[2],
            "--out",
            &o[0],
        ]);
    }
    for (x, y) in a_paths.iter().zip(&b_paths) {
        assert_eq!(
            std::fs::read(x).unwrap(),
            std::fs::read(y).unwrap(),
            "{} differs between runs",
            x.display()
        );
    }
    let json = std::fs::read_to_string(&a_paths[1]).unwrap();
    assert!(json.starts_with("{\"type\":\"FeatureCollection\""));
    let lines = json.matches("\"type\":\"LineString\"").count();
    assert!(lines > 3, "{lines} rivers");
    assert_eq!(json.matches("\"end\":").count(), lines);
    assert!(json.contains("\"end\":\"confluence\"") && json.contains("\"area\":["));
    // Brackets balance and no number is NaN: it parses as JSON would.
    assert_eq!(json.matches('[').count(), json.matches(']').count());
    assert!(!json.contains("NaN") && !json.contains("inf"));
    let (w, h, colour, depth, pixels) = read_png(&a_paths[2]);
    assert_eq!((w, h, colour, depth), (80, 80, png::ColorType::Grayscale, png::BitDepth::Sixteen));
    let levels: Vec<u16> = pixels.chunks(2).map(|p| u16::from_be_bytes([p[0], p[1]])).collect();
    assert_eq!(levels.iter().max(), Some(&u16::MAX), "the largest area is white");
    assert!(levels.iter().filter(|&&l| l == 0).count() > 80, "single cells are black");
    // Asked for without stream power: a usage error naming the flag, and nothing written.
    let out = dir.join("none.png");
    let output = tool()
        .args(["color", "--size", "32", "--rivers", s(&dir.join("x.geojson")), "--out", s(&out)])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("--rivers"));
    assert!(!out.exists());
}

/// The `[x, y, z]` triples of every LineString of a GeoJSON file, line by line.
fn geojson_lines(json: &str) -> Vec<Vec<[f64; 3]>> {
    json.split("\"coordinates\":[")
        .skip(1)
        .map(|rest| {
            let end = rest.find("]]").expect("a line's coordinates end");
            rest[1..end]
                .split("],[")
                .map(|triple| {
                    let v: Vec<f64> = triple.split(',').map(|n| n.parse().unwrap()).collect();
                    [v[0], v[1], v[2]]
                })
                .collect()
        })
        .collect()
}

#[test]
fn endless_rivers_of_overlapping_rectangles_agree_where_they_overlap() {
    let dir = folder("endless_rivers");
    let (a, b) = (dir.join("a.geojson"), dir.join("b.geojson"));
    let common = ["endless-rivers", "--seed", "3", "--octaves", "6", "--river-area", "40"];
    let summary = run(&[&common[..], &["--from", "-60,0", "--to", "60,90", "--out", s(&a)]].concat());
    assert!(summary.contains("\"segments\":"), "{summary}");
    run(&[&common[..], &["--from", "0,-30", "--to", "120,60", "--out", s(&b)]].concat());
    // Each segment, as the pair of its ends, keyed by where it starts.
    let segments = |path: &Path| {
        let json = std::fs::read_to_string(path).unwrap();
        assert!(json.starts_with("{\"type\":\"FeatureCollection\"") && !json.contains("NaN"));
        let mut pairs: Vec<[[f64; 3]; 2]> =
            geojson_lines(&json).iter().flat_map(|l| l.windows(2).map(|w| [w[0], w[1]])).collect();
        pairs.retain(|p| (0.0..60.0).contains(&p[0][0]) && (0.0..60.0).contains(&p[0][1]));
        pairs.sort_by(|x, y| x.partial_cmp(y).unwrap());
        pairs
    };
    let (in_a, in_b) = (segments(&a), segments(&b));
    assert!(in_a.len() > 20, "{} segments in the overlap", in_a.len());
    assert_eq!(in_a, in_b);
    // Rivers run downhill.
    for p in &in_a {
        assert!(p[1][2] <= p[0][2], "{p:?}");
    }
}
