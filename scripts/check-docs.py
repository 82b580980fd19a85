#!/usr/bin/env python3
"""Checks of the documentation: README.md and every docs/**/*.md (ctest runs all three).

    scripts/check-docs.py links            every relative link resolves
    scripts/check-docs.py commands NMT     every quoted `nmt ...` command line parses
    scripts/check-docs.py records          every measured figure in a table names its record
                                           (scripts/check-records.sh runs this one)

links: every relative link, image and reference definition outside code (`[text](path#anchor)`)
must name a file or directory of the repository (tracked, or new and not ignored by git), inside
it, and, where it gives an anchor into a Markdown file, a heading of that file (GitHub's slugs:
lower case, punctuation dropped, spaces as hyphens, -1, -2... for repeats) or an
<a id="..."> / <a name="..."> of it. An anchor alone (#section) points into the same file.
Links with a scheme (https:, mailto:) are not checked.

commands: every command line that starts with the word `nmt` (or a path ending in /nmt) in a code
block (fenced, except json/yaml/python blocks, or indented; `$ ` prompts and `\\` continuations
allowed; after `timeout N`, `torchrun ...`, `VAR=value` and the like), and every inline code span
that starts with `nmt `, is run as NMT_PARSE_ONLY=1 NMT ARGS in an empty directory: nmt parses it
with every check CLI11 makes (flags, values, choices, required options, subcommands; files need not
exist) and runs nothing (src/cli/app.h). Before that, the line is read as a synopsis: a shell pipe,
`;`, `&&` or a redirection ends the command; `[` and `]` around optional parts are dropped; `...`
is dropped; in inline spans `a|b` (or `a\\|b` in a table) keeps its first choice; an upper-case
placeholder (RUN, N, FILE) or a shell variable ($X) becomes `1`, which every kind of value accepts.
A code block's line is a whole command and must parse as it is. An inline span may be a fragment
(`nmt eval --notebook-form`, `nmt bench train --nproc N`): an option or argument nmt says is
required is added with the value `1` until it parses, so its flags and values are still checked;
a span of command names alone (`nmt serve`, `nmt bench train`) must name nmt's (sub)commands,
and `nmt ...` alone names the program. `--help` and `--version` are answered before anything else
is checked, so a line holding one is checked without it, as a fragment.

records: the rule is written out in scripts/check-records.sh.
"""
import concurrent.futures
import os
import re
import shlex
import subprocess
import sys
import tempfile

ROOT = os.path.realpath(os.path.join(os.path.dirname(__file__), ".."))


def markdown_files():
    files = [os.path.join(ROOT, "README.md")]
    for directory, _, names in os.walk(os.path.join(ROOT, "docs")):
        files += [os.path.join(directory, name) for name in names if name.endswith(".md")]
    return sorted(f for f in files if os.path.exists(f))


def relative(path):
    return os.path.relpath(path, ROOT)


# ---------------------------------------------------------------------------------------------
# Reading Markdown: which lines are prose, code or table, as a forge renders them.

FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})\s*([\w+-]*)")
LIST_ITEM = re.compile(r"^( *)([-*+]|\d+[.)])( +)\S")


class Line:
    def __init__(self, number, text, kind, language=""):
        self.number = number  # 1-based
        self.text = text
        self.kind = kind  # "prose", "code" or "fence" (a fence line itself)
        self.language = language  # of a fenced code block


