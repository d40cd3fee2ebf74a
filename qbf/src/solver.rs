//! Running a QDIMACS solver (DepQBF by default) on an encoding: the text goes to a
//! temporary file given as the last argument, the exit code says the answer (10 true,
//! 20 false, the QDIMACS convention), and `V lit 0` lines (`--qdo`) give the assignment of
//! the outermost block. A timeout kills the solver; a timeout or any other outcome is
//! [`Answer::Unknown`], never false.

use std::io::Read;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// The default command: DepQBF printing the outermost block's assignment.
pub const DEFAULT_SOLVER: &str = "depqbf --qdo";

/// Set by [`interrupt`]: the user asked to stop (Ctrl-C).
static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// Stop the solver running now, and any started after: [`run_solver`] kills it (and what
/// it started) and answers [`Answer::Unknown`]; [`interrupted`] then says why. Returns
/// whether it had been asked before (a second Ctrl-C may end the program at once).
pub fn interrupt() -> bool {
    INTERRUPTED.swap(true, Ordering::SeqCst)
}

/// Has [`interrupt`] been called?
pub fn interrupted() -> bool {
    INTERRUPTED.load(Ordering::SeqCst)
}

/// What the solver decided.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Answer {
    True,
    False,
    /// Not decided: why (timeout, crash, unexpected exit code).
    Unknown(String),
}

/// One run of the solver.
#[derive(Clone, Debug)]
pub struct SolverRun {
    pub answer: Answer,
    /// The `V lit 0` lines of the output (the outermost block's values with `--qdo`).
    pub assignment: Vec<i64>,
    /// Wall-clock seconds.
    pub seconds: f64,
}

/// A file removed when dropped.
struct TempFile(PathBuf);

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// The prefix of the formula files, followed by the process id.
const TEMP_PREFIX: &str = "gamelang-qbf-";

