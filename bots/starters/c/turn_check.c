/* The Game Extreme's turn check; see turn_check.h. Each rule names its ruling in
 * docs/rules.md ("The Game Extreme"), the same checks as referee/games/thegame/rules.py. */
#include "turn_check.h"

#include <stdlib.h>
#include <string.h>

/* One turn in progress: what the cards so far have done. */
struct walk {
    int tops[PILES];
    int left[MAX_HAND]; /* 1 while hand[i] is not played yet */
    int count;          /* cards placed so far */
    int three;          /* a 3! was played: the turn has exactly 3 cards (X8) */
    int stopped;        /* a Stop was played: the turn is over */
    int last_pile;
    int skulls;         /* bit per pile where a skull played this turn shows (X6) */
};

static int ascending(int pile) { return pile < 2; } /* a, b ascend from 1; c, d descend from 100 */

static int forward(int pile, int top, int card) { return ascending(pile) ? card > top : card < top; }

/* The reverse trick: exactly 10 back. */
static int reverse(int pile, int top, int card) {
    return card == (ascending(pile) ? top - 10 : top + 10);
}

/* Infinity commands bind while their card shows on top of a pile (docs/rules.md). */
static int showing(const struct position *pos, const struct walk *w, enum command c) {
    for (int p = 0; p < PILES; p++)
        if (pos->command_of[w->tops[p]] == c) return 1;
    return 0;
}

static int hand_index(const struct position *pos, const struct walk *w, int card) {
    for (int i = 0; i < pos->hand_size; i++)
        if (pos->hand[i] == card && w->left[i]) return i;
    return -1;
}

/* One placement, against the commands showing just before it (X2). */
static enum breach placement_breach(const struct position *pos, const struct walk *w,
                                    int pile, int card) {
    if (w->stopped) return AFTER_STOP;                     /* Stop: the turn ends there */
    if (w->three && w->count >= 3) return THREE_FULL;      /* X8: exactly 3 cards */
    if (pile < 0 || pile >= PILES || hand_index(pos, w, card) < 0) return NOT_IN_HAND;
    int top = w->tops[pile];
    int back = reverse(pile, top, card);
    if (!back && !forward(pile, top, card)) return WRONG_DIRECTION;
    /* X2: a No reverse binds until covered, so the card covering it may not reverse */
    if (back && showing(pos, w, NOREVERSE)) return NO_REVERSE;
    /* One pile; X3: appearing mid-turn, it binds later cards to the pile before them */
    if (w->count && pile != w->last_pile && showing(pos, w, ONEPILE)) return ONE_PILE;
    enum command c = pos->command_of[card];
    if (c == THREE && w->count >= 3) return THREE_TOO_LATE;           /* X8 */
    if (c == STOP && w->three && w->count != 2) return STOP_UNDER_THREE; /* Stop: 3rd card only */
    return LEGAL;
}

static void place(const struct position *pos, struct walk *w, int pile, int card) {
    enum command c = pos->command_of[card];
    w->left[hand_index(pos, w, card)] = 0;
    w->tops[pile] = card;
    w->count++;
    w->three |= c == THREE;
    w->stopped = c == STOP;
    w->last_pile = pile;
    if (c == SKULL) w->skulls |= 1 << pile; else w->skulls &= ~(1 << pile);
}

/* The turn ends here: count, 3!, skulls. */
static enum breach end_breach(const struct position *pos, const struct walk *w) {
    if (w->count == 0) return EMPTY;
    if (w->three && w->count != 3) return THREE_SHORT;                 /* X8 */
    int min = pos->draw > 0 ? 2 : 1;
    if (w->count < min && !w->stopped) return TOO_FEW;     /* X5: only an opening Stop escapes */
    if (w->skulls) {
        /* Skull, X6, X7: no skull of this turn may show at its end, Stop or not, except
         * when this turn puts down the game's last card (the game is then lost). */
        int last_turn = pos->draw == 0 && pos->others_cards == 0;
        int hand_left = 0;
        for (int i = 0; i < pos->hand_size; i++) hand_left += w->left[i];
        if (!(last_turn && hand_left == 0)) return SKULL_SHOWING;
    }
    return LEGAL;
}

static void start(const struct position *pos, struct walk *w) {
    memset(w, 0, sizeof *w);
    memcpy(w->tops, pos->tops, sizeof w->tops);
    for (int i = 0; i < pos->hand_size; i++) w->left[i] = 1;
    w->last_pile = -1;
}

enum breach check_turn(const struct position *pos, const struct placement *turn, int n,
                       int *card_no) {
    struct walk w;
    start(pos, &w);
    for (int i = 0; i < n; i++) {
        enum breach b = placement_breach(pos, &w, turn[i].pile, turn[i].card);
        if (b != LEGAL) { *card_no = i + 1; return b; }
        place(pos, &w, turn[i].pile, turn[i].card);
    }
    *card_no = 0;
    return end_breach(pos, &w);
}

/* Depth-first over legal placements; a turn that may end here ends here. Returns the
 * turn's length, 0 if no legal turn starts with the cards placed so far. */
static int search(const struct position *pos, const struct walk *w, struct placement *turn) {
    if (end_breach(pos, w) == LEGAL) return w->count;
    if (w->stopped || (w->three && w->count >= 3)) return 0;
    for (int i = 0; i < pos->hand_size; i++) {
        if (!w->left[i]) continue;
        for (int p = 0; p < PILES; p++) {
            if (placement_breach(pos, w, p, pos->hand[i]) != LEGAL) continue;
            struct walk next = *w;
            place(pos, &next, p, pos->hand[i]);
            turn[w->count].pile = p;
            turn[w->count].card = pos->hand[i];
            int length = search(pos, &next, turn);
            if (length) return length;
        }
    }
    return 0;
}

int find_turn(const struct position *pos, struct placement *turn) {
    struct walk w;
    start(pos, &w);
    return search(pos, &w, turn);
}

void parse_commands(const char *text, enum command command_of[101]) {
    static const char *names[] = {"", "stop", "skull", "three", "notalk", "noreverse",
                                  "onepile", "drawone"};
    for (int i = 0; i <= 100; i++) command_of[i] = PLAIN;
    const char *word = text;
    while (*word) {
        while (*word == ' ') word++;
        const char *eq = strchr(word, '=');
        if (!eq) return;
        for (int c = STOP; c <= DRAWONE; c++) {
            if ((size_t)(eq - word) != strlen(names[c]) || strncmp(word, names[c], eq - word))
                continue;
            const char *num = eq + 1;
            for (;;) {
                int card = atoi(num);
                if (card >= LOWEST && card <= HIGHEST) command_of[card] = (enum command)c;
                num += strspn(num, "0123456789");
                if (*num != ',') break;
                num++;
            }
        }
        word = eq + strcspn(eq, " ");
    }
}

const char *breach_name(enum breach b) {
    static const char *names[] = {"legal", "after-stop", "three-full", "not-in-hand",
        "wrong-direction", "no-reverse", "one-pile", "three-too-late", "stop-under-three",
        "empty", "three-short", "too-few", "skull-showing"};
    return names[b];
}