def classify(text):
    """The lines of a Markdown text, each marked as prose, code (fenced or indented) or fence."""
    lines = []
    fence = None  # the opening fence's characters while inside a fenced block
    language = ""
    list_content = None  # column where the current list item's text starts
    previous_blank = True
    previous_code = False
    for number, raw in enumerate(text.split("\n"), 1):
        if fence is not None:
            if raw.strip().startswith(fence) and raw.strip().strip(fence[0]) == "":
                fence = None
                lines.append(Line(number, raw, "fence"))
            else:
                lines.append(Line(number, raw, "code", language))
            continue
        match = FENCE.match(raw)
        if match:
            fence, language = match.group(1), match.group(2).lower()
            lines.append(Line(number, raw, "fence"))
            previous_blank, previous_code = False, False
            continue
        if raw.strip() == "":
            lines.append(Line(number, raw, "code" if previous_code else "prose"))
            previous_blank = True
            continue
        indent = len(raw) - len(raw.lstrip(" "))
        item = LIST_ITEM.match(raw)
        if list_content is not None and previous_blank and indent < list_content and not item:
            list_content = None
        base = list_content or 0
        if (previous_blank or previous_code) and indent >= base + 4 and not item:
            lines.append(Line(number, raw, "code"))
            previous_blank, previous_code = False, True
            continue
        if item:
            list_content = len(item.group(1)) + len(item.group(2)) + len(item.group(3))
        lines.append(Line(number, raw, "prose"))
        previous_blank, previous_code = False, False
    # Blank lines that trail a code block belong to the prose after it.
    for index in range(len(lines) - 1, -1, -1):
        if lines[index].kind == "code" and lines[index].text.strip() == "":
            following = lines[index + 1].kind if index + 1 < len(lines) else "prose"
            if following != "code":
                lines[index].kind = "prose"
    return lines


CODE_SPAN = re.compile(r"(`+)(.+?)(?<!`)\1(?!`)")


def code_spans(text):
    """The inline code spans of a prose line, as a forge shows them."""
    spans = []
    for match in CODE_SPAN.finditer(text):
        content = match.group(2)
        if content.startswith(" ") and content.endswith(" ") and content.strip():
            content = content[1:-1]
        spans.append(content)
    return spans


def without_code_spans(text):
    return CODE_SPAN.sub("CODE", text)


# ---------------------------------------------------------------------------------------------
# links

LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]*)>?(?:\s+\"[^\"]*\")?\s*\)")
REFERENCE = re.compile(r"^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(\s|$)")
HEADING = re.compile(r"^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
HTML_ANCHOR = re.compile(r"<a\s+(?:id|name)=\"([^\"]+)\"")


def slug(heading):
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link reads as its text
    text = text.lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path, cache={}):
    if path not in cache:
        seen = {}
        found = set()
        for line in classify(open(path, encoding="utf-8").read()):
            if line.kind != "prose":
                continue
            heading = HEADING.match(line.text)
            if heading:
                base = slug(heading.group(2))
                count = seen.get(base, 0)
                seen[base] = count + 1
                found.add(base if count == 0 else f"{base}-{count}")
            found.update(HTML_ANCHOR.findall(line.text))
        cache[path] = found
    return cache[path]


def repository_paths():
    """Files git would commit (tracked, or new and not ignored), and their directories; None
    outside a git checkout (then the file system alone decides)."""
    try:
        listed = subprocess.run(
            ["git", "-C", ROOT, "ls-files", "--cached", "--others", "--exclude-standard", "-z"],
            check=True, capture_output=True).stdout.decode("utf-8").split("\0")
    except (OSError, subprocess.CalledProcessError):
        return None
    paths = set()
    for name in filter(None, listed):
        if not os.path.exists(os.path.join(ROOT, name)):
            continue  # deleted in the working tree
        paths.add(name)
        parent = os.path.dirname(name)
        while parent:
            paths.add(parent)
            parent = os.path.dirname(parent)
    return paths


def link_targets(path):
    for line in classify(open(path, encoding="utf-8").read()):
        if line.kind != "prose":
            continue
        text = without_code_spans(line.text)
        for match in LINK.finditer(text):
            yield line.number, match.group(1)
        reference = REFERENCE.match(text)
        if reference:
            yield line.number, reference.group(1)


# Pages another branch is writing, which README.md and docs/ already link to: a link to one of them
# passes (with a note) while the file is absent, and is checked as any other once it exists. Empty
# this list when they have arrived.
ARRIVING: set[str] = set()


