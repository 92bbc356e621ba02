"use strict";
// The Game's board for referee view (referee/games/thegame/board.py makes its states).
window.RefereeBoard = (function () {
  const COMMANDS = { stop: "Stop", skull: "Skull ☠", three: "3!", notalk: "No talking",
    noreverse: "No reverse", onepile: "One pile", drawone: "Draw one" };
  const SHORT = { stop: "stop", skull: "skull", three: "3!", notalk: "no talk",
    noreverse: "no rev", onepile: "1 pile", drawone: "draw 1" };
  const LIGHTNING = { stop: 1, skull: 1, three: 1 };

  function numberCard(h, value, commands) {
    const command = commands[String(value)];
    const node = h.h("span", "tg-card" + (command ? " cmd " + (LIGHTNING[command] ?
      "lightning" : "infinity") : ""), String(value));
    node.dataset.card = String(value);
    if (command) {
      node.title = COMMANDS[command];
      node.appendChild(h.h("span", "cmd-dot", SHORT[command]));
    }
    return node;
  }

  function piles(h, s, names, commands) {
    const row = h.h("div", "piles");
    s.p.forEach(([top, command], pile) => {
      const up = pile < 2;
      const box = h.h("div", "pile " + (up ? "up" : "down"));
      box.dataset.pile = names[pile];
      const placed = s.l.filter(([p]) => p === pile).map(([, c]) => c);
      if (placed.length) box.classList.add("fresh");
      h.add(box, h.h("div", "pile-name", names[pile] + (up ? " ↑ from 1" : " ↓ from 100")),
        h.h("div", "top", String(top)));
      const label = h.h("div", "command", command ? COMMANDS[command] : " ");
      if (command) label.classList.add(LIGHTNING[command] ? "lightning" : "infinity");
      box.appendChild(label);
      box.appendChild(h.h("div", "placed", placed.length ? "+ " + placed.join(", ") : " "));
      row.appendChild(box);
    });
    return row;
  }

  function seatPanel(h, s, seat, actor, commands) {
    const panel = h.h("div", "tg-seat");
    panel.dataset.seat = String(seat);
    if (seat === actor) panel.classList.add("acting");
    if (h.seat === seat) panel.classList.add("me");
    const out = s.out.includes(seat);
    if (out) panel.classList.add("out");
    const title = h.add(h.h("div", "seat-title"), h.h("span", "badge", String(seat)),
      h.h("span", "seat-name", h.names[seat]));
    if (out) title.appendChild(h.h("span", "tag", "out"));
    const stats = h.h("div", "stats", "played " + s.c[seat] + " · hints given " + s.g[seat]);
    const hand = h.h("div", "hand");
    const held = s.h[seat];
    if (Array.isArray(held)) held.forEach((v) => hand.appendChild(numberCard(h, v, commands)));
    else {
      const backs = h.h("span", "backs");
      backs.dataset.count = String(held);
      for (let i = 0; i < held; i++) backs.appendChild(h.h("span", "tg-card back"));
      backs.title = held + " cards";
      hand.appendChild(backs);
    }
    h.add(panel, title, stats, hand);
    const hints = s.hi[seat];
    if (hints) {
      const box = h.add(h.h("div", "hints"), h.h("span", "k", "hints"));
      hints.forEach((word) => box.appendChild(h.h("span", "hint", word)));
      panel.appendChild(box);
    }
    return panel;
  }

  function render(root, ctx) {
    const h = ctx.h, s = ctx.states[ctx.index], first = ctx.states[0];
    const commands = first.cm || {}, names = first.pn || ["a", "b", "c", "d"];
    const wrap = h.h("div", "thegame");
    const felt = h.h("div", "felt");
    const inHands = s.h.reduce((sum, x) => sum + (Array.isArray(x) ? x.length : x), 0);
    const status = h.add(h.h("div", "status"), h.h("span", null, s.nav.turn),
      h.h("span", "draw", "draw pile: " + s.dr), h.h("span", null, "cards left: " +
        (inHands + s.dr)));
    status.querySelector(".draw").id = "draw";
    h.add(felt, status, piles(h, s, names, commands));
    wrap.appendChild(felt);
    if (s.end) {
      const why = { "all-played": "all cards played", "no-legal-turn": "no legal turn",
        "skull-showing": "a skull is showing", fault: "a bot's fault" }[s.end.why] || s.end.why;
      // Whose fault, where the page holds the result (the organiser's): the seats were
      // told only that a fault ended the game.
      const faults = (ctx.data.result && ctx.data.result.faults) || [];
      const whose = s.end.why === "fault" && faults.length ? " (" + faults.map((f) =>
        h.seatName(f.seat) + ": " + f.kind).join(", ") + ")" : "";
      wrap.appendChild(h.h("div", "banner " + s.end.o, (s.end.o === "won" ? "Won" : "Lost") +
        ": " + why + whose + " · " + s.end.left + " cards not played"));
    }
    const seats = h.h("div", "tg-seats");
    s.h.forEach((_, seat) => seats.appendChild(seatPanel(h, s, seat, ctx.step.s, commands)));
    wrap.appendChild(seats);
    root.appendChild(wrap);
  }
  return { render };
})();
