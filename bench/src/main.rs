//! The benchmark of docs/benchmarks.md: who wins the two-heaps game of seed 003 over the
//! grids 1 ≤ k, n ≤ N, computed by
//!
//! 1. `gamelang sweep examples/heaps.game` (all cores, and one thread);
//! 2. a hand-written, memoised Rust solver of the same game (below, [`native`]);
//! 3. the seed's own program (`src/seed003-wins.maude`) in Maude 3 with `memo` on `w`, over
//!    the ordered half-grid 1 ≤ k ≤ n ≤ N (the only pairs it is correct for), when `maude`
//!    is on the PATH — and, for a comparison on the same program and the same points, the
//!    same program (`tests/data/seed003-appendix-a.game`) in `gamelang sweep --where 'k <= n'`.
//!
//! Every run is a separate process, timed from start to exit (so gamelang's times include
//! loading the program and writing the CSV), with its peak resident memory from `wait4`.
//! The answers are cross-checked: every solver must count the same number of points where
//! Benny (B) wins. It prints figures; it is not a test.
//!
//! ```text
//! cargo run --release -p gamelang-bench                  # N = 100, 200, 400, 1000
//! cargo run --release -p gamelang-bench -- --sizes 100,200 --no-maude
//! ```

// `median` only: this binary times its children itself (`timed` below).
#[allow(dead_code)]
mod child;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::time::Instant;

const SEED_MAUDE: &str = include_str!("seed003-wins.maude");

/// The hand-written solver: formula (1) of seed 003 as plain Rust, memoised in a hash map
/// keyed by (player, configuration) like gamelang's `w`, successors generated as a set
/// (sorted, without duplicates) like `next-config`, `any` / `all` short-circuiting like
/// `or-else` / `and-then`.
mod native {
    use rustc_hash::FxHashMap;

    /// The configurations reachable in one move from (a, b): take a positive multiple of
    /// either heap's size from one heap.
    fn moves(a: u32, b: u32, out: &mut Vec<(u32, u32)>) {
        out.clear();
        for m in [a, b] {
            if m == 0 {
                continue;
            }
            let mut t = m;
            while t <= b {
                out.push((a, b - t));
                t += m;
            }
            let mut t = m;
            while t <= a {
                out.push((a - t, b));
                t += m;
            }
        }
        out.sort_unstable();
        out.dedup();
    }

    /// w(p, (a b)): does Rebecca win with `p` to move (`true` = R)? At (0 0) the player to
    /// move has lost.
    pub fn w(
        r_to_move: bool,
        a: u32,
        b: u32,
        memo: &mut FxHashMap<(bool, u32, u32), bool>,
    ) -> bool {
        if let Some(&v) = memo.get(&(r_to_move, a, b)) {
            return v;
        }
        let v = if a == 0 && b == 0 {
            !r_to_move
        } else {
            let mut next = Vec::new();
            moves(a, b, &mut next);
            if r_to_move {
                next.iter().any(|&(x, y)| w(false, x, y, memo))
            } else {
                next.iter().all(|&(x, y)| w(true, x, y, memo))
            }
        };
        memo.insert((r_to_move, a, b), v);
        v
    }

    /// Sweep 1 ≤ k, n ≤ size with R to move: the number of points B wins.
    pub fn sweep(size: u32) -> usize {
        let mut memo = FxHashMap::default();
        let mut b = 0;
        for k in 1..=size {
            for n in 1..=size {
                if !w(true, k, n, &mut memo) {
                    b += 1;
                }
            }
        }
        b
    }
}

/// One timed run of a child process.
#[derive(Clone, Copy, Debug)]
struct Run {
    secs: f64,
    /// Peak resident memory, MiB.
    mib: f64,
}

/// Run `cmd` to completion; its wall time and peak resident memory.
fn timed(cmd: &mut Command) -> Result<Run, String> {
    let began = Instant::now();
    let child = cmd
        .spawn()
        .map_err(|e| format!("cannot run {:?}: {e}", cmd.get_program()))?;
    let pid = child.id() as libc::pid_t;
    let mut status: libc::c_int = 0;
    // SAFETY: an all-zero `rusage` is a valid value; `wait4` fills it in.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `pid` is our child, not yet waited for; the pointers are to live locals.
    let r = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    let secs = began.elapsed().as_secs_f64();
    if r != pid {
        return Err(format!("wait4 failed for {:?}", cmd.get_program()));
    }
    if !libc::WIFEXITED(status) || libc::WEXITSTATUS(status) != 0 {
        return Err(format!("{:?} failed (status {status})", cmd.get_program()));
    }
    // ru_maxrss is in KiB on Linux.
    Ok(Run {
        secs,
        mib: usage.ru_maxrss as f64 / 1024.0,
    })
}

fn on_path(program: &str) -> Option<PathBuf> {
    std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|d| d.join(program))
            .find(|p| p.is_file())
    })
}

/// Points where B wins in a sweep CSV (`k,n,winner`).
fn count_b(csv: &Path) -> Result<usize, String> {
    let text = std::fs::read_to_string(csv).map_err(|e| format!("{}: {e}", csv.display()))?;
    Ok(text
        .lines()
        .filter(|l| !l.starts_with('#'))
        .skip(1)
        .filter(|l| l.ends_with(",B"))
        .count())
}

