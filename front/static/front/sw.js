// The site's service worker, served at /sw.js by front.pwa with its scope the
// whole site; the view puts `const SITE = {static_url, icon}` on the line above.
//
// - Push: a message of the push service ({kind, game_id, version, title, body,
//   url}) becomes a notification, one per game (a newer turn replaces the older);
//   a click focuses a tab already on that game, else opens it.
// - Offline reading: a game page answered with a Board-Cache-Key header (the
//   server's per-account name, never a token) is kept in that account's cache,
//   under its path; the page's styles and scripts in a shared cache (they are
//   public). Network first: only when the network fails is the kept page shown,
//   with its "offline" banner uncovered, its scripts taken out (nothing to poll)
//   and every control disabled (moves need the network).
// - Logging out answers `Clear-Site-Data: "storage"`: the browser drops these
//   caches and this worker with them.
"use strict";

var ASSETS = "assets";
var BOARDS = "boards-";  // + the account's key
var ACCOUNT = "account";  // the key of the account whose game page came last
var ACCOUNT_ENTRY = "/account-of-the-last-board";
var KEY = /^[0-9a-f]{16,64}$/;

self.addEventListener("install", function () {
  self.skipWaiting();
});

self.addEventListener("activate", function (event) {
  event.waitUntil(self.clients.claim());
});

// --- push ------------------------------------------------------------------------

function sameOrigin(address) {
  try {
    var url = new URL(address || "/", self.location.origin);
    return url.origin === self.location.origin ? url.href : self.location.origin + "/";
  } catch (e) {
    return self.location.origin + "/";
  }
}

self.addEventListener("push", function (event) {
  var data = {};
  try {
    data = event.data ? event.data.json() : {};
  } catch (e) {
    data = { body: event.data ? event.data.text() : "" };
  }
  var title = data.title || "Splendor by post";
  var options = {
    body: data.body || "",
    tag: data.game_id ? "game-" + data.game_id : "splendor",
    renotify: true,
    icon: SITE.icon,
    data: { url: sameOrigin(data.url), kind: data.kind || "", game_id: data.game_id || "", version: data.version },
  };
  event.waitUntil(self.registration.showNotification(title, options));
});

self.addEventListener("notificationclick", function (event) {
  event.notification.close();
  var target = sameOrigin(event.notification.data && event.notification.data.url);
  event.waitUntil(
    self.clients.matchAll({ type: "window", includeUncontrolled: true }).then(function (windows) {
      for (var i = 0; i < windows.length; i++) {
        if (windows[i].url.split("#")[0] === target && "focus" in windows[i]) {
          return windows[i].focus();
        }
      }
      return self.clients.openWindow ? self.clients.openWindow(target) : undefined;
    })
  );
});

// --- the last board of each game, for reading offline ------------------------------

function pathOf(address) {
  var url = new URL(address, self.location.origin);
  return self.location.origin + url.pathname;
}

function currentAccount() {
  return caches.open(ACCOUNT).then(function (cache) {
    return cache.match(ACCOUNT_ENTRY);
  }).then(function (entry) {
    return entry ? entry.text() : "";
  });
}

// Keeps `response` (a fresh copy) if it is a game page of an account.
function keepBoard(address, response) {
  var key = response.headers.get("Board-Cache-Key") || "";
  if (response.status !== 200 || !KEY.test(key)) {
    return Promise.resolve();
  }
  return Promise.all([
    caches.open(BOARDS + key).then(function (cache) {
      return cache.put(pathOf(address), response);
    }),
    caches.open(ACCOUNT).then(function (cache) {
      return cache.put(ACCOUNT_ENTRY, new Response(key));
    }),
  ]);
}

function keepAsset(request, response) {
  if (response.status !== 200) {
    return Promise.resolve();
  }
  return caches.open(ASSETS).then(function (cache) {
    return cache.put(request, response);
  });
}

// The kept page as it reads offline: the banner shown, no scripts, no controls.
function offlineCopy(kept) {
  return kept.text().then(function (html) {
    html = html
      .replace('id="offline-banner" hidden', 'id="offline-banner"')
      .replace(/<script\b[^>]*>[\s\S]*?<\/script>/gi, "")
      .replace(/<(button|input|select|textarea)\b/gi, "<$1 disabled")
      .replace("</head>", "<style>:disabled{opacity:.55;cursor:not-allowed}</style></head>");
    var headers = new Headers(kept.headers);
    headers.delete("Content-Length");
    return new Response(html, { status: 200, statusText: "OK", headers: headers });
  });
}

function keptBoard(address) {
  return currentAccount().then(function (key) {
    if (!KEY.test(key)) {
      return null;
    }
    return caches.open(BOARDS + key).then(function (cache) {
      return cache.match(pathOf(address), { ignoreVary: true });
    });
  }).then(function (kept) {
    return kept ? offlineCopy(kept) : null;
  });
}

// A page of a signed-in account names it: from then on only its boards are shown
// offline (a game link's page names its seat's account with Board-Cache-Key).
function noteAccount(response) {
  var key = response.headers.get("Board-Cache-Account") || "";
  if (!KEY.test(key)) {
    return Promise.resolve();
  }
  return caches.open(ACCOUNT).then(function (cache) {
    return cache.put(ACCOUNT_ENTRY, new Response(key));
  });
}

function page(event) {
  var request = event.request;
  return fetch(request).then(function (response) {
    if (response.status >= 502 && response.status <= 504) {
      // The site is down behind its proxy: as good as offline.
      return keptBoard(request.url).then(function (kept) {
        return kept || response;
      });
    }
    var copy = response.clone();
    event.waitUntil(noteAccount(response).then(function () {
      return keepBoard(request.url, copy);
    }));
    return response;
  }, function () {
    return keptBoard(request.url).then(function (kept) {
      return kept || Response.error();
    });
  });
}

function asset(event) {
  var request = event.request;
  return fetch(request).then(function (response) {
    event.waitUntil(keepAsset(request, response.clone()));
    return response;
  }, function () {
    return caches.open(ASSETS).then(function (cache) {
      return cache.match(request, { ignoreVary: true });
    }).then(function (kept) {
      return kept || Response.error();
    });
  });
}

self.addEventListener("fetch", function (event) {
  var request = event.request;
  if (request.method !== "GET") {
    return;
  }
  var url = new URL(request.url);
  if (url.origin !== self.location.origin) {
    return;
  }
  if (request.mode === "navigate") {
    event.respondWith(page(event));
  } else if (url.pathname.indexOf(SITE.static_url) === 0) {
    event.respondWith(asset(event));
  }
});

// A page opened before this worker controlled it asks for itself and its files
// to be kept: {type: "keep", urls: [...]} (games/static/games/site_worker.js).
self.addEventListener("message", function (event) {
  var data = event.data || {};
  if (data.type !== "keep" || !Array.isArray(data.urls)) {
    return;
  }
  event.waitUntil(Promise.all(data.urls.slice(0, 20).map(function (address) {
    var url;
    try {
      url = new URL(address, self.location.origin);
    } catch (e) {
      return null;
    }
    if (url.origin !== self.location.origin) {
      return null;
    }
    var isAsset = url.pathname.indexOf(SITE.static_url) === 0;
    return fetch(url.href, { credentials: "same-origin", cache: isAsset ? "default" : "no-store" }).then(function (response) {
      return isAsset ? keepAsset(new Request(url.href), response) : keepBoard(url.href, response);
    }).catch(function () {
      return null;
    });
  })));
});
