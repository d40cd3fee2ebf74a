//! The QBF benchmark (issue 7; docs/qbf.md). Two reports, as Markdown tables:
//!
//! * default: for every instance and depth listed in `qbf/tests/QSAGE-RESULTS.md` (the
//!   reference encoder's measured figures), gamelang's encoding (`gamelang lower … --to
//!   qdimacs`) — variables, clauses, quantifier blocks — and DepQBF's time on it, beside the
//!   reference's figures;
//! * `--agree`: the whole corpus, every depth from 1 to the file's depth, QBF answer against
//!   exhaustive search (`bddl solve --json` with and without `--qbf`), each run with a time
//!   limit; a row per depth where both finished, and the count of agreements.
//!
//! ```text
//! cargo build --release
//! cargo run --release -p gamelang-bench --bin qbf                         # sizes and times
//! cargo run --release -p gamelang-bench --bin qbf -- --agree --limit 60   # agreement
//! ```
//! It prints figures; it is not a test.

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
    let mut agree = false;
    let mut only: Option<Vec<String>> = None;
    while let Some(a) = args.next() {
        match a.as_str() {
            "--limit" => limit = args.next().and_then(|v| v.parse().ok()).unwrap_or(limit),
            "--agree" => agree = true,
            "--only" => {
                only = args
                    .next()
                    .map(|v| v.split(',').map(String::from).collect())
            }
            _ => {
                eprintln!("usage: qbf [--agree] [--limit SECONDS] [--only GAME,GAME]");
                return ExitCode::from(2);
            }
        }
    }
    let root = child::root();
    let gamelang = match child::release_gamelang() {
        Ok(g) => g,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::FAILURE;
        }
    };
    let corpus = root.join("bddl/tests/corpus");
    let limit = Duration::from_secs_f64(limit);
    if agree {
        agreement(&gamelang, &corpus, limit, only.as_deref())
    } else {
        sizes(
            &gamelang,
            &corpus,
            &root.join("qbf/tests/QSAGE-RESULTS.md"),
            limit,
        )
    }
}

/// `(problem, depth, vars, clauses, blocks, raw seconds)` rows of the reference table.
fn reference(path: &Path) -> Vec<(String, u32, String, String, String, String)> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    text.lines()
        .filter(|l| l.starts_with("| ") && l.contains(".ig") || l.contains(".pg |"))
        .filter_map(|l| {
            let c: Vec<&str> = l.split('|').map(str::trim).collect();
            // | problem | depth | vars | clauses | blocks | raw | bloqqer |
            Some((
                c.get(1)?.to_string(),
                c.get(2)?.parse().ok()?,
                c.get(3)?.to_string(),
                c.get(4)?.to_string(),
                c.get(5)?.to_string(),
                c.get(6)?.to_string(),
            ))
        })
        .collect()
}

fn domain_of(corpus: &Path, problem: &str) -> (PathBuf, PathBuf) {
    let p = corpus.join(problem);
    let d = p.parent().map(|d| d.join("domain.ig")).unwrap_or_default();
    (d, p)
}

fn sizes(gamelang: &Path, corpus: &Path, reference_file: &Path, limit: Duration) -> ExitCode {
    let rows = reference(reference_file);
    if rows.is_empty() {
        eprintln!("no reference figures in {}", reference_file.display());
        return ExitCode::FAILURE;
    }
    println!("| problem | depth | vars (ours / ref) | clauses (ours / ref) | blocks (ours / ref) | DepQBF s (ours / ref raw) | answer |");
    println!("|---|---|---|---|---|---|---|");
    let tmp =
        std::env::temp_dir().join(format!("gamelang-qbf-bench-{}.qdimacs", std::process::id()));
    for (problem, depth, vars, clauses, blocks, raw) in rows {
        let (d, p) = domain_of(corpus, &problem);
        let out = Command::new(gamelang)
            .args(["lower"])
            .arg(&d)
            .arg(&p)
            .args(["--to", "qdimacs", "--depth", &depth.to_string(), "--out"])
            .arg(&tmp)
            .output();
        if !out.is_ok_and(|o| o.status.success()) {
            println!("| {problem} | {depth} | lower failed | | | | |");
            continue;
        }
        let text = std::fs::read_to_string(&tmp).unwrap_or_default();
        let header: Vec<String> = text
            .lines()
            .find(|l| l.starts_with("p cnf"))
            .map(|l| l.split_whitespace().skip(2).map(String::from).collect())
            .unwrap_or_default();
        let our_blocks = text
            .lines()
            .filter(|l| l.starts_with("a ") || l.starts_with("e "))
            .count();
        let mut solve = Command::new("depqbf");
        solve.arg(&tmp);
        let (secs, answer) = match timed_status(&mut solve, limit) {
            Some((s, code)) => (
                format!("{s:.2}"),
                match code {
                    10 => "true",
                    20 => "false",
                    _ => "?",
                }
                .to_string(),
            ),
            None => ("TO".into(), "-".into()),
        };
        println!(
            "| {problem} | {depth} | {} / {vars} | {} / {clauses} | {our_blocks} / {blocks} | {secs} / {raw} | {answer} |",
            header.first().cloned().unwrap_or_default(),
            header.get(1).cloned().unwrap_or_default(),
        );
    }
    let _ = std::fs::remove_file(&tmp);
    ExitCode::SUCCESS
}

