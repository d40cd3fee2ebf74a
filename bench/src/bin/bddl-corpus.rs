//! Solve every BDDL instance of the corpus (issue 6; docs/grid-games.md): for each problem
//! file, `gamelang bddl solve DOMAIN PROBLEM --json` at the file's depth, and `--depth auto`
//! up to that depth (rounded up to odd) for the critical depth, each as a child process with
//! a time limit. Prints a Markdown table next to the depth in the file's name, which is the
//! figure of seed 001's Table 2. It prints figures; it is not a test.
//!
//! ```text
//! cargo build --release
//! cargo run --release -p gamelang-bench --bin bddl-corpus                 # whole corpus, 60 s each
//! cargo run --release -p gamelang-bench --bin bddl-corpus -- --limit 10 --only httt,domineering
//! ```

#[path = "../child.rs"]
mod child;
#[path = "../corpus.rs"]
mod corpus;
use child::{field, timed};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::time::Duration;

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let mut limit = 60.0;
    let mut only: Option<Vec<String>> = None;
    let mut corpus = child::root().join("bddl/tests/corpus");
    while let Some(a) = args.next() {
        match a.as_str() {
            "--limit" => limit = args.next().and_then(|v| v.parse().ok()).unwrap_or(limit),
            "--only" => {
                only = args
                    .next()
                    .map(|v| v.split(',').map(String::from).collect())
            }
            "--corpus" => corpus = args.next().map(PathBuf::from).unwrap_or(corpus),
            _ => {
                eprintln!("usage: bddl-corpus [--limit SECONDS] [--only GAME,GAME] [--corpus DIR]");
                return ExitCode::from(2);
            }
        }
    }
    let listed = child::release_gamelang()
        .and_then(|g| corpus::problems(&corpus, only.as_deref()).map(|p| (g, p)));
    let (gamelang, problems) = match listed {
        Ok(x) => x,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::FAILURE;
        }
    };
    let limit = Duration::from_secs_f64(limit);
    println!("| instance | board | depth in file | Black wins at that depth | critical depth (odd) | least depth | seed Table 2 (file name) | positions | time, peak memory |");
    println!("|---|---|---|---|---|---|---|---|---|");
    for problem in &problems {
        row(&gamelang, problem, limit);
    }
    ExitCode::SUCCESS
}

/// The depth in a problem file's name (`4x4_15_fatty.ig` → 15, `hein_02_5x5-11.pg` → 11).
fn name_depth(problem: &Path) -> String {
    let stem = problem
        .file_stem()
        .unwrap_or_default()
        .to_string_lossy()
        .to_string();
    let parts: Vec<&str> = stem.split(['_', '-']).collect();
    // `AxB_D…`: the part after the board; hex: the last part.
    if let Some(i) = parts
        .iter()
        .position(|p| p.contains('x') && p.chars().next().is_some_and(|c| c.is_ascii_digit()))
    {
        if stem.starts_with("hein") || stem.starts_with("browne") {
            return parts
                .last()
                .map(|s| s.trim_start_matches('0').to_string())
                .unwrap_or_default();
        }
        if let Some(d) = parts.get(i + 1) {
            if d.chars().all(|c| c.is_ascii_digit()) {
                return d.to_string();
            }
        }
    }
    String::new()
}

fn row(gamelang: &Path, p: &corpus::Problem, limit: Duration) {
    let (name, domain, problem) = (&p.name, &p.domain, &p.path);
    let mut at_depth = Command::new(gamelang);
    at_depth
        .args(["bddl", "solve"])
        .arg(domain)
        .arg(problem)
        .arg("--json");
    let first = timed(&mut at_depth, limit);
    let (board, depth, wins, least, positions, time) = match &first {
        Ok(r) if !r.stopped => (
            field(&r.stdout, "board"),
            field(&r.stdout, "problem_depth"),
            field(&r.stdout, "black_wins"),
            field(&r.stdout, "least_depth"),
            field(&r.stdout, "positions"),
            format!("{:.2} s, {:.0} MiB", r.secs, r.mib),
        ),
        Ok(r) => (
            "?".into(),
            "?".into(),
            format!("not decided in {:.0} s", r.secs),
            "?".into(),
            "?".into(),
            format!("> {:.0} s", r.secs),
        ),
        Err(e) => (
            "?".into(),
            "?".into(),
            format!("error: {e}"),
            "?".into(),
            "?".into(),
            "-".into(),
        ),
    };
    // The critical depth: only worth asking when the file's depth was decided.
    let critical = match (&first, depth.parse::<u64>()) {
        (Ok(r), Ok(d)) if !r.stopped => {
            let max = if d % 2 == 0 { d + 1 } else { d };
            let mut auto = Command::new(gamelang);
            auto.args(["bddl", "solve"]).arg(domain).arg(problem).args([
                "--json",
                "--depth",
                "auto",
                "--max-depth",
                &max.to_string(),
            ]);
            match timed(&mut auto, limit) {
                Ok(r) if !r.stopped => {
                    let c = field(&r.stdout, "critical_depth");
                    if c == "null" {
                        format!("none ≤ {max}")
                    } else {
                        c
                    }
                }
                Ok(_) => "not decided".into(),
                Err(e) => format!("error: {e}"),
            }
        }
        _ => "-".into(),
    };
    let least = if least == "null" {
        "-".to_string()
    } else {
        least
    };
    println!(
        "| {name} | {board} | {depth} | {wins} | {critical} | {least} | {} | {positions} | {time} |",
        name_depth(problem)
    );
}
