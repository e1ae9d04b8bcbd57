/* A Mattix engine in C that speaks UGI, in one file: a model for your own.
 *
 *   cc -O2 -o mattix_ugi examples/ugi/mattix_ugi.c
 *   banmen arena mattix -p mine="ugi:depth=2 ./mattix_ugi" -p d1=alphabeta:depth=1 --games 20
 *
 * What banmen sends (docs/YOUR_AI.md): "ugi" (answer "id ..." lines and "ugiok"),
 * "isready" ("readyok"), "uginewgame", then for every move
 * "position fen LAYOUT [SIDE] moves M1 M2 ..." and "go movetime MS" (or "go depth N"),
 * answered by "bestmove SQUARE". A layout lists the rows from the top, separated by '/',
 * the cells by ',': a piece's value, X for the chip, '.' for an empty square; SIDE is 1
 * (takes from the chip's row) or 2 (from its column). Squares are a column letter and a
 * row number from the top: "a1" is the top-left square.
 *
 * The engine looks two plies ahead: the piece it takes, less the best piece its opponent
 * can take in reply. ("go depth N" is read but this engine always looks two plies.)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXN 8
#define EMPTY (-1000)
#define CHIP (-2000)

static int n, cells[MAXN][MAXN], chip_r, chip_c, side;

/* the position from "LAYOUT [SIDE]" starting at text; returns 0 if it is not one */
static int read_layout(char *text) {
    int r = 0, c = 0;
    char *p = text;
    n = 0;
    side = 1;
    while (*p && *p != ' ' && *p != '\n') {
        if (*p == '/') { r++; c = 0; p++; continue; }
        if (*p == ',') { c++; p++; continue; }
        if (r >= MAXN || c >= MAXN) return 0;
        if (*p == 'X') { cells[r][c] = CHIP; chip_r = r; chip_c = c; p++; }
        else if (*p == '.') { cells[r][c] = EMPTY; p++; }
        else { cells[r][c] = (int)strtol(p, &p, 10); }
        if (c + 1 > n) n = c + 1;
    }
    if (r + 1 != n) return 0;
    while (*p == ' ') p++;
    if (*p == '1' || *p == '2') side = *p - '0';
    return 1;
}

/* the squares the side to move may take: (row, col) pairs into out; returns how many */
static int moves(int who, int out[][2]) {
    int k = 0;
    for (int i = 0; i < n; i++) {
        int r = who == 1 ? chip_r : i, c = who == 1 ? i : chip_c;
        if (cells[r][c] != EMPTY && cells[r][c] != CHIP) { out[k][0] = r; out[k][1] = c; k++; }
    }
    return k;
}

static void take(int r, int c) {  /* the chip goes to (r, c), whose piece is taken */
    cells[chip_r][chip_c] = EMPTY;
    cells[r][c] = CHIP;
    chip_r = r; chip_c = c;
    side = 3 - side;
}

static int play_name(const char *name) {  /* "c2": column letter, row from the top */
    int c = name[0] - 'a', r = atoi(name + 1) - 1;
    int list[MAXN][2], k = moves(side, list);
    for (int i = 0; i < k; i++)
        if (list[i][0] == r && list[i][1] == c) { take(r, c); return 1; }
    return 0;
}

static void best(char *out, size_t size) {
    int list[MAXN][2], k = moves(side, list), best_v = -100000, best_i = -1;
    for (int i = 0; i < k; i++) {
        int saved[MAXN][MAXN], sr = chip_r, sc = chip_c, ss = side;
        memcpy(saved, cells, sizeof cells);
        int gain = cells[list[i][0]][list[i][1]], reply = 0, rl[MAXN][2];
        take(list[i][0], list[i][1]);
        int m = moves(side, rl);
        for (int j = 0; j < m; j++) {
            int v = cells[rl[j][0]][rl[j][1]];
            if (j == 0 || v > reply) reply = v;
        }
        memcpy(cells, saved, sizeof cells);
        chip_r = sr; chip_c = sc; side = ss;
        if (gain - reply > best_v) { best_v = gain - reply; best_i = i; }
    }
    if (best_i < 0) snprintf(out, size, "none");
    else snprintf(out, size, "%c%d", 'a' + list[best_i][1], list[best_i][0] + 1);
}

int main(void) {
    char line[8192];
    setvbuf(stdout, NULL, _IOLBF, 0);
    while (fgets(line, sizeof line, stdin)) {
        if (!strncmp(line, "ugi", 3) && (line[3] == '\n' || line[3] == '\r' || !line[3])) {
            printf("id name mattix_ugi.c\nid author banmen's example\nugiok\n");
        } else if (!strncmp(line, "isready", 7)) {
            printf("readyok\n");
        } else if (!strncmp(line, "position fen ", 13)) {
            if (!read_layout(line + 13)) { printf("info string error: bad layout\n"); continue; }
            char *m = strstr(line, " moves ");
            if (m) {
                for (char *tok = strtok(m + 7, " \r\n"); tok; tok = strtok(NULL, " \r\n"))
                    if (!play_name(tok)) { printf("info string error: bad move %s\n", tok); break; }
            }
        } else if (!strncmp(line, "go", 2)) {
            char move[16];
            best(move, sizeof move);
            printf("bestmove %s\n", move);
        } else if (!strncmp(line, "quit", 4)) {
            return 0;
        }  /* uginewgame, setoption, stop, query: nothing to do here */
    }
    return 0;
}