def check_links():
    known = repository_paths()
    errors, count = [], 0
    pending = set()
    for path in markdown_files():
        for number, target in link_targets(path):
            if re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", target) or target.startswith("//"):
                continue  # https:, mailto:, ...
            count += 1
            where = f"{relative(path)}:{number}: {target}"
            file_part, _, anchor = target.partition("#")
            resolved = path if not file_part else os.path.normpath(
                os.path.join(os.path.dirname(path), file_part))
            name = os.path.relpath(resolved, ROOT)
            if name.startswith(".."):
                errors.append(f"{where}: points outside the repository")
                continue
            if not os.path.exists(resolved) and name in ARRIVING and not anchor:
                pending.add(name)
                continue
            if not os.path.exists(resolved):
                errors.append(f"{where}: no such file or directory ({name})")
                continue
            if known is not None and name != "." and name not in known:
                errors.append(f"{where}: {name} is not part of the repository (ignored by git)")
                continue
            if not anchor:
                continue
            if resolved.endswith(".md"):
                if anchor not in anchors(resolved):
                    errors.append(f"{where}: {name} has no heading with the anchor #{anchor}")
            elif not re.fullmatch(r"L\d+(-L\d+)?", anchor):
                errors.append(f"{where}: an anchor into a file that is not Markdown")
    for error in errors:
        print(error)
    for name in sorted(pending):
        print(f"note: {name} is not here yet (ARRIVING in scripts/check-docs.py): links to it pass")
    for name in sorted(ARRIVING):
        if os.path.exists(os.path.join(ROOT, name)):
            print(f"note: {name} has arrived; it can leave ARRIVING in scripts/check-docs.py")
    print(f"check-docs links: {count} relative links in {len(markdown_files())} files, "
          f"{len(errors)} broken")
    return 1 if errors else 0


# ---------------------------------------------------------------------------------------------
# commands

SKIPPED_LANGUAGES = {"json", "jsonc", "yaml", "yml", "python", "py", "cpp", "c++", "toml", "ini",
                     "html", "javascript", "js", "lua", "diff", "markdown", "md"}
COMMAND_START = re.compile(r"(^|[\s;&|(])(\S*/)?nmt\s+[a-z-]")
PLACEHOLDER = re.compile(r"^[A-Z][A-Z0-9_]*$")


def is_nmt(word):
    return word == "nmt" or word.endswith("/nmt")


def normalise(word, is_inline):
    """A word of a quoted command line as a concrete argument; None to drop it."""
    if word in ("...", "…"):
        return None
    if is_inline and "|" in word:
        word = word.split("|")[0]
    word = word.strip("[]")
    if word in ("", "...", "…"):
        return None
    if word.endswith("...") or word.endswith("…"):
        word = word.rstrip(".…")
    if PLACEHOLDER.match(word) or word.startswith("$"):
        return "1"
    return word


def commands_in_shell_line(text):
    """The nmt commands of one (joined) shell line, each a list of words."""
    lexer = shlex.shlex(text, posix=True, punctuation_chars="|&;<>")
    lexer.whitespace_split = True
    words = list(lexer)
    commands, current = [], None
    for index, word in enumerate(words):
        is_operator = word and all(c in "|&;<>" for c in word)
        if current is not None:
            if is_operator:
                if word.startswith(">") or word.startswith("<"):
                    if current and current[-1].isdigit():
                        current.pop()  # the 2 of 2>
                commands.append(current)
                current = None
            else:
                current.append(word)
        elif is_nmt(word) and not is_operator:
            current = []
    if current is not None:
        commands.append(current)
    return commands


def quoted_commands(path):
    """(line number, words after nmt, is_inline) of every nmt command line the file quotes."""
    lines = classify(open(path, encoding="utf-8").read())
    found = []
    index = 0
    while index < len(lines):
        line = lines[index]
        if line.kind == "code" and line.language not in SKIPPED_LANGUAGES:
            number, text = line.number, line.text.strip()
            while text.endswith("\\") and index + 1 < len(lines) and lines[index + 1].kind == "code":
                index += 1
                text = text[:-1] + " " + lines[index].text.strip()
            if text.startswith("$ "):
                text = text[2:]
            if COMMAND_START.search(text):
                try:
                    for words in commands_in_shell_line(text):
                        found.append((number, words, False))
                except ValueError as error:
                    found.append((number, None, f"cannot read it as a shell line ({error}): {text}"))
        elif line.kind == "prose":
            for span in code_spans(line.text):
                span = span.replace("\\|", "|")
                if span.startswith("nmt ") or span.startswith("nmt\t"):
                    try:
                        words = shlex.split(span)[1:]
                    except ValueError as error:
                        found.append((line.number, None, f"unreadable ({error}): {span}"))
                        continue
                    found.append((line.number, words, True))
        index += 1
    return found


