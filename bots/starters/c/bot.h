/* The bot's mind, shared by both transports: one line from the referee in, the reply out. */
#ifndef BOT_H
#define BOT_H

/* The reply to `line` (a request), or NULL for an information line. `line` has no newline.
 * The reply lives until the next call. */
const char *bot_reply(const char *line);

/* Whether `line` is BYE: exit now, with code 0 (protocols/README.md). */
int is_bye(const char *line);

#endif
