//! `gamelang sweep` as a user runs it, checked against an independent brute-force solver of
//! the heaps game written here: the CSV, thread-count independence, the boundary sequences
//! (seed 003's a_n and b_n), the picture, and interrupt-and-resume.

use std::collections::HashMap;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};
mod support;
use support::heaps::mover_wins;

fn gamelang<S: AsRef<std::ffi::OsStr>>(args: &[S]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_gamelang"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("run gamelang")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// The winner from (k n) with R to move, for 1 ≤ k, n ≤ size, in grid order.
fn brute_force(size: u64) -> Vec<(u64, u64, &'static str)> {
    let mut memo = HashMap::new();
    let mut out = Vec::new();
    for k in 1..=size {
        for n in 1..=size {
            let w = if mover_wins(k, n, &mut memo) {
                "R"
            } else {
                "B"
            };
            out.push((k, n, w));
        }
    }
    out
}

/// The CSV an uninterrupted sweep of 1..size × 1..size should write.
fn expected_csv(size: u64) -> String {
    let mut s = String::from("# gamelang sweep: game heaps, --from (k n), --first R\nk,n,winner\n");
    for (k, n, w) in brute_force(size) {
        s.push_str(&format!("{k},{n},{w}\n"));
    }
    s
}

/// `sweep examples/heaps.game --from '(k n)' --range k=1..size --range n=1..size --csv csv`
fn sweep_args(size: u32, csv: &str) -> Vec<String> {
    let (k, n) = (format!("k=1..{size}"), format!("n=1..{size}"));
    [
        "sweep",
        "examples/heaps.game",
        "--from",
        "(k n)",
        "--range",
        &k,
        "--range",
        &n,
        "--csv",
        csv,
    ]
    .iter()
    .map(|s| s.to_string())
    .collect()
}

#[test]
fn heaps_sweep_matches_brute_force_and_threads_do_not_matter() {
    let dir = tempfile::tempdir().unwrap();
    let csv_default = dir.path().join("default.csv");
    let csv_one = dir.path().join("one.csv");
    let o = gamelang(&sweep_args(60, csv_default.to_str().unwrap()));
    assert!(o.status.success(), "{}", text(&o.stderr));
    // Not a terminal: nothing on standard error (no progress bar).
    assert_eq!(text(&o.stderr), "");
    let mut args = sweep_args(60, csv_one.to_str().unwrap());
    args.extend(["--threads".to_string(), "1".to_string()]);
    let o1 = gamelang(&args);
    assert!(o1.status.success(), "{}", text(&o1.stderr));
    let default = std::fs::read_to_string(&csv_default).unwrap();
    let one = std::fs::read_to_string(&csv_one).unwrap();
    assert_eq!(default, expected_csv(60));
    assert_eq!(default, one, "--threads 1 and the default differ");
    let out = text(&o.stdout);
    assert!(out.contains("3600 points"), "{out}");
    assert!(out.contains("B 1398, R 2202"), "{out}");
}

/// For each k, the first and last n of the run of B wins along n (the heaps game has one).
fn b_runs(size: u64) -> Vec<(u64, u64)> {
    let all = brute_force(size);
    (1..=size)
        .map(|k| {
            let ns: Vec<u64> = all
                .iter()
                .filter(|(kk, _, w)| *kk == k && *w == "B")
                .map(|(_, n, _)| *n)
                .collect();
            // One run: contiguous.
            assert_eq!(
                ns.len() as u64,
                ns[ns.len() - 1] - ns[0] + 1,
                "k = {k}: B's wins are not one run"
            );
            (ns[0], ns[ns.len() - 1])
        })
        .collect()
}

/// The numbers printed on the line after `header` in the report.
fn sequence_after(out: &str, header: &str) -> Vec<u64> {
    let mut lines = out.lines();
    lines
        .by_ref()
        .find(|l| l.trim() == header)
        .unwrap_or_else(|| panic!("no `{header}` in:\n{out}"));
    lines
        .next()
        .expect("a sequence line")
        .split(',')
        .map(|x| x.trim().parse().expect("a number"))
        .collect()
}

#[test]
fn boundary_sequences_are_seed_003s_a_n_and_b_n() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("h.csv");
    let o = gamelang(&sweep_args(60, csv.to_str().unwrap()));
    assert!(o.status.success(), "{}", text(&o.stderr));
    let out = text(&o.stdout);
    let starts = sequence_after(&out, "start of run 1 of B along n, k=1..60:");
    let ends = sequence_after(&out, "end of run 1 of B along n, k=1..60:");
    let runs = b_runs(60);
    assert_eq!(starts, runs.iter().map(|r| r.0).collect::<Vec<_>>());
    assert_eq!(ends, runs.iter().map(|r| r.1).collect::<Vec<_>>());
    // The per-k lines, e.g. `k=5: R 1..3, B 4..8, R 9..60`.
    assert!(out.contains("  k=5: R 1..3, B 4..8, R 9..60\n"), "{out}");
    // Seed 003, section 5: a_n = ceil(n / phi), b_n = floor(n phi) (its lists start at n = 0).
    let seed_a = [
        1, 2, 2, 3, 4, 4, 5, 5, 6, 7, 7, 8, 9, 9, 10, 10, 11, 12, 12, 13, 13, 14, 15,
    ];
    let seed_b = [
        1, 3, 4, 6, 8, 9, 11, 12, 14, 16, 17, 19, 21, 22, 24, 25, 27, 29, 30, 32, 33, 35, 37,
    ];
    assert_eq!(starts[..seed_a.len()], seed_a);
    assert_eq!(ends[..seed_b.len()], seed_b);
    // R wins on both sides of B's run: two runs for most k.
    assert!(out.contains("start of run 2 of R along n"), "{out}");
}