/// Remove the formula files left by gamelang processes that no longer run. A process
/// killed (SIGKILL, SIGTERM, SIGHUP, or Ctrl-C where nothing unwinds) cannot remove its
/// own; the next one does, once per process. A process is taken to run while
/// `/proc/PID` exists (elsewhere than on Linux nothing is removed).
fn remove_orphans(dir: &std::path::Path) {
    if !std::path::Path::new("/proc/self").exists() {
        return;
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(rest) = name.to_str().and_then(|n| n.strip_prefix(TEMP_PREFIX)) else {
            continue;
        };
        let Some(pid) = rest.split('-').next().and_then(|p| p.parse::<u32>().ok()) else {
            continue;
        };
        if rest.ends_with(".qdimacs") && !std::path::Path::new(&format!("/proc/{pid}")).exists() {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

fn temp_file(text: &str) -> Result<TempFile, String> {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    static SWEPT: std::sync::Once = std::sync::Once::new();
    SWEPT.call_once(|| remove_orphans(&std::env::temp_dir()));
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    let name = format!(
        "{TEMP_PREFIX}{}-{}-{nanos}.qdimacs",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    );
    let path = std::env::temp_dir().join(name);
    std::fs::write(&path, text)
        .map_err(|e| format!("cannot write the QDIMACS file {}: {e}", path.display()))?;
    Ok(TempFile(path))
}

/// Run the QDIMACS solver `cmd` (a program and its options separated by spaces, e.g.
/// [`DEFAULT_SOLVER`]) on `qdimacs`, for at most `timeout`. An error only when the solver
/// cannot be started (with how to install DepQBF) or the file cannot be written.
pub fn run_solver(cmd: &str, qdimacs: &str, timeout: Duration) -> Result<SolverRun, String> {
    let mut words = cmd.split_whitespace();
    let program = words
        .next()
        .ok_or("no solver command given (e.g. `depqbf --qdo`)")?;
    let file = temp_file(qdimacs)?;
    let start = Instant::now();
    let mut command = Command::new(program);
    command
        .args(words)
        .arg(&file.0)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    // The watchdog first, so that there is no moment at which the solver runs unwatched: it
    // leads the process group the solver then joins.
    let watchdog = Watchdog::start();
    let group = watchdog.group();
    own_process_group(&mut command, group);
    let mut child = command
        .spawn()
        .map_err(|e| {
            if e.kind() == std::io::ErrorKind::NotFound {
                format!(
                    "the QBF solver `{program}` was not found: install DepQBF (`apt-get install depqbf` on Debian/Ubuntu, or build it from https://github.com/lonsing/depqbf) or give another QDIMACS solver"
                )
            } else {
                format!("cannot run the QBF solver `{program}`: {e}")
            }
        })?;
    // The group to kill: the watchdog's, or the solver's own if there is no watchdog.
    let group = if group == 0 { child.id() as i32 } else { group };
    // Read the pipes on threads so that a talkative solver never blocks on a full pipe.
    // The output arrives through channels: if the solver left a child of its own holding
    // the pipes (a wrapper script killed on timeout), the wait for it is bounded.
    let (out_tx, out_rx) = std::sync::mpsc::channel::<String>();
    let (err_tx, err_rx) = std::sync::mpsc::channel::<String>();
    for (pipe, tx) in [
        (
            child
                .stdout
                .take()
                .map(|p| Box::new(p) as Box<dyn Read + Send>),
            out_tx,
        ),
        (
            child
                .stderr
                .take()
                .map(|p| Box::new(p) as Box<dyn Read + Send>),
            err_tx,
        ),
    ] {
        std::thread::spawn(move || {
            let mut s = String::new();
            if let Some(mut p) = pipe {
                let _ = p.read_to_string(&mut s);
            }
            let _ = tx.send(s);
        });
    }
    let collect = |rx: &std::sync::mpsc::Receiver<String>| {
        rx.recv_timeout(Duration::from_secs(2)).unwrap_or_default()
    };
    let mut timed_out = false;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Some(status),
            Ok(None) => {
                if interrupted() {
                    kill_group(group);
                    let _ = child.kill();
                    let _ = child.wait();
                    break None;
                }
                if start.elapsed() >= timeout {
                    kill_group(group);
                    let _ = child.kill();
                    let _ = child.wait();
                    timed_out = true;
                    break None;
                }
                std::thread::sleep(Duration::from_millis(2));
            }
            Err(e) => {
                kill_group(group);
                let _ = child.kill();
                let _ = child.wait();
                return Ok(SolverRun {
                    answer: Answer::Unknown(format!("waiting for the solver failed: {e}")),
                    assignment: Vec::new(),
                    seconds: start.elapsed().as_secs_f64(),
                });
            }
        }
    };
    let seconds = start.elapsed().as_secs_f64();
    // Whatever the solver left running (a wrapper script's children) goes with it, and
    // with them the last holders of the pipes.
    kill_group(group);
    let stdout = collect(&out_rx);
    let stderr = collect(&err_rx);
    let assignment: Vec<i64> = stdout
        .lines()
        .filter_map(|l| {
            let mut w = l.split_whitespace();
            (w.next() == Some("V"))
                .then(|| w.next().and_then(|x| x.parse::<i64>().ok()))
                .flatten()
        })
        .filter(|&l| l != 0)
        .collect();
    let answer = if timed_out {
        Answer::Unknown(format!("timeout after {:.1} s", timeout.as_secs_f64()))
    } else if status.is_none() {
        Answer::Unknown("interrupted".into())
    } else {
        match status.and_then(|s| s.code()) {
            Some(10) => Answer::True,
            Some(20) => Answer::False,
            Some(code) => Answer::Unknown(format!(
                "the solver exited with code {code}{}",
                tail(&stderr, &stdout)
            )),
            None => Answer::Unknown(format!(
                "the solver was killed by a signal{}",
                tail(&stderr, &stdout)
            )),
        }
    };
    Ok(SolverRun {
        answer,
        assignment,
        seconds,
    })
}

/// Run the solver in the process group `group` (the watchdog's; 0: a new group of its own),
/// so that a timeout kills everything it started, and on Linux have the kernel kill it when
/// gamelang dies (`PR_SET_PDEATHSIG`: a `kill -9` of gamelang, or a CI time-out, leaves no
/// solver burning a core).
#[cfg(unix)]
fn own_process_group(command: &mut Command, group: i32) {
    use std::os::unix::process::CommandExt;
    command.process_group(group);
    #[cfg(target_os = "linux")]
    {
        // SAFETY: between fork and exec only async-signal-safe calls are made (prctl,
        // getppid, _exit), with no allocation.
        let parent = std::process::id() as libc::pid_t;
        unsafe {
            command.pre_exec(move || {
                if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                // The parent may have died before the prctl: then nobody would kill us.
                if libc::getppid() != parent {
                    libc::_exit(1);
                }
                Ok(())
            });
        }
    }
}

#[cfg(not(unix))]
fn own_process_group(_: &mut Command, _: i32) {}

/// A process that kills the solver's process group when gamelang dies, however it dies.
/// `PR_SET_PDEATHSIG` reaches only the solver itself: the children of a wrapper script
/// would outlive a `kill -9` of gamelang (they are not gamelang's children, and the kernel
/// tells no one but a parent). The watchdog is a shell waiting for the end of its standard
/// input, a pipe whose only writer is gamelang (the write end is close-on-exec, so no
/// solver inherits it): when gamelang ends or is killed, the kernel closes the pipe, `read`
/// returns, and the watchdog kills its own process group, which the solver has joined.
///
/// It is started before the solver and leads the group: started after it, a `kill -9` of
/// gamelang between the two left the solver's children unwatched (a wrapper script could
/// start its child in that moment; `tests/reliability.rs` caught it under load). After a
/// normal run, closing the pipe does the same as [`kill_group`].
#[cfg(unix)]
struct Watchdog(Option<std::process::Child>);

#[cfg(unix)]
impl Watchdog {
    fn start() -> Watchdog {
        use std::os::unix::process::CommandExt;
        let child = Command::new("/bin/sh")
            .arg("-c")
            // `kill -9 -PGID`: the form dash and bash both read as "the group PGID"; the
            // shell leads its group, so the group id is its own pid.
            .arg("read line; kill -9 -$$")
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .process_group(0)
            .spawn();
        // Without a shell the solver still dies with gamelang (PR_SET_PDEATHSIG); only its
        // children might not.
        Watchdog(child.ok())
    }

    /// The process group the solver joins: the watchdog's (0 without a watchdog: a new
    /// group led by the solver).
    fn group(&self) -> i32 {
        self.0.as_ref().map_or(0, |c| c.id() as i32)
    }
}

#[cfg(unix)]
impl Drop for Watchdog {
    fn drop(&mut self) {
        if let Some(mut child) = self.0.take() {
            drop(child.stdin.take());
            let _ = child.wait();
        }
    }
}

#[cfg(not(unix))]
struct Watchdog;

#[cfg(not(unix))]
impl Watchdog {
    fn start() -> Watchdog {
        Watchdog
    }

    fn group(&self) -> i32 {
        0
    }
}

/// Kill the solver's process group (the solver and everything it started).
#[cfg(unix)]
fn kill_group(group: i32) {
    // SAFETY: kill(2) on the solver's process group (see `own_process_group`); a group
    // already gone gives ESRCH, which is ignored. `group` is a pid, never 0 or 1.
    if group > 1 {
        unsafe {
            libc::kill(-(group as libc::pid_t), libc::SIGKILL);
        }
    }
}

#[cfg(not(unix))]
fn kill_group(_: i32) {}

/// The last lines of the solver's messages, for an Unknown answer.
fn tail(stderr: &str, stdout: &str) -> String {
    let text = if stderr.trim().is_empty() {
        stdout
    } else {
        stderr
    };
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    let start = lines.len().saturating_sub(3);
    if lines.is_empty() {
        String::new()
    } else {
        format!(": {}", lines[start..].join(" / "))
    }
}
