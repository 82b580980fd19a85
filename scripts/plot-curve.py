#!/usr/bin/env python3
"""Draws one or more measured curves from a TSV as a standalone SVG line chart (Python's standard
library only), for figures in README.md and docs/ whose numbers live in a record.

    scripts/plot-curve.py TSV OUT.svg --x minutes --y test_bleu [--series run] [--title TEXT]

TSV has a header row; --x and --y name numeric columns; --series names a column whose values
split the rows into curves (one colour and legend entry each). Points are drawn in file order
within a series, each marked and labelled with its y value.
"""
import argparse
import csv
import html
import sys

COLOURS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e"]
WIDTH, HEIGHT = 640, 360
LEFT, RIGHT, TOP, BOTTOM = 56, 16, 36, 44


def nice_ticks(low, high, count=5):
    span = high - low or 1.0
    raw = span / count
    step = min((s * 10 ** e for e in range(-3, 6) for s in (1, 2, 5) if s * 10 ** e >= raw))
    first = (low // step) * step
    ticks, value = [], first
    while value <= high + step / 2:
        ticks.append(round(value, 6))
        value += step
    return ticks


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("tsv")
    parser.add_argument("out")
    parser.add_argument("--x", required=True)
    parser.add_argument("--y", required=True)
    parser.add_argument("--series")
    parser.add_argument("--title", default="")
    args = parser.parse_args()

    with open(args.tsv, newline="") as f:
        rows = list(csv.DictReader(f, delimiter="\t"))
    for column in filter(None, (args.x, args.y, args.series)):
        if not rows or column not in rows[0]:
            sys.exit(f"plot-curve: {args.tsv}: no column '{column}'")
    series = {}
    for line, row in enumerate(rows, start=2):
        try:
            point = (float(row[args.x]), float(row[args.y]))
        except ValueError:
            sys.exit(f"plot-curve: {args.tsv}:{line}: '{row[args.x]}', '{row[args.y]}' are not numbers")
        series.setdefault(row[args.series] if args.series else args.y, []).append(point)

    xs = [x for points in series.values() for x, _ in points]
    ys = [y for points in series.values() for _, y in points]
    x_ticks = nice_ticks(0.0, max(xs))
    y_ticks = nice_ticks(min(ys), max(ys))
    x_low, x_high, y_low, y_high = x_ticks[0], x_ticks[-1], y_ticks[0], y_ticks[-1]

    def px(x):
        return LEFT + (x - x_low) / (x_high - x_low or 1) * (WIDTH - LEFT - RIGHT)

    def py(y):
        return HEIGHT - BOTTOM - (y - y_low) / (y_high - y_low or 1) * (HEIGHT - TOP - BOTTOM)

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" '
           f'font-family="sans-serif" font-size="12">',
           f'<rect width="{WIDTH}" height="{HEIGHT}" fill="white"/>',
           f'<text x="{LEFT}" y="20" font-size="14">{html.escape(args.title)}</text>']
    for x in x_ticks:
        out.append(f'<line x1="{px(x):.1f}" y1="{TOP}" x2="{px(x):.1f}" y2="{HEIGHT - BOTTOM}" stroke="#ddd"/>'
                   f'<text x="{px(x):.1f}" y="{HEIGHT - BOTTOM + 16}" text-anchor="middle">{x:g}</text>')
    for y in y_ticks:
        out.append(f'<line x1="{LEFT}" y1="{py(y):.1f}" x2="{WIDTH - RIGHT}" y2="{py(y):.1f}" stroke="#ddd"/>'
                   f'<text x="{LEFT - 6}" y="{py(y) + 4:.1f}" text-anchor="end">{y:g}</text>')
    out.append(f'<text x="{(LEFT + WIDTH - RIGHT) / 2}" y="{HEIGHT - 8}" text-anchor="middle">'
               f'{html.escape(args.x)}</text>')
    out.append(f'<text transform="translate(14,{(TOP + HEIGHT - BOTTOM) / 2}) rotate(-90)" '
               f'text-anchor="middle">{html.escape(args.y)}</text>')
    for index, (name, points) in enumerate(series.items()):
        colour = COLOURS[index % len(COLOURS)]
        path = " ".join(f"{px(x):.1f},{py(y):.1f}" for x, y in points)
        out.append(f'<polyline points="{path}" fill="none" stroke="{colour}" stroke-width="2"/>')
        for x, y in points:
            out.append(f'<circle cx="{px(x):.1f}" cy="{py(y):.1f}" r="3" fill="{colour}"/>'
                       f'<text x="{px(x):.1f}" y="{py(y) - 7:.1f}" text-anchor="middle" '
                       f'fill="{colour}">{y:g}</text>')
        legend_y = HEIGHT - BOTTOM - 14 - 16 * (len(series) - 1 - index)  # rising curves leave it free
        out.append(f'<rect x="{WIDTH - RIGHT - 180}" y="{legend_y}" width="12" height="3" fill="{colour}"/>'
                   f'<text x="{WIDTH - RIGHT - 162}" y="{legend_y + 5}">{html.escape(name)}</text>')
    out.append("</svg>")
    with open(args.out, "w") as f:
        f.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
