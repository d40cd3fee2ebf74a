//! Watching a long reduction: the memory budget, and a progress line on a terminal.
//!
//! Both are checked every few hundred thousand steps of [`Engine::reduce`] (see
//! `Engine::run`), so they cost nothing measurable:
//!
//! * the **memory budget** is the resident memory of the whole process (all engines and
//!   threads together): past it the reduction stops with [`RuntimeError::MemoryLimit`], a
//!   clear error, instead of growing until an allocation fails and the process aborts. It
//!   is half of the machine's memory by default, or `GAMELANG_MAX_MEMORY` (`500M`, `4G`, or
//!   a number of bytes), or what [`set_memory_budget`] says;
//! * the **progress line** (when [`set_progress`] turned it on: the command-line tool does
//!   so when standard error is a terminal) appears once a reduction has run for two
//!   seconds (`GAMELANG_PROGRESS_AFTER=SECONDS` changes the delay: the tests set 0, so
//!   that they need no clock), and says every second how long it has run, how many rewrites, memo entries
//!   and how much memory it has used, and how to stop it. It is erased when the reduction
//!   ends.

use super::{Engine, Task};
use crate::error::RuntimeError;
use crate::term::TermId;
use std::cell::Cell;
use std::io::Write;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// Steps between two checks (a power of two, minus one, as a mask).
pub(super) const CHECK_MASK: u32 = (1 << 18) - 1;

/// Reductions between two checks of the memory budget at their start (a mask): a solver
/// asks millions of questions of a few steps each, whose run loops never count to
/// [`CHECK_MASK`]; without this, `gamelang solve` of a game with millions of positions
/// grew past any budget until an allocation failed and the process aborted.
pub(super) const QUESTIONS_MASK: u32 = (1 << 12) - 1;

/// Steps of a run loop between two looks at the store's growth (a mask).
pub(super) const GROWTH_MASK: u32 = (1 << 8) - 1;

/// Growth of the store (terms plus segment elements) that makes a run loop read the
/// memory budget before [`CHECK_MASK`] steps: about 4 to 40 MB.
pub(super) const GROWTH_BETWEEN_CHECKS: usize = 1 << 20;

/// New terms in the store between two checks at the start of a reduction, however few
/// reductions that was: a question about a 64 × 64 board builds thousands of boards of a
/// kilobyte each, and 4,096 such questions went gigabytes past the budget.
pub(super) const TERMS_BETWEEN_CHECKS: usize = 1 << 16;

static BUDGET: AtomicU64 = AtomicU64::new(0);
static PROGRESS: AtomicBool = AtomicBool::new(false);

thread_local! {
    /// When the current reduction started, and when the progress line was last drawn.
    static STARTED: Cell<Option<Instant>> = const { Cell::new(None) };
    static SHOWN: Cell<Option<Instant>> = const { Cell::new(None) };
}

/// Set the memory budget, in bytes of resident memory (0: the default).
pub fn set_memory_budget(bytes: u64) {
    BUDGET.store(bytes, Ordering::Relaxed);
}

/// The memory budget in bytes: [`set_memory_budget`], else `GAMELANG_MAX_MEMORY`, else half
/// of the machine's memory (4 GiB when that is unknown).
pub fn memory_budget() -> u64 {
    match BUDGET.load(Ordering::Relaxed) {
        0 => *DEFAULT.get_or_init(default_budget),
        b => b,
    }
}

static DEFAULT: OnceLock<u64> = OnceLock::new();

fn default_budget() -> u64 {
    if let Some(b) = std::env::var("GAMELANG_MAX_MEMORY")
        .ok()
        .and_then(|s| parse_size(&s))
    {
        return b;
    }
    physical_memory().map_or(4 << 30, |m| m / 2)
}

/// `500M`, `4G`, `64K` or a number of bytes.
pub fn parse_size(text: &str) -> Option<u64> {
    let t = text.trim();
    let (num, unit) = match t.char_indices().find(|(_, c)| c.is_ascii_alphabetic()) {
        Some((i, _)) => (&t[..i], t[i..].to_ascii_uppercase()),
        None => (t, String::new()),
    };
    let n: u64 = num.trim().parse().ok()?;
    let shift = match unit.trim_end_matches("IB").trim_end_matches('B') {
        "" => 0,
        "K" => 10,
        "M" => 20,
        "G" => 30,
        "T" => 40,
        _ => return None,
    };
    n.checked_mul(1 << shift).filter(|&b| b > 0)
}

/// Total memory of the machine (Linux: `/proc/meminfo`).
fn physical_memory() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    kib_field(&text, "MemTotal:")
}

