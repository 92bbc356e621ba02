// The smallest correct bot for Rage and The Game Extreme in C++, over ZeroMQ (libzmq's C API).
// Rage: the first listed bid and play (protocols/rage.md: every listed word is legal).
// The Game: no hints, and a legal turn found by a search under the rules of docs/rules.md
// (rulings X2-X8; the full commented check is the C kit's turn_check.c).
#include <zmq.h>

#include <cstdlib>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace {

struct Placement { int pile, card; };

struct Walk {
    int tops[4];
    std::vector<int> left;  // cards not played yet
    int count = 0, last_pile = -1, skulls = 0;
    bool three = false, stopped = false;
};

struct TheGame {
    int seat = 0;
    std::map<int, std::string> command;  // card -> command, from COMMANDS
    std::vector<int> hand;
    std::map<int, int> held;  // seat -> cards in hand
    int draw = 0, others = 0;

    std::string cmd(int card) const { auto it = command.find(card); return it == command.end() ? "" : it->second; }
    bool showing(const Walk& w, const std::string& c) const {
        for (int top : w.tops) if (cmd(top) == c) return true;
        return false;
    }
    // One placement, against the commands showing just before it (X2).
    bool may_place(const Walk& w, int pile, int card) const {
        if (w.stopped || (w.three && w.count >= 3)) return false;  // Stop; X8
        bool up = pile < 2, back = card == (up ? w.tops[pile] - 10 : w.tops[pile] + 10);
        if (!back && !(up ? card > w.tops[pile] : card < w.tops[pile])) return false;
        if (back && showing(w, "noreverse")) return false;  // X2
        if (w.count && pile != w.last_pile && showing(w, "onepile")) return false;  // X3
        if (cmd(card) == "three" && w.count >= 3) return false;  // X8
        return !(cmd(card) == "stop" && w.three && w.count != 2);
    }
    // The turn may end here: count (X5), 3! (X8), skulls (X6, X7, the last turn).
    bool may_end(const Walk& w) const {
        if (w.count == 0 || (w.three && w.count != 3)) return false;
        if (w.count < (draw > 0 ? 2 : 1) && !w.stopped) return false;
        return !w.skulls || (draw == 0 && others == 0 && w.left.empty());
    }
    bool search(const Walk& w, std::vector<Placement>& turn) const {
        if (may_end(w)) return true;
        for (size_t i = 0; i < w.left.size(); i++)
            for (int pile = 0; pile < 4; pile++) {
                int card = w.left[i];
                if (!may_place(w, pile, card)) continue;
                Walk next = w;
                next.left.erase(next.left.begin() + i);
                next.tops[pile] = card;
                next.count++;
                next.three |= cmd(card) == "three";
                next.stopped = cmd(card) == "stop";
                next.last_pile = pile;
                next.skulls = cmd(card) == "skull" ? w.skulls | 1 << pile : w.skulls & ~(1 << pile);
                turn.push_back({pile, card});
                if (search(next, turn)) return true;
                turn.pop_back();
            }
        return false;
    }
};

std::map<std::string, int> settings(std::istringstream& words) {
    std::map<std::string, int> out;
    std::string word;
    while (words >> word)
        if (auto eq = word.find('='); eq != std::string::npos) out[word.substr(0, eq)] = std::atoi(word.c_str() + eq + 1);
    return out;
}

TheGame game;

// The reply to a request, or "" for an information line.
std::string reply_to(const std::string& line) {
    std::istringstream words(line);
    std::string keyword, word;
    words >> keyword;
    if (keyword == "GAME") {
        auto s = settings(words);
        game = TheGame{};
        game.seat = s["seat"];
        for (int seat = 0; seat < s["players"]; seat++) game.held[seat] = s["hand"];
    } else if (keyword == "COMMANDS") {
        while (words >> word) {
            std::string name = word.substr(0, word.find('=')), cards = word.substr(word.find('=') + 1);
            std::istringstream numbers(cards);
            for (std::string n; std::getline(numbers, n, ',');) game.command[std::stoi(n)] = name;
        }
    } else if (keyword == "HAND" || keyword == "DRAW") {
        if (keyword == "HAND") game.hand.clear();
        for (int card; words >> word;) if ((card = std::atoi(word.c_str())) > 0) game.hand.push_back(card);
    } else if (keyword == "TURNED") {
        int seat;
        words >> seat;
        while (words >> word) {
            int card = std::atoi(word.c_str() + 2);
            game.held[seat]--;
            for (size_t i = 0; seat == game.seat && i < game.hand.size(); i++)
                if (game.hand[i] == card) { game.hand.erase(game.hand.begin() + i); break; }
        }
    } else if (keyword == "DREW") {
        int seat, count;
        words >> seat >> count;
        game.held[seat] += count;
    } else if (keyword == "BID?" || keyword == "PLAY?") {
        words >> word;
        return word;
    } else if (keyword == "HINTS?") {
        return "none";
    } else if (keyword == "TURN?") {
        auto s = settings(words);
        Walk start;
        const char* names[] = {"a", "b", "c", "d"};
        for (int p = 0; p < 4; p++) start.tops[p] = s[names[p]];
        start.left = game.hand;
        game.draw = s["draw"];
        game.others = 0;
        for (auto [seat, count] : game.held) if (seat != game.seat) game.others += count;
        std::vector<Placement> turn;
        game.search(start, turn);
        std::string out;
        for (auto [pile, card] : turn) out += (out.empty() ? "" : " ") + std::string(1, "abcd"[pile]) + ":" + std::to_string(card);
        return out;
    }
    return "";
}

void send(void* socket, const std::string& line) { zmq_send(socket, line.data(), line.size(), 0); }

}  // namespace

int main() {
    const char* endpoint = std::getenv("REFEREE_ENDPOINT");
    const char* token = std::getenv("REFEREE_TOKEN");
    if (!endpoint || !token) { std::cerr << "run me from the referee\n"; return 2; }
    void* context = zmq_ctx_new();
    void* socket = zmq_socket(context, ZMQ_DEALER);
    int linger = 0;
    zmq_setsockopt(socket, ZMQ_LINGER, &linger, sizeof linger);
    zmq_connect(socket, endpoint);
    send(socket, std::string("HELLO 2 ") + token + " starter-cpp 1.0");
    std::vector<char> frame(65536);
    for (;;) {
        int size = zmq_recv(socket, frame.data(), frame.size(), 0);
        if (size < 0) return 1;
        std::istringstream lines(std::string(frame.data(), std::min<size_t>(size, frame.size())));
        for (std::string line; std::getline(lines, line);) {  // a frame holds lines joined by \n
            if (line == "BYE") { zmq_close(socket); zmq_ctx_term(context); return 0; }
            if (auto reply = reply_to(line); !reply.empty()) send(socket, reply);
        }
    }
}