def parse_only(binary, arguments, directory):
    result = subprocess.run([binary] + arguments, cwd=directory, capture_output=True, text=True,
                            env=dict(os.environ, NMT_PARSE_ONLY="1"), timeout=120)
    return result.returncode, (result.stdout + result.stderr).strip()


REQUIRED = re.compile(r"^(\S+) is required$")
NAME = re.compile(r"^[a-z][a-z0-9-]*$")


def subcommands(binary, path, cache={}):
    """The subcommands nmt's --help lists under the command path (a tuple of names)."""
    if path not in cache:
        output = subprocess.run([binary, *path, "--help"], capture_output=True, text=True).stdout
        listed = output.split("Subcommands:", 1)[1] if "Subcommands:" in output else ""
        cache[path] = set(re.findall(r"^  (\S+)\s{2,}", listed, re.MULTILINE))
    return cache[path]


def check_quote(binary, arguments, is_inline, directory):
    """None when the quoted command parses, else nmt's first line of complaint."""
    answered_first = [a for a in arguments if a in ("-h", "--help", "--version")]
    if answered_first:
        # CLI11 answers these before it checks the rest: check the rest as a fragment.
        arguments = [a for a in arguments if a not in answered_first]
        is_inline = True
        if not arguments:
            result = subprocess.run([binary] + answered_first, capture_output=True, text=True)
            return None if result.returncode == 0 else f"exit status {result.returncode}"
    if is_inline and 0 < len(arguments) <= 2 and all(NAME.match(a) for a in arguments):
        for depth, name in enumerate(arguments):
            if name not in subcommands(binary, tuple(arguments[:depth])):
                return f"{name} is not a command of nmt {' '.join(arguments[:depth])}".rstrip()
        return None
    arguments = list(arguments)
    for _ in range(8):
        status, output = parse_only(binary, arguments, directory)
        if status == 0:
            if "nothing was run" in output:
                return None
            return "exited 0 without saying it only parsed: does this nmt know NMT_PARSE_ONLY?"
        first = output.splitlines()[0] if output else f"exit status {status}"
        required = REQUIRED.match(first)
        if not (is_inline and required):
            return first
        arguments += [required.group(1), "1"] if required.group(1).startswith("-") else ["1"]
    return first


def check_commands(binary):
    binary = os.path.realpath(binary)
    errors, jobs = [], {}
    for path in markdown_files():
        for number, words, is_inline in quoted_commands(path):
            where = f"{relative(path)}:{number}"
            if words is None:
                errors.append(f"{where}: {is_inline}")
                continue
            arguments = [a for a in (normalise(w, is_inline) for w in words) if a is not None]
            if not arguments and is_inline:
                continue  # `nmt ...`: the program named, no command line
            jobs.setdefault((tuple(arguments), is_inline), []).append((where, " ".join(words)))
    with tempfile.TemporaryDirectory() as directory, \
            concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        results = {job: pool.submit(check_quote, binary, job[0], job[1], directory)
                   for job in jobs}
        for (arguments, _), future in results.items():
            message = future.result()
            if message is None:
                continue
            for where, quoted in jobs[(arguments, _)]:
                errors.append(f"{where}: nmt {quoted}\n    -> nmt {' '.join(arguments)}: {message}")
    for error in sorted(errors):
        print(error)
    quotes = sum(len(places) for places in jobs.values())
    print(f"check-docs commands: {quotes} quoted nmt command lines ({len(jobs)} distinct), "
          f"{len(errors)} that do not parse")
    return 1 if errors else 0


# ---------------------------------------------------------------------------------------------
# records (the rule: scripts/check-records.sh)

NUMBER = r"(?<![\w.])\d[\d,]*(?:\.\d+)?"
UNITS = (r"%|ms|s|min|h|KiB|MiB|GiB|TiB|kB|MB|GB|TB|GFLOP/s|TFLOP/s|tokens/s|sentences/s|"
         r"sent/s|tok/s|req/s|requests/s")
FIGURE_WITH_UNIT = re.compile(NUMBER + r"(?:\s?(?:" + UNITS + r")|[×x])(?![\w/])")
BARE_NUMBER = re.compile(NUMBER + r"(?![\w])")
MEASURE_HEADER = re.compile(
    r"BLEU|chrF|\bloss\b|perplexity|\bppl\b|\bMFU\b|\bRSS\b|efficiency|latency|throughput|"
    r"speed|/s\b|×|\bvs\b|\bratio\b|\b(?:ms|min|MiB|GiB|MB|GB)(?!\w)|%", re.IGNORECASE)
