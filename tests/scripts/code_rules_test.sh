#!/usr/bin/env bash
# scripts/check-code-rules.py: the sources keep to both rules, and on a copy a function planted
# 81 lines long (a constructor whose initialisers hold braces, so that its body is found behind
# them), a thread count set outside src/device.cpp and one set inside it are told apart; an
# 80-line function and a comment naming set_num_threads pass.
set -euo pipefail
source_dir=$(cd "$(dirname "$0")/../.." && pwd)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
fail() { echo "code_rules_test: $*" >&2; exit 1; }
check() { python3 "$source_dir/scripts/check-code-rules.py" "$@"; }

check "$source_dir" || fail "the sources as they are break a rule"

copy=$scratch/repo
mkdir -p "$copy"
cp -r "$source_dir/include" "$source_dir/src" "$copy/"
# body LINES: a function body of LINES lines from its opening brace to its closing one.
body() {
  echo '  int total = 0;'
  for _ in $(seq $(($1 - 3))); do echo '  total += 1;  // "}" in a comment, "{" in a string:'; done
  echo '}'
}
{
  echo 'namespace planted {'
  echo 'Planted::Planted(int value) : value_{value}, name_("{") {'
  body 81
  echo 'int fits() {'
  body 80
  echo '// at::set_num_threads(2) in a comment is no call'
  echo 'void threads() { at::set_num_threads(2); }'
  echo '}  // namespace planted'
} > "$copy/src/text/planted.cpp"
echo 'void more() { omp_set_num_threads(1); }' >> "$copy/src/device.cpp"
status=0
check "$copy" 2> "$scratch/found.txt" || status=$?
[[ $status -eq 1 ]] || fail "planted breaks: exit $status, expected 1"
cat > "$scratch/expected.txt" <<'LINES'
src/text/planted.cpp:2: Planted::Planted(...) is 81 lines (at most 80)
src/text/planted.cpp:164: sets a thread count; only src/device.cpp does (set_threads, ThreadCountScope)
LINES
diff "$scratch/expected.txt" "$scratch/found.txt" || fail "planted breaks: other lines than expected"
echo "code_rules_test: passed"
