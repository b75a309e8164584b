// The waiting page of Play now: counts down each second, and asks the
// server every second and a half whether a game was found. The page works
// without it (it then refreshes itself every 2 s).
(() => {
  "use strict";
  const card = document.querySelector(".play-now[data-status-url]");
  if (!card) return;
  const shown = card.querySelector(".play-now-seconds");
  const offered = card.querySelector(".play-now-offer") !== null;
  let left = Number(card.dataset.secondsLeft);
  const clock = (seconds) => `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, "0")}`;
  setInterval(() => {
    if (shown && left > 0) {
      left -= 1;
      shown.textContent = clock(left);
    }
  }, 1000);
  const ask = async () => {
    try {
      const answer = await fetch(card.dataset.statusUrl, { headers: { Accept: "application/json" } });
      if (answer.ok) {
        const status = await answer.json();
        if (status.state !== "waiting") {
          window.location.assign(status.url);
          return;
        }
        // The offer (or its end) is drawn by the server: the page is asked again.
        if (status.offer !== offered) {
          window.location.reload();
          return;
        }
        left = status.seconds_left;
      }
    } catch {
      // A dropped request: the next one asks again.
    }
    setTimeout(ask, 1500);
  };
  setTimeout(ask, 1500);
})();
