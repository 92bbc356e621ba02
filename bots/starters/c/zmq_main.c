/* The bot over ZeroMQ (libzmq): a DEALER connected to REFEREE_ENDPOINT. A frame from the
 * referee holds one or more lines joined by \n; each reply is a frame of its own. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zmq.h>

#include "bot.h"

static void send_line(void *socket, const char *line) {
    zmq_send(socket, line, strlen(line), 0);
}

int main(void) {
    const char *endpoint = getenv("REFEREE_ENDPOINT");
    const char *token = getenv("REFEREE_TOKEN");
    if (!endpoint || !token) {
        fprintf(stderr, "run me from the referee: REFEREE_ENDPOINT and REFEREE_TOKEN are unset\n");
        return 2;
    }
    void *context = zmq_ctx_new();
    void *socket = zmq_socket(context, ZMQ_DEALER);
    int linger = 0;
    zmq_setsockopt(socket, ZMQ_LINGER, &linger, sizeof linger);
    if (zmq_connect(socket, endpoint) != 0) {
        fprintf(stderr, "cannot connect to %s: %s\n", endpoint, zmq_strerror(zmq_errno()));
        return 1;
    }
    char hello[128];
    snprintf(hello, sizeof hello, "HELLO 2 %s starter-c-zmq 1.0", token);
    send_line(socket, hello);
    static char frame[65536];
    for (;;) {
        int size = zmq_recv(socket, frame, sizeof frame - 1, 0);
        if (size < 0) return 1;
        if (size > (int)sizeof frame - 1) size = sizeof frame - 1; /* zmq_recv truncated it */
        frame[size] = '\0';
        for (char *line = strtok(frame, "\n"); line; line = strtok(NULL, "\n")) {
            if (is_bye(line)) {
                zmq_close(socket);
                zmq_ctx_term(context);
                return 0;
            }
            const char *reply = bot_reply(line);
            if (reply) send_line(socket, reply);
        }
    }
}
