//! The engine benchmark against Maude (issue 11, docs/benchmarks.md): classic rewriting
//! programs written in plain Maude `fmod` syntax (`bench/rewriting/NAME.maude`, listed with
//! their inputs in `bench/rewriting/programs.txt`), each loaded unchanged by gamelang
//! (`gamelang reduce FILE TERM`, the release build) and by Maude 3 (`maude FILE` with
//! `reduce TERM .` on its standard input), on the same input term. The normal forms are
//! compared (white space removed: Maude wraps long results), and the CPU times (user +
//! system) and peak memory of the two child processes are printed side by side, with the
//! ratio Maude / gamelang and its geometric mean over the programs on which Maude takes
//! more than 0.1 s. A run past the time limit is stopped and reported as a timeout. It
//! prints figures; it is not a test (tests/rewriting.rs checks the programs' answers).
//!
//! The machines this runs on are shared and noisy (one run of a program may take 30% longer
//! than the next): `--runs N` runs each program N times, gamelang and Maude in turn so that
//! both see the same load, and reports the median CPU time of each side with the range
//! of its runs.
//!
//! gamelang runs twice: as users run it, and with its call cache off
//! (`GAMELANG_NO_CALL_CACHE=1`), which rewrites every call as Maude does. The first says
//! what a user gets; the second compares the engines' speed alone, without the calls the
//! cache saves on programs that repeat them (fib, tak, Ackermann).
//!
//! ```text
//! cargo run --release -p gamelang-bench --bin rewriting
//! cargo run --release -p gamelang-bench --bin rewriting -- --only dag-eval --size dag-eval=6 --timeout 10
//! cargo run --release -p gamelang-bench --bin rewriting -- --only binary-add,binary-mul --runs 5
//! ```

#[path = "../child.rs"]
#[allow(dead_code)] // `field` and `Run::secs` serve the other benchmarks
mod child;
use child::{timed, Run};
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::{Command, ExitCode, Stdio};
use std::time::Duration;

const USAGE: &str = "usage: rewriting [--only NAME[,NAME…]]… [--size NAME=N]… [--runs N] \
[--timeout S] [--no-maude] [--gamelang PATH]\n\
  --only NAME     run only these programs (repeatable, or a comma-separated list)\n\
  --size NAME=N   the size of a program's input (default: programs.txt's benchmark size)\n\
  --runs N        run each program N times, the engines in turn: the median CPU time (default 1)\n\
  --timeout S     stop a run after S seconds of wall time and report a timeout (default 60)\n\
  --no-maude      run gamelang only (also what happens when `maude` is not installed)\n\
  --gamelang PATH the gamelang binary (default: target/release/gamelang)";

/// One program of `programs.txt`.
struct Program {
    name: String,
    template: String,
    size: String,
}

impl Program {
    fn term(&self) -> String {
        self.template.replace("{n}", &self.size)
    }
}

fn programs() -> Result<Vec<Program>, String> {
    let path = child::root().join("bench/rewriting/programs.txt");
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut out = Vec::new();
    for line in text.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let parts: Vec<&str> = line.split('|').map(str::trim).collect();
        let [name, template, size, _tiny] = parts.as_slice() else {
            return Err(format!("{}: bad line `{line}`", path.display()));
        };
        out.push(Program {
            name: name.to_string(),
            template: template.to_string(),
            size: size.to_string(),
        });
    }
    Ok(out)
}

/// The outcome of one side: a normal form with its figures, a timeout, or an error.
enum Outcome {
    Done {
        /// CPU time (user + system), the median of the runs.
        cpu: f64,
        /// The least and the most CPU time of the runs (equal for one run).
        range: (f64, f64),
        /// Peak memory, the most of the runs.
        mib: f64,
        normal_form: String,
    },
    Timeout(f64),
    Failed(String),
}

impl Outcome {
    fn cpu(&self) -> Option<f64> {
        match self {
            Outcome::Done { cpu, .. } => Some(*cpu),
            _ => None,
        }
    }
    fn cell(&self) -> String {
        match self {
            Outcome::Done {
                cpu,
                range: (lo, hi),
                mib,
                ..
            } if lo < hi => format!("{cpu:.2} s ({lo:.2}–{hi:.2}), {mib:.0} MiB"),
            Outcome::Done { cpu, mib, .. } => format!("{cpu:.2} s, {mib:.0} MiB"),
            Outcome::Timeout(s) => format!("timeout (> {s:.0} s)"),
            Outcome::Failed(_) => "error".into(),
        }
    }
}

