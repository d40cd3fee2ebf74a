//! Compare this encoding with the reference implementation's (tests/QSAGE-RESULTS.md):
//! sizes, and DepQBF's time on both.
//!
//! `cargo run --release -p gamelang-qbf --example compare -- [timeout-seconds] [problem:depths ...]`
//! e.g. `httt/3x3_9_tic.ig:1,3,5,7,9`. Without problems: the instances of the report.

use gamelang_lang::span::Sources;
use gamelang_qbf::{encode, run_solver, Answer};
use std::path::Path;
use std::time::Duration;

fn load(name: &str) -> Result<gamelang_qbf::Model, String> {
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("../bddl/tests/corpus");
    let path = corpus.join(name);
    let folder = path.parent().ok_or("no folder")?;
    let domain = std::fs::read_to_string(folder.join("domain.ig")).map_err(|e| e.to_string())?;
    let problem = std::fs::read_to_string(&path).map_err(|e| format!("{name}: {e}"))?;
    let mut sources = Sources::new();
    let d = sources.add("domain.ig", domain);
    let p = sources.add("problem.ig", problem);
    gamelang_bddl::parse(&mut sources, d, p).map_err(|e| format!("{name}: {} errors", e.len()))
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let timeout = args
        .first()
        .and_then(|a| a.parse::<f64>().ok())
        .unwrap_or(60.0);
    let mut jobs: Vec<(String, Vec<u32>)> = args
        .iter()
        .filter_map(|a| {
            let (p, ds) = a.split_once(':')?;
            Some((
                p.to_string(),
                ds.split(',').filter_map(|d| d.parse().ok()).collect(),
            ))
        })
        .collect();
    if jobs.is_empty() {
        jobs = vec![
            ("httt/3x3_9_tic.ig".into(), vec![1, 3, 5, 7, 9]),
            ("connect-c/3x3_9_connect3.ig".into(), (1..=9).collect()),
            ("domineering/3x3_4.ig".into(), (1..=4).collect()),
        ];
    }
    let reference = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/QSAGE-RESULTS.md"),
    )
    .unwrap_or_default();
    println!("| problem | d | answer | vars | clauses | blocks | DepQBF s | ref vars | ref clauses | ref blocks | ref DepQBF s |");
    println!("|---|---|---|---|---|---|---|---|---|---|---|");
    for (name, depths) in jobs {
        let m = match load(&name) {
            Ok(m) => m,
            Err(e) => {
                eprintln!("{e}");
                continue;
            }
        };
        for d in depths {
            let enc = match encode(&m, d) {
                Ok(e) => e,
                Err(e) => {
                    eprintln!("{name}: {e}");
                    continue;
                }
            };
            // QBF_CNF="inline=0,or=4,prod=4,len=0" measures other Tseitin options.
            let (s, text) = match std::env::var("QBF_CNF") {
                Ok(spec) => {
                    let mut o = gamelang_qbf::CnfOptions::default();
                    for kv in spec.split(',') {
                        let (k, v) = kv.split_once('=').unwrap_or((kv, "1"));
                        let v: usize = v.parse().unwrap_or(0);
                        match k {
                            "inline" => o.inline = v != 0,
                            "or" => o.inline_small_or = v,
                            "prod" => o.max_product = v,
                            "len" => o.max_clause_len = v,
                            "early" => o.early_gates = v != 0,
                            _ => {}
                        }
                    }
                    let cnf = enc.cnf_with(o);
                    let mut s = enc.stats();
                    s.vars = cnf.num_vars;
                    s.clauses = cnf.clauses.len();
                    s.blocks = cnf.prefix.len();
                    (s, cnf.write())
                }
                Err(_) => (enc.stats(), enc.qdimacs()),
            };
            let run = run_solver("depqbf", &text, Duration::from_secs_f64(timeout));
            let (ans, secs) = match run {
                Ok(r) => (
                    match r.answer {
                        Answer::True => "true".to_string(),
                        Answer::False => "false".to_string(),
                        Answer::Unknown(_) => "?".to_string(),
                    },
                    if matches!(r.answer, Answer::Unknown(_)) {
                        "TO".to_string()
                    } else {
                        format!("{:.2}", r.seconds)
                    },
                ),
                Err(e) => (e, String::new()),
            };
            let prefix = format!("| {name} | {d} |");
            let r: Vec<&str> = reference
                .lines()
                .find(|l| l.starts_with(&prefix))
                .map(|l| l.split('|').map(str::trim).collect())
                .unwrap_or_default();
            let get = |i: usize| r.get(i).copied().unwrap_or("-");
            println!(
                "| {name} | {d} | {ans} | {} | {} | {} | {secs} | {} | {} | {} | {} |",
                s.vars,
                s.clauses,
                s.blocks,
                get(3),
                get(4),
                get(5),
                get(6)
            );
        }
    }
}
