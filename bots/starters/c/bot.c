/* The smallest correct bot for Rage and The Game Extreme (protocols/rage.md,
 * protocols/thegame.md): the first listed bid and play in Rage; in The Game no hints, and a
 * legal turn found by turn_check.c. */
#include "bot.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "turn_check.h"

enum { MAX_SEATS = 5, REPLY_SIZE = 4096 };

static struct {
    int seat;
    int players;
    struct position pos;         /* hand, commands; tops and draw come with each TURN? */
    int cards_held[MAX_SEATS];   /* per seat: to know when a turn may be the game's last */
} game;

static char reply[REPLY_SIZE];

static int starts(const char *line, const char *word) {
    size_t n = strlen(word);
    return strncmp(line, word, n) == 0 && (line[n] == ' ' || line[n] == '\0');
}

/* The number after `key=` in a line of key=value words, or -1. */
static int setting(const char *line, const char *key) {
    char pattern[32];
    snprintf(pattern, sizeof pattern, " %s=", key);
    const char *at = strstr(line, pattern);
    return at ? atoi(at + strlen(pattern)) : -1;
}

/* The first word after the keyword: the first listed bid or play (rage.md: all are legal). */
static const char *first_option(const char *line) {
    const char *word = strchr(line, ' ');
    if (!word) return "";
    snprintf(reply, sizeof reply, "%.*s", (int)strcspn(word + 1, " "), word + 1);
    return reply;
}

static void new_game(const char *line) {
    memset(&game, 0, sizeof game);
    game.seat = setting(line, "seat");
    game.players = setting(line, "players");
    int hand = setting(line, "hand"); /* The Game only */
    for (int s = 0; s < MAX_SEATS; s++) game.cards_held[s] = s < game.players ? hand : 0;
    parse_commands("", game.pos.command_of); /* commands=off until a COMMANDS line */
}

/* The cards after the keyword, added to the hand (HAND, DRAW). */
static void take_cards(const char *line) {
    for (const char *p = strchr(line, ' '); p && game.pos.hand_size < MAX_HAND; p = strchr(p + 1, ' '))
        game.pos.hand[game.pos.hand_size++] = atoi(p + 1);
}

/* TURNED s a:37 c:92: s no longer holds those cards. */
static void turned(const char *line) {
    int seat = atoi(line + strlen("TURNED "));
    for (const char *p = strchr(line, ':'); p; p = strchr(p + 1, ':')) {
        int card = atoi(p + 1);
        if (seat >= 0 && seat < MAX_SEATS) game.cards_held[seat]--;
        if (seat != game.seat) continue;
        for (int i = 0; i < game.pos.hand_size; i++)
            if (game.pos.hand[i] == card) {
                game.pos.hand[i] = game.pos.hand[--game.pos.hand_size];
                break;
            }
    }
}

static const char *turn(const char *line) {
    static const char *names[PILES] = {"a", "b", "c", "d"};
    for (int p = 0; p < PILES; p++) game.pos.tops[p] = setting(line, names[p]);
    game.pos.draw = setting(line, "draw");
    game.pos.others_cards = 0;
    for (int s = 0; s < MAX_SEATS; s++)
        if (s != game.seat) game.pos.others_cards += game.cards_held[s];
    struct placement placements[MAX_HAND];
    int n = find_turn(&game.pos, placements);
    size_t used = 0;
    reply[0] = '\0';
    for (int i = 0; i < n; i++)
        used += snprintf(reply + used, sizeof reply - used, "%s%s:%d", i ? " " : "",
                         names[placements[i].pile], placements[i].card);
    return reply;
}

int is_bye(const char *line) { return strcmp(line, "BYE") == 0; }

const char *bot_reply(const char *line) {
    if (starts(line, "GAME")) new_game(line);
    else if (starts(line, "COMMANDS")) parse_commands(line + strlen("COMMANDS "), game.pos.command_of);
    else if (starts(line, "HAND") || starts(line, "DRAW")) {
        if (starts(line, "HAND")) game.pos.hand_size = 0; /* Rage's hands too: unused there */
        take_cards(line);
    }
    else if (starts(line, "TURNED")) turned(line);
    else if (starts(line, "DREW")) {
        int seat, count;
        if (sscanf(line, "DREW %d %d", &seat, &count) == 2 && seat >= 0 && seat < MAX_SEATS)
            game.cards_held[seat] += count;
    }
    else if (starts(line, "BID?") || starts(line, "PLAY?")) return first_option(line);
    else if (starts(line, "HINTS?")) return "none";
    else if (starts(line, "TURN?")) return turn(line);
    return NULL;
}
