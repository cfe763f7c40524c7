#!/usr/bin/env python3
"""Grand Chess games played by Fairy-Stockfish against itself, for the validate benchmark.

Usage: generate.py STOCKFISH_BINARY [GAMES] > games.txt

Talks UCI to one Fairy-Stockfish process (Threads 1, Hash 16 MB, UCI_Variant grand).
Each game starts with 2 to 7 random legal plies (Python's random module, seeded with
the game's number; the legal moves are those of `go perft 1`), then Fairy-Stockfish
plays both sides with `go nodes NODES` until the side to move has no legal move
(`bestmove (none)`), a position occurs the third time, the halfmove clock reaches 100
(both read from the `d` command: its `Key:` and `Fen:` lines) or MAX_PLIES plies are
played. One line per game: `game=N random=R end=REASON` and the moves, in UCI
coordinates (from square, to square, promotion letter), separated by spaces.
"""

import random
import subprocess
import sys

NODES = 3000
MAX_PLIES = 300


class Engine:
    def __init__(self, path):
        self.p = subprocess.Popen([path], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
        self.send("uci")
        self.until("uciok")
        for name, value in [("Threads", "1"), ("Hash", "16"), ("UCI_Variant", "grand")]:
            self.send(f"setoption name {name} value {value}")
        self.send("isready")
        self.until("readyok")

    def send(self, line):
        self.p.stdin.write(line + "\n")

    def until(self, prefix):
        lines = []
        while True:
            line = self.p.stdout.readline()
            if not line:
                raise SystemExit("Fairy-Stockfish ended")
            line = line.rstrip("\n")
            lines.append(line)
            if line.startswith(prefix):
                return lines

    def position(self, moves):
        self.send("position startpos" + (" moves " + " ".join(moves) if moves else ""))

    def legal(self):
        self.send("go perft 1")
        lines = self.until("Nodes searched")
        return [line.split(":")[0] for line in lines if ": " in line and not line.startswith("Nodes")]

    def state(self):
        """The position's key and halfmove clock."""
        self.send("d")
        key, clock = None, None
        for line in self.until("Chased"):
            if line.startswith("Key: "):
                key = line[5:]
            elif line.startswith("Fen: "):
                clock = int(line.split()[-2])
        return key, clock

    def best(self):
        self.send(f"go nodes {NODES}")
        return self.until("bestmove")[-1].split()[1]


def play(engine, n):
    rng = random.Random(n)
    randoms = rng.randint(2, 7)
    moves = []
    seen = {}
    while True:
        engine.position(moves)
        key, clock = engine.state()
        seen[key] = seen.get(key, 0) + 1
        if seen[key] >= 3:
            return randoms, "repetition", moves
        if clock >= 100:
            return randoms, "fifty-moves", moves
        if len(moves) >= MAX_PLIES:
            return randoms, "ply-limit", moves
        if len(moves) < randoms:
            legal = engine.legal()
            if not legal:
                return randoms, "no-legal-move", moves
            moves.append(rng.choice(sorted(legal)))
            continue
        best = engine.best()
        if best == "(none)":
            return randoms, "no-legal-move", moves
        moves.append(best)


def main():
    engine = Engine(sys.argv[1])
    games = int(sys.argv[2]) if len(sys.argv) > 2 else 320
    for n in range(games):
        randoms, end, moves = play(engine, n)
        print(f"game={n} random={randoms} end={end} " + " ".join(moves), flush=True)
    engine.send("quit")


if __name__ == "__main__":
    main()
