"""The tables of scripts/peers/bench-marian.sh: `bench_marian.py table RECORD_DIR`.

Reads RECORD_DIR/raw/*.json, one per measurement, named
    translate-SYSTEM-DECODING-PRECISION-TxD[-ISA].rROUND.json
        (SYSTEM nmt, transformers, ctranslate2; T translators of D threads each; ISA the one
        CTranslate2 was forced to, absent where it chose its own)
    train-SYSTEM-PRECISION.rROUND.json                   (SYSTEM nmt, seq2seqtrainer, loop)
(a measurement that failed holds {"error": ...}; records before thread layouts have no -TxD, which
reads as 1 translator of all the threads), and the hypotheses beside the translation ones
(translate-SYSTEM-DECODING-PRECISION.hyp.txt). Keeps the best round and layout of each setting and
writes RECORD_DIR/results.csv (one row per system and setting) and RECORD_DIR/results.md (the
tables, with the ratios nmt / transformers and nmt / CTranslate2).
"""

import csv
import glob
import json
import os
import re

NAME = re.compile(r"(translate|train)-(.+?)(?:-(\d+)x(\d+)(?:-([a-z0-9_]+))?)?\.r(\d+)\.json$")
SYSTEMS = {"nmt": "nmt", "transformers": "transformers", "ctranslate2": "CTranslate2",
           "seq2seqtrainer": "transformers Seq2SeqTrainer", "loop": "transformers plain loop"}
DECODINGS = {
    "greedy": "greedy",
    "beam4-best": "beam 4, transformers' stopping rule",
    "beam4-first": "beam 4, CTranslate2's stopping rule",
}
PRECISIONS = ("fp32", "bf16", "int8")


def read_measurements(record):
    """{(task, setting): [result, ...]} over the rounds and layouts; setting is
    SYSTEM-DECODING-PRECISION for a translation, SYSTEM-PRECISION for training. Each result gets
    its round and, where the name gives one, its layout ("2×1")."""
    measurements = {}
    for path in sorted(glob.glob(os.path.join(record, "raw", "*.json"))):
        match = NAME.search(os.path.basename(path))
        if not match:
            continue
        with open(path, encoding="utf-8") as file:
            result = json.load(file)
        result["round"] = int(match.group(6))
        if match.group(3):
            result["layout"] = f"{match.group(3)}×{match.group(4)}"
        if match.group(5):
            result["layout"] += f", {match.group(5).upper()}"
        measurements.setdefault((match.group(1), match.group(2)), []).append(result)
    return measurements


def best(results, key):
    """The round (and layout) with the highest `key`, or the first error when none succeeded."""
    good = [r for r in results if key in r]
    return max(good, key=lambda r: r[key]) if good else results[0]


def agreement(record, setting, decoding):
    """Share of sentences whose translation equals the fp32 reference of the same decoding:
    transformers' for greedy and beam4-best, CTranslate2's for beam4-first (transformers does not
    stop that way); None when either file is missing."""
    reference = {"greedy": "transformers-greedy-fp32", "beam4-best": "transformers-beam4-best-fp32",
                 "beam4-first": "ctranslate2-beam4-first-fp32"}[decoding]
    paths = [os.path.join(record, "raw", f"translate-{name}.hyp.txt")
             for name in (setting, reference)]
    if not all(os.path.exists(path) for path in paths):
        return None
    with open(paths[0], encoding="utf-8") as a, open(paths[1], encoding="utf-8") as b:
        pairs = list(zip(a.read().splitlines(), b.read().splitlines()))
    return sum(x == y for x, y in pairs) / len(pairs) if pairs else None


def mean_output_tokens(result):
    """Output tokens per sentence; nmt bench translate gives only their rate."""
    if "mean_output_tokens" in result:
        return result["mean_output_tokens"]
    if "output_tokens_per_s" in result:
        return result["output_tokens_per_s"] * result["seconds"] / result["sentences"]
    return None


