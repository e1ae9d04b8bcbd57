"""Score each SGF of an arena report with GNU Go's own final_score (its dead-stone
estimate): python bench/scripts/gnugo_final_score.py REPORT_DIR."""

import glob
import re
import subprocess
import sys

files = sorted(glob.glob(sys.argv[1] + "/games/*.sgf"))
p = subprocess.Popen(
    ["/usr/games/gnugo", "--mode", "gtp", "--chinese-rules"],
    stdin=subprocess.PIPE,
    stdout=subprocess.PIPE,
    text=True,
)


def cmd(c):
    p.stdin.write(c + "\n")
    p.stdin.flush()
    out = []
    while True:
        line = p.stdout.readline()
        if line == "\n" and out:
            break
        out.append(line.strip())
    return " ".join(out)


agree = 0
ours_won = 0
rows = []
for f in files:
    text = open(f).read()
    re_ours = re.search(r"RE\[([^\]]*)\]", text).group(1)
    pb = re.search(r"PB\[([^\]]*)\]", text).group(1)
    mcts_black = pb.startswith("mcts")
    r = cmd(f"loadsgf {f}")
    cmd("komi 7.5")
    g = cmd("final_score").lstrip("= ").strip()
    winner_g = g[0]
    mcts_won_g = (winner_g == "B") == mcts_black
    rows.append((f.split("/")[-1], re_ours, g, mcts_won_g))
    agree += re_ours[0] == g[0]
    ours_won += mcts_won_g
cmd("quit")
for r in rows:
    print(*r)
print(
    f"games {len(rows)}; GNU Go's final_score agrees on the winner in {agree}; "
    f"mcts wins by GNU Go's count: {ours_won}"
)
