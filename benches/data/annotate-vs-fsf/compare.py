#!/usr/bin/env python3
"""`ravenpost annotate` against Fairy-Stockfish on real Grand Chess games.

Usage (from this folder; see README.md):

    compare.py games   RAVENPOST              # games.txt -> games/NAME.pgn
    compare.py fsf     STOCKFISH --depth D    # -> fsf-depth-D.json
    compare.py annotate RAVENPOST --depth D   # -> ravenpost-depth-D/NAME.{json,pgn}
    compare.py table   --depth D              # the comparison, from the files above
    compare.py select  STOCKFISH --depth D    # which self-play games to take (README)

Python 3, standard library only. Fairy-Stockfish is only talked to over UCI.

Both sides are judged the same way, the way `ravenpost annotate` judges
(src/usecases/annotate.rs): every position of the game is searched once to depth D;
a score is taken from the side to move's view in centipawns, clamped to +-1000, a
mate for the side to move +1000 and against it -1000 (so is a position with no
legal move: checkmated -1000, stalemate 0); the move's loss is
    W(score before, mover's view) - W(-(score after, opponent's view)),
    W(cp) = 2 / (1 + exp(-0.00368208 cp)) - 1 (lichess's winning chances),
and a move whose loss is 0.3 or more is a blunder (`??`), 0.2 a mistake (`?`),
0.1 an inaccuracy (`?!`), unless it is the move the search found best.
"""

import argparse
import json
import math
import os
import re
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SELFPLAY = os.path.join(HERE, "..", "grand-fsf-selfplay", "games.txt")
LONG = re.compile(r"^([A-Z][a-z]*)([a-j]\d+)([-x])([a-j]\d+)(ep)?(?:=([A-Z][a-z]*))?$")


# --- the judgement, as src/usecases/annotate.rs has it -------------------------------

def winning_chances(cp):
    return 2.0 / (1.0 + math.exp(-0.00368208 * cp)) - 1.0


def judge(loss):
    if loss >= 0.3:
        return "blunder"
    if loss >= 0.2:
        return "mistake"
    if loss >= 0.1:
        return "inaccuracy"
    return None


def clamp(cp):
    return max(-1000, min(1000, cp))


# --- games ---------------------------------------------------------------------------

def read_games_txt(path):
    """games.txt: `name=NAME source=...` then UCI moves, one game a line."""
    games = []
    with open(path) as f:
        for line in f:
            words = line.split()
            if not words or words[0].startswith("#"):
                continue
            tags = dict(w.split("=", 1) for w in words if "=" in w)
            moves = [w for w in words if "=" not in w]
            games.append((tags["name"], tags, moves))
    return games


def ravenpost_json(binary, *args):
    out = subprocess.run([binary, *args, "--json"], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def uci_of_long(long):
    m = LONG.match(long)
    if not m:
        return None
    promo = (m.group(6) or "").lower()
    return m.group(2) + m.group(4) + promo


def to_san(binary, moves):
    """The UCI moves as ravenpost's SAN, each looked up among the legal moves."""
    sans = []
    for uci in moves:
        pos = ravenpost_json(binary, "position", "grand", *sans)["position"]
        legal = ravenpost_json(binary, "moves", "grand", "--position", pos)["moves"]
        found = [m["san"] for m in legal if uci_of_long(m["long"]) == uci]
        if len(found) != 1:
            raise SystemExit(f"{uci} after {' '.join(sans)}: {len(found)} legal moves match")
        sans.append(found[0])
    return sans


def write_pgn(path, name, tags, sans, binary):
    final = ravenpost_json(binary, "position", "grand", *sans)
    said = final["result"] or ""
    result = "1-0" if said.startswith("White wins") else "0-1" if said.startswith("Black wins") else (
        "1/2-1/2" if said else "*")
    lines = [f'[Event "{name} ({tags["source"]})"]', '[Variant "grand"]', f'[Result "{result}"]', ""]
    text, move_no = [], 1
    for i, san in enumerate(sans):
        if i % 2 == 0:
            text.append(f"{move_no}.")
            move_no += 1
        text.append(san)
    text.append(result)
    body, line = [], ""
    for word in text:
        if len(line) + len(word) + 1 > 80:
            body.append(line)
            line = word
        else:
            line = f"{line} {word}" if line else word
    body.append(line)
    with open(path, "w") as f:
        f.write("\n".join(lines + body) + "\n")


def cmd_games(a):
    os.makedirs(os.path.join(HERE, "games"), exist_ok=True)
    for name, tags, moves in read_games_txt(os.path.join(HERE, "games.txt")):
        sans = to_san(a.binary, moves)
        write_pgn(os.path.join(HERE, "games", name + ".pgn"), name, tags, sans, a.binary)
        print(f"{name}: {len(sans)} plies", file=sys.stderr)
    # ravenpost's canonical form (tags, termination, line breaks).
    subprocess.run([a.binary, "fmt", os.path.join(HERE, "games")], check=True)


# --- Fairy-Stockfish -----------------------------------------------------------------

# The UCI talk of the script that played the self-play games (one engine, Grand Chess).
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "grand-fsf-selfplay"))
from generate import Engine as SelfPlayEngine  # noqa: E402


