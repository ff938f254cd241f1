// Registers the site's service worker (/sw.js, front.pwa: push notifications,
// and the last board of each game kept for reading offline). Where the browser
// has no service workers, or the page is not on https (or localhost), nothing
// happens. A page opened before the worker controlled it (the first visit) asks
// it to keep the page and its files now, rather than from the next visit on.
(function () {
  "use strict";
  var script = document.currentScript;
  var address = script && script.getAttribute("data-service-worker");
  if (!address || !window.isSecureContext || !("serviceWorker" in navigator)) {
    return;
  }
  var controlled = Boolean(navigator.serviceWorker.controller);
  navigator.serviceWorker.register(address).then(function () {
    return navigator.serviceWorker.ready;
  }).then(function (registration) {
    if (controlled || !registration.active) {
      return;
    }
    var urls = [window.location.pathname];
    var files = document.querySelectorAll('link[rel="stylesheet"][href], script[src]');
    for (var i = 0; i < files.length; i++) {
      urls.push(files[i].getAttribute("href") || files[i].getAttribute("src"));
    }
    registration.active.postMessage({ type: "keep", urls: urls });
  }).catch(function () {
    // Refused (a browser setting, private mode): the page works as before.
  });
})();
