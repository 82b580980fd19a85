#!/usr/bin/env python3
"""Checks that every #include of nmt's sources keeps to the layering docs/development.md draws.

    scripts/check-layering.py [ROOT]      ROOT: the repository (default: this script's)

The drawing is the indented block of docs/development.md's section "Which folder may include
which": one line per folder, `folder → what it may include`, each a folder (`train`) or one header
of a folder (`decode/options.h`). Every folder may include its own headers and the cross-cutting
ones of include/nmt/ (the folder `nmt`, whose own files include no folder). src/main.cpp is the
program: it belongs to `cli`. A header of include/nmt/<folder>/ and a private one of src/<folder>/
belong to the same folder.

Exit status 0 when every include is allowed; 1 with one line per include that is not
("src/model/options.cpp:12: model includes nmt/run/config.h (model may include: text)"); 2 when
the drawing cannot be read.
"""
import pathlib
import re
import sys

SECTION = "### Which folder may include which"
RULE = re.compile(r"^    (\w+)\s+→(.*)$")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def unreadable(problem):
    print(f"check-layering: {problem}", file=sys.stderr)
    sys.exit(2)


def read_drawing(development_md):
    """{folder: set of folders and headers it may include} from the drawing."""
    text = development_md.read_text(encoding="utf-8")
    start = text.find(SECTION)
    if start < 0:
        unreadable(f"{development_md}: no section \"{SECTION[4:]}\"")
    rules = {}
    for line in text[start:].splitlines()[1:]:
        if line.startswith("#"):
            break
        match = RULE.match(line)
        if match:
            rules[match.group(1)] = set(match.group(2).split())
    if "nmt" not in rules:
        unreadable(f"{development_md}: the drawing has no line for the folder nmt")
    return rules


def folder_of(source, root):
    """The folder a file of include/nmt/ or src/ belongs to."""
    parts = source.relative_to(root).parts
    inside = parts[2:] if parts[0] == "include" else parts[1:]
    if len(inside) == 1:
        return "cli" if inside[0] == "main.cpp" else "nmt"
    return inside[0]


def included_folder(name, folders):
    """(folder, header within it) that an include names, or None for a library's header."""
    parts = name.split("/")
    if parts[0] == "nmt":
        parts = parts[1:]
        if len(parts) == 1:
            return "nmt", parts[0]
    if len(parts) > 1 and parts[0] in folders:
        return parts[0], "/".join(parts[1:])
    return None


def violations(root, rules):
    folders = set(rules)
    for source in sorted([*root.glob("include/nmt/**/*.h"), *root.glob("src/**/*.[ch]*")]):
        if source.suffix not in (".h", ".cpp", ".cu"):
            continue
        folder = folder_of(source, root)
        if folder not in rules:
            yield f"{source.relative_to(root)}: folder {folder} is not in the drawing"
            continue
        lines = source.read_text(encoding="utf-8", errors="replace").splitlines()
        for number, line in enumerate(lines, 1):
            match = INCLUDE.match(line)
            target = match and included_folder(match.group(1), folders)
            if not target:
                continue
            other, header = target
            if other == folder or (other == "nmt" and folder != "nmt") or \
                    other in rules[folder] or f"{other}/{header}" in rules[folder]:
                continue
            allowed = " ".join(sorted(rules[folder])) or "no other folder"
            yield (f"{source.relative_to(root)}:{number}: {folder} includes {match.group(1)} "
                   f"({folder} may include: {allowed})")


def main():
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).parents[1])
    rules = read_drawing(root / "docs" / "development.md")
    found = list(violations(root.resolve(), rules))
    for problem in found:
        print(problem, file=sys.stderr)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
