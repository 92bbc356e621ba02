//! The smallest correct bot for Rage and The Game Extreme in Rust, over stdio (run it as
//! `stdio:./target/release/starter`; stdio keeps the kit free of crates and of libzmq).
//! Rage: the first listed bid and play (protocols/rage.md: every listed word is legal).
//! The Game: no hints, and a legal turn found by a search under the rules of docs/rules.md
//! (rulings X2-X8; the full commented check is the C kit's turn_check.c).
use std::collections::HashMap;
use std::io::{self, BufRead, Write};

#[derive(Clone)]
struct Walk {
    tops: [i32; 4],
    left: Vec<i32>, // cards not played yet
    count: usize,
    three: bool,
    stopped: bool,
    last_pile: usize,
    skulls: u32, // bit per pile where a skull of this turn shows
}

#[derive(Default)]
struct Game {
    seat: i32,
    command: HashMap<i32, String>, // card -> command, from COMMANDS
    hand: Vec<i32>,
    held: HashMap<i32, i32>, // seat -> cards in hand
    draw: i32,
    others: i32,
}

impl Game {
    fn cmd(&self, card: i32) -> &str {
        self.command.get(&card).map_or("", |c| c.as_str())
    }

    fn showing(&self, w: &Walk, c: &str) -> bool {
        w.tops.iter().any(|&top| self.cmd(top) == c)
    }

    /// One placement, against the commands showing just before it (X2).
    fn may_place(&self, w: &Walk, pile: usize, card: i32) -> bool {
        if w.stopped || (w.three && w.count >= 3) {
            return false; // Stop; X8
        }
        let (up, top) = (pile < 2, w.tops[pile]);
        let back = card == if up { top - 10 } else { top + 10 };
        if !back && !(if up { card > top } else { card < top }) {
            return false;
        }
        if back && self.showing(w, "noreverse") {
            return false; // X2
        }
        if w.count > 0 && pile != w.last_pile && self.showing(w, "onepile") {
            return false; // X3
        }
        if self.cmd(card) == "three" && w.count >= 3 {
            return false; // X8
        }
        !(self.cmd(card) == "stop" && w.three && w.count != 2)
    }

    /// The turn may end here: count (X5), 3! (X8), skulls (X6, X7, the game's last turn).
    fn may_end(&self, w: &Walk) -> bool {
        if w.count == 0 || (w.three && w.count != 3) {
            return false;
        }
        if w.count < if self.draw > 0 { 2 } else { 1 } && !w.stopped {
            return false;
        }
        w.skulls == 0 || (self.draw == 0 && self.others == 0 && w.left.is_empty())
    }

    fn search(&self, w: &Walk, turn: &mut Vec<String>) -> bool {
        if self.may_end(w) {
            return true;
        }
        for (i, &card) in w.left.iter().enumerate() {
            for pile in 0..4 {
                if !self.may_place(w, pile, card) {
                    continue;
                }
                let c = self.cmd(card);
                let mut next = w.clone();
                next.left.remove(i);
                next.tops[pile] = card;
                next.count += 1;
                next.three |= c == "three";
                next.stopped = c == "stop";
                next.last_pile = pile;
                next.skulls = if c == "skull" { w.skulls | 1 << pile } else { w.skulls & !(1 << pile) };
                turn.push(format!("{}:{}", ["a", "b", "c", "d"][pile], card));
                if self.search(&next, turn) {
                    return true;
                }
                turn.pop();
            }
        }
        false
    }

    /// The reply to a request, or None for an information line.
    fn reply(&mut self, line: &str) -> Option<String> {
        let words: Vec<&str> = line.split(' ').collect();
        let setting = |key: &str| -> i32 {
            words.iter().find_map(|w| w.strip_prefix(key)?.strip_prefix('=')?.parse().ok()).unwrap_or(0)
        };
        match words[0] {
            "GAME" => {
                *self = Game { seat: setting("seat"), ..Game::default() };
                for seat in 0..setting("players") {
                    self.held.insert(seat, setting("hand"));
                }
            }
            "COMMANDS" => {
                for word in &words[1..] {
                    let (name, cards) = word.split_once('=')?;
                    for n in cards.split(',') {
                        self.command.insert(n.parse().ok()?, name.to_string());
                    }
                }
            }
            "HAND" | "DRAW" => {
                if words[0] == "HAND" {
                    self.hand.clear();
                }
                self.hand.extend(words[1..].iter().filter_map(|w| w.parse::<i32>().ok()));
            }
            "TURNED" => {
                let seat: i32 = words[1].parse().ok()?;
                for word in &words[2..] {
                    *self.held.entry(seat).or_insert(0) -= 1;
                    let card: i32 = word[2..].parse().ok()?;
                    if seat == self.seat {
                        self.hand.retain(|&c| c != card);
                    }
                }
            }
            "DREW" => *self.held.entry(words[1].parse().ok()?).or_insert(0) += words[2].parse::<i32>().ok()?,
            "BID?" | "PLAY?" => return Some(words[1].to_string()),
            "HINTS?" => return Some("none".to_string()),
            "TURN?" => {
                self.draw = setting("draw");
                self.others = self.held.iter().filter(|(&s, _)| s != self.seat).map(|(_, &n)| n).sum();
                let start = Walk {
                    tops: [setting("a"), setting("b"), setting("c"), setting("d")],
                    left: self.hand.clone(),
                    count: 0,
                    three: false,
                    stopped: false,
                    last_pile: 9,
                    skulls: 0,
                };
                let mut turn = Vec::new();
                self.search(&start, &mut turn);
                return Some(turn.join(" "));
            }
            _ => {}
        }
        None
    }
}

fn main() {
    let mut out = io::stdout();
    let token = std::env::var("REFEREE_TOKEN").unwrap_or_default();
    writeln!(out, "HELLO 2 {token} starter-rust 1.0").unwrap();
    out.flush().unwrap();
    let mut game = Game::default();
    for line in io::stdin().lock().lines() {
        let line = line.unwrap();
        let line = line.trim_end_matches('\r');
        if line == "BYE" {
            return;
        }
        if let Some(reply) = game.reply(line) {
            writeln!(out, "{reply}").unwrap();
            out.flush().unwrap(); // the referee waits for this line
        }
    }
}
