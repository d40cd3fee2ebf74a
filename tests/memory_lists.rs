//! Long `assoc` lists that die while a reduction goes on are freed during it. Its own test
//! binary, with one test: the peak memory of the child processes this process has waited
//! for is then the child's own (`getrusage(RUSAGE_CHILDREN)`), and no clock is read.

use std::process::Command;

mod support;

/// A list built by prepending under a recursion that rewrites on the way down and builds
/// on the way back up (`mk(N) = e(N) mk(N - 1)`): each level is a new copy of the list
/// below it, which is then garbage, n²/2 ids for n elements. 12,800 elements peaked at
/// 333 MiB: no collection ran while the lists were built (the check between rewrites is
/// met only on the way down), and a collection did not release a dead list's block until
/// its slot was reused. Both are fixed (`Engine::d_collect_built`: about 200 MiB with it
/// alone; `TermStore::heavy`): 92 MiB in a release build, 124 MiB in a debug one (whose
/// stack frames are larger: the recursion is 12,800 calls deep). The list printed is
/// checked element by element.
#[test]
fn a_long_list_built_on_the_way_back_up_is_collected_as_it_grows() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("prepend.maude");
    std::fs::write(
        &file,
        "fmod PREPEND is\n  protecting INT .\n  sorts Elt List .\n  subsort Elt < List .\n  \
         op nil : -> List [ctor] .\n  op e : Int -> Elt [ctor] .\n  \
         op __ : List List -> List [ctor assoc id: nil] .\n  op mk : Int -> List .\n  \
         var N : Int .\n  eq mk(0) = nil .\n  eq mk(N) = e(N) mk(N - 1) [owise] .\nendfm\n",
    )
    .unwrap();
    let n = 12_800;
    let o = Command::new(env!("CARGO_BIN_EXE_gamelang"))
        .args([
            "reduce",
            file.to_str().unwrap(),
            &format!("mk({n})"),
            "--quiet",
        ])
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let want: Vec<String> = (1..=n).rev().map(|i| format!("e({i})")).collect();
    assert_eq!(
        out.trim(),
        format!("result List: {}", want.join(" ")),
        "the list mk({n})"
    );
    let peak_mib = support::peak_child_mib();
    assert!(peak_mib < 150, "peak {peak_mib} MiB");
}
