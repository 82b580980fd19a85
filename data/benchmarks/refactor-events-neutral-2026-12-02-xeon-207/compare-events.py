import json, re, sys, os
B, A = sys.argv[1], sys.argv[2]
TIMEY = ("time", "processor")
def load(path):
    rows = []
    for line in open(path):
        r = json.loads(line)
        for k in list(r):
            if k in TIMEY or "second" in k or "per_s" in k or k == "rss_mib": r.pop(k)
        rows.append(r)
    return rows
def log(path):
    out = []
    for line in open(path):
        line = re.sub(r"^\[\d\d:\d\d:\d\d\] ", "", line)
        line = re.sub(r"\d+ (tgt tok/s|target tokens/s)", "N \\1", line)
        line = re.sub(r"ETA \S+", "ETA", line)
        line = re.sub(r"\d+:\d\d(:\d\d)?", "T", line)
        line = re.sub(r"\d+(\.\d+)? ?s\)", "Ts)", line)
        line = re.sub(r"in \d+(\.\d+)?\s*s", "in Ts", line)
        line = re.sub(r"(before|after)", "X", line)
        out.append(line)
    return out
ok = True
for name in sorted(os.listdir(B)):
    if not os.path.isdir(os.path.join(B, name)): continue
    m = lambda d: load(os.path.join(d, name, "metrics.jsonl"))
    same_m = m(B) == m(A)
    same_f = open(os.path.join(B, name + ".files")).read() == open(os.path.join(A, name + ".files")).read()
    same_l = log(os.path.join(B, name + ".log")) == log(os.path.join(A, name + ".log"))
    print(f"{name}: metrics identical {same_m}, files identical {same_f}, log identical {same_l}")
    if name == "timed": continue
    ok &= same_m and same_f and same_l
    if not same_l:
        for x, y in zip(log(os.path.join(B, name + ".log")), log(os.path.join(A, name + ".log"))):
            if x != y: print("  log differs:\n  ", x, "  ", y); break
    if not same_m:
        for x, y in zip(m(B), m(A)):
            if x != y: print("  metrics differ:", x, y); break
print("ALL IDENTICAL" if ok else "DIFFERENCES")