/// The runs of one side combined: the median CPU time, its range and the most memory; the
/// first timeout or error if a run had one, and an error if the runs' normal forms differ.
fn combine(runs: Vec<Outcome>) -> Outcome {
    let mut cpus = Vec::with_capacity(runs.len());
    let mut mib: f64 = 0.0;
    let mut first: Option<String> = None;
    for o in runs {
        match o {
            Outcome::Done {
                cpu,
                mib: m,
                normal_form,
                ..
            } => {
                match &first {
                    Some(f) if *f != normal_form => {
                        return Outcome::Failed(format!(
                            "two runs gave different normal forms: {f} and {normal_form}"
                        ))
                    }
                    Some(_) => {}
                    None => first = Some(normal_form),
                }
                cpus.push(cpu);
                mib = mib.max(m);
            }
            other => return other,
        }
    }
    let (Some(normal_form), Some(cpu)) = (first, child::median(&cpus)) else {
        return Outcome::Failed("no run".into());
    };
    let range = cpus
        .iter()
        .fold((f64::MAX, f64::MIN), |(lo, hi), &c| (lo.min(c), hi.max(c)));
    Outcome::Done {
        cpu,
        range,
        mib,
        normal_form,
    }
}

/// The text after `result SORT: ` on the line starting with `result`, with the lines that
/// continue it (Maude indents them), white space removed.
fn normal_form(stdout: &str) -> Option<String> {
    let mut lines = stdout.lines().skip_while(|l| !l.starts_with("result "));
    let first = lines.next()?;
    let mut text = first.split_once(": ")?.1.to_string();
    for l in lines {
        if !l.starts_with(char::is_whitespace) {
            break;
        }
        text.push_str(l);
    }
    Some(text.split_whitespace().collect())
}

fn outcome(run: Result<Run, String>, limit: Duration) -> Outcome {
    match run {
        Err(e) => Outcome::Failed(e),
        Ok(run) if run.stopped => Outcome::Timeout(limit.as_secs_f64()),
        Ok(run) => match normal_form(&run.stdout) {
            Some(normal_form) => Outcome::Done {
                cpu: run.cpu,
                range: (run.cpu, run.cpu),
                mib: run.mib,
                normal_form,
            },
            None => Outcome::Failed(format!("no result in the output: {}", run.stdout.trim())),
        },
    }
}

fn run_gamelang(
    bin: &PathBuf,
    file: &PathBuf,
    term: &str,
    limit: Duration,
    call_cache: bool,
) -> Outcome {
    let mut cmd = Command::new(bin);
    if !call_cache {
        cmd.env("GAMELANG_NO_CALL_CACHE", "1");
    }
    cmd.arg("reduce")
        .arg("--quiet")
        .arg(file)
        .arg(term)
        .stdin(Stdio::null());
    outcome(timed(&mut cmd, limit), limit)
}

fn run_maude(file: &PathBuf, term: &str, limit: Duration) -> Outcome {
    let input = std::env::temp_dir().join(format!("gamelang-rewriting-{}.in", std::process::id()));
    if let Err(e) = std::fs::write(&input, format!("reduce {term} .\nquit\n")) {
        return Outcome::Failed(e.to_string());
    }
    let stdin = match std::fs::File::open(&input) {
        Ok(f) => f,
        Err(e) => return Outcome::Failed(e.to_string()),
    };
    let mut cmd = Command::new("maude");
    cmd.arg("-no-banner")
        .arg("-no-advise")
        .arg(file)
        .stdin(stdin);
    // Maude recurses on the C stack over deep terms (a Peano numeral of 3.6 million `s`):
    // like `ulimit -s unlimited`, which Maude's own message advises.
    // SAFETY: only async-signal-safe calls between fork and exec.
    unsafe {
        cmd.pre_exec(|| {
            let unlimited = libc::rlimit {
                rlim_cur: libc::RLIM_INFINITY,
                rlim_max: libc::RLIM_INFINITY,
            };
            let mut current: libc::rlimit = std::mem::zeroed();
            libc::getrlimit(libc::RLIMIT_STACK, &mut current);
            let want = if current.rlim_max == libc::RLIM_INFINITY {
                unlimited
            } else {
                libc::rlimit {
                    rlim_cur: current.rlim_max,
                    rlim_max: current.rlim_max,
                }
            };
            libc::setrlimit(libc::RLIMIT_STACK, &want);
            Ok(())
        });
    }
    let out = outcome(timed(&mut cmd, limit), limit);
    let _ = std::fs::remove_file(&input);
    out
}