/// Resident memory of this process in bytes (Linux: `/proc/self/statm`, its second field
/// in pages). Not `/proc/self/status`, whose `VmRSS` says the same: the kernel formats some
/// fifty lines for it, several times the cost.
pub fn resident_memory() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: u64 = text.split_whitespace().nth(1)?.parse().ok()?;
    Some(pages * page_size())
}

/// The size of a memory page in bytes (4 KiB where the system does not say).
fn page_size() -> u64 {
    static SIZE: OnceLock<u64> = OnceLock::new();
    *SIZE.get_or_init(|| {
        // SAFETY: `sysconf` reads a system constant; it has no preconditions.
        let s = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
        u64::try_from(s).ok().filter(|&s| s > 0).unwrap_or(4096)
    })
}

fn kib_field(text: &str, key: &str) -> Option<u64> {
    let line = text.lines().find(|l| l.starts_with(key))?;
    let kib: u64 = line[key.len()..].split_whitespace().next()?.parse().ok()?;
    Some(kib * 1024)
}

/// How long a reduction runs before the progress line appears: 2 s, or
/// `GAMELANG_PROGRESS_AFTER` (seconds).
fn progress_after() -> Duration {
    static AFTER: OnceLock<Duration> = OnceLock::new();
    *AFTER.get_or_init(|| {
        std::env::var("GAMELANG_PROGRESS_AFTER")
            .ok()
            .and_then(|s| s.trim().parse::<f64>().ok())
            .and_then(|s| Duration::try_from_secs_f64(s).ok())
            .unwrap_or(Duration::from_secs(2))
    })
}

/// Turn the progress line on or off (for the whole process).
pub fn set_progress(on: bool) {
    PROGRESS.store(on, Ordering::Relaxed);
}

/// `1.2 GB`.
pub fn show_bytes(b: u64) -> String {
    let mb = b as f64 / (1u64 << 20) as f64;
    if mb >= 1024.0 {
        format!("{:.1} GB", mb / 1024.0)
    } else {
        format!("{mb:.0} MB")
    }
}

impl Engine {
    /// A reduction starts. The clock is read at the first check, not here: a solver or an
    /// explorer reduces millions of small terms, and reading the clock for each was 1.5% of
    /// exploring Pig (the first check comes a few milliseconds in, which the progress line
    /// does not count).
    pub(super) fn watch_begin(&mut self) {
        STARTED.with(|s| s.set(None));
        SHOWN.with(|s| s.set(None));
    }

    /// A reduction ended: erase the progress line if one was drawn.
    pub(super) fn watch_end(&mut self) {
        if SHOWN.with(|s| s.take()).is_some() {
            let mut err = std::io::stderr().lock();
            let _ = write!(err, "\r\x1b[K");
            let _ = err.flush();
        }
    }

    /// A reduction of `term` (`NONE`: not built) begins: every [`QUESTIONS_MASK`] + 1 of
    /// them, the memory budget (reading the resident memory costs a few microseconds,
    /// under a nanosecond a question).
    #[inline]
    pub(super) fn watch_questions(&mut self, term: TermId) -> Result<(), RuntimeError> {
        self.questions = self.questions.wrapping_add(1);
        if self.questions & QUESTIONS_MASK != 0 && self.store.len() < self.check_at_terms {
            return Ok(());
        }
        self.check_at_terms = self.store.len() + TERMS_BETWEEN_CHECKS;
        self.watch(&Task::Return(term))
    }

    /// One more step counted outside a run loop's own count (by the direct evaluator, or
    /// by the machine applying an equation for it): the run loop's periodic checks, on
    /// the engine's count. A run loop counts its steps in a local and starts from zero
    /// each time it is entered, and the direct evaluator enters it nested, often for a
    /// few steps; `len(I X) = 1 + len(X)` over an `assoc` list of 200,000 elements went
    /// from direct evaluation to `complete` and back at each level, reached no check and
    /// stopped at 4.6 GB whatever the memory budget. `term` names the term being
    /// rewritten, for the error (`NONE`: not at hand).
    #[inline(always)]
    pub(super) fn tick(
        &mut self,
        term: impl FnOnce(&mut Engine) -> TermId,
    ) -> Result<(), RuntimeError> {
        self.ticks = self.ticks.wrapping_add(1);
        // One test a step, as in the machine's run loop: the other periods are multiples.
        if self.ticks & GROWTH_MASK == 0 {
            return self.tick_checks(term);
        }
        Ok(())
    }