class Engine(SelfPlayEngine):
    def search(self, moves, depth):
        """(score in clamped centipawns from the side to move's view, raw score, best move)."""
        self.send("ucinewgame")
        self.send("isready")
        self.until("readyok")
        self.send("position startpos" + (" moves " + " ".join(moves) if moves else ""))
        self.send(f"go depth {depth}")
        lines = self.until("bestmove")
        best = lines[-1].split()[1]
        scored = [l for l in lines if " score " in l]
        exact = [l for l in scored if "bound" not in l]
        last = (exact or scored or [None])[-1]
        if last is None:
            raise SystemExit(f"no score after {' '.join(moves)}")
        w = last.split()
        kind, value = w[w.index("score") + 1], int(w[w.index("score") + 2])
        if kind == "mate":
            cp = 1000 if value > 0 else -1000
        else:
            cp = clamp(value)
        return cp, f"{kind} {value}", best


def judge_plies(moves, scores):
    """Each ply judged from the searched scores (side to move's view) and best moves."""
    plies = []
    for i, played in enumerate(moves):
        before, best = scores[i]["cp"], scores[i]["best"]
        after = -scores[i + 1]["cp"]
        loss = max(0.0, winning_chances(before) - winning_chances(after))
        plies.append({
            "ply": i + 1,
            "move": played,
            "best": best,
            "before": before,
            "after": after,
            "loss": round(loss, 4),
            "judgement": None if best == played else judge(loss),
        })
    return plies


def fsf_game(engine, moves, depth):
    scores = []
    for i in range(len(moves) + 1):
        cp, raw, best = engine.search(moves[:i], depth)
        scores.append({"cp": cp, "raw": raw, "best": best})
    return {"scores": scores, "plies": judge_plies(moves, scores)}


def cmd_fsf(a):
    engine = Engine(a.binary)
    out = {"depth": a.depth, "engine": "Fairy-Stockfish", "games": {}}
    for name, _, moves in read_games_txt(os.path.join(HERE, "games.txt")):
        t = time.time()
        out["games"][name] = fsf_game(engine, moves, a.depth)
        print(f"{name}: {len(moves)} plies, {time.time() - t:.1f} s", file=sys.stderr)
    with open(os.path.join(HERE, f"fsf-depth-{a.depth}.json"), "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")


def cmd_select(a):
    """Blunders FSF at depth D finds in the first N self-play games (for README)."""
    engine = Engine(a.binary)
    with open(SELFPLAY) as f:
        lines = f.read().splitlines()[: a.first]
    for line in lines:
        words = line.split()
        moves = [w for w in words if "=" not in w]
        if len(moves) > a.max_plies:
            print(f"{words[0]} plies={len(moves)} skipped (longer than {a.max_plies})", flush=True)
            continue
        plies = fsf_game(engine, moves, a.depth)["plies"]
        random_plies = int(words[1].split("=")[1])
        blunders = [p["ply"] for p in plies if p["judgement"] == "blunder" and p["ply"] > random_plies]
        print(f"{words[0]} plies={len(moves)} blunders={len(blunders)} {blunders}", flush=True)


# --- ravenpost -----------------------------------------------------------------------

