#!/usr/bin/env python3
"""Argos Translate's and LibreTranslate's side of the round trip of `nmt export --format argos`
(argos_round_trip_test.sh), run by .venv/argos's Python (LibreTranslate 1.9.6 and the
argostranslate it pins):

    argos_round_trip.py PACKAGE SOURCES TRANSLATIONS [NMT_SERVE_URL]

TRANSLATIONS is nmt translate's output for SOURCES with Argos's decoding (4 beams, length penalty
0.2, CTranslate2's 256-token limit). Up to one line in twenty may differ (SEARCH_DIFFERENCES): the
test's models are trained for 150 updates, so beams can score alike to the last digits, and
CTranslate2's fp32 products and LibTorch's round differently (LibTorch 2.11 on a Xeon with AMX
kept another beam in one line of 42 on 2026-12-04); a wrong export changes most lines. In folders
of its own (ARGOS_PACKAGES_DIR and the XDG
folders, so that nothing of the user's is read or written):
1. argostranslate installs PACKAGE (install_from_path), finds its languages and README, and
   translates every line of SOURCES to the line of TRANSLATIONS;
2. with NMT_SERVE_URL (nmt serve of the same run, same decoding): a LibreTranslate server on
   loopback serving the installed package lists its languages, and answers POST /translate for
   every line as nmt serve does, once LibreTranslate's own formatting of an answer (its final
   punctuation follows the source's, lower-case sources get lower-case answers) is applied to
   nmt's: for every line where that formatting changes nothing, both servers' text is the same;
3. with NMT_SERVE_URL, text as LibreTranslate's clients send it: a paragraph of three lines of
   SOURCES, posted as a form (as LibreTranslate's Python client, libretranslatepy, posts it), comes
   back as the three lines' translations joined by the paragraph's spaces; an HTML fragment of
   them with format "html" (as LibreTranslate's page sends HTML) comes back with every text
   translated and the markup as it was, and with the same tags as LibreTranslate's own answer.
Offline: sentence splitting is replaced by the identity (MiniSBD would download a model on first
use, and each test line is one sentence), and LibreTranslate's start skips the package index
download it tries when fewer than two packages are installed.

Prints one summary line; exits 1 with the differences when a check fails.
"""
import html
import html.parser
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request

# Applied in this process and in the LibreTranslate server's (LAUNCHER below).
OFFLINE = """
import argostranslate.sbd
argostranslate.sbd.MiniSBDSentencizer.split_sentences = lambda self, text: [text]
"""
LAUNCHER = OFFLINE + """
import sys
import libretranslate.init
libretranslate.init.check_and_install_models = lambda **options: None
from libretranslate.main import main
sys.argv = ["libretranslate"] + sys.argv[1:]
main()
"""


