/* The Game Extreme's turn check: which cards may go on which pile, with the commands.
 *
 * Rulings X1-X10 are those of docs/rules.md, section "The Game Extreme"; the referee's
 * own engine is referee/games/thegame/rules.py.
 * protocols/thegame-vectors.jsonl holds the referee's verdicts on ~1000 turns; `make test`
 * runs this checker over them (tests/starters/test_c_turn_check.py does it in CI). */
#ifndef TURN_CHECK_H
#define TURN_CHECK_H

enum { PILES = 4, MAX_HAND = 8, LOWEST = 2, HIGHEST = 99 };

enum command { PLAIN, STOP, SKULL, THREE, NOTALK, NOREVERSE, ONEPILE, DRAWONE };

/* Why a turn is illegal; LEGAL when it is not. The order matches the referee's checks. */
enum breach {
    LEGAL, AFTER_STOP, THREE_FULL, NOT_IN_HAND, WRONG_DIRECTION, NO_REVERSE, ONE_PILE,
    THREE_TOO_LATE, STOP_UNDER_THREE, EMPTY, THREE_SHORT, TOO_FEW, SKULL_SHOWING
};

/* What the active bot knows when TURN? comes. */
struct position {
    enum command command_of[101]; /* by card number, from the COMMANDS line (all PLAIN if off) */
    int tops[PILES];              /* a b c d: 1 or 100 for an empty pile */
    int hand[MAX_HAND];
    int hand_size;
    int draw;                     /* cards in the draw pile */
    int others_cards;             /* cards in the other hands: 0 may make this the last turn */
};

struct placement { int pile; int card; }; /* pile 0..3 for a..d */

/* The first rule `turn` breaks here, or LEGAL. *card_no is set to the 1-based card that
 * breaks it, or 0 when the turn as a whole does (too few cards, a skull left showing). */
enum breach check_turn(const struct position *pos, const struct placement *turn, int n,
                       int *card_no);

/* A legal turn into `turn` (X1: the referee asks only when one exists); returns its
 * length, 0 if there is none. */
int find_turn(const struct position *pos, struct placement *turn);

/* "stop=3,39,56,92 skull=..." (the COMMANDS line without its keyword) into command_of. */
void parse_commands(const char *text, enum command command_of[101]);

const char *breach_name(enum breach b);

#endif