def cmd_annotate(a):
    folder = os.path.join(HERE, f"ravenpost-depth-{a.depth}")
    os.makedirs(folder, exist_ok=True)
    for name, _, moves in read_games_txt(os.path.join(HERE, "games.txt")):
        t = time.time()
        game = os.path.join(HERE, "games", name + ".pgn")
        out = subprocess.run([a.binary, "annotate", game, "--depth", str(a.depth), "--json"],
                             capture_output=True, text=True, check=True)
        data = json.loads(out.stdout)
        data["seconds"] = round(time.time() - t, 1)
        with open(os.path.join(folder, name + ".pgn"), "w") as f:
            f.write(data.pop("record"))
        with open(os.path.join(folder, name + ".json"), "w") as f:
            json.dump(data, f, indent=1)
            f.write("\n")
        print(f"{name}: {len(moves)} plies, {data['seconds']} s", file=sys.stderr)


# --- the comparison ------------------------------------------------------------------

def marks_in_pgn(path):
    """Plies whose move carries `??`, `?`, `?!` in the annotated record (main line only)."""
    with open(path) as f:
        text = f.read()
    body = text[text.index("\n\n"):]
    # Take out comments and variations (nested), keep the main line's tokens.
    out, depth_paren, in_comment = [], 0, False
    for ch in body:
        if in_comment:
            in_comment = ch != "}"
            continue
        if ch == "{":
            in_comment = True
        elif ch == "(":
            depth_paren += 1
        elif ch == ")":
            depth_paren -= 1
        elif depth_paren == 0:
            out.append(ch)
    marks, ply = {}, 0
    for token in "".join(out).split():
        if re.fullmatch(r"\d+\.(\.\.)?", token) or token in ("1-0", "0-1", "1/2-1/2", "*"):
            continue
        if token.startswith("$"):
            marks[ply] = {"$4": "??", "$2": "?", "$6": "?!"}.get(token, marks.get(ply))
            continue
        token = re.sub(r"^\d+\.(\.\.)?", "", token)
        ply += 1
        suffix = re.search(r"(\?\?|\?!|\?)$", token)
        if suffix:
            marks[ply] = suffix.group(1)
    return marks


def cmd_table(a):
    with open(os.path.join(HERE, f"fsf-depth-{a.depth}.json")) as f:
        fsf = json.load(f)["games"]
    folder = os.path.join(HERE, f"ravenpost-depth-{a.depth}")
    rows, totals = [], [0, 0, 0, 0, 0]
    detail = []
    for name, _, moves in read_games_txt(os.path.join(HERE, "games.txt")):
        with open(os.path.join(folder, name + ".json")) as f:
            rp = json.load(f)["plies"]
        marks = marks_in_pgn(os.path.join(folder, name + ".pgn"))
        json_marks = {p["ply"]: {"blunder": "??", "mistake": "?", "inaccuracy": "?!"}[p["judgement"]]
                      for p in rp if p["judgement"]}
        if marks != json_marks:
            raise SystemExit(f"{name}: the annotated record's marks differ from its JSON")
        fsf_b = [p["ply"] for p in fsf[name]["plies"] if p["judgement"] == "blunder"]
        rp_b = [ply for ply, m in marks.items() if m == "??"]
        both = [p for p in fsf_b if marks.get(p) == "??"]
        as_q = [p for p in fsf_b if marks.get(p) == "?"]
        missed = [p for p in fsf_b if marks.get(p) not in ("??", "?")]
        rows.append((name, len(moves), len(fsf_b), len(rp_b), len(both), len(as_q), len(missed)))
        for i, v in enumerate([len(fsf_b), len(rp_b), len(both), len(as_q), len(missed)]):
            totals[i] += v
        for p in fsf_b:
            fp, r = fsf[name]["plies"][p - 1], rp[p - 1]
            detail.append(f"{name} ply {p} {r['san']}: FSF {fp['before']:+} -> {fp['after']:+} "
                          f"(loss {fp['loss']:.2f}, best {fp['best']}); ravenpost "
                          f"{r['before'] if p % 2 else -r['before']:+} -> "
                          f"{r['after'] if p % 2 else -r['after']:+} (loss {r['loss']:.2f}, "
                          f"best {r['best']}) {marks.get(p, '-')}")
    head = ("game", "plies", "FSF ??", "ravenpost ??", "matched ??", "as ?", "missed")
    print(f"depth {a.depth}")
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for r in rows:
        print("| " + " | ".join(str(x) for x in r) + " |")
    print("| total | " + str(sum(r[1] for r in rows)) + " | " + " | ".join(str(t) for t in totals) + " |")
    if a.reference:
        reference_table(a, fsf, folder)
    if a.detail:
        print()
        print("FSF's blunders (scores in centipawns from the mover's view, clamped to +-1000):")
        for d in detail:
            print("  " + d)