/// Run with a limit; `(seconds, exit code)` or `None` when stopped.
fn timed_status(cmd: &mut Command, limit: Duration) -> Option<(f64, i32)> {
    let began = std::time::Instant::now();
    let mut child = cmd
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .ok()?;
    loop {
        if let Ok(Some(status)) = child.try_wait() {
            return Some((began.elapsed().as_secs_f64(), status.code().unwrap_or(-1)));
        }
        if began.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            return None;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

fn agreement(gamelang: &Path, corpus: &Path, limit: Duration, only: Option<&[String]>) -> ExitCode {
    let problems = match corpus::problems(corpus, only) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::FAILURE;
        }
    };
    println!("| problem | depth | exhaustive | QBF | exhaustive s, peak MiB | QBF s (solver s) |");
    println!("|---|---|---|---|---|---|");
    let (mut both, mut same, mut differ) = (0, 0, Vec::new());
    for p in &problems {
        let (name, domain, problem) = (&p.name, &p.domain, &p.path);
        // The file's depth, from a quick exhaustive run at depth 0.
        let mut probe = Command::new(gamelang);
        probe
            .args(["bddl", "solve"])
            .arg(domain)
            .arg(problem)
            .args(["--json", "--depth", "0"]);
        let Ok(r) = timed(&mut probe, limit) else {
            continue;
        };
        let Ok(file_depth) = field(&r.stdout, "problem_depth").parse::<u32>() else {
            continue;
        };
        for depth in 1..=file_depth {
            let d = depth.to_string();
            let mut ex = Command::new(gamelang);
            ex.args(["bddl", "solve"])
                .arg(domain)
                .arg(problem)
                .args(["--json", "--depth", &d]);
            let mut q = Command::new(gamelang);
            q.args(["bddl", "solve"]).arg(domain).arg(problem).args([
                "--json",
                "--depth",
                &d,
                "--qbf",
                "--timeout",
                &limit.as_secs().to_string(),
            ]);
            let (Ok(a), Ok(b)) = (
                timed(&mut ex, limit),
                timed(&mut q, limit + Duration::from_secs(5)),
            ) else {
                continue;
            };
            let (ea, qa) = if a.stopped {
                ("-".to_string(), String::new())
            } else {
                (field(&a.stdout, "black_wins"), String::new())
            };
            let qa = if b.stopped {
                qa + "-"
            } else {
                field(&b.stdout, "black_wins")
            };
            let decided = |v: &str| v == "true" || v == "false";
            if decided(&ea) && decided(&qa) {
                both += 1;
                if ea == qa {
                    same += 1;
                } else {
                    differ.push(format!("{name} depth {depth}"));
                }
            }
            println!(
                "| {name} | {depth} | {ea} | {qa} | {:.2}, {:.0} | {:.2} ({}) |",
                a.secs,
                a.mib,
                b.secs,
                field(&b.stdout, "solver_seconds")
            );
            // Deeper is only harder: stop this problem when the QBF route gives up.
            if b.stopped || !decided(&qa) {
                break;
            }
        }
    }
    println!();
    println!(
        "decided by both: {both}; agree: {same}; disagree: {}",
        differ.len()
    );
    for d in &differ {
        println!("DISAGREE: {d}");
    }
    if differ.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