def translation_rows(record, measurements):
    rows = []
    for decoding in DECODINGS:
        for precision in PRECISIONS:
            for system in ("nmt", "transformers", "ctranslate2"):
                setting = f"{system}-{decoding}-{precision}"
                results = measurements.get(("translate", setting))
                if not results:
                    continue
                top = best(results, "sentences_per_s")
                rows.append({
                    "task": "translate", "decoding": decoding, "precision": precision,
                    "system": system, "rounds": len(results),
                    "sentences_per_s": top.get("sentences_per_s"),
                    "target_tokens_per_s": top.get("output_tokens_per_s"),
                    "layout": top.get("layout", ""),
                    "all_rounds_sentences_per_s": " ".join(
                        f"{r['sentences_per_s']:.2f}" + (f" ({r['layout']})" if "layout" in r else "")
                        for r in results if "sentences_per_s" in r),
                    "mean_output_tokens": mean_output_tokens(top),
                    "capped_outputs": top.get("capped_outputs"),
                    "same_as_fp32_reference": agreement(record, setting, decoding),
                    "peak_rss_mib": top.get("peak_rss_mib"),
                    "engine": top.get("engine", SYSTEMS[system]),
                    "error": top.get("error", ""),
                })
    return rows


def training_rows(measurements):
    rows = []
    for precision in ("fp32", "bf16"):
        for system in ("nmt", "seq2seqtrainer", "loop"):
            results = measurements.get(("train", f"{system}-{precision}"))
            if not results:
                continue
            top = best(results, "tgt_tokens_per_s")
            rows.append({
                "task": "train", "decoding": "", "precision": precision, "system": system,
                "rounds": len(results),
                "target_tokens_per_s": top.get("tgt_tokens_per_s"),
                "all_rounds_target_tokens_per_s": " ".join(
                    f"{r['tgt_tokens_per_s']:.1f}" for r in results if "tgt_tokens_per_s" in r),
                "target_tokens_per_step": top.get("tgt_tokens_per_step"),
                "ms_per_step": top.get("ms_per_step"),
                "peak_rss_mib": top.get("peak_rss_mib"),
                "engine": top.get("engine", SYSTEMS[system]),
                "error": top.get("error", ""),
            })
    return rows


def figure(value, digits=1):
    return "–" if value is None else f"{value:,.{digits}f}"


def ratio(numerator, denominator):
    if numerator is None or denominator is None:
        return "–"
    return f"{numerator / denominator:.2f}×"


def cell(row, key):
    """A system's figure and its thread layout, or why there is none."""
    if row is None:
        return "–"
    if row["error"]:
        return "not supported" if "support" in row["error"] else "failed"
    return figure(row[key]) + (f" ({row['layout']})" if row.get("layout") else "")


def translation_table(rows, key, unit):
    """Markdown lines: one row per decoding and precision, the systems side by side."""
    lines = [f"| decoding | precision | nmt {unit} | transformers {unit} | CTranslate2 {unit} "
             "| nmt / transformers | nmt / CTranslate2 |",
             "| --- | --- | ---: | ---: | ---: | ---: | ---: |"]
    for decoding, label in DECODINGS.items():
        for precision in PRECISIONS:
            found = {r["system"]: r for r in rows
                     if r["decoding"] == decoding and r["precision"] == precision}
            if not found:
                continue
            values = {system: found.get(system, {}).get(key) for system in SYSTEMS}
            cells = [cell(found.get(s), key) for s in ("nmt", "transformers", "ctranslate2")]
            lines.append(f"| {label} | {precision} | {' | '.join(cells)} "
                         f"| {ratio(values['nmt'], values['transformers'])} "
                         f"| {ratio(values['nmt'], values['ctranslate2'])} |")
    return lines