def reference_table(a, fsf, folder):
    """The same, keeping only FSF's depth-D blunders that FSF at a deeper depth confirms."""
    with open(os.path.join(HERE, f"fsf-depth-{a.reference}.json")) as f:
        deep = json.load(f)["games"]
    print()
    print(f"FSF's depth-{a.depth} blunders that FSF at depth {a.reference} also calls blunders, "
          f"and ravenpost's depth-{a.depth} blunders that FSF at depth {a.reference} calls blunders")
    head = ("game", "FSF ??", "confirmed", "ravenpost ??", "matched ??", "as ?", "missed",
            f"ravenpost ?? FSF-{a.reference} agrees", "missed plies")
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    totals = [0] * 7
    for name, _, _ in read_games_txt(os.path.join(HERE, "games.txt")):
        marks = marks_in_pgn(os.path.join(folder, name + ".pgn"))
        blunders = lambda g: {p["ply"] for p in g[name]["plies"] if p["judgement"] == "blunder"}
        shallow, confirmed_all = blunders(fsf), blunders(deep)
        confirmed = sorted(shallow & confirmed_all)
        rp_b = {ply for ply, m in marks.items() if m == "??"}
        row = [len(shallow), len(confirmed), len(rp_b),
               sum(1 for p in confirmed if marks.get(p) == "??"),
               sum(1 for p in confirmed if marks.get(p) == "?"),
               sum(1 for p in confirmed if marks.get(p) not in ("??", "?")),
               len(rp_b & confirmed_all)]
        totals = [t + r for t, r in zip(totals, row)]
        missed = [p for p in confirmed if marks.get(p) not in ("??", "?")]
        print(f"| {name} | " + " | ".join(str(x) for x in row) + f" | {' '.join(map(str, missed))} |")
    print("| total | " + " | ".join(str(t) for t in totals) + " | |")
    scale(a, fsf, deep, folder)


def scale(a, fsf, deep, folder):
    """How ravenpost's centipawns compare with Fairy-Stockfish's, on the same positions."""
    rp, shallow, ref = [], [], []
    for name, _, _ in read_games_txt(os.path.join(HERE, "games.txt")):
        with open(os.path.join(folder, name + ".json")) as f:
            plies = json.load(f)["plies"]
        for i, p in enumerate(plies):
            mover = p["before"] if i % 2 == 0 else -p["before"]
            x, y = fsf[name]["plies"][i]["before"], deep[name]["plies"][i]["before"]
            if max(abs(mover), abs(x), abs(y)) < 900:
                rp.append(mover)
                shallow.append(x)
                ref.append(y)
    mean_abs = lambda xs: round(statistics.mean(abs(x) for x in xs))
    print()
    print(f"{len(rp)} positions scored within +-900 by all three: mean |score| ravenpost-{a.depth} "
          f"{mean_abs(rp)}, FSF-{a.depth} {mean_abs(shallow)}, FSF-{a.reference} {mean_abs(ref)}; "
          f"correlation with FSF-{a.reference}: ravenpost-{a.depth} "
          f"{statistics.correlation(rp, ref):.2f}, FSF-{a.depth} {statistics.correlation(shallow, ref):.2f}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    g = sub.add_parser("games")
    g.add_argument("binary")
    f = sub.add_parser("fsf")
    f.add_argument("binary")
    f.add_argument("--depth", type=int, required=True)
    s = sub.add_parser("select")
    s.add_argument("binary")
    s.add_argument("--depth", type=int, required=True)
    s.add_argument("--first", type=int, default=40)
    s.add_argument("--max-plies", type=int, default=120)
    n = sub.add_parser("annotate")
    n.add_argument("binary")
    n.add_argument("--depth", type=int, required=True)
    t = sub.add_parser("table")
    t.add_argument("--depth", type=int, required=True)
    t.add_argument("--detail", action="store_true")
    t.add_argument("--reference", type=int, help="a deeper FSF run (fsf-depth-R.json) to confirm FSF's blunders")
    a = ap.parse_args()
    {"games": cmd_games, "fsf": cmd_fsf, "select": cmd_select, "annotate": cmd_annotate, "table": cmd_table}[a.cmd](a)


if __name__ == "__main__":
    main()
