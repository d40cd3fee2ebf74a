//! Memory that a term count does not see, collected during a reduction. Its own test
//! binary, with one test: the peak memory of the child processes this process has waited
//! for is then the child's own (`getrusage(RUSAGE_CHILDREN)`), and no clock is read.

use std::process::Command;

mod support;

/// A string appended to at every step of a long reduction: each step's string is garbage
/// at the next. Collections during a reduction now count the bytes of the strings made
/// (`TermStore::spilled_arguments`), so 20,000 appends of six characters peak near 250 MB
/// (they reached 1.5 GB, the string lengths summing to 1.2 GB; 40,000 reached 6 GB), and
/// the memory budget sees them too. The length is checked.
#[test]
fn a_string_built_by_appending_is_collected_as_it_grows() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("strcat.maude");
    std::fs::write(
        &file,
        "fmod STRCAT is\n  protecting STRING .\n  protecting INT .\n  \
         op text : Nat String -> String .\n  var S : String .\n  var N : Nat .\n  \
         eq text(0, S) = S .\n  eq text(s N, S) = text(N, S + \"abcde \") .\nendfm\n\
         reduce length(text(20000, \"\")) .\n",
    )
    .unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_gamelang"))
        .args(["reduce", file.to_str().unwrap(), "--quiet"])
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(
        out.contains(&format!("result NzNat: {}", 20_000 * 6)),
        "{out}"
    );
    let peak_mib = support::peak_child_mib();
    assert!(peak_mib < 700, "peak {peak_mib} MiB");
}
