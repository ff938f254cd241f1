// The sign-up form's hidden time zone, from the browser: an IANA name such as
// "Europe/Rome". The server keeps it only if the time zone database knows it;
// without it (no script, an old browser) the account starts in UTC. Either way
// the person sees it in Settings and can change it there.
(function () {
  "use strict";
  var field = document.getElementById("id_time_zone");
  if (!field || field.value) {
    return;
  }
  try {
    var zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
    if (typeof zone === "string") {
      field.value = zone;
    }
  } catch (ignored) {
    // No Intl: the account starts in UTC.
  }
})();
