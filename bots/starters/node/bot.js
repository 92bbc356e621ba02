// The smallest correct bot for Rage and The Game Extreme in Node, over ZeroMQ (the `zeromq`
// npm package). Rage: the first listed bid and play (protocols/rage.md: every listed word is
// legal). The Game: no hints, and a legal turn found by a search under the rules of
// docs/rules.md (rulings X2-X8; the full commented check is the C kit's turn_check.c).
"use strict";
const zmq = require("zeromq");

let game = {};

const cmd = (card) => game.command.get(card) || "";
const showing = (w, c) => w.tops.some((top) => cmd(top) === c);

// One placement, against the commands showing just before it (X2).
function mayPlace(w, pile, card) {
  if (w.stopped || (w.three && w.count >= 3)) return false; // Stop; X8
  const up = pile < 2, top = w.tops[pile], back = card === (up ? top - 10 : top + 10);
  if (!back && !(up ? card > top : card < top)) return false;
  if (back && showing(w, "noreverse")) return false; // X2
  if (w.count && pile !== w.lastPile && showing(w, "onepile")) return false; // X3
  if (cmd(card) === "three" && w.count >= 3) return false; // X8
  return !(cmd(card) === "stop" && w.three && w.count !== 2);
}

// The turn may end here: count (X5), 3! (X8), skulls (X6, X7, the game's last turn).
function mayEnd(w) {
  if (w.count === 0 || (w.three && w.count !== 3)) return false;
  if (w.count < (game.draw > 0 ? 2 : 1) && !w.stopped) return false;
  return !w.skulls || (game.draw === 0 && game.others === 0 && w.left.length === 0);
}

function search(w, turn) {
  if (mayEnd(w)) return true;
  for (const card of w.left)
    for (let pile = 0; pile < 4; pile++) {
      if (!mayPlace(w, pile, card)) continue;
      const c = cmd(card), tops = [...w.tops];
      tops[pile] = card;
      turn.push(`${"abcd"[pile]}:${card}`);
      if (search({ tops, left: w.left.filter((x) => x !== card), count: w.count + 1,
                   three: w.three || c === "three", stopped: c === "stop", lastPile: pile,
                   skulls: c === "skull" ? w.skulls | (1 << pile) : w.skulls & ~(1 << pile) },
                 turn)) return true;
      turn.pop();
    }
  return false;
}

const settings = (words) =>
  Object.fromEntries(words.filter((w) => w.includes("=")).map((w) => [w.split("=")[0], Number(w.split("=")[1])]));

// The reply to a request, or null for an information line.
function reply(line) {
  const words = line.split(" ");
  const s = settings(words);
  switch (words[0]) {
    case "GAME":
      game = { seat: s.seat, command: new Map(), hand: [], held: Array(s.players).fill(s.hand || 0) };
      break;
    case "COMMANDS":
      for (const [name, cards] of words.slice(1).map((w) => w.split("=")))
        for (const n of cards.split(",")) game.command.set(Number(n), name);
      break;
    case "HAND":
      game.hand = [];
    // falls through: a DRAW adds cards the same way
    case "DRAW":
      game.hand.push(...words.slice(1).map(Number).filter((n) => n > 0));
      break;
    case "TURNED":
      for (const word of words.slice(2)) {
        game.held[Number(words[1])]--;
        if (Number(words[1]) === game.seat) game.hand = game.hand.filter((c) => c !== Number(word.slice(2)));
      }
      break;
    case "DREW":
      game.held[Number(words[1])] += Number(words[2]);
      break;
    case "BID?":
    case "PLAY?":
      return words[1];
    case "HINTS?":
      return "none";
    case "TURN?": {
      game.draw = s.draw;
      game.others = game.held.reduce((sum, n, seat) => sum + (seat === game.seat ? 0 : n), 0);
      const turn = [];
      search({ tops: [s.a, s.b, s.c, s.d], left: game.hand, count: 0, three: false, stopped: false, lastPile: -1, skulls: 0 }, turn);
      return turn.join(" ");
    }
  }
  return null;
}

async function main() {
  const socket = new zmq.Dealer({ linger: 0 });
  socket.connect(process.env.REFEREE_ENDPOINT);
  await socket.send(`HELLO 2 ${process.env.REFEREE_TOKEN} starter-node 1.0`);
  for await (const [frame] of socket) {
    for (const line of frame.toString().split("\n")) { // a frame holds lines joined by \n
      if (line === "BYE") { socket.close(); return; }
      const answer = reply(line);
      if (answer !== null) await socket.send(answer);
    }
  }
}

main();
