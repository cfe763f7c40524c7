#!/usr/bin/env python3
"""Writes openings.txt: 20 two-ply Grand Chess openings from ravenpost's own search.

The search's 10 best first moves from the start (`ravenpost analyse grand --multipv 10
--depth 5`), and for each the 2 best replies (`--multipv 2 --depth 5` after it): 20
openings, each written as a comment with its SAN and the score after it, then the
position string after its two plies (`ravenpost position grand M1 M2`), the form
`ravenpost match --openings` reads. Run: python3 make.py [RAVENPOST] > openings.txt
"""
import json
import subprocess
import sys

RAVENPOST = sys.argv[1] if len(sys.argv) > 1 else "ravenpost"


def run(*args):
    return json.loads(subprocess.run([RAVENPOST, *args], check=True, capture_output=True, text=True).stdout)


def position(moves):
    return run("position", "grand", *moves, "--json")["position"]


def best(fen, n):
    a = run("analyse", "grand", "--position", fen, "--multipv", str(n), "--depth", "5", "--json")
    return [(line["moves"][0], line["score"].get("cp")) for line in a["lines"]]


print("# 20 two-ply Grand Chess openings from ravenpost's search (README.md, make.py).")
start = position([])
for first, _ in best(start, 10):
    for reply, score in best(position([first]), 2):
        # The score is Black's view after the reply's search; White's view is its negation.
        white_view = -score if score is not None else None
        print(f"# 1. {first} {reply} (White's view after: {white_view} cp at depth 5)")
        print(position([first, reply]))
