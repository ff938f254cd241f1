// The game page works without this file. With it: the page redraws itself when
// the game moves on (a small poll of /games/<id>/version while the page is
// visible, with If-None-Match), keeping the move being chosen if it is still
// legal; and tapping a card or a token pile lists only the moves with it.
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

  // What the player was choosing before a redraw, if it is still on the list.
  var kept = stored(storeKey);
  store(storeKey, null);
  if (kept) {
    var radios = document.querySelectorAll('input[name="move"]');
    for (var i = 0; i < radios.length; i += 1) {
      if (radios[i].value === kept) {
        radios[i].checked = true;
      }
    }
  }

  function redraw() {
    if (redrawing) {
      return;
    }
    redrawing = true;
    var checked = document.querySelector('input[name="move"]:checked');
    store(storeKey, checked ? checked.value : null);
    window.location.replace(pageUrl);
  }

  function poll() {
    if (document.visibilityState !== "visible" || redrawing) {
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

  if (root.getAttribute("data-over") !== "1") {
    window.setInterval(poll, POLL_MS);
    document.addEventListener("visibilitychange", poll);
  }

  // Tapping a card or a pile lists only the moves with it.
  var form = document.getElementById("move-form");
  var note = document.getElementById("move-filter");
  var label = document.getElementById("move-filter-label");
  var clear = document.getElementById("move-filter-clear");
  if (!form || !note || !label || !clear) {
    return;
  }

  function filter(test, what) {
    var moves = form.querySelectorAll(".move");
    var shown = 0;
    for (var i = 0; i < moves.length; i += 1) {
      var match = test(moves[i]);
      moves[i].hidden = !match;
      shown += match ? 1 : 0;
    }
    var groups = form.querySelectorAll(".move-group, fieldset");
    for (var j = 0; j < groups.length; j += 1) {
      groups[j].hidden = groups[j].querySelectorAll(".move:not([hidden])").length === 0;
    }
    label.textContent = what + " (" + shown + ")";
    note.hidden = false;
  }

  function showAll() {
    var hidden = form.querySelectorAll("[hidden]");
    for (var i = 0; i < hidden.length; i += 1) {
      hidden[i].hidden = false;
    }
    note.hidden = true;
  }

  clear.addEventListener("click", showAll);
  document.getElementById("board").addEventListener("click", function (event) {
    var target = event.target;
    var card = target.closest ? target.closest("[data-card]") : null;
    var pile = target.closest ? target.closest("[data-pile]") : null;
    if (card) {
      var id = card.getAttribute("data-card");
      filter(function (move) { return move.getAttribute("data-card") === id; }, "card " + id);
    } else if (pile) {
      var letter = pile.getAttribute("data-pile");
      filter(function (move) { return (move.getAttribute("data-take") || "").indexOf(letter) !== -1; }, "token " + letter);
    }
  });
})();