struct Options {
    sizes: Vec<u32>,
    maude: bool,
    /// Runs of each measurement (the median is reported).
    runs: usize,
}

fn options() -> Result<Options, String> {
    let mut o = Options {
        sizes: vec![100, 200, 400, 1000],
        maude: true,
        runs: 1,
    };
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--sizes" => {
                let v = args.next().ok_or("--sizes needs a list, e.g. 100,200")?;
                o.sizes = v
                    .split(',')
                    .map(|s| {
                        s.trim()
                            .parse::<u32>()
                            .map_err(|_| format!("bad size `{s}`"))
                    })
                    .collect::<Result<_, _>>()?;
            }
            "--no-maude" => o.maude = false,
            "--runs" => {
                let v = args.next().ok_or("--runs needs a number")?;
                o.runs = match v.parse::<usize>() {
                    Ok(n) if n > 0 => n,
                    _ => return Err(format!("--runs takes a positive whole number, not `{v}`")),
                };
            }
            "--native" => {
                // Child mode: run the native solver once and print the count of B wins.
                let n: u32 = args
                    .next()
                    .and_then(|s| s.parse().ok())
                    .ok_or("--native needs a size")?;
                println!("{}", native::sweep(n));
                std::process::exit(0);
            }
            "-h" | "--help" => {
                println!(
                    "gamelang-bench [--sizes 100,200,400,1000] [--no-maude] [--runs N]\n\n\
                     Times gamelang sweep, a hand-written Rust solver and Maude on the heaps game \
                     (see docs/benchmarks.md). With --runs N, every measurement runs N times, \
                     all of them in turn, and the median time is reported (the machines are \
                     shared and noisy: one run decides nothing about a ratio)."
                );
                std::process::exit(0);
            }
            other => return Err(format!("unknown argument `{other}` (try --help)")),
        }
    }
    Ok(o)
}

