#!/usr/bin/env bash
# Every measured figure quoted in a table of README.md or docs/**/*.md names its record: a path
# under data/benchmarks/ that exists. CI runs it (ctest: docs_records). Exit status 0 when every
# such row names an existing record, 1 otherwise (each offending row is printed as FILE:LINE).
#
#   scripts/check-records.sh
#
# The rule, exactly:
#   - A table is a block of lines starting with "|" outside code blocks whose second line is the
#     delimiter row (| --- | ---: |). Its first line is the header, the lines after the delimiter
#     its rows. Its caption is the paragraph directly above it (the non-blank lines up to the
#     previous blank line or heading, with at most one blank line between it and the table).
#   - In a row, `code spans` and link targets (the "(...)" of [text](...)) are ignored. A cell
#     holds a figure when it contains
#       (a) a number followed by a unit, with or without a space: %, ms, s, min, h, KiB, MiB, GiB,
#           TiB, kB, MB, GB, TB, GFLOP/s, TFLOP/s, tokens/s, sentences/s, sent/s, tok/s, req/s,
#           requests/s; or a number followed directly by × or x (9.84×, 23.5x); or
#       (b) any number, when the header of its column names a measure: BLEU, chrF, loss,
#           perplexity, ppl, MFU, RSS, efficiency, latency, throughput, speed, "/s", ×, "vs",
#           ratio, or one of the units ms, min, MiB, GiB, MB, GB, %.
#     A number is a run of digits (with thousands commas and decimals) not preceded by a letter,
#     digit, "_" or "." (so fp32, bf16 and H100 are not numbers).
#   - A row holding a figure must contain a path data/benchmarks/<name>[/...] itself, or its
#     table's caption must; every such path, in the row and in the caption, must exist in the
#     repository (file or directory).
# Prose outside tables is not checked: a figure in a sentence cites its record in the same
# paragraph by convention (docs/development.md).
set -euo pipefail
cd "$(dirname "$0")/.."
exec python3 scripts/check-docs.py records