def lengths_table(rows):
    lines = ["| system | decoding | precision | mean output tokens | outputs at the cap "
             "| same text as the fp32 reference | peak RSS (MiB) |",
             "| --- | --- | --- | ---: | ---: | ---: | ---: |"]
    for row in rows:
        if row["error"]:
            lines.append(f"| {SYSTEMS[row['system']]} | {row['decoding']} | {row['precision']} "
                         f"| failed: {row['error']} | | | |")
            continue
        same, capped = row["same_as_fp32_reference"], row["capped_outputs"]
        lines.append(
            f"| {SYSTEMS[row['system']]} | {row['decoding']} | {row['precision']} "
            f"| {figure(row['mean_output_tokens'], 2)} | {'–' if capped is None else capped} "
            f"| {'–' if same is None else f'{100 * same:.1f}%'} "
            f"| {figure(row['peak_rss_mib'], 0)} |")
    return lines


def training_table(rows):
    lines = ["| precision | nmt tokens/s | Seq2SeqTrainer tokens/s | plain loop tokens/s "
             "| nmt / Seq2SeqTrainer | nmt / plain loop | target tokens per step (nmt, transformers) |",
             "| --- | ---: | ---: | ---: | ---: | ---: | --- |"]
    for precision in ("fp32", "bf16"):
        found = {r["system"]: r for r in rows if r["precision"] == precision and not r["error"]}
        if not found:
            continue
        value = {s: found.get(s, {}).get("target_tokens_per_s") for s in SYSTEMS}
        per_step = [found.get(s, {}).get("target_tokens_per_step") for s in ("nmt", "loop")]
        lines.append(
            f"| {precision} | {figure(value['nmt'])} | {figure(value['seq2seqtrainer'])} "
            f"| {figure(value['loop'])} | {ratio(value['nmt'], value['seq2seqtrainer'])} "
            f"| {ratio(value['nmt'], value['loop'])} "
            f"| {figure(per_step[0])}, {figure(per_step[1])} |")
    for row in rows:
        if row["error"]:
            lines.append(f"| {row['precision']} | {SYSTEMS[row['system']]} failed: "
                         f"{row['error']} | | | | | |")
    return lines


def write_csv(path, rows):
    fields = []
    for row in rows:
        fields += [key for key in row if key not in fields]
    with open(path, "w", encoding="utf-8", newline="") as file:
        writer = csv.DictWriter(file, fieldnames=fields)
        writer.writeheader()
        writer.writerows(rows)


def write_tables(record):
    measurements = read_measurements(record)
    translations, trainings = translation_rows(record, measurements), training_rows(measurements)
    write_csv(os.path.join(record, "results.csv"), translations + trainings)
    with open(os.path.join(record, "settings.md"), encoding="utf-8") as file:
        settings = file.read().strip()
    lines = [f"# nmt, transformers and CTranslate2 on a random Marian model ({record.rstrip('/')})",
             "", settings, ""]
    if translations:
        lines += ["## Translation: sentences/s (best round and thread layout)", "",
                  "Beside each figure, the thread layout it came from (translators × threads of "
                  "each; for CTranslate2 the ISA it was forced to, where it was).", "",
                  *translation_table(translations, "sentences_per_s", "sent/s"), "",
                  "## Translation: target tokens/s (best round and layout; tokens without </s>)", "",
                  *translation_table(translations, "target_tokens_per_s", "tokens/s"), "",
                  "## Translation: what each system produced (best round and layout)", "",
                  "The fp32 reference: transformers' translations with the same decoding; "
                  "CTranslate2's for beam 4 with CTranslate2's stopping rule. nmt bench "
                  "translate does not report outputs at the cap.", "",
                  *lengths_table(translations), ""]
    if trainings:
        lines += ["## Fine-tuning: target tokens/s (best round; target pieces and </s>, "
                  "no padding)", "", *training_table(trainings), ""]
    with open(os.path.join(record, "results.md"), "w", encoding="utf-8") as file:
        file.write("\n".join(lines))
    print("\n".join(lines))
