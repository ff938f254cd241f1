// The settings page's "Push notifications on this device" (front/_push_device.html):
// shown only where the browser has service workers and push; on a page that is
// not a secure context (http other than localhost) it says push needs https.
// "Turn on": the browser's permission, the site's public key (GET the key
// address), a subscription of the site's service worker (/sw.js, front.pwa),
// sent to the account (POST, with the session and its CSRF token). "Turn off":
// the same subscription sent again gives its id (the POST is idempotent), which
// is deleted, and the browser unsubscribes. Words come from data-words (JSON).
(function () {
  "use strict";
  var box = document.getElementById("push-device");
  if (!box) {
    return;
  }
  var words = {};
  try {
    words = JSON.parse(box.getAttribute("data-words") || "{}");
  } catch (e) {
    words = {};
  }
  var state = document.getElementById("push-device-state");
  var actions = document.getElementById("push-device-actions");
  var onButton = document.getElementById("push-device-on");
  var offButton = document.getElementById("push-device-off");
  var tokenField = box.querySelector('input[name="csrfmiddlewaretoken"]');

  // `hidden` alone loses to the page's `button` and `.actions` display rules.
  function shown(element, visible) {
    element.hidden = !visible;
    element.style.display = visible ? "" : "none";
  }

  if (!window.isSecureContext) {
    shown(actions, false);
    shown(document.getElementById("push-device-insecure"), true);
    shown(box, true);
    return;
  }
  if (!("serviceWorker" in navigator) || !("PushManager" in window) || !("Notification" in window)) {
    return;  // no push in this browser: nothing to offer
  }
  shown(offButton, false);
  shown(box, true);

  function say(key) {
    state.textContent = words[key] || "";
  }

  function show(subscribed) {
    shown(onButton, !subscribed);
    shown(offButton, subscribed);
    onButton.disabled = false;
    offButton.disabled = false;
    say(subscribed ? "on" : "off");
  }

  function failed(reason) {
    onButton.disabled = false;
    offButton.disabled = false;
    say(reason && reason.key ? reason.key : "failed");
  }

  function refusal(key) {
    return { key: key };
  }

  function registration() {
    return navigator.serviceWorker.register(box.getAttribute("data-service-worker")).then(function () {
      return navigator.serviceWorker.ready;
    });
  }

  // The key as the push manager takes it: the bytes of its unpadded url-safe base64.
  function keyBytes(text) {
    var base64 = (text + "===".slice((text.length + 3) % 4)).replace(/-/g, "+").replace(/_/g, "/");
    var raw = window.atob(base64);
    var bytes = new Uint8Array(raw.length);
    for (var i = 0; i < raw.length; i++) {
      bytes[i] = raw.charCodeAt(i);
    }
    return bytes;
  }

  function send(method, address, body) {
    var headers = { Accept: "application/json", "X-CSRFToken": tokenField ? tokenField.value : "" };
    if (body) {
      headers["Content-Type"] = "application/json";
    }
    return window.fetch(address, {
      method: method,
      headers: headers,
      credentials: "same-origin",
      body: body ? JSON.stringify(body) : undefined,
    }).then(function (response) {
      if (!response.ok) {
        throw refusal("failed");
      }
      return response.status === 204 ? null : response.json();
    });
  }

  function turnOn() {
    onButton.disabled = true;
    say("working");
    var permission = Notification.permission === "granted"
      ? Promise.resolve("granted")
      : Promise.resolve(Notification.requestPermission());
    permission.then(function (answer) {
      if (answer !== "granted") {
        throw refusal("denied");
      }
      return window.fetch(box.getAttribute("data-key-url"), { headers: { Accept: "application/json" }, credentials: "same-origin" });
    }).then(function (response) {
      if (!response.ok) {
        throw refusal("unavailable");
      }
      return response.json();
    }).then(function (answer) {
      if (!answer || !answer.public_key) {
        throw refusal("unavailable");
      }
      return registration().then(function (reg) {
        return reg.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: keyBytes(answer.public_key) });
      });
    }).then(function (subscription) {
      return send("POST", box.getAttribute("data-subscriptions-url"), subscription.toJSON());
    }).then(function () {
      show(true);
    }).catch(failed);
  }

  function turnOff() {
    offButton.disabled = true;
    say("working");
    var address = box.getAttribute("data-subscriptions-url");
    registration().then(function (reg) {
      return reg.pushManager.getSubscription();
    }).then(function (subscription) {
      if (!subscription) {
        return null;
      }
      return send("POST", address, subscription.toJSON()).then(function (saved) {
        return send("DELETE", address + encodeURIComponent(saved.id) + "/");
      }).then(function () {
        return subscription.unsubscribe();
      });
    }).then(function () {
      show(false);
    }).catch(function () {
      failed(refusal("off_failed"));
    });
  }

  onButton.addEventListener("click", turnOn);
  offButton.addEventListener("click", turnOff);
  registration().then(function (reg) {
    return reg.pushManager.getSubscription();
  }).then(function (subscription) {
    show(Boolean(subscription) && Notification.permission === "granted");
  }).catch(function () {
    show(false);
  });
})();
