/* The bot over stdio (run it as `stdio:./bot-stdio`): lines on standard input and output. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bot.h"

int main(void) {
    const char *token = getenv("REFEREE_TOKEN");
    printf("HELLO 2 %s starter-c-stdio 1.0\n", token ? token : "");
    fflush(stdout);
    static char line[8192];
    while (fgets(line, sizeof line, stdin)) {
        line[strcspn(line, "\r\n")] = '\0';
        if (is_bye(line)) return 0;
        const char *reply = bot_reply(line);
        if (reply) {
            printf("%s\n", reply);
            fflush(stdout); /* the referee waits for this line */
        }
    }
    return 0;
}