RECORD_PATH = re.compile(r"data/benchmarks/[\w.@+-]+(?:/[\w.@+-]+)*/?")


def table_cells(row):
    row = row.strip().replace("\\|", "\0")
    if row.startswith("|"):
        row = row[1:]
    if row.endswith("|"):
        row = row[:-1]
    return [cell.replace("\0", "|").strip() for cell in row.split("|")]


def tables(lines):
    """(caption lines, header line, body lines) of each table in prose."""
    index = 0
    while index < len(lines):
        line = lines[index]
        is_table = (line.kind == "prose" and line.text.lstrip().startswith("|")
                    and index + 1 < len(lines)
                    and re.fullmatch(r"\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*",
                                     lines[index + 1].text))
        if not is_table:
            index += 1
            continue
        caption = []
        back = index - 1
        if back >= 0 and lines[back].text.strip() == "":
            back -= 1
        while back >= 0 and lines[back].kind == "prose" and lines[back].text.strip() \
                and not lines[back].text.lstrip().startswith("|") \
                and not HEADING.match(lines[back].text):
            caption.insert(0, lines[back])
            back -= 1
        body = []
        end = index + 2
        while end < len(lines) and lines[end].kind == "prose" \
                and lines[end].text.lstrip().startswith("|"):
            body.append(lines[end])
            end += 1
        yield caption, line, body
        index = end


def figures(cell, is_measure_column):
    text = re.sub(r"\]\([^)]*\)", "]", CODE_SPAN.sub(" ", cell))  # link targets are no figures
    found = [m.group(0) for m in FIGURE_WITH_UNIT.finditer(text)]
    if is_measure_column:
        found += [m.group(0) for m in BARE_NUMBER.finditer(text)]
    return found


# Numbers in a record's files, as a reader would quote them: "1,718.62", "4354432", "2.5e-07".
RECORD_NUMBER = re.compile(r"(?<![\w.])\d[\d,]*(?:\.\d+)?(?:[eE][-+]?\d+)?")
# A quoted figure may change the unit's scale (171544 kB as 168 MiB, 51843.9 GFLOP/s as 51.8
# TFLOP/s) or give a fraction as a percentage (0.3095 as 31%).
SCALES = sorted({base ** power for base in (1000, 1024) for power in (-2, -1, 0, 1, 2)})
MAX_RECORD_FILE_BYTES = 20_000_000
_record_numbers = {}


def record_numbers(record):
    """Every number in the record's text files (a record is a file or a directory)."""
    record = record.rstrip("/")
    if record not in _record_numbers:
        path = os.path.join(ROOT, record)
        files = [path] if os.path.isfile(path) else sorted(
            os.path.join(directory, name) for directory, _, names in os.walk(path)
            for name in names)
        numbers = set()
        for name in files:
            if os.path.getsize(name) > MAX_RECORD_FILE_BYTES:
                continue
            with open(name, encoding="utf-8", errors="ignore") as handle:
                for match in RECORD_NUMBER.finditer(handle.read()):
                    try:
                        numbers.add(float(match.group(0).replace(",", "")))
                    except ValueError:
                        pass
        _record_numbers[record] = numbers
    return _record_numbers[record]


def figure_value(figure):
    """(value, half a unit of its last digit) of a quoted figure: "1,718.6 sentences/s" ->
    (1718.6, 0.05)."""
    number = re.match(r"[\d,]*\d(?:\.\d+)?", figure).group(0)
    decimals = len(number.split(".")[1]) if "." in number else 0
    return float(number.replace(",", "")), 0.5 * 10 ** -decimals * (1 + 1e-9)


def is_in_record(figure, numbers):
    value, tolerance = figure_value(figure)
    scales = SCALES + ([100] if figure.endswith("%") else [])
    return any(abs(number * scale - value) <= tolerance for number in numbers for scale in scales)


# Numbers rounded coarser than this (2 cores, beam 5) give no ratio: almost any would do.
MAX_OPERAND_ROUNDING = 0.01


