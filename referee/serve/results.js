"use strict";
// referee serve: the results page follows the server's events. "results" carries the
// tables' HTML as `referee results --format html` writes it (every text from a bot
// escaped there); "games" the games in progress, put in with textContent (with why, and
// no link, where serve --public withholds one).
(function () {
  const note = document.getElementById("live-note");
  const results = document.getElementById("results");
  const games = document.getElementById("games");
  const source = new EventSource("events");
  source.addEventListener("results", (event) => {
    results.innerHTML = JSON.parse(event.data);
    document.body.dataset.updates = String(Number(document.body.dataset.updates || 0) + 1);
  });
  source.addEventListener("games", (event) => {
    const list = JSON.parse(event.data);
    games.replaceChildren();
    for (const game of list) {
      const item = document.createElement("li");
      const players = ": " + game.players.join(", ");
      if (game.withheld) {  // serve --public: not before its deal is played in full
        item.textContent = game.key + players + " (" + game.withheld + ")";
      } else {
        const link = document.createElement("a");
        link.href = "game/" + encodeURIComponent(game.key);
        link.textContent = game.key;
        item.append(link, document.createTextNode(players));
      }
      games.appendChild(item);
    }
    if (!list.length) {
      const item = document.createElement("li");
      item.textContent = "none";
      games.appendChild(item);
    }
  });
  source.addEventListener("open", () => {
    note.textContent = "Live: this page follows the tournament as it is played.";
    note.className = "live-note";
  });
  source.addEventListener("error", () => {
    note.textContent = "Not connected to referee serve (stopped?): trying again.";
    note.className = "live-note lost";
  });
})();