fn maude_available() -> bool {
    Command::new("maude")
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

fn main() -> ExitCode {
    let mut only: Vec<String> = Vec::new();
    let mut sizes: Vec<(String, String)> = Vec::new();
    let mut limit = Duration::from_secs(60);
    let mut runs = 1usize;
    let mut use_maude = true;
    let mut bin = child::root().join("target/release/gamelang");
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut value = |what: &str| {
            args.next().unwrap_or_else(|| {
                eprintln!("{a} needs {what}\n{USAGE}");
                std::process::exit(2)
            })
        };
        match a.as_str() {
            "--only" => only.extend(value("a name").split(',').map(str::to_string)),
            "--size" => {
                let v = value("NAME=N");
                let Some((n, s)) = v.split_once('=') else {
                    eprintln!("--size takes NAME=N\n{USAGE}");
                    return ExitCode::from(2);
                };
                sizes.push((n.to_string(), s.to_string()));
            }
            "--timeout" => match value("seconds").parse::<f64>() {
                Ok(s) if s > 0.0 => limit = Duration::from_secs_f64(s),
                _ => {
                    eprintln!("--timeout takes a positive number of seconds");
                    return ExitCode::from(2);
                }
            },
            "--runs" => match value("a number").parse::<usize>() {
                Ok(n) if n > 0 => runs = n,
                _ => {
                    eprintln!("--runs takes a positive whole number");
                    return ExitCode::from(2);
                }
            },
            "--no-maude" => use_maude = false,
            "--gamelang" => bin = PathBuf::from(value("a path")),
            "-h" | "--help" => {
                println!("{USAGE}");
                return ExitCode::SUCCESS;
            }
            other => {
                eprintln!("unknown argument `{other}`\n{USAGE}");
                return ExitCode::from(2);
            }
        }
    }
    let mut programs = match programs() {
        Ok(p) => p,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::FAILURE;
        }
    };
    for name in only.iter().chain(sizes.iter().map(|(n, _)| n)) {
        if !programs.iter().any(|p| &p.name == name) {
            let names: Vec<&str> = programs.iter().map(|p| p.name.as_str()).collect();
            eprintln!("no program `{name}`; the programs: {}", names.join(", "));
            return ExitCode::from(2);
        }
    }
    if !only.is_empty() {
        programs.retain(|p| only.contains(&p.name));
    }
    for (name, size) in sizes {
        if let Some(p) = programs.iter_mut().find(|p| p.name == name) {
            p.size = size;
        }
    }
    if !bin.exists() {
        eprintln!(
            "{} not found: build it first (cargo build --release)",
            bin.display()
        );
        return ExitCode::FAILURE;
    }
    if use_maude && !maude_available() {
        println!("maude is not installed (apt-get install maude): running gamelang only");
        use_maude = false;
    }
    println!(
        "{} programs; CPU time (user + system) and peak memory of each child process{}; time limit {:.0} s",
        programs.len(),
        if runs > 1 {
            format!(
                ", the median of {runs} runs (the engines in turn) with the range of the runs, \
                 and the most memory"
            )
        } else {
            String::new()
        },
        limit.as_secs_f64()
    );
    println!(
        "| program | input | gamelang | Maude | Maude / gamelang | gamelang without the call cache | Maude / that | normal forms |\n|---|---|---|---|---:|---|---:|---|"
    );
    let mut ratios = Vec::new();
    let mut uncached_ratios = Vec::new();
    let mut slower = Vec::new();
    let mut mismatches = 0;
    let mut failures = 0;
    for p in &programs {
        let file = child::root()
            .join("bench/rewriting")
            .join(format!("{}.maude", p.name));
        let term = p.term();
        // The runs in turn (gamelang, without the call cache, Maude, and again), so that
        // the load of a shared machine falls on all three alike; a side that times out or
        // fails is not run again.
        let (mut gs, mut us, mut ms) = (Vec::new(), Vec::new(), Vec::new());
        let done =
            |v: &Vec<Outcome>| matches!(v.last(), Some(Outcome::Timeout(_) | Outcome::Failed(_)));
        for _ in 0..runs {
            if !done(&gs) {
                gs.push(run_gamelang(&bin, &file, &term, limit, true));
            }
            if !done(&us) {
                us.push(run_gamelang(&bin, &file, &term, limit, false));
            }
            if use_maude && !done(&ms) {
                ms.push(run_maude(&file, &term, limit));
            }
        }
        let (g, u) = (combine(gs), combine(us));
        let m = use_maude.then(|| combine(ms));
        let cache_agrees = match (&g, &u) {
            (Outcome::Done { normal_form: a, .. }, Outcome::Done { normal_form: b, .. }) => a == b,
            _ => true,
        };
        let verdict = match (&g, &m) {
            _ if !cache_agrees => {
                mismatches += 1;
                "**differ**: gamelang with and without the call cache".to_string()
            }
            (Outcome::Done { normal_form: a, .. }, Some(Outcome::Done { normal_form: b, .. })) => {
                if a == b {
                    "equal".to_string()
                } else {
                    mismatches += 1;
                    format!("**differ**: gamelang {a}, Maude {b}")
                }
            }
            (Outcome::Done { normal_form: a, .. }, None) => {
                let short: String = a.chars().take(40).collect();
                format!("`{short}`")
            }
            _ => "—".into(),
        };
        for (who, o) in [
            ("gamelang", Some(&g)),
            ("gamelang without the call cache", Some(&u)),
            ("maude", m.as_ref()),
        ] {
            if let Some(Outcome::Failed(e)) = o {
                failures += 1;
                eprintln!("{}: {who} failed: {e}", p.name);
            }
        }
        let ratio = match (m.as_ref().and_then(Outcome::cpu), g.cpu(), &g) {
            (Some(mc), Some(gc), _) => {
                let r = mc / gc.max(1e-3);
                if mc > 0.1 {
                    ratios.push(r);
                    if r < 1.0 {
                        slower.push((p.name.clone(), 1.0 / r, ""));
                    }
                }
                format!("{r:.2}")
            }
            (Some(mc), None, Outcome::Timeout(s)) => {
                if mc > 0.1 {
                    slower.push((p.name.clone(), s / mc.max(1e-3), "> "));
                }
                format!("< {:.3}", mc / s)
            }
            _ => "—".into(),
        };
        let uncached_ratio = match (m.as_ref().and_then(Outcome::cpu), u.cpu()) {
            (Some(mc), Some(uc)) => {
                let r = mc / uc.max(1e-3);
                if mc > 0.1 {
                    uncached_ratios.push(r);
                }
                format!("{r:.2}")
            }
            _ => "—".into(),
        };
        let maude_cell = m.as_ref().map_or("not run".to_string(), Outcome::cell);
        println!(
            "| {} | `{}` | {} | {} | {} | {} | {} | {} |",
            p.name,
            term,
            g.cell(),
            maude_cell,
            ratio,
            u.cell(),
            uncached_ratio,
            verdict
        );
    }
    if use_maude {
        if ratios.is_empty() {
            println!("\nno program took Maude more than 0.1 s");
        } else {
            let geo = (ratios.iter().map(|r| r.ln()).sum::<f64>() / ratios.len() as f64).exp();
            println!(
                "\ngeometric mean of Maude / gamelang over the {} programs where Maude takes > 0.1 s \
                 (timeouts left out): {geo:.2} ({})",
                ratios.len(),
                if geo >= 1.0 {
                    format!("gamelang {geo:.2}x faster")
                } else {
                    format!("gamelang {:.2}x slower", 1.0 / geo)
                }
            );
        }
        if !uncached_ratios.is_empty() {
            let n = uncached_ratios.len() as f64;
            let geo = (uncached_ratios.iter().map(|r| r.ln()).sum::<f64>() / n).exp();
            println!(
                "the same without the call cache (every call rewritten, the engines' speed alone): {geo:.2}"
            );
        }
        slower.sort_by(|a, b| b.1.total_cmp(&a.1));
        if !slower.is_empty() {
            let list: Vec<String> = slower
                .iter()
                .map(|(n, f, bound)| format!("{n} {bound}{f:.1}x"))
                .collect();
            println!(
                "gamelang slower than Maude (Maude > 0.1 s): {}",
                list.join(", ")
            );
        }
        println!("normal forms: {} differ", mismatches);
    }
    if mismatches > 0 || failures > 0 {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
