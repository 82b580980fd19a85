# The two trainings' metrics.jsonl compared record by record, leaving out what is not training's
# result: wall times, speeds, the processor line and the process's resident memory.
import json
import sys


def load(path):
    rows = []
    for line in open(path):
        record = json.loads(line)
        for key in list(record):
            if key in ("time", "processor", "rss_mib") or "second" in key or "per_s" in key:
                record.pop(key)
        rows.append(record)
    return rows


before, after = load(sys.argv[1]), load(sys.argv[2])
print("records", len(before), len(after), "identical:", before == after)
