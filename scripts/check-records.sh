#!/usr/bin/env bash
# Every measured figure quoted in a table of README.md or docs/**/*.md names its record, a path
# under data/benchmarks/ that exists, and is found in that record's files. CI runs it (ctest:
# docs_records; tests/scripts/check_records_test.sh plants wrong figures). Exit status 0 when every
# figure is found, 1 otherwise (each offending figure is printed as FILE:LINE: FIGURE ...).
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
#   - Each figure of the row must be found in those records: some number in one of their files
#     (recursively; files over 20 MB are not read) equals it at the figure's precision (1,718.62
#     quoted as 1,718.6), also after a change of scale by 1000 or 1024 once or twice (171544 kB
#     quoted as 168 MiB, 51843.9 GFLOP/s as 51.8 TFLOP/s) or, for a percentage, times 100 (0.3095
#     as 31%). A ratio (×) or a percentage may instead be what two other numbers of the same row
#     give, a / b or |a - b| / b, within the rounding of all three (4,638.4 vs 3,979.0: 1.17×).
#     A bare number already quoted with its unit in the row counts once.
# Prose outside tables is not checked: a figure in a sentence cites its record in the same
# paragraph by convention (docs/development.md).
set -euo pipefail
cd "$(dirname "$0")/.."
exec python3 scripts/check-docs.py records