def isolate(root):
    """Points Argos at folders under root; before argostranslate is imported, which reads them."""
    for name in ("XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "ARGOS_PACKAGES_DIR"):
        os.environ[name] = os.path.join(root, name.lower())
        os.makedirs(os.environ[name], exist_ok=True)
    os.environ["ARGOS_DEVICE_TYPE"] = "cpu"


# Lines where argostranslate's beam search may end elsewhere than nmt's: one in twenty.
SEARCH_DIFFERENCES = 1 / 20


def read_lines(path):
    with open(path, encoding="utf-8") as lines:
        return [line.rstrip("\n") for line in lines]


def check_argostranslate(package_path, sources, expected, failures):
    exec(OFFLINE)
    import argostranslate.package
    import argostranslate.translate

    argostranslate.package.install_from_path(package_path)
    installed = argostranslate.package.get_installed_packages()
    if len(installed) != 1:
        failures.append(f"installed packages: {installed}")
        return None, set()
    package = installed[0]
    readme = package.get_readme() or ""
    if "`nmt translate --strategy beam --beam-size 4 --length-penalty 0.2 --max-len 256`" not in (
        readme.replace("\n", " ")
    ):
        failures.append("the package's README does not say how nmt decodes as Argos does")
    translation = argostranslate.translate.get_translation_from_codes(
        package.from_code, package.to_code
    )
    differences = []
    for index, (source, nmt) in enumerate(zip(sources, expected)):
        argos = translation.translate(source)
        if argos != nmt:
            differences.append(index)
            if len(differences) <= 5:
                print(f"line {index + 1}: argostranslate {argos!r} != nmt {nmt!r}")
    if len(differences) > SEARCH_DIFFERENCES * len(sources):
        failures.append(f"{len(differences)} of {len(sources)} lines differ")
    return package, set(differences)


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def post_translate(url, source, package):
    body = json.dumps({"q": source, "source": package.from_code, "target": package.to_code})
    request = urllib.request.Request(
        url + "/translate", body.encode(), {"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=60) as answer:
        return json.load(answer)["translatedText"]


def post_form(url, fields):
    body = urllib.parse.urlencode(fields).encode()
    with urllib.request.urlopen(urllib.request.Request(url + "/translate", body), timeout=60) as answer:
        return json.load(answer)["translatedText"]


class TagList(html.parser.HTMLParser):
    """The start and end tags of an HTML text, with their attributes, in order."""

    def __init__(self, text):
        super().__init__(convert_charrefs=True)
        self.tags = []
        self.feed(text)
        self.close()

    def handle_starttag(self, tag, attrs):
        self.tags.append(("start", tag, sorted(attrs)))

    def handle_endtag(self, tag):
        self.tags.append(("end", tag))


def check_real_text(nmt_url, libre_url, package, sources, expected, failures):
    """A paragraph and an HTML fragment of three one-sentence lines, sent to nmt serve as
    LibreTranslate's clients send them; the HTML also to LibreTranslate for its tags."""
    # Lines that end a sentence where the next begins (UAX #29 needs the end punctuation and the
    # capital), without characters HTML escapes.
    picked = [i for i, line in enumerate(sources)
              if line[:1].isupper() and line[-1:] in ".!?" and not set(line) & set("<>&\"'")][:3]
    if len(picked) < 3:
        failures.append("fewer than three whole sentences without HTML's special characters")
        return
    lines = [sources[i] for i in picked]
    translated = [expected[i] for i in picked]
    languages = {"source": package.from_code, "target": package.to_code}
    paragraph = post_form(nmt_url, {"q": "  ".join(lines), **languages})
    if paragraph != "  ".join(translated):
        failures.append(f"paragraph: nmt serve {paragraph!r} != {'  '.join(translated)!r}")
    fragment = (f'<p class="lead">{lines[0]} <b>{lines[1]}</b></p>'
                f'<code>{lines[2]}</code><p translate="no">{lines[2]}</p><p>{lines[2]}</p>')
    answer = post_form(nmt_url, {"q": fragment, "format": "html", **languages})
    wanted = (f'<p class="lead">{html.escape(translated[0], quote=False)} '
              f'<b>{html.escape(translated[1], quote=False)}</b></p><code>{lines[2]}</code>'
              f'<p translate="no">{lines[2]}</p><p>{html.escape(translated[2], quote=False)}</p>')
    if answer != wanted:
        failures.append(f"HTML: nmt serve {answer!r} != {wanted!r}")
    libre = post_form(libre_url, {"q": fragment, "format": "html", **languages})
    if TagList(libre).tags != TagList(answer).tags:
        failures.append(f"HTML: LibreTranslate's tags {libre!r} != nmt serve's {answer!r}")


def start_libretranslate(log):
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-c", LAUNCHER, "--host", "127.0.0.1", "--port", str(port),
         "--disable-web-ui", "--threads", "1"],
        stdout=log, stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise RuntimeError(f"LibreTranslate exited with {server.returncode}")
        try:
            with urllib.request.urlopen(url + "/languages", timeout=5) as answer:
                return server, url, json.load(answer)
        except OSError:
            time.sleep(0.5)
    server.kill()
    raise RuntimeError("LibreTranslate did not answer /languages within 180 s")


def check_libretranslate(nmt_url, package, sources, expected, differences, failures, log_path):
    from libretranslate.language import improve_translation_formatting

    with open(log_path, "w") as log:
        try:
            server, url, languages = start_libretranslate(log)
        except RuntimeError as error:
            failures.append(f"{error}; its log: {log_path}")
            return 0
    try:
        codes = {(language["code"], language["name"]) for language in languages}
        sides = ((package.from_code, package.from_name), (package.to_code, package.to_name))
        for code, name in sides:
            if (code, name) not in codes:
                failures.append(f"LibreTranslate's /languages lacks {code} ({name}): {languages}")
        same_text = 0
        for index, (source, nmt) in enumerate(zip(sources, expected)):
            libre = post_translate(url, source, package)
            served = post_translate(nmt_url, source, package)
            if served != nmt:
                failures.append(f"line {index + 1}: nmt serve {served!r} != nmt translate {nmt!r}")
            formatted = improve_translation_formatting(source, nmt)
            if index in differences:  # argostranslate's search ended elsewhere: so does its server's
                continue
            if libre != formatted:
                failures.append(
                    f"line {index + 1}: LibreTranslate {libre!r} != nmt's {nmt!r} as "
                    f"LibreTranslate formats answers ({formatted!r})"
                )
            elif formatted == nmt:
                same_text += 1
        if same_text == 0:
            failures.append("no line where LibreTranslate and nmt serve give the same text")
        check_real_text(nmt_url, url, package, sources, expected, failures)
        return same_text
    finally:
        server.terminate()
        server.wait(timeout=30)


def main():
    if len(sys.argv) not in (4, 5):
        sys.exit(__doc__)
    package_path, sources_path, expected_path = sys.argv[1:4]
    sources, expected = read_lines(sources_path), read_lines(expected_path)
    if len(sources) != len(expected):
        sys.exit(f"argos_round_trip: {len(sources)} sources, {len(expected)} translations")
    failures = []
    with tempfile.TemporaryDirectory() as root:
        isolate(root)
        package, differences = check_argostranslate(os.path.abspath(package_path), sources,
                                                    expected, failures)
        summary = (f"argostranslate translated {len(sources) - len(differences)} of "
                   f"{len(sources)} lines as nmt")
        if package is not None and len(sys.argv) == 5:
            log_path = os.path.abspath(package_path) + ".libretranslate.log"
            same = check_libretranslate(sys.argv[4], package, sources, expected, differences,
                                        failures, log_path)
            summary += (f"; LibreTranslate and nmt serve gave the same text for {same} lines; "
                        "a paragraph and an HTML fragment came back translated in their layout")
    if failures:
        print("\n".join(failures))
        sys.exit(1)
    print(f"{package_path}: {summary}")


if __name__ == "__main__":
    main()
