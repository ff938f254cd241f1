// The game page works without this file: every legal move is a button that
// plays it. With it: the page redraws itself when the game moves on (its stream
// /games/<id>/events/ where the server sends one, else a small poll of
// /games/<id>/version while the page is visible, with If-None-Match),
// keeping the move being chosen if it is still legal; and the player acts on
// the board: a card, a deck, token piles or a noble offer exactly the legal
// moves with them, and the chosen move is shown in notation and confirmed
// (unless the player turned confirmation off) before the form posts it.
(function () {
  "use strict";
  var root = document.getElementById("game");
  if (!root) {
    return;
  }
  var version = root.getAttribute("data-version");
  var versionUrl = root.getAttribute("data-version-url");
  var pageUrl = root.getAttribute("data-page-url");
  var storeKey = "game-page-choice:" + root.getAttribute("data-game");
  var POLL_MS = 1000 * (parseInt(root.getAttribute("data-poll-seconds"), 10) || 4);
  var etag = null;
  var redrawing = false;

  function store(key, value) {
    try {
      if (value) {
        window.sessionStorage.setItem(key, value);
      } else {
        window.sessionStorage.removeItem(key);
      }
    } catch (e) {
      // Storage refused (private mode): the choice is simply not kept.
    }
  }

  function stored(key) {
    try {
      return window.sessionStorage.getItem(key);
    } catch (e) {
      return null;
    }
  }

  var chosen = null;  // the text of the move chosen and waiting for confirmation

  function redraw() {
    if (redrawing) {
      return;
    }
    redrawing = true;
    store(storeKey, chosen);
    window.location.replace(pageUrl);
  }

  var streaming = false;  // the page's stream is open (listen, below): no poll is needed

  function poll() {
    if (streaming || document.visibilityState !== "visible" || redrawing) {
      return;
    }
    var headers = { Accept: "application/json" };
    if (etag) {
      headers["If-None-Match"] = etag;
    }
    window.fetch(versionUrl, { headers: headers, credentials: "same-origin", cache: "no-store" })
      .then(function (response) {
        if (response.status === 403 || response.status === 404) {
          redraw();  // the link was replaced or the game is gone: the page says so
          return null;
        }
        if (response.status !== 200) {
          return null;
        }
        etag = response.headers.get("ETag");
        return response.json();
      })
      .then(function (body) {
        if (body && String(body.version) !== version) {
          redraw();
        }
      })
      .catch(function () {
        // Offline for a moment: the next poll tries again.
      });
  }

  // A page that is sending a form (a move, a resignation) is about to be replaced:
  // a poll that redrew it now would abort that navigation, and the move's answer
  // with it. Submissions a handler cancelled do not count.
  document.addEventListener("submit", function (event) {
    if (!event.defaultPrevented) {
      redrawing = true;
    }
  });

  // Where the server sends the page a stream of the game's versions (under ASGI),
  // the page listens to it; where it cannot (WSGI, an old browser, a proxy that
  // closes it), it polls. Each tab has a stream of its own.
  var eventsUrl = root.getAttribute("data-events-url");

  function listen() {
    var source = new window.EventSource(eventsUrl, { withCredentials: true });
    source.addEventListener("open", function () {
      streaming = true;
    });
    source.addEventListener("version", function (event) {
      var body = null;
      try {
        body = JSON.parse(event.data);
      } catch (e) {
        return;
      }
      if (body && String(body.version) !== version) {
        source.close();
        redraw();
      }
    });
    source.addEventListener("error", function () {
      if (source.readyState === window.EventSource.CLOSED) {
        streaming = false;  // refused or gone: the poll takes over
      }
    });
  }

  if (root.getAttribute("data-over") !== "1") {
    if (eventsUrl && window.EventSource) {
      listen();
    }
    window.setInterval(poll, POLL_MS);
    document.addEventListener("visibilitychange", poll);
  }

  var panel = document.getElementById("moves");
  var form = document.getElementById("move-form");
  if (!panel || !form) {
    return;
  }
  var confirmMoves = panel.getAttribute("data-confirm-moves") !== "0";
  var prompt = document.getElementById("move-prompt");
  var choice = document.getElementById("move-choice");
  var chosenText = document.getElementById("move-chosen");
  var confirmButton = form.querySelector("[data-confirm]");
  var cancel = document.getElementById("move-cancel");
  var note = document.getElementById("move-filter");
  var label = document.getElementById("move-filter-label");
  var showAll = document.getElementById("move-filter-clear");
  // The words written beside the moves, in the page's language (games.pages.move_words);
  // English when the page carries none.
  var WORDS = {
    none: "No legal move with %(what)s.",
    counts: [],
    choose_location: "Choose the location on the board or below.",
    choose_noble: "Choose the noble on the board or below.",
    give_back: "Each gives tokens back so that you keep ten: choose which.",
    card: "card %(id)s",
    deck: "the level %(level)s deck",
    take: "take %(letters)s",
    take_more: "take %(letters)s (and more piles)",
    not_yours: "%(id)s is not yours to choose now",
    every: "every legal move"
  };
  var wordsGiven = panel.getAttribute("data-words");
  if (wordsGiven) {
    try {
      var given = JSON.parse(wordsGiven);
      Object.keys(given || {}).forEach(function (key) { WORDS[key] = given[key]; });
    } catch (e) {
      // Unreadable: the English words stay.
    }
  }

  // A sentence with its named placeholders filled; a placeholder not given stays.
  function fill(text, values) {
    return text.replace(/%\((\w+)\)s/g, function (whole, name) {
      return Object.prototype.hasOwnProperty.call(values, name) ? String(values[name]) : whole;
    });
  }

  function counted(n) {
    var sentence = WORDS.counts[n];
    if (!sentence) {
      sentence = fill(n === 1 ? "%(what)s: %(n)s move." : "%(what)s: %(n)s moves.", { n: n });
    }
    return sentence;
  }

  var order = Array.prototype.map.call(document.querySelectorAll("#bank [data-token]"), function (pile) {
    return pile.getAttribute("data-token");
  }).join("");

  // Every legal move, read from its notation (notation.md): the action, what it
  // is played on, the tokens taken or returned, the noble or location chosen.
  var moves = Array.prototype.map.call(form.querySelectorAll("button[data-move]"), function (button) {
    var text = button.getAttribute("data-move");
    var words = text.split(" ");
    var move = { button: button, text: text, words: button.getAttribute("data-words") || text, kind: words[0], on: "", take: "", tile: "" };
    if (move.kind === "take") {
      move.take = words[1];
    } else if (move.kind === "buy" || move.kind === "reserve") {
      move.on = words[1];
    }
    for (var i = 1; i < words.length - 1; i += 1) {
      if (words[i] === "noble" || words[i] === "location") {
        move.tile = words[i + 1];
      }
    }
    return move;
  });
  var shown = moves;
  var takeLetters = "";

  function sorted(letters) {
    return letters.split("").sort(function (a, b) { return order.indexOf(a) - order.indexOf(b); }).join("");
  }

  // A take of ``letters`` or more (each letter as many times as chosen).
  function takes(move, letters) {
    var rest = move.take;
    for (var i = 0; i < letters.length; i += 1) {
      var at = rest.indexOf(letters[i]);
      if (at === -1) {
        return false;
      }
      rest = rest.slice(0, at) + rest.slice(at + 1);
    }
    return true;
  }

  function mark(selector, test) {
    var elements = document.querySelectorAll(selector);
    for (var i = 0; i < elements.length; i += 1) {
      var on = test(elements[i]);
      elements[i].classList.toggle("selected", on);
      if (elements[i].tagName === "BUTTON") {
        elements[i].setAttribute("aria-pressed", on ? "true" : "false");
      }
    }
  }

  function offer(list, what) {
    shown = list;
    for (var i = 0; i < moves.length; i += 1) {
      moves[i].button.hidden = list.indexOf(moves[i]) === -1 && moves[i].kind !== "pass";
    }
    var sets = form.querySelectorAll("fieldset");
    for (var j = 0; j < sets.length; j += 1) {
      sets[j].hidden = sets[j].querySelectorAll("button[data-move]:not([hidden])").length === 0;
    }
    var tiles = {};
    list.forEach(function (move) { if (move.tile) { tiles[move.tile] = true; } });
    var choosing = Object.keys(tiles).length > 1;
    var tileElements = document.querySelectorAll("[data-noble], [data-location]");
    for (var k = 0; k < tileElements.length; k += 1) {
      var id = tileElements[k].getAttribute("data-noble") || tileElements[k].getAttribute("data-location");
      tileElements[k].classList.toggle("can-choose", choosing && tiles[id] === true);
    }
    if (what === null) {
      note.hidden = true;
      prompt.hidden = false;
      return;
    }
    prompt.hidden = true;
    note.hidden = false;
    label.textContent = list.length === 0
      ? fill(WORDS.none, { what: what })
      : fill(counted(list.length), { what: what }) +
        (choosing ? " " + (document.querySelector("[data-location]") ? WORDS.choose_location : WORDS.choose_noble) : "") +
        (list.every(function (m) { return / return /.test(m.text); }) ? " " + WORDS.give_back : "");
  }

  function reset() {
    takeLetters = "";
    mark("[data-card], [data-deck], #bank [data-token], [data-noble], [data-location]", function () { return false; });
  }

  function choose(move) {
    chosen = move ? move.text : null;
    moves.forEach(function (m) {
      m.button.classList.toggle("chosen", m === move);
      m.button.setAttribute("aria-pressed", m === move ? "true" : "false");
    });
    if (!move) {
      choice.hidden = true;
      confirmButton.value = "";
      return;
    }
    var pays = move.button.querySelector(".pays");
    chosenText.textContent = move.words + (pays ? " (" + pays.textContent.replace(/\s+/g, " ").trim() + ")" : "");
    confirmButton.value = move.text;
    choice.hidden = false;
    confirmButton.focus();
  }

  function onCard(id) {
    reset();
    mark("[data-card]", function (e) { return e.getAttribute("data-card") === id; });
    offer(moves.filter(function (m) { return m.on === id; }), fill(WORDS.card, { id: id }));
  }

  function onDeck(level) {
    reset();
    mark("[data-deck]", function (e) { return e.getAttribute("data-deck") === level; });
    offer(moves.filter(function (m) { return m.on === "deck" + level; }), fill(WORDS.deck, { level: level }));
  }

  function onPile(letter) {
    var picked = takeLetters;
    if (picked.indexOf(letter) === -1) {
      picked = picked.length >= 3 || (picked.length === 2 && picked[0] === picked[1]) ? letter : picked + letter;
    } else if (picked === letter) {
      picked = letter + letter;  // the same pile twice: two of one colour (B-TAKE-2)
    } else {
      picked = picked.split(letter).join("");
    }
    reset();
    takeLetters = sorted(picked);
    mark("#bank [data-token]", function (e) { return takeLetters.indexOf(e.getAttribute("data-token")) !== -1; });
    if (!takeLetters) {
      offer(moves, null);
      return;
    }
    var exact = moves.filter(function (m) { return m.kind === "take" && m.take === takeLetters; });
    var more = moves.filter(function (m) { return m.kind === "take" && takes(m, takeLetters); });
    offer(exact.length ? exact : more, fill(exact.length ? WORDS.take : WORDS.take_more, { letters: takeLetters }));
  }

  function onTile(id) {
    var narrowed = shown.filter(function (m) { return m.tile === id; });
    if (narrowed.length && narrowed.length < shown.length) {
      mark("[data-noble], [data-location]", function (e) {
        return (e.getAttribute("data-noble") || e.getAttribute("data-location")) === id;
      });
      offer(narrowed, id);
      if (narrowed.length === 1) {
        choose(narrowed[0]);
      }
    } else {
      offer(shown, narrowed.length ? id : fill(WORDS.not_yours, { id: id }));
    }
  }

  // On a phone the panel is held at the bottom of the screen (board.css) and grows
  // with the moves it offers: what was just chosen on the board is scrolled up to
  // sit above it. The nobles come before the market there, so they stay clear too.
  function keepAbovePanel(element) {
    var held = panel.getBoundingClientRect();
    var box = element.getBoundingClientRect();
    if (box.bottom > held.top && box.top < held.bottom && box.right > held.left && box.left < held.right) {
      window.scrollBy(0, box.bottom - held.top + 8);
    }
  }

  // Without a board choice, only what is not on the board (a forced pass) is listed.
  offer([], null);
  var kept = stored(storeKey);
  store(storeKey, null);
  var start = moves.filter(function (m) { return m.text === kept || m.button.classList.contains("chosen"); })[0];
  if (start) {
    offer([start], start.text);
    choose(start);
  }

  form.addEventListener("click", function (event) {
    var button = event.target.closest ? event.target.closest("button[data-move]") : null;
    if (!button) {
      return;
    }
    var move = moves.filter(function (m) { return m.button === button; })[0];
    if (confirmMoves) {
      event.preventDefault();  // shown and confirmed first
      choose(move);
    } else {
      chosen = move.text;
    }
  });
  confirmButton.addEventListener("click", function (event) {
    if (!confirmButton.value) {
      event.preventDefault();
    }
  });
  cancel.addEventListener("click", function () {
    choose(null);
  });
  showAll.addEventListener("click", function () {
    reset();
    choose(null);
    offer(moves, WORDS.every);
  });
  document.addEventListener("keydown", function (event) {
    if (event.key === "Escape" && chosen) {
      choose(null);
    }
  });
  document.addEventListener("click", function (event) {
    var target = event.target.closest ? event.target.closest("button") : null;
    if (!target || form.contains(target)) {
      return;
    }
    if (target.hasAttribute("data-card")) {
      choose(null);
      onCard(target.getAttribute("data-card"));
    } else if (target.hasAttribute("data-deck")) {
      choose(null);
      onDeck(target.getAttribute("data-deck"));
    } else if (target.hasAttribute("data-token") && target.closest("#bank")) {
      choose(null);
      onPile(target.getAttribute("data-token"));
    } else if (target.hasAttribute("data-noble") || target.hasAttribute("data-location")) {
      onTile(target.getAttribute("data-noble") || target.getAttribute("data-location"));
    } else {
      return;
    }
    keepAbovePanel(target);
  });
})();
