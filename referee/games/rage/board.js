"use strict";
// Rage's board for referee view (referee/games/rage/board.py makes its states).
window.RefereeBoard = (function () {
  const COLOURS = { b: "blue", g: "green", r: "red", y: "yellow", v: "violet", o: "orange" };
  const ACTIONS = { J: "Joker", NT: "No Trump", TC: "Trump Change", "+5": "+5", "-5": "-5" };

  function card(h, face) {
    const [name, declared] = face.split(":");
    const colour = COLOURS[name[0]] && /\d/.test(name.slice(1)) ? name[0] : null;
    const node = h.h("span", "card " + (colour ? "c-" + colour : "act a-" +
      (name === "J" ? "j" : name === "NT" ? "nt" : name === "TC" ? "tc" : "pm")),
      colour ? name.slice(1) : name);
    node.title = colour ? COLOURS[colour] + " " + name.slice(1) : ACTIONS[name] || name;
    node.dataset.face = face;
    if (declared) {
      node.classList.replace("a-j", "a-jd");
      node.classList.add("c-" + declared);
      node.title += " as " + COLOURS[declared];
    }
    return node;
  }
  function backs(h, count) {
    const box = h.h("span", "backs");
    for (let i = 0; i < count; i++) box.appendChild(h.h("span", "card back"));
    box.dataset.count = String(count);
    box.title = count + " cards";
    return box;
  }

  function seatPanel(h, s, seat, actor) {
    const panel = h.h("div", "seat-panel");
    panel.dataset.seat = String(seat);
    if (seat === actor) panel.classList.add("acting");
    if (h.seat === seat) panel.classList.add("me");
    const title = h.add(h.h("div", "seat-title"), h.h("span", "badge", String(seat)),
      h.h("span", "seat-name", h.names[seat]));
    if (s.d === seat) title.appendChild(h.h("span", "tag", "dealer"));
    if (s.t.length && s.tw === null && s.t[0][0] === seat) title.appendChild(h.h("span", "tag", "leads"));
    const bid = s.b[seat];
    const bidText = bid === null ? "–" : bid === "?" ? "?" : String(bid);
    const bidNode = h.h("span", "v bid", bidText);
    if (bid === "?") bidNode.title = "made, not yet revealed";
    if (s.hb && typeof bid === "number") {
      bidNode.classList.add("secret");
      bidNode.title = "hidden from the other seats until revealed";
    }
    const stats = h.add(h.h("div", "stats"),
      h.add(h.h("span", "stat"), h.h("span", "k", "bid"), bidNode),
      h.add(h.h("span", "stat"), h.h("span", "k", "won"), h.h("span", "v won", String(s.w[seat]))),
      h.add(h.h("span", "stat"), h.h("span", "k", "score"), h.h("span", "v score", String(s.s[seat]))));
    const hand = h.h("div", "hand");
    const held = s.h[seat];
    if (Array.isArray(held)) held.forEach((face) => hand.appendChild(card(h, face)));
    else hand.appendChild(backs(h, held));
    return h.add(panel, title, stats, hand);
  }

  function centre(h, s) {
    const box = h.h("div", "felt");
    const info = h.h("div", "round-info", "Round " + s.r + " · " + s.k + " card" +
      (s.k === 1 ? "" : "s") + " each · dealer " + h.names[s.d]);
    const trump = h.add(h.h("div", "trump"), h.h("span", "label", "Trump"));
    const chip = h.h("span", "trump-chip " + (s.tr ? "c-" + s.tr : "none"),
      s.tr ? COLOURS[s.tr] : "no trump");
    chip.id = "trump";
    trump.appendChild(chip);
    const flips = h.add(h.h("span", "flips"), h.h("span", "label", "flipped"));
    s.f.forEach((face) => flips.appendChild(card(h, face)));
    trump.appendChild(flips);
    const trick = h.h("div", "trick");
    trick.id = "trick";
    const label = s.t.length ? (s.tw === null ? "Trick " + s.tn + " in play" :
      "Trick " + s.tn + " won by " + h.names[s.tw]) : s.b.some((b) => b === null) ?
      "Bidding" : "Trick " + s.tn;
    trick.appendChild(h.h("div", "trick-label", label));
    const plays = h.h("div", "plays");
    s.t.forEach(([seat, face], i) => {
      const cell = h.add(h.h("div", "play"), card(h, face),
        h.h("div", "by", (i === 0 ? "▸ " : "") + h.names[seat]));
      cell.dataset.seat = String(seat);
      if (s.tw === seat) cell.classList.add("winner");
      plays.appendChild(cell);
    });
    trick.appendChild(plays);
    const winners = h.h("div", "winners", s.ws.length ? "Tricks so far: " +
      s.ws.map((w, i) => (i + 1) + " " + h.names[w]).join(" · ") : "");
    return h.add(box, info, trump, trick, winners);
  }

  function sheet(h, states, index, players) {
    const rows = [];
    for (let i = 0; i <= index; i++) if (states[i].sh) rows.push([states[i].r, states[i].sh, i === index]);
    const box = h.h("div", "sheet");
    box.id = "sheet";
    if (!rows.length) return box;
    box.appendChild(h.h("h3", null, "Score sheet (bid / tricks: points)"));
    const table = h.h("table");
    const head = h.add(h.h("tr"), h.h("th", null, "round"));
    for (let p = 0; p < players; p++) head.appendChild(h.h("th", null, h.names[p]));
    table.appendChild(head);
    const totals = new Array(players).fill(0);
    for (const [round, seats, fresh] of rows) {
      const tr = h.add(h.h("tr", fresh ? "fresh" : null), h.h("td", null, String(round)));
      seats.forEach(([bid, tricks, tp, ap, bonus, total], p) => {
        totals[p] += total;
        const td = h.h("td", bid === tricks ? "hit" : "miss", bid + " / " + tricks + ": " +
          (total > 0 ? "+" : "") + total);
        td.title = "tricks " + tp + ", action cards " + ap + ", bid bonus " + bonus;
        tr.appendChild(td);
      });
      table.appendChild(tr);
    }
    const sum = h.add(h.h("tr", "total"), h.h("td", null, "total"));
    totals.forEach((t) => sum.appendChild(h.h("td", null, String(t))));
    table.appendChild(sum);
    return h.add(box, table);
  }

  // The totals; on the organiser's page (which holds the result) the places too, best
  // first, and each fault: a faulted seat places last whatever its total, which its
  // fallback's moves kept adding to, so the totals alone rank it wrongly.
  function standing(h, s, result) {
    if (!result || !result.places) return s.s.map((t, p) => h.names[p] + " " + t).join(" · ");
    const faults = new Map((result.faults || []).map((f) => [f.seat, f.kind]));
    return s.s.map((t, p) => p).sort((a, b) => result.places[a] - result.places[b] || a - b)
      .map((p) => result.places[p] + ". " + h.names[p] + " " + s.s[p] +
        (faults.has(p) ? " (" + faults.get(p) + ": placed last)" : "")).join(" · ");
  }

  function render(root, ctx) {
    const h = ctx.h, s = ctx.states[ctx.index];
    const players = s.h.length;
    const wrap = h.h("div", "rage");
    const seats = h.h("div", "seats");
    for (let p = 0; p < players; p++) seats.appendChild(seatPanel(h, s, p, ctx.step.s));
    h.add(wrap, centre(h, s), seats);
    if (s.over) wrap.appendChild(h.h("div", "banner", "Game over: " + standing(h, s,
      ctx.data.result)));
    wrap.appendChild(sheet(h, ctx.states, ctx.index, players));
    root.appendChild(wrap);
  }
  return { render };
})();
