"use strict";
// referee view: the playback shell. It knows no game: each step's board state is drawn
// by the game's own RefereeBoard.render (defined before this script, if the game has a
// board). Every text from the log goes into the page by textContent, never as markup.
(function () {
  const data = JSON.parse(document.getElementById("game-data").textContent);
  const steps = data.steps, states = data.states;
  const given = data.players.map((p) => p.name);
  // One bot at two seats (a gauntlet's references, three bots at tables of four): each
  // is named with its seat, or "Trick 9 won by random" would not say which.
  const names = given.map((name, seat) =>
    given.indexOf(name) === given.lastIndexOf(name) ? name : name + " (" + seat + ")");
  const board = window.RefereeBoard || null;

  function h(tag, cls, text) {
    const node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }
  function add(parent, ...children) {
    for (const child of children) if (child) parent.appendChild(child);
    return parent;
  }
  function seatName(seat) {
    return "seat " + seat + " " + (given[seat] === undefined ? "" : given[seat]);
  }
  function seconds(value) {
    return value === 0 ? "0 s" : value < 0.001 ? (value * 1e6).toFixed(0) + " µs" :
      value < 1 ? (value * 1000).toFixed(1) + " ms" : value.toFixed(3) + " s";
  }
  const helpers = { h, add, seatName, names, seat: data.seat };

  // ---- the page's frame
  const head = add(h("header", "top"), h("h1", null, data.heading),
    h("div", "whose", data.seat === null ? "Organiser's view: everything the log holds" :
      data.seat < 0 ? "Spectator's view: what anyone watching the table sees, no hand " +
      "nor line of any seat" :
      "Seat " + data.seat + "'s view: only what " + seatName(data.seat) + " was shown"));
  const controls = h("nav", "controls");
  const main = h("main");
  const boardRoot = h("section", "board");
  boardRoot.id = "board";
  const side = h("aside", "side");
  const stepBox = h("section", "step");
  stepBox.id = "step";
  const playersBox = h("section", "players");
  add(side, stepBox, playersBox);
  add(main, boardRoot, side);
  add(document.body, head, controls, main);

  function button(label, title, id, action) {
    const b = h("button", null, label);
    b.type = "button"; b.title = title; b.id = id;
    b.addEventListener("click", action);
    return b;
  }
  const first = button("|◀", "First step (Home)", "first", () => go(0));
  const prev = button("◀", "Back one step (←)", "prev", () => go(current - 1));
  const play = button("▶ Play", "Play / pause (space)", "play", () => toggle());
  const next = button("▶", "Forward one step (→)", "next", () => go(current + 1));
  const last = button("▶|", "Last step (End)", "last", () => go(steps.length - 1));
  const faultButton = button("Next fault", "Jump to the next fault", "next-fault", () => {
    const found = faultSteps.find((i) => i > current);
    go(found === undefined ? (faultSteps[0] === undefined ? current : faultSteps[0]) : found);
  });
  const speed = h("select");
  speed.id = "speed"; speed.title = "Steps per second";
  for (const [label, ms] of [["1 /s", 1000], ["2 /s", 500], ["5 /s", 200], ["10 /s", 100],
                             ["25 /s", 40]]) {
    const o = h("option", null, label); o.value = String(ms); speed.appendChild(o);
  }
  speed.value = "200";
  const slider = h("input");
  slider.type = "range"; slider.min = "0"; slider.max = String(steps.length - 1);
  slider.id = "slider"; slider.title = "Step";
  slider.addEventListener("input", () => go(Number(slider.value)));
  const counter = h("span", "counter"); counter.id = "counter";
  const track = add(h("div", "track"), slider);
  const faultSteps = [];
  function markFaults() {  // again as a live game's steps come (referee serve)
    faultSteps.length = 0;
    for (const mark of track.querySelectorAll(".fault-mark")) mark.remove();
    steps.forEach((step, i) => { if (step.f) faultSteps.push(i); });
    for (const i of faultSteps) {
      const mark = h("span", "fault-mark");
      mark.style.left = (steps.length > 1 ? (100 * i) / (steps.length - 1) : 0) + "%";
      mark.title = "fault at step " + i;
      track.appendChild(mark);
    }
    faultButton.disabled = faultSteps.length === 0;
    slider.max = String(steps.length - 1);
  }
  markFaults();
  const navs = [];
  function fillNav(key, select) {
    select.replaceChildren();
    let previous = null;
    steps.forEach((step, i) => {
      const state = states[step.m];
      const value = state && state.nav ? state.nav[key] : null;
      if (value && value !== previous) {
        const o = h("option", null, value); o.value = String(i); select.appendChild(o);
      }
      if (value) previous = value;
    });
  }
  for (const [key, label] of data.nav) {
    const select = h("select", "jump"); select.id = "jump-" + key; select.title = "Jump to a " +
      label.toLowerCase();
    fillNav(key, select);
    select.addEventListener("change", () => go(Number(select.value)));
    navs.push([key, select]);
  }
  add(controls, first, prev, play, next, last, speed, track, counter,
      ...navs.map(([, s]) => s), faultButton);

  // ---- the players
  add(playersBox, h("h2", null, "Players"));
  const list = h("table", "roster");
  data.players.forEach((p, seat) => {
    // The name and what it said and runs, stacked in one cell: side by side, the
    // narrow panel broke names and commands mid-word.
    const who = add(h("td"), h("div", "name", p.name));
    if (p.hello) add(who, h("div", "more", "HELLO " + p.hello));
    if (p.command) add(who, h("code", "more", p.command));
    if (p.dropped) {
      add(who, h("div", "more dropped", p.dropped[0] + " LOG lines (" + p.dropped[1] +
        " bytes) past the log's budget were not kept: later steps show none of them"));
    }
    const row = add(h("tr"), h("td", "seat-no", String(seat)), who);
    if (data.seat === seat) row.className = "me";
    list.appendChild(row);
  });
  playersBox.appendChild(list);
  const limits = data.limits;
  add(playersBox, h("p", "limits", "Limits: " + (limits.move === null ? "not recorded" :
    limits.move + " s a request, " + limits.bank + " s time bank, " + limits.clock + " clock")));

  // ---- one step
  function lines(title, texts, cls) {
    if (!texts || !texts.length) return null;
    const box = add(h("div", "lines " + (cls || "")), h("h3", null, title));
    const pre = h("pre");
    texts.forEach((text, i) => {
      const line = h("span", "line", text);
      if (cls === "asked" && i === texts.length - 1 && /^\S*\?( |$)/.test(text)) {
        line.classList.add("request");
      }
      pre.appendChild(line);
    });
    return add(box, pre);
  }

  function timing(step) {
    const box = h("div", "timing");
    if (step.dt === undefined) {
      box.textContent = "think time: not recorded";
      return box;
    }
    const limit = limits.move;
    const used = limit ? Math.min(1, step.dt / limit) : 0;
    const bar = add(h("div", "bar"), h("div", "used"));
    bar.firstChild.style.width = (100 * used).toFixed(1) + "%";
    if (limit && step.dt > limit) bar.classList.add("over");
    add(box, h("span", null, "think " + seconds(step.dt) + " of " + (limit === null ?
      "?" : limit + " s")), bar, h("span", "bank", "time bank left: " +
      (step.bk === undefined ? "not recorded" : seconds(step.bk))));
    return box;
  }

  // One entry of the log's result for people: a value per seat beside each name, each
  // fault with its seat, kind, detail and line, not the log's JSON.
  function resultLine(key, value) {
    const label = key.replace(/_/g, " ") + ": ";
    if (key === "faults" && Array.isArray(value)) {
      return label + (value.length ? value.map((f) => seatName(f.seat) + " " + f.kind +
        (f.detail ? " (" + f.detail + ")" : "") + (f.line === undefined || f.line === null ?
          "" : ", line " + JSON.stringify(f.line))).join("; ") : "none");
    }
    if (Array.isArray(value) && value.length === names.length &&
        value.every((v) => v === null || typeof v !== "object")) {
      return label + value.map((v, seat) => names[seat] + " " + v).join(" · ");
    }
    return label + (typeof value === "string" ? value : JSON.stringify(value));
  }

  function showStep(i) {
    const step = steps[i];
    const state = states[step.m];
    stepBox.replaceChildren();
    const where = state && state.nav ? Object.values(state.nav).slice(-1)[0] : "";
    add(stepBox, h("div", "where", "Step " + i + " of " + (steps.length - 1) +
      (where ? " · " + where : "")));
    if (step.e !== undefined) {
      // A game in progress (referee serve) has no end yet: its last step is the newest.
      const heading = data.live && !data.result && !data.ended ? "So far" : "End";
      add(stepBox, h("h2", null, heading), h("p", "end", step.e));
      if (data.result && data.seat === null) {
        add(stepBox, lines("Result", Object.entries(data.result).filter(([k]) =>
          k !== "rounds").map(([k, v]) => resultLine(k, v))));
      }
      if (step.t) {
        add(stepBox, lines("Told after the last decision",
          step.t.map(([s, arrow, line]) => "seat " + s + " " + arrow + " " + line), "told"));
      }
    } else if (step.s === undefined) {
      add(stepBox, h("h2", null, "Start"),
        h("p", null, "The deal. Step forward (→) to the first decision."));
    } else {
      const who = add(h("h2", "who"), h("span", "badge s" + step.s, String(step.s)),
        h("span", null, " " + names[step.s]));
      add(stepBox, who);
      const what = [step.k || "", step.by === "fallback" ? "(played by the fallback)" : ""];
      add(stepBox, h("div", "kind", what.join(" ").trim()));
      // The board's words are its last move's: this step's only if it made that move
      // (a hint of none, or a reply refused in a game that then ends, makes none).
      const moved = i > 0 && steps[i - 1].m !== step.m;
      if (moved && state && state.say) {
        add(stepBox, h("p", "say", names[step.s] + " " + state.say));
      }
      if (step.f) {
        for (const f of step.f) {
          const box = add(h("div", "fault"), h("strong", null, "FAULT: " + f.kind),
            h("div", "detail", f.detail || ""));
          if (f.line !== undefined && f.line !== null) {
            add(box, h("div", null, "offending line:"), h("pre", "offending", f.line));
          }
          if (f.stderr && f.stderr.length) {  // the log's, or for an older log the results db's
            add(box, h("div", null, "its stderr, last lines:"),
              h("pre", "offending stderr", f.stderr.join("\n")));
          }
          stepBox.appendChild(box);
        }
      }
      if (data.seat === null || data.seat === step.s) {
        add(stepBox, lines("Asked", step.a, "asked"));
        if (step.r !== undefined) add(stepBox, lines("Answered", [step.r], "answer"));
        add(stepBox, lines("Its LOG lines", step.l, "log"));
        add(stepBox, timing(step));
      }
    }
    if (board && state) {
      boardRoot.replaceChildren();
      board.render(boardRoot, { states, index: step.m, step, data, h: helpers });
    } else if (!board) {
      boardRoot.replaceChildren(h("p", "no-board", data.title + " has no board view: " +
        "the steps show each decision's lines."));
    }
  }

  // ---- playback
  let current = -1, timer = null;
  function go(i) {
    i = Math.max(0, Math.min(steps.length - 1, i));
    if (i === current) return;
    current = i;
    showStep(i);
    slider.value = String(i);
    counter.textContent = i + " / " + (steps.length - 1);
    first.disabled = prev.disabled = i === 0;
    next.disabled = last.disabled = i === steps.length - 1;
    const state = states[steps[i].m];
    for (const [key, select] of navs) {
      const label = state && state.nav ? state.nav[key] : null;
      for (const o of select.options) if (o.textContent === label) select.value = o.value;
    }
    const hash = "#step=" + i;
    if (location.hash !== hash) {
      try { history.replaceState(null, "", hash); } catch (e) { location.replace(hash); }
    }
    document.body.dataset.step = String(i);
    if (timer !== null && i === steps.length - 1) toggle();
  }
  function toggle() {
    if (timer !== null) {
      clearInterval(timer); timer = null; play.textContent = "▶ Play";
      return;
    }
    if (current === steps.length - 1) go(0);
    play.textContent = "⏸ Pause";
    timer = setInterval(() => go(current + 1), Number(speed.value));
  }
  speed.addEventListener("change", () => { if (timer !== null) { toggle(); toggle(); } });
  document.addEventListener("keydown", (event) => {
    if (event.target instanceof HTMLSelectElement || event.altKey || event.ctrlKey ||
        event.metaKey) return;
    const keys = { ArrowRight: () => go(current + 1), ArrowLeft: () => go(current - 1),
      Home: () => go(0), End: () => go(steps.length - 1), " ": () => toggle() };
    const action = keys[event.key];
    if (action) { event.preventDefault(); action(); }
  });
  function fromHash() {
    const found = /^#step=(\d+)$/.exec(location.hash);
    return found ? Number(found[1]) : null;
  }
  window.addEventListener("hashchange", () => go(fromHash() ?? 0));
  // A game in progress opens at its newest step, so that it follows the game (below):
  // opened at its deal, it would stand still there while the game is played on.
  go(fromHash() ?? (data.live ? steps.length - 1 : 0));
  if (data.live) follow(data.live);
  document.body.dataset.ready = "1";

  // ---- a game in progress (referee serve): its steps come as they are played. Each
  // update replaces the steps and states from the first that changed; a page at its
  // last step follows the game.
  function follow(url) {
    const status = h("div", "live", "Live: the game is being played");
    status.id = "live-status";
    head.appendChild(status);
    const source = new EventSource(url);
    source.addEventListener("steps", (event) => {
      const update = JSON.parse(event.data);
      const atEnd = current >= steps.length - 1;
      steps.splice(update.from, steps.length, ...update.steps);
      states.splice(update.sfrom, states.length, ...update.states);
      if (update.result) data.result = update.result;
      if (!update.on) data.ended = true; // a spectator's update carries no result
      markFaults();
      for (const [key, select] of navs) fillNav(key, select);
      const shown = current;
      current = -1;
      go(atEnd ? steps.length - 1 : shown);
      document.body.dataset.steps = String(steps.length);
    });
    source.addEventListener("over", (event) => {
      source.close();
      status.textContent = JSON.parse(event.data);
      status.classList.add("over");
    });
    source.addEventListener("error", () => {
      if (source.readyState === EventSource.CLOSED) return;
      status.textContent = "Live: not connected to referee serve (stopped?): trying again";
    });
    source.addEventListener("open", () => {
      status.textContent = "Live: the game is being played";
    });
    document.body.dataset.steps = String(steps.length);
  }
})();