    #[cold]
    #[inline(never)]
    fn tick_checks(
        &mut self,
        term: impl FnOnce(&mut Engine) -> TermId,
    ) -> Result<(), RuntimeError> {
        // As rarely as the machine's run loop: the memory budget reads the process's
        // resident memory from the kernel, which every 4,096 steps was 10% of binary-add's
        // time (system time, 2,205 reads of `/proc/self/status`).
        let due = self.ticks & CHECK_MASK == 0;
        let size =
            self.store.len() + self.store.segment_elements() + self.store.spilled_arguments();
        let grown = size > self.check_at_size;
        let interrupted = self.ticks & 0xFFF == 0 && self.interrupt.load(Ordering::Relaxed);
        if !(due || grown || interrupted) {
            // (As `watch_growth`: after a collection, due at the same growth from here.)
            self.check_at_size = self.check_at_size.min(size + GROWTH_BETWEEN_CHECKS);
            return Ok(());
        }
        let t = term(self);
        if interrupted {
            return Err(RuntimeError::Interrupted { term: t });
        }
        if due {
            self.watch(&Task::Return(t))
        } else {
            self.watch_growth(&Task::Return(t))
        }
    }

    /// Every [`GROWTH_MASK`] + 1 steps of a run loop: has the store grown by
    /// [`GROWTH_BETWEEN_CHECKS`] terms, segment elements and long argument lists' ids since
    /// the budget was last read so? Then read it now, not only after [`CHECK_MASK`] + 1 steps: a step that copies a
    /// long list (`len(I L) = 1 + len(L)` over an `assoc` list of 200,000 elements) builds
    /// hundreds of kilobytes, and 2^18 of them went 10 times past a 2 GB budget.
    #[inline]
    pub(super) fn watch_growth(&mut self, task: &Task) -> Result<(), RuntimeError> {
        let size =
            self.store.len() + self.store.segment_elements() + self.store.spilled_arguments();
        if size <= self.check_at_size {
            // (After a collection the store may be smaller than when it was read: the
            // next reading is due at the same growth from here.)
            self.check_at_size = self.check_at_size.min(size + GROWTH_BETWEEN_CHECKS);
            return Ok(());
        }
        self.check_at_size = size + GROWTH_BETWEEN_CHECKS;
        self.watch(task)
    }

    /// Every [`CHECK_MASK`] + 1 steps: the memory budget, and the progress line.
    #[cold]
    pub(super) fn watch(&mut self, task: &Task) -> Result<(), RuntimeError> {
        self.memory_checks += 1;
        let used = resident_memory().unwrap_or(0);
        let limit = memory_budget();
        if used > limit {
            let term = match *task {
                Task::Eval(t) | Task::Return(t) => t,
                Task::Build { node, env, .. } => self.instantiate(node, env),
            };
            return Err(RuntimeError::MemoryLimit { limit, used, term });
        }
        if !PROGRESS.load(Ordering::Relaxed) {
            return Ok(());
        }
        let now = Instant::now();
        let started = STARTED.with(|s| {
            let t = s.get().unwrap_or(now);
            s.set(Some(t));
            t
        });
        let elapsed = now - started;
        let due = match SHOWN.with(|s| s.get()) {
            None => elapsed >= progress_after(),
            Some(last) => now - last >= Duration::from_secs(1),
        };
        if due {
            SHOWN.with(|s| s.set(Some(now)));
            let mut err = std::io::stderr().lock();
            let _ = write!(
                err,
                "\r\x1b[Kreducing for {} s: {} rewrites, {} memo entries, {} of {} memory (Ctrl-C stops it)",
                elapsed.as_secs(),
                self.steps,
                self.memo_total,
                show_bytes(used),
                show_bytes(limit)
            );
            let _ = err.flush();
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::{kib_field, parse_size, resident_memory};

    #[test]
    #[cfg(target_os = "linux")]
    fn resident_memory_is_what_the_status_file_says() {
        // A megabyte block touched, so that the process's resident memory is well above
        // the reading's granularity; `VmRSS` read independently, before and after.
        let block = vec![1u8; 1 << 20];
        let status = || {
            let text = std::fs::read_to_string("/proc/self/status").unwrap();
            kib_field(&text, "VmRSS:").unwrap()
        };
        let before = status();
        let got = resident_memory().expect("the resident memory");
        let after = status();
        let (lo, hi) = (before.min(after), before.max(after));
        // Other test threads may allocate meanwhile: a little slack either way.
        assert!(
            got + (4 << 20) >= lo && got <= hi + (4 << 20),
            "statm {got} against status {before}..{after}"
        );
        assert!(got >= 1 << 20, "{got}");
        assert_eq!(block.iter().map(|&b| b as usize).sum::<usize>(), 1 << 20);
    }

    #[test]
    fn sizes() {
        assert_eq!(parse_size("500M"), Some(500 << 20));
        assert_eq!(parse_size("4G"), Some(4 << 30));
        assert_eq!(parse_size("2GiB"), Some(2 << 30));
        assert_eq!(parse_size("1000"), Some(1000));
        assert_eq!(parse_size("lots"), None);
        assert_eq!(parse_size("0"), None);
    }
}
