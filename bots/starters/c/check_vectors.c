/* Runs turn_check.c over protocols/thegame-vectors.jsonl (read from standard input) and
 * compares each verdict, and the card it blames, with the referee's; where the referee
 * found a turn legal, find_turn must find a legal turn too. Prints each disagreement;
 * exit 0 only when there is none. `make test` runs it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "turn_check.h"

/* The text of the string field `key` (no escapes occur in this file), or "". */
static void string_field(const char *line, const char *key, char *out, size_t size) {
    char pattern[64];
    snprintf(pattern, sizeof pattern, "\"%s\": \"", key);
    const char *at = strstr(line, pattern);
    out[0] = '\0';
    if (at) snprintf(out, size, "%.*s", (int)strcspn(at + strlen(pattern), "\""), at + strlen(pattern));
}

static const char *after(const char *line, const char *key) {
    char pattern[64];
    snprintf(pattern, sizeof pattern, "\"%s\": ", key);
    const char *at = strstr(line, pattern);
    return at ? at + strlen(pattern) : NULL;
}

static int setting(const char *text, const char *key) {
    char pattern[16];
    snprintf(pattern, sizeof pattern, " %s=", key);
    const char *at = strstr(text, pattern);
    return at ? atoi(at + strlen(pattern)) : -1;
}

int main(void) {
    static char line[16384], commands[1024], request[256], turn_text[256], verdict[16];
    int total = 0, wrong = 0;
    while (fgets(line, sizeof line, stdin)) {
        struct position pos;
        memset(&pos, 0, sizeof pos);
        string_field(line, "commands", commands, sizeof commands);
        parse_commands(strcmp(commands, "off") ? commands : "", pos.command_of);
        string_field(line, "request", request, sizeof request);
        const char *names[PILES] = {"a", "b", "c", "d"};
        for (int p = 0; p < PILES; p++) pos.tops[p] = setting(request, names[p]);
        pos.draw = setting(request, "draw");
        const char *hand = after(line, "hand");
        for (const char *p = hand + 1; *p != ']' && pos.hand_size < MAX_HAND; p += strcspn(p, ",]"), p += *p == ',') 
            pos.hand[pos.hand_size++] = atoi(p);
        pos.others_cards = atoi(after(line, "others_cards"));
        string_field(line, "turn", turn_text, sizeof turn_text);
        struct placement turn[16];
        int n = 0;
        for (char *word = strtok(turn_text, " "); word && n < 16; word = strtok(NULL, " "))
            turn[n++] = (struct placement){word[0] - 'a', atoi(word + 2)};
        string_field(line, "verdict", verdict, sizeof verdict);
        const char *card = after(line, "card");
        int expected_card = card && strncmp(card, "null", 4) ? atoi(card) : -1;
        int card_no;
        enum breach b = check_turn(&pos, turn, n, &card_no);
        int agrees = strcmp(verdict, "legal") == 0 ? b == LEGAL
                                                   : b != LEGAL && card_no == expected_card;
        if (agrees && b == LEGAL) { /* a legal turn exists here: the search must find one */
            struct placement found[MAX_HAND];
            int length = find_turn(&pos, found);
            agrees = length > 0 && check_turn(&pos, found, length, &card_no) == LEGAL;
        }
        total++;
        if (!agrees) {
            wrong++;
            printf("disagree: %s says %s at card %d\n  %s", breach_name(b), verdict, card_no, line);
        }
    }
    printf("%d vectors, %d disagreements\n", total, wrong);
    return wrong || !total;
}
