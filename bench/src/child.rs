//! Child processes for the benchmark binaries: run one with a time limit and read its
//! wall time, peak memory and output.

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// A finished (or stopped) child process: its wall time, CPU time (user + system), peak
/// memory and standard output.
pub struct Run {
    /// Wall time (not read by the game-solving benchmark, which reports CPU time).
    #[allow(dead_code)]
    pub secs: f64,
    /// User + system CPU time (read by the rewriting benchmark only).
    #[allow(dead_code)]
    pub cpu: f64,
    pub mib: f64,
    pub stdout: String,
    pub stopped: bool,
}

/// Run `cmd` with a time limit; wall time, CPU time and peak resident memory from `wait4`.
/// Standard input is whatever `cmd` was given (inherited by default).
pub fn timed(cmd: &mut Command, limit: Duration) -> Result<Run, String> {
    let out = std::env::temp_dir().join(format!("gamelang-bench-{}.out", std::process::id()));
    let file = std::fs::File::create(&out).map_err(|e| e.to_string())?;
    let began = Instant::now();
    let child = cmd
        .stdout(file)
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("cannot run {:?}: {e}", cmd.get_program()))?;
    let pid = child.id() as libc::pid_t;
    let (tx, rx) = std::sync::mpsc::channel::<()>();
    let killer = std::thread::spawn(move || {
        if rx.recv_timeout(limit).is_err() {
            // SAFETY: sending a signal to our own child, which has not been reaped yet.
            unsafe { libc::kill(pid, libc::SIGKILL) };
            return true;
        }
        false
    });
    let mut status: libc::c_int = 0;
    // SAFETY: an all-zero `rusage` is a valid value; `wait4` fills it in.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `pid` is our child, not yet waited for; the pointers are to live locals.
    let r = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    let secs = began.elapsed().as_secs_f64();
    let _ = tx.send(());
    let stopped = killer.join().unwrap_or(false);
    if r != pid {
        return Err("wait4 failed".into());
    }
    let stdout = std::fs::read_to_string(&out).unwrap_or_default();
    let _ = std::fs::remove_file(&out);
    if !stopped && (!libc::WIFEXITED(status) || libc::WEXITSTATUS(status) != 0) {
        return Err(format!("{:?} failed (status {status})", cmd.get_program()));
    }
    // ru_maxrss is in KiB on Linux.
    let tv = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    Ok(Run {
        secs,
        cpu: tv(usage.ru_utime) + tv(usage.ru_stime),
        mib: usage.ru_maxrss as f64 / 1024.0,
        stdout,
        stopped,
    })
}

/// The value of `key` in a flat JSON object (as text, quotes removed).
pub fn field(json: &str, key: &str) -> String {
    let pat = format!("\"{key}\":");
    json.find(&pat)
        .map(|i| {
            let rest = &json[i + pat.len()..];
            let end = rest.find([',', '}']).unwrap_or(rest.len());
            rest[..end].trim_matches('"').to_string()
        })
        .unwrap_or_else(|| "?".into())
}

/// The median of `xs` (the mean of the middle two for an even number); `None` if empty.
/// The benchmarks' `--runs N` report it (the machines are shared and noisy).
#[allow(dead_code)] // not every benchmark repeats its runs
pub fn median(xs: &[f64]) -> Option<f64> {
    let mut xs = xs.to_vec();
    xs.sort_by(f64::total_cmp);
    let n = xs.len();
    match n {
        0 => None,
        n if n % 2 == 1 => Some(xs[n / 2]),
        n => Some((xs[n / 2 - 1] + xs[n / 2]) / 2.0),
    }
}

/// The repository's root (the bench crate's parent).
#[allow(dead_code)] // not every benchmark binary runs files of the repository
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The release build of `gamelang`, which the benchmarks run as a child process.
#[allow(dead_code)] // not every benchmark binary runs gamelang
pub fn release_gamelang() -> Result<PathBuf, String> {
    let path = root().join("target/release/gamelang");
    if path.exists() {
        Ok(path)
    } else {
        Err("build gamelang first: cargo build --release".into())
    }
}
