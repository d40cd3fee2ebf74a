#!/usr/bin/env bash
# Runs Maude-style functional modules with Maude 3 and with gamelang and compares their
# normal forms (the spacing after commas left out), then their sorts: a program whose
# normal forms agree but not its results' sorts is listed as such. Not a test: Maude need
# not be installed (`apt-get install maude`).
#
#   bench/maude-compat/run.sh                      every program
#   bench/maude-compat/run.sh progs/07-*.maude     some
#
# progs/NN-*.maude are programs in the style of Maude's manual and textbooks (NNb/c/d:
# variants working around a difference), progs/x*-*.maude one difference each; the
# differences are listed in docs/language.md (Maude compatibility). Raw outputs go to a
# temporary directory, printed at the end.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
GL="${GAMELANG:-$root/target/release/gamelang}"
command -v maude >/dev/null || { echo "maude is not installed" >&2; exit 2; }
[ -x "$GL" ] || { echo "no $GL: cargo build --release first" >&2; exit 2; }
out="$(mktemp -d)"
files=("$@")
if [ ${#files[@]} -eq 0 ]; then files=("$here"/progs/*.maude); fi
# Each result (possibly wrapped over several lines) on one line.
extract() {
  awk '
    /^result / {if (r!="") print r; r=$0; inres=1; next}
    inres && (/^rewrites:/ || /^$/ || /^=+$/ || /^reduce/ || /^Bye/ || /^Warning/ || /^Advisory/) {print r; r=""; inres=0; next}
    inres {sub(/^ +/," "); r=r $0; next}
    END {if (r!="") print r}' "$1" | sed -E "s/  +/ /g; s/, /,/g"
}
same=0; differ=0; sorts=0
for f in "${files[@]}"; do
  b=$(basename "$f" .maude)
  { cat "$f"; echo; echo q; } > "$out/$b-m.maude"
  # Maude in a pseudo-terminal 3000 columns wide, so that it does not wrap long results.
  script -qc "stty cols 3000; bash -c 'ulimit -s unlimited; timeout 60 maude -no-banner -batch $out/$b-m.maude'" /dev/null < /dev/null \
    | sed -e 's/\x1b\[[0-9;]*m//g' | tr -d '\r' > "$out/$b.maude.out" 2>&1
  timeout 60 "$GL" reduce "$f" > "$out/$b.gl.out" 2> "$out/$b.gl.err"; echo "exit $?" >> "$out/$b.gl.err"
  extract "$out/$b.maude.out" | sed -E 's/^result [^:]+: //' > "$out/$b.maude.nf"
  extract "$out/$b.gl.out" | sed -E 's/^result [^:]+: //' > "$out/$b.gl.nf"
  extract "$out/$b.maude.out" | sed -E 's/^result ([^:]+): .*/\1/' > "$out/$b.maude.sorts"
  extract "$out/$b.gl.out" | sed -E 's/^result ([^:]+): .*/\1/' > "$out/$b.gl.sorts"
  if diff -q "$out/$b.maude.nf" "$out/$b.gl.nf" >/dev/null; then
    same=$((same + 1)); echo "same   $b ($(wc -l < "$out/$b.maude.nf") results)"
    if ! diff -q "$out/$b.maude.sorts" "$out/$b.gl.sorts" >/dev/null; then
      sorts=$((sorts + 1)); echo "  but the sorts differ:"
      diff "$out/$b.maude.sorts" "$out/$b.gl.sorts" | head -4 | sed 's/^/    /'
    fi
  else
    differ=$((differ + 1)); echo "DIFFER $b: gamelang $(tail -1 "$out/$b.gl.err")"
    diff "$out/$b.maude.nf" "$out/$b.gl.nf" | head -6 | sed 's/^/    /'
    grep -m1 '^error' "$out/$b.gl.err" | sed 's/^/    /'
  fi
done
echo "$same the same ($sorts of them with other sorts), $differ different; outputs in $out"