def is_derived_in_row(figure, row_numbers):
    """A ratio (×) or a percentage that two other numbers of its row give, within what their own
    rounding allows: 4,638.4 and 3,979.0 give 1.17×; 5.443 and 5.598 give +2.9%."""
    value, tolerance = figure_value(figure)
    is_percentage = figure.endswith("%")
    row_numbers = [(n, t) for n, t in row_numbers if n > 0 and t / n <= MAX_OPERAND_ROUNDING]
    for a, a_tolerance in row_numbers:
        for b, b_tolerance in row_numbers:
            if (a, a_tolerance) == (b, b_tolerance):
                continue
            if is_percentage:
                derived = abs(a - b) / b * 100
                slack = 100 * ((a_tolerance + b_tolerance) / b + abs(a - b) * b_tolerance / b**2)
            else:
                derived = a / b
                slack = derived * (a_tolerance / a + b_tolerance / b)
            if abs(derived - value) <= tolerance + slack:
                return True
    return False


def unquoted_figures(found, paths, row_text):
    """The figures of a row that no file of its records holds, nor two other numbers of the row
    give."""
    numbers = set()
    for record in paths:
        if os.path.exists(os.path.join(ROOT, record.rstrip("/"))):
            numbers |= record_numbers(record)
    unique = list(dict.fromkeys(found))
    # A bare number already checked with its unit ("59" of "59%") is that figure.
    with_units = {figure_value(f)[0] for f in unique if not re.fullmatch(r"[\d,.]+", f)}
    unique = [f for f in unique if not (re.fullmatch(r"[\d,.]+", f)
                                        and figure_value(f)[0] in with_units)]
    text = re.sub(r"\]\([^)]*\)", "]", CODE_SPAN.sub(" ", row_text))
    row_numbers = [figure_value(m.group(0)) for m in BARE_NUMBER.finditer(text)]
    unquoted = []
    for figure in unique:
        if is_in_record(figure, numbers):
            continue
        is_relative = figure.endswith(("%", "×", "x"))
        others = [n for n in row_numbers if n[0] != figure_value(figure)[0]]
        if not (is_relative and is_derived_in_row(figure, others)):
            unquoted.append(figure)
    return unquoted


def check_records():
    errors, rows_checked, tables_checked, figures_checked = [], 0, 0, 0
    for path in markdown_files():
        lines = classify(open(path, encoding="utf-8").read())
        for caption, header, body in tables(lines):
            measures = [bool(MEASURE_HEADER.search(CODE_SPAN.sub(" ", cell)))
                        for cell in table_cells(header.text)]
            caption_text = " ".join(line.text for line in caption)
            caption_paths = RECORD_PATH.findall(caption_text)
            has_figures = False
            for row in body:
                cells = table_cells(row.text)
                found = []
                for column, cell in enumerate(cells):
                    found += figures(cell, column < len(measures) and measures[column])
                if not found:
                    continue
                has_figures = True
                rows_checked += 1
                figures_checked += len(set(found))
                paths = RECORD_PATH.findall(row.text) + caption_paths
                where = f"{relative(path)}:{row.number}"
                if not paths:
                    errors.append(f"{where}: {', '.join(found[:4])} in a table row that names no "
                                  f"record (data/benchmarks/...), nor does the table's caption")
                    continue
                missing = [record for record in paths
                           if not os.path.exists(os.path.join(ROOT, record.rstrip("/")))]
                for record in missing:
                    errors.append(f"{where}: the record {record} does not exist")
                if not missing:
                    for figure in unquoted_figures(found, paths, row.text):
                        errors.append(f"{where}: {figure} is in no file of "
                                      f"{', '.join(dict.fromkeys(paths))}")
            tables_checked += has_figures
    for error in sorted(set(errors)):
        print(error)
    print(f"check-records: {rows_checked} table rows with figures in {tables_checked} tables "
          f"({figures_checked} figures), {len(set(errors))} problems")
    return 1 if errors else 0


def main():
    if len(sys.argv) >= 2 and sys.argv[1] == "links":
        return check_links()
    if len(sys.argv) == 3 and sys.argv[1] == "commands":
        return check_commands(sys.argv[2])
    if len(sys.argv) == 2 and sys.argv[1] == "records":
        return check_records()
    print(__doc__.split("\n\n")[1], file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
