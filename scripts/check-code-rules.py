#!/usr/bin/env python3
"""Checks two rules of docs/development.md that a reader cannot see from one file:

  - no function (or lambda at namespace scope) of src/ or include/ is over 80 lines, counted from
    the line of its opening brace to the line of its closing one;
  - only src/device.cpp sets LibTorch's (or OpenMP's) thread count: every other place asks it for
    one through set_threads or ThreadCountScope (nmt/device.h), so that a count is set in one way.

    scripts/check-code-rules.py [ROOT]      ROOT: the repository (default: this script's)

Exit status 0 when both hold; 1 with one line per place that breaks one
("src/run/serve.cpp:106: serve(...) is 94 lines (at most 80)"). The reading of C++ is a sketch,
not a parser: comments, literals and preprocessor lines are blanked, and a function body is a brace
outside any function whose head ends in `)` (with const, noexcept, override, a trailing return
type or a constructor's initialisers after it).
"""
import pathlib
import re
import sys

MOST_LINES = 80
THREAD_OWNER = "src/device.cpp"
SETS_THREADS = re.compile(r"\b(?:set_num_threads|set_num_interop_threads|omp_set_num_threads)\s*\(")
BODY_AFTER = re.compile(
    r"\)\s*(?:const|noexcept|override|final|mutable|\s)*(?:->[^;{}]*)?$"  # f(...) const -> T
    r"|\)\s*:[^;]*[)}]$")  # a constructor's initialisers


def blanked(text):
    return re.sub(r"[^\n]", " ", text)


def code_only(text):
    """The text with comments, string and character literals and preprocessor lines blanked
    (newlines kept, so that line numbers stay)."""
    out = []
    i, n = 0, len(text)
    while i < n:
        starts_raw = text.startswith('R"', i) and (i == 0 or not re.match(r"\w", text[i - 1]))
        if text.startswith("//", i):
            end = text.find("\n", i)
            end = n if end < 0 else end
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = n if end < 0 else end + 2
        elif starts_raw:
            delimiter = re.match(r'R"([^(]*)\(', text[i:]).group(1)
            end = text.find(")" + delimiter + '"', i) + len(delimiter) + 2
        elif text[i] == '"' or (text[i] == "'" and not (i > 0 and text[i - 1].isalnum())):
            end = i + 1  # a digit separator (1'000) is not a character literal
            while end < n and text[end] != text[i]:
                end += 2 if text[end] == "\\" else 1
            end += 1
        else:
            out.append(text[i])
            i += 1
            continue
        out.append(blanked(text[i:end]))
        i = end
    return re.sub(r"^[ \t]*#(?:[^\n]*\\\n)*[^\n]*", lambda m: blanked(m.group(0)), "".join(out),
                  flags=re.M)


def function_bodies(code):
    """(first line, last line, head) of each function body that is not inside another one."""
    stack, bodies, head_start = [], [], 0
    for i, char in enumerate(code):
        if char == "{":
            head = code[head_start:i].strip()
            if any(kind == "function" for kind, _, _ in stack):
                kind = "block"
            elif BODY_AFTER.search(head):
                kind = "function"
            elif "(" in head and re.search(r"[\w>]$", head):
                kind = "initialiser"  # a constructor's `member_{value}`: its body follows
            else:
                kind = "block"
            stack.append((kind, i, head))
            if kind != "initialiser":
                head_start = i + 1
        elif char == "}" and stack:
            kind, start, head = stack.pop()
            if kind == "function":
                bodies.append((code.count("\n", 0, start) + 1, code.count("\n", 0, i) + 1,
                               re.sub(r"\s+", " ", head)))
            if kind != "initialiser":
                head_start = i + 1
        elif char == ";":
            head_start = i + 1
    return bodies


def short_name(head):
    """`Translator::decode_cleaned(...)` of a function's head."""
    before_arguments = head[:head.find("(")] if "(" in head else head
    words = before_arguments.split()
    return (words[-1] if words else "a lambda") + "(...)"


def problems(root):
    for path in sorted([*root.glob("src/**/*.cpp"), *root.glob("src/**/*.h"),
                        *root.glob("include/**/*.h")]):
        name = path.relative_to(root).as_posix()
        code = code_only(path.read_text(encoding="utf-8"))
        for first, last, head in function_bodies(code):
            if last - first + 1 > MOST_LINES:
                yield (f"{name}:{first}: {short_name(head)} is {last - first + 1} lines "
                       f"(at most {MOST_LINES})")
        if name != THREAD_OWNER:
            for match in SETS_THREADS.finditer(code):
                line = code.count("\n", 0, match.start()) + 1
                yield (f"{name}:{line}: sets a thread count; only {THREAD_OWNER} does "
                       "(set_threads, ThreadCountScope)")


def main():
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).parent.parent)
    found = list(problems(root))
    for line in found:
        print(line, file=sys.stderr)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