#[derive(Default)]
struct Row {
    n: u32,
    gl: Option<Run>,
    gl1: Option<Run>,
    native: Option<Run>,
    seed_gl: Option<Run>,
    maude: Option<Run>,
}

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("gamelang-bench: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<(), String> {
    let opts = options()?;
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .ok_or("no workspace")?
        .to_path_buf();
    // The gamelang binary, built in release mode.
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    eprintln!("building gamelang (release) ...");
    let ok = Command::new(&cargo)
        .args([
            "build",
            "--release",
            "--quiet",
            "-p",
            "gamelang",
            "--bin",
            "gamelang",
        ])
        .current_dir(&root)
        .status()
        .map_err(|e| format!("cannot run cargo: {e}"))?
        .success();
    if !ok {
        return Err("cargo build failed".into());
    }
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("target"));
    let gamelang = target.join("release").join("gamelang");
    let work = target.join("bench");
    std::fs::create_dir_all(&work).map_err(|e| e.to_string())?;
    let me = std::env::current_exe().map_err(|e| e.to_string())?;
    let maude = if opts.maude { on_path("maude") } else { None };
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    if opts.maude && maude.is_none() {
        eprintln!(
            "maude is not on the PATH: skipping it (Debian/Ubuntu: `apt-get install maude`, \
             Maude 3.x)"
        );
    }
    let heaps = root.join("examples/heaps.game");
    let seed = root.join("tests/data/seed003-appendix-a.game");
    let maude_prog = work.join("seed003-wins.maude");
    std::fs::write(&maude_prog, SEED_MAUDE).map_err(|e| e.to_string())?;

    let mut rows = Vec::new();
    for &n in &opts.sizes {
        let mut row = Row {
            n,
            ..Row::default()
        };
        let range_k = format!("k=1..{n}");
        let range_n = format!("n=1..{n}");
        let sweep = |threads: Option<usize>, csv: &Path, file: &Path, half: bool| {
            let mut c = Command::new(&gamelang);
            c.arg("sweep")
                .arg(file)
                .args(["--from", "(k n)", "--range", &range_k, "--range", &range_n])
                .arg("--csv")
                .arg(csv)
                .arg("--no-boundaries")
                .stdout(Stdio::null());
            if half {
                c.args(["--where", "k <= n"]);
            }
            if let Some(t) = threads {
                c.args(["--threads", &t.to_string()]);
            }
            let _ = std::fs::remove_file(csv);
            timed(&mut c)
        };

        // Every measurement `opts.runs` times, all of them in turn (so that the load of a
        // shared machine falls on each alike); each row cell is the median.
        let (mut gl, mut gl1, mut native, mut seed_gl, mut maude_runs) =
            (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
        for round in 1..=opts.runs {
            let of = if opts.runs > 1 {
                format!(" (run {round} of {})", opts.runs)
            } else {
                String::new()
            };
            eprintln!("N = {n}: gamelang sweep ({cores} threads){of} ...");
            let csv = work.join(format!("heaps-{n}.csv"));
            gl.push(sweep(None, &csv, &heaps, false)?);
            let b_gl = count_b(&csv)?;
            eprintln!("N = {n}: gamelang sweep (1 thread){of} ...");
            let csv1 = work.join(format!("heaps-{n}-1.csv"));
            gl1.push(sweep(Some(1), &csv1, &heaps, false)?);
            if count_b(&csv1)? != b_gl {
                return Err(format!("N = {n}: --threads 1 counts differently"));
            }
            eprintln!("N = {n}: native solver{of} ...");
            let out = work.join(format!("native-{n}.txt"));
            let file = std::fs::File::create(&out).map_err(|e| e.to_string())?;
            native.push(timed(
                Command::new(&me)
                    .args(["--native", &n.to_string()])
                    .stdout(file),
            )?);
            let b_native: usize = std::fs::read_to_string(&out)
                .map_err(|e| e.to_string())?
                .trim()
                .parse()
                .map_err(|_| "the native solver printed no count")?;
            if b_native != b_gl {
                return Err(format!(
                    "N = {n}: gamelang counts {b_gl} wins for B, the native solver {b_native}"
                ));
            }
            eprintln!("N = {n}: gamelang sweep of the seed's program, k <= n{of} ...");
            let csv_seed = work.join(format!("seed-{n}.csv"));
            seed_gl.push(sweep(None, &csv_seed, &seed, true)?);
            let b_half = count_b(&csv_seed)?;
            if let Some(maude) = &maude {
                eprintln!("N = {n}: Maude, the seed's program with memo, k <= n{of} ...");
                let script = work.join(format!("maude-{n}.maude"));
                let mut text = String::new();
                for m in 1..=n {
                    let _ = writeln!(text, "red row(1, {m}, 0) .");
                }
                text.push_str("quit\n");
                std::fs::write(&script, text).map_err(|e| e.to_string())?;
                let out = work.join(format!("maude-{n}.txt"));
                let file = std::fs::File::create(&out).map_err(|e| e.to_string())?;
                maude_runs.push(timed(
                    Command::new(maude)
                        .args(["-no-banner", "-batch"])
                        .arg(&maude_prog)
                        .arg(&script)
                        .stdout(file)
                        .stderr(Stdio::null()),
                )?);
                let text = std::fs::read_to_string(&out).map_err(|e| e.to_string())?;
                let b_maude: usize = text
                    .lines()
                    .filter(|l| l.starts_with("result"))
                    .filter_map(|l| l.rsplit(' ').next()?.parse::<usize>().ok())
                    .sum();
                if b_maude != b_half {
                    return Err(format!(
                        "N = {n}: on k <= n Maude counts {b_maude} wins for B, gamelang {b_half}"
                    ));
                }
            }
        }
        row.gl = median(&gl);
        row.gl1 = median(&gl1);
        row.native = median(&native);
        row.seed_gl = median(&seed_gl);
        row.maude = median(&maude_runs);
        print_row(&row, cores);
        rows.push(row);
    }
    println!();
    if opts.runs > 1 {
        println!(
            "Each time is the median of {} runs taken in turn, each memory the most of them.\n",
            opts.runs
        );
    }
    print_table(&rows, cores);
    Ok(())
}

/// The run of median time (the mean of the middle two for an even number), with the most
/// memory of the runs; `None` for no run.
fn median(runs: &[Run]) -> Option<Run> {
    let secs: Vec<f64> = runs.iter().map(|r| r.secs).collect();
    Some(Run {
        secs: child::median(&secs)?,
        mib: runs.iter().map(|r| r.mib).fold(0.0, f64::max),
    })
}

fn fmt_run(r: Option<Run>) -> String {
    match r {
        Some(r) => format!("{:.2} s, {:.0} MiB", r.secs, r.mib),
        None => "—".into(),
    }
}

fn ratio(a: Option<Run>, b: Option<Run>) -> String {
    match (a, b) {
        (Some(a), Some(b)) => format!("{:.1}", a.secs / b.secs),
        _ => "—".into(),
    }
}

fn print_row(r: &Row, cores: usize) {
    eprintln!(
        "N = {}: gamelang {} ({cores} threads), {} (1 thread); native {}; gamelang on the seed's program, k <= n: {}; Maude: {}",
        r.n,
        fmt_run(r.gl),
        fmt_run(r.gl1),
        fmt_run(r.native),
        fmt_run(r.seed_gl),
        fmt_run(r.maude)
    );
}

fn print_table(rows: &[Row], cores: usize) {
    println!(
        "| N | gamelang sweep, {cores} threads | gamelang, 1 thread | native Rust | gamelang / native | seed's program in gamelang, k ≤ n | Maude 3 with memo, k ≤ n | Maude / gamelang (same program, same points) |"
    );
    println!("|---:|---|---|---|---:|---|---|---:|");
    for r in rows {
        println!(
            "| {} | {} | {} | {} | {} | {} | {} | {} |",
            r.n,
            fmt_run(r.gl),
            fmt_run(r.gl1),
            fmt_run(r.native),
            ratio(r.gl, r.native),
            fmt_run(r.seed_gl),
            fmt_run(r.maude),
            ratio(r.maude, r.seed_gl),
        );
    }
}