fn read_png(path: &Path) -> (u32, u32, Vec<u8>, HashMap<String, u32>) {
    let decoder = png::Decoder::new(std::io::BufReader::new(
        std::fs::File::open(path).expect("the PNG exists"),
    ));
    let mut reader = decoder.read_info().expect("a PNG");
    let mut buf = vec![0; reader.output_buffer_size().expect("size")];
    let info = reader.next_frame(&mut buf).expect("decodes");
    assert_eq!(info.color_type, png::ColorType::Rgb);
    let grid = reader
        .info()
        .uncompressed_latin1_text
        .iter()
        .find(|t| t.keyword == "gamelang-grid")
        .expect("a gamelang-grid text chunk")
        .text
        .clone();
    let fields = grid
        .split_whitespace()
        .map(|kv| {
            let (k, v) = kv.split_once('=').expect("key=value");
            (k.to_string(), v.parse().expect("a number"))
        })
        .collect();
    buf.truncate(info.buffer_size());
    (info.width, info.height, buf, fields)
}

#[test]
fn picture_has_one_cell_per_point_coloured_by_winner() {
    let dir = tempfile::tempdir().unwrap();
    let png_path = dir.path().join("h.png");
    let o = gamelang(&[
        "sweep",
        "examples/heaps.game",
        "--from",
        "(k n)",
        "--range",
        "k=1..60",
        "--range",
        "n=1..40",
        "--png",
        png_path.to_str().unwrap(),
        "--no-boundaries",
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let (w, h, px, g) = read_png(&png_path);
    assert_eq!((g["columns"], g["rows"]), (60, 40));
    // 800 pixels for the longer side: 13-pixel cells.
    assert_eq!(g["cell"], 13);
    let (x0, y0, cell) = (g["x0"], g["y0"], g["cell"]);
    assert!(x0 + 60 * cell < w && y0 + 40 * cell < h, "{w}x{h} {g:?}");
    // Room for the axis labels and the legend, but not much more.
    assert!(
        w < x0 + 60 * cell + 400 && h < y0 + 40 * cell + 200,
        "{w}x{h}"
    );
    let colour = |k: u32, n: u32| {
        // Cell of column k - 1, row n - 1 (row 0 at the bottom); sample its centre.
        let x = x0 + (k - 1) * cell + cell / 2;
        let y = y0 + (40 - n) * cell + cell / 2;
        let i = ((y * w + x) * 3) as usize;
        [px[i], px[i + 1], px[i + 2]]
    };
    let blue = [31, 90, 200];
    let pale = [250, 240, 215];
    let wins = brute_force(60);
    for (k, n) in [
        (1, 1),
        (1, 2),
        (2, 2),
        (5, 4),
        (5, 8),
        (5, 9),
        (20, 13),
        (37, 22),
        (60, 40),
    ] {
        let w = wins
            .iter()
            .find(|x| x.0 == k && x.1 == n)
            .map(|x| x.2)
            .unwrap();
        let want = if w == "B" { blue } else { pale };
        assert_eq!(
            colour(k as u32, n as u32),
            want,
            "cell ({k} {n}), winner {w}"
        );
    }
}

#[test]
fn expression_sweep_and_where() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("e.csv");
    let o = gamelang(&[
        "sweep",
        "examples/heaps.game",
        "--expr",
        "w(B, (k n))",
        "--where",
        "k <= n",
        "--range",
        "k=1..12",
        "--range",
        "n=1..12",
        "--csv",
        csv.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let got = std::fs::read_to_string(&csv).unwrap();
    // w(B, c): R wins with B to move, i.e. the mover loses.
    let mut want = String::from(
        "# gamelang sweep: game heaps, --expr w(B, (k n)), --where k <= n\nk,n,value\n",
    );
    let mut memo = HashMap::new();
    for k in 1..=12u64 {
        for n in k..=12 {
            let v = !mover_wins(k, n, &mut memo);
            want.push_str(&format!("{k},{n},{v}\n"));
        }
    }
    assert_eq!(got, want);
    let out = text(&o.stdout);
    assert!(out.contains("66 left out by --where"), "{out}");
    assert!(out.contains("boundary sequences"), "{out}");
}

#[test]
fn errors_name_the_point() {
    // The seed's own program is stuck on unordered pairs such as (2 1).
    let o = gamelang(&[
        "sweep",
        "tests/data/seed003-appendix-a.game",
        "--from",
        "(k n)",
        "--range",
        "k=1..3",
        "--range",
        "n=1..3",
        "--threads",
        "1",
    ]);
    assert!(!o.status.success());
    let err = text(&o.stderr);
    assert!(err.contains("no equation of `next-heaps` applies"), "{err}");
    assert!(err.contains("at the point k=2, n=1"), "{err}");
    // Unknown range variable in the term.
    let o = gamelang(&[
        "sweep",
        "examples/heaps.game",
        "--from",
        "(k m)",
        "--range",
        "k=1..3",
        "--range",
        "n=1..3",
    ]);
    assert!(!o.status.success());
    assert!(text(&o.stderr).contains('m'), "{}", text(&o.stderr));
}

#[test]
fn interrupted_sweep_resumes_to_the_same_csv() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("big.csv");
    let csv_s = csv.to_str().unwrap().to_string();
    let args = sweep_args(200, &csv_s);
    let mut child = Command::new(env!("CARGO_BIN_EXE_gamelang"))
        .args(&args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run gamelang");
    // Wait until some points are written, then interrupt (as Ctrl-C does).
    let began = Instant::now();
    let rows = |p: &Path| {
        std::fs::read_to_string(p)
            .map(|s| s.lines().count())
            .unwrap_or(0)
    };
    while rows(&csv) < 400 && began.elapsed() < Duration::from_secs(120) {
        if let Some(status) = child.try_wait().unwrap() {
            panic!("the sweep ended before it could be interrupted: {status}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let killed = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .expect("kill");
    assert!(killed.success());
    let out = child.wait_with_output().unwrap();
    let err = text(&out.stderr);
    let written = rows(&csv);
    if out.status.code() == Some(0) {
        // It finished between the last poll and the signal: nothing left to resume.
        eprintln!("note: the sweep finished before the signal arrived");
    } else {
        assert_eq!(out.status.code(), Some(130), "{err}");
        assert!(err.contains("--resume"), "{err}");
        assert!(written > 2 && written < 40_003, "{written} lines");
    }
    // Every finished point is there, with the right result.
    let want = expected_csv(200);
    let want_lines: std::collections::HashSet<&str> = want.lines().collect();
    let partial = std::fs::read_to_string(&csv).unwrap();
    for line in partial.lines() {
        assert!(want_lines.contains(line), "unexpected row `{line}`");
    }
    // Resume: the points already present are skipped, and the result is the CSV of an
    // uninterrupted sweep.
    let mut resume = args.clone();
    resume.truncate(resume.len() - 2); // no --csv: --resume writes to the same file
    resume.extend(["--resume".to_string(), csv_s.clone()]);
    let o = gamelang(&resume);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let report = text(&o.stdout);
    if written > 2 {
        assert!(report.contains("read from the resumed CSV"), "{report}");
    }
    assert_eq!(std::fs::read_to_string(&csv).unwrap(), want);
}

/// The CSV's rows after its two header lines, split at commas.
fn rows(csv: &str) -> Vec<Vec<String>> {
    csv.lines()
        .skip(2)
        .map(|l| l.split(',').map(str::to_string).collect())
        .collect()
}

fn sweep_rows(args: &[&str]) -> Vec<Vec<String>> {
    // A directory of its own: tests run in parallel.
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("sweep.csv");
    let mut all: Vec<&str> = vec!["sweep"];
    all.extend(args);
    all.extend(["--no-boundaries", "--csv", csv.to_str().unwrap()]);
    let o = gamelang(&all);
    assert!(o.status.success(), "{}", text(&o.stderr));
    rows(&std::fs::read_to_string(&csv).unwrap())
}

fn solve_json(args: &[&str]) -> serde_json::Value {
    let mut all = vec!["solve"];
    all.extend(args);
    all.push("--json");
    let o = gamelang(&all);
    assert!(o.status.success(), "{}", text(&o.stderr));
    serde_json::from_slice(&o.stdout).unwrap()
}

#[test]
fn sweeps_answer_what_solve_answers() {
    // The winner (--from, a game with draws) and SOLVE's `outcome`, over a parameter.
    let from = sweep_rows(&[
        "examples/connect.game",
        "--from",
        "(empty | empty)",
        "--range",
        "c=2..3",
    ]);
    let outcome = sweep_rows(&[
        "examples/connect.game",
        "--expr",
        "outcome(R, (empty | empty))",
        "--range",
        "c=2..3",
    ]);
    for (row, o) in from.iter().zip(&outcome) {
        let c = format!("c={}", row[0]);
        let b = solve_json(&["examples/connect.game", "--set", &c]);
        assert_eq!(b["to_move"], "B", "{c}");
        assert_eq!(row[1], b["winner"].as_str().unwrap(), "{c}, B first");
        let r = solve_json(&["examples/connect.game", "--set", &c, "--first", "R"]);
        assert_eq!(o[1], r["winner"].as_str().unwrap(), "{c}, R first");
    }
    // VALUE's `value`, over a parameter.
    let values = sweep_rows(&[
        "examples/colouring.game",
        "--expr",
        "value(B, board(0, 0))",
        "--range",
        "n=2..4",
    ]);
    assert_eq!(values.len(), 3);
    for row in &values {
        let v = solve_json(&[
            "examples/colouring.game",
            "--set",
            &format!("n={}", row[0]),
            "--value",
        ]);
        assert_eq!(row[1], v["value"].to_string(), "n={}", row[0]);
    }
    // SOLVE's `r-within` / `b-within` beside `solve --max-depth`, the player to move asking.
    let mut seen = [0; 2];
    for (op, first) in [("r-within", "R"), ("b-within", "B")] {
        let expr = format!("{op}({first}, (k n), d)");
        let within = sweep_rows(&[
            "examples/heaps.game",
            "--expr",
            &expr,
            "--range",
            "k=1..3",
            "--range",
            "n=1..3",
            "--range",
            "d=0..4",
        ]);
        assert_eq!(within.len(), 45);
        for row in &within {
            let from = format!("({} {})", row[0], row[1]);
            let b = solve_json(&[
                "examples/heaps.game",
                "--from",
                &from,
                "--first",
                first,
                "--max-depth",
                &row[2],
            ]);
            let wins = b["wins_within"].as_bool().unwrap();
            assert_eq!(row[3], wins.to_string(), "{expr} at {row:?}");
            seen[wins as usize] += 1;
        }
    }
    assert!(seen[0] > 0 && seen[1] > 0, "{seen:?}");
}

/// A range over a game parameter may appear in the swept term and in `--where`: there it
/// is the parameter itself, with the point's value (it read as two identical terms, an
/// "ambiguous term", before). Checked against `solve --set` at each value.
#[test]
fn a_parameter_range_may_appear_in_the_term_and_the_condition() {
    let rows = sweep_rows(&[
        "examples/colouring.game",
        "--expr",
        "value(B, board(0, 0)) + 100 * n",
        "--range",
        "n=2..4",
        "--where",
        "n > 2",
    ]);
    assert_eq!(rows.len(), 2, "{rows:?}");
    for row in &rows {
        let n: i64 = row[0].parse().unwrap();
        assert!(n > 2);
        let v = solve_json(&[
            "examples/colouring.game",
            "--set",
            &format!("n={n}"),
            "--value",
        ]);
        let want = v["value"].as_i64().unwrap() + 100 * n;
        assert_eq!(row[1], want.to_string(), "n={n}");
    }
}

/// A game's `requires` over a parameter range: the points it refuses are an error that
/// names them, unless `--where` leaves them out.
#[test]
fn a_sweep_over_a_parameter_keeps_to_what_the_game_requires() {
    let o = gamelang(&[
        "sweep",
        "examples/othello.game",
        "--expr",
        "n * n",
        "--range",
        "n=2..6",
        "--no-boundaries",
    ]);
    assert_eq!(o.status.code(), Some(1));
    let err = text(&o.stderr);
    assert!(
        err.contains("game `othello` requires `n rem 2 == 0 and 2 <= n and n <= 10`")
            && err.contains("with n = 3")
            && err.contains("at the points with n=3"),
        "{err}"
    );
    let rows = sweep_rows(&[
        "examples/othello.game",
        "--expr",
        "n * n",
        "--range",
        "n=2..6",
        "--where",
        "n rem 2 == 0",
    ]);
    let want: Vec<Vec<String>> = [2, 4, 6]
        .iter()
        .map(|n: &i64| vec![n.to_string(), (n * n).to_string()])
        .collect();
    assert_eq!(rows, want);
}

/// An error in the state of a chance question (`win(p1, STATE)`) points into `--expr`
/// where the state is (it was parsed as a source of its own and shown at column 1).
#[test]
fn an_error_in_a_chance_questions_state_is_located_in_the_expression() {
    let o = gamelang(&[
        "sweep",
        "examples/pig.game",
        "--range",
        "goal=1..3",
        "--expr",
        "win(p1,  foo(goal))",
    ]);
    assert_eq!(o.status.code(), Some(1));
    let err = text(&o.stderr);
    assert!(
        err.contains("unknown operator or variable `foo`")
            && err.contains("--expr:1:10")
            && err.contains("win(p1,  foo(goal))"),
        "{err}"
    );
}

/// The CSV goes through a symbolic link to the file it names (the link stays); a named
/// pipe, a directory, standard output, a second option naming the same file and the
/// program itself are refused before any work, and nothing is overwritten.
#[test]
fn outputs_are_written_through_links_and_never_over_something_else() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let path = |name: &str| d.join(name).to_str().unwrap().to_string();
    // Through a link: the target holds the CSV, the link is still a link.
    std::fs::create_dir(d.join("real")).unwrap();
    std::fs::write(d.join("real/t.csv"), "").unwrap();
    std::os::unix::fs::symlink(d.join("real/t.csv"), d.join("link.csv")).unwrap();
    let o = gamelang(&sweep_args(12, &path("link.csv")));
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(std::fs::symlink_metadata(d.join("link.csv"))
        .unwrap()
        .file_type()
        .is_symlink());
    assert_eq!(
        std::fs::read_to_string(d.join("real/t.csv")).unwrap(),
        expected_csv(12)
    );
    // Resumed through the link, into a larger grid: the same.
    let mut args = sweep_args(15, &path("link.csv"));
    let n = args.len();
    args[n - 2] = "--resume".into();
    let o = gamelang(&args);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(
        text(&o.stdout).contains("144 of them read"),
        "{}",
        text(&o.stdout)
    );
    assert_eq!(
        std::fs::read_to_string(d.join("real/t.csv")).unwrap(),
        expected_csv(15)
    );

    let heaps = format!("{}/examples/heaps.game", env!("CARGO_MANIFEST_DIR"));
    let refused = |extra: &[&str], csv: &str, want: &str| {
        let mut args = sweep_args(5, csv);
        args[1] = heaps.clone(); // (run in the temporary directory)
        args.extend(extra.iter().map(|s| s.to_string()));
        let o = Command::new(env!("CARGO_BIN_EXE_gamelang"))
            .args(&args)
            .current_dir(d)
            .stdout(Stdio::piped())
            .output()
            .unwrap();
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(want), "{args:?}: {err}");
    };
    let fifo = path("pipe");
    assert!(Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    refused(&[], &fifo, "is not a regular file");
    refused(&[], d.to_str().unwrap(), "is a directory");
    refused(&[], "/dev/stdout", "where gamelang's own output goes");
    refused(&["--png", "./same.csv"], "same.csv", "are the same file");
    std::fs::write(d.join("r.csv"), "").unwrap();
    refused(
        &["--resume", "r.csv", "--png", "r.csv"],
        "x.csv",
        "are the same file",
    );
    refused(&[], &heaps, "is the program");
    // Nothing was written over: the pipe is still a pipe, the program unchanged.
    use std::os::unix::fs::FileTypeExt;
    assert!(std::fs::metadata(&fifo).unwrap().file_type().is_fifo());
    assert!(std::fs::read_to_string(&heaps)
        .unwrap()
        .contains("game heaps is"));
    assert!(!d.join("same.csv").exists() && !d.join("x.csv").exists());
    assert_eq!(std::fs::read_to_string(d.join("r.csv")).unwrap(), "");
}

/// A range used nowhere (not in the term, not in --where, not a parameter of the game) is
/// a mistake, most likely a misspelt parameter: refused, naming the game's parameters,
/// instead of solving the default game at every point.
#[test]
fn a_range_used_nowhere_is_refused_with_the_games_parameters() {
    let o = gamelang(&[
        "sweep",
        "examples/pig.game",
        "--range",
        "gol=2..4",
        "--expr",
        "win(p1)",
    ]);
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains(
            "`gol` is neither in `win(p1)` nor a parameter of game `pig` (its parameters: goal)"
        ),
        "{err}"
    );
    // Used by --where only: allowed, with a warning that the result does not depend on it.
    let o = gamelang(&[
        "sweep",
        "examples/heaps.game",
        "--from",
        "(k n)",
        "--range",
        "k=1..3",
        "--range",
        "n=1..3",
        "--range",
        "m=1..2",
        "--where",
        "m == 1",
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(text(&o.stderr).contains("`m` does not occur in `(k n)`"));
    assert!(text(&o.stdout).contains("9 points"), "{}", text(&o.stdout));
}

/// `--resume` takes only rows this sweep could have written: a point --where leaves out,
/// a value that is not a term of the swept term's sort, and a probability outside [0, 1]
/// or whose decimal is not its fraction are refused with the line (exit 2); the CSVs the
/// sweeps wrote themselves resume as they are.
#[test]
fn resume_refuses_rows_this_sweep_could_not_have_written() {
    let dir = tempfile::tempdir().unwrap();
    let file = |name: &str| dir.path().join(name).to_str().unwrap().to_string();
    // Run the sweep with --csv NAME, then check that --resume of a copy with `edit`
    // applied is refused saying `why`, and that the unedited CSV resumes unchanged.
    let check = |args: &[&str], name: &str, edit: &dyn Fn(&str) -> String, why: &str| {
        let csv = file(name);
        let mut first: Vec<&str> = args.to_vec();
        first.extend(["--csv", &csv]);
        let o = gamelang(&first);
        assert!(o.status.success(), "{}", text(&o.stderr));
        let written = std::fs::read_to_string(&csv).unwrap();
        let mut again: Vec<&str> = args.to_vec();
        again.extend(["--resume", &csv]);
        let o = gamelang(&again);
        assert!(o.status.success(), "{name}: {}", text(&o.stderr));
        assert_eq!(std::fs::read_to_string(&csv).unwrap(), written);
        let bad = file(&format!("bad-{name}"));
        std::fs::write(&bad, edit(&written)).unwrap();
        let mut resumed: Vec<&str> = args.to_vec();
        resumed.extend(["--resume", &bad]);
        let o = gamelang(&resumed);
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{name}: {err}");
        assert!(err.contains(why), "{name}: {err}");
    };
    let heaps = [
        "sweep",
        "examples/heaps.game",
        "--range",
        "k=1..6",
        "--range",
        "n=1..6",
    ];
    let with = |extra: &[&'static str]| -> Vec<&'static str> {
        heaps.iter().chain(extra).copied().collect()
    };
    // (5 2) is left out by k <= n: its row is appended.
    check(
        &with(&["--from", "(k n)", "--where", "k <= n"]),
        "where.csv",
        &|t| format!("{t}5,2,R\n"),
        "has a row for the point (5, 2), which --where leaves out",
    );
    // A Bool expression: `maybe` replaces the value of the last row.
    // The last row's result replaced by `value` (after the point's `vars` fields).
    let swap = |t: &str, vars: usize, value: &str| {
        let mut lines: Vec<String> = t.lines().map(String::from).collect();
        let last = lines.pop().unwrap();
        let point: Vec<&str> = last.splitn(vars + 1, ',').take(vars).collect();
        lines.push(format!("{},{value}", point.join(",")));
        lines.join("\n") + "\n"
    };
    let swap_last = |t: &str, value: &str| swap(t, 2, value);
    check(
        &with(&["--expr", "w(R, (k n))"]),
        "bool.csv",
        &|t| swap_last(t, "maybe"),
        "`maybe` is not a result: not a term of sort `Bool`",
    );
    // A set: an unbalanced term.
    check(
        &with(&["--expr", "next-heaps((k n))"]),
        "set.csv",
        &|t| swap_last(t, "\"(0 5), (3 0\""),
        "not a term of sort `Set{TwoHeaps}`",
    );
    // Probabilities: above 1, and a fraction that is not the decimal.
    let pig = [
        "sweep",
        "examples/pig.game",
        "--range",
        "goal=2..4",
        "--expr",
        "win(p1)",
    ];
    check(
        &pig,
        "above.csv",
        &|t| swap(t, 1, "7.5,"),
        "7.5 is not a probability",
    );
    check(
        &pig,
        "fraction.csv",
        &|t| {
            // The decimal kept, the fraction replaced.
            let last = t.lines().last().unwrap();
            let decimal = last.split(',').nth(1).unwrap();
            swap(t, 1, &format!("{decimal},1/3"))
        },
        "is not the fraction 1/3",
    );
}

/// A variable written `X:Sort` in a sweep's term is said to be a variable (where the ranges
/// are the only ones), at its place, not an unknown sort `Nat`.
#[test]
fn an_inline_variable_in_the_swept_term_is_called_a_variable() {
    let o = gamelang(&[
        "sweep",
        "examples/heaps.game",
        "--range",
        "k=1..3",
        "--range",
        "n=1..3",
        "--expr",
        "X:Nat + k",
    ]);
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("`X:Nat` is a variable, but a sweep's only variables are its ranges")
            && err.contains("--expr:1:1")
            && err.contains("the ranges' variables here: k, n"),
        "{err}"
    );
    assert!(!err.contains("unknown sort"), "{err}");
}

/// A chance question's player is read as a term of the game's player sort, so `win(3)` is
/// a located sort error before any point is solved (it failed at the first point).
#[test]
fn a_chance_questions_player_of_the_wrong_sort_is_located() {
    let o = gamelang(&[
        "sweep",
        "examples/pig.game",
        "--range",
        "goal=2..3",
        "--expr",
        "win(3)",
    ]);
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("expected a term of sort `Player`") && err.contains("--expr:1:5"),
        "{err}"
    );
    assert!(!err.contains("at the point"), "{err}");
}
